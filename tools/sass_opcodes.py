"""Static SASS opcode counts per kernel of ``cuobjdump -sass`` output, for the conversion checks on the GPU.

The emitted conversions are straight-line code, so a kernel's static count
of an opcode is what each thread executes.  Kernels are named ``k<i>`` (the
check program's plans) or ``k_<name>`` (the timing harness' variants); other
functions are skipped.  Standard library only: it also runs on the GPU
machine (``tools/convert_costmodel_run.sh``).

    python3 tools/sass_opcodes.py sass_check.txt [sass_timing.txt ...] > sass.json
"""

from __future__ import annotations

import json
import re
import sys

SASS_OPS = ("SHFL", "STS", "LDS", "STSM", "LDSM", "BAR", "WARPSYNC", "SEL", "PRMT", "STL", "LDL", "BRA")

_KERNEL = re.compile(r"Function : _Z\d+(k\d+|k_\w+?)(?:jPj|Pjj)")
_OPCODE = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)")


def sass_counts(text: str) -> dict[str, dict[str, int]]:
    """Per kernel (``k<i>`` or ``k_<name>``), the count of each opcode of :data:`SASS_OPS`."""
    out: dict[str, dict[str, int]] = {}
    cur = None
    for line in text.splitlines():
        m = _KERNEL.search(line)
        if m:
            cur = m.group(1)
            out[cur] = dict.fromkeys(SASS_OPS, 0)
            continue
        if "Function :" in line:
            cur = None
        if cur is None:
            continue
        m = _OPCODE.search(line)
        if m and m.group(1) in out[cur]:
            out[cur][m.group(1)] += 1
    return out


def main(paths: list[str]) -> int:
    out: dict[str, dict[str, int]] = {}
    for path in paths:
        with open(path) as f:
            out.update(sass_counts(f.read()))
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
