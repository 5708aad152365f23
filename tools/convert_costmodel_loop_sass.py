"""Opcodes of one iteration of each timing kernel's loop, from ``cuobjdump -sass`` of the cost-model harness.

The harness (``tools/convert_costmodel_harness.py --unroll 1``) runs the
conversion in a loop that the compiler may not unroll, so the SASS between
the loop's backward branch and its target is exactly one iteration: the
conversion, the harness's own work (the XOR of the sources, the checksum of
the destinations, the barrier the caller owes) and the loop's counter and
branch.  Its opcode counts are what each thread executes per conversion --
the instructions the hardware really issued, an *oracle* for the cost model
(``tools/convert_costmodel_candidates.py``), and a check that the emitted
code runs the plan's shuffles, shared-memory instructions and barriers.

A kernel's loop is its backward branch with the widest span (branches to
themselves, the exit trap, are not loops).  Opcodes are the mnemonic
without modifiers (``SHFL.IDX`` counts as ``SHFL``).  Standard library only:
it runs on the GPU machine too.

    python3 tools/convert_costmodel_loop_sass.py sass_timing.txt[.gz] > loop_sass.json
"""

from __future__ import annotations

import gzip
import json
import re
import sys

_KERNEL = re.compile(r"Function : _Z\d+(k_\w+?)(?:jPj|Pjj)")
_LINE = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)([^;]*);")
_TARGET = re.compile(r"0x([0-9a-f]+)")


def instructions(text: str) -> dict[str, list[tuple[int, str, int | None]]]:
    """Per timing kernel (``k_<name>``): (address, opcode, branch target or None) of every instruction."""
    out: dict[str, list[tuple[int, str, int | None]]] = {}
    cur = None
    for line in text.splitlines():
        m = _KERNEL.search(line)
        if m:
            cur = m.group(1)
            out[cur] = []
            continue
        if "Function :" in line:
            cur = None
        if cur is None:
            continue
        m = _LINE.search(line)
        if m:
            target = None
            if m.group(2) == "BRA":
                t = _TARGET.search(m.group(3))
                target = int(t.group(1), 16) if t else None
            out[cur].append((int(m.group(1), 16), m.group(2), target))
    return out


def loop_body(code: list[tuple[int, str, int | None]]) -> dict[str, int]:
    """Opcode counts between the widest backward branch and its target (both included); empty without a loop."""
    loops = [(addr - target, target, addr) for addr, op, target in code
             if op == "BRA" and target is not None and target < addr]
    if not loops:
        return {}
    _, start, end = max(loops)
    counts: dict[str, int] = {}
    for addr, op, _ in code:
        if start <= addr <= end:
            counts[op] = counts.get(op, 0) + 1
    return dict(sorted(counts.items()))


def main(paths: list[str]) -> int:
    out: dict[str, dict[str, int]] = {}
    for path in paths:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt") as f:
            out.update({k: loop_body(code) for k, code in instructions(f.read()).items()})
    print(json.dumps(out, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
