"""Count the shared-memory instructions of a PTX text or a SASS listing (no Triton needed).

Used by ptx_counts.py (Triton 3.9 on the CPU) and measure_ncu.py (the GPU machine's Triton).

- :func:`count_ptx`: per family (``st.shared``, ``ld.shared``, ``stmatrix``, ``ldmatrix``, ``shfl.sync``,
  ``bar.sync``, ``atom.shared``, ``red.shared``, ``cp.async``, and for context ``atom.global``,
  ``red.global``, ``cp.async.commit_group``/``wait_group``, ``cp.async.bulk``, ``wgmma.mma_async``,
  ``mbarrier``, ``fence.proxy.async``, ``bar.warp.sync``): ``total`` (static count), ``in_loop`` (how many
  lie between a backward branch and its target), ``by_opcode`` and ``by_bits`` (bits one thread moves).
- :func:`count_sass`: the same by SASS family (LDS, STS, LDSM, STSM, SHFL, BAR, ATOMS, LDGSTS, ...).
- :func:`ttgir_ops`: how many times each ``tt``/``ttg``/``ttng``/``scf`` op occurs in a TTGIR text.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import NamedTuple

SHARED_FAMILIES = ("st.shared", "ld.shared", "stmatrix", "ldmatrix", "shfl.sync", "bar.sync", "atom.shared",
                   "red.shared", "cp.async")
CONTEXT_FAMILIES = ("atom.global", "red.global", "cp.async.commit_group", "cp.async.wait_group", "cp.async.bulk",
                    "wgmma.mma_async", "mbarrier", "fence.proxy.async", "bar.warp.sync")
TYPE_BITS = {"b8": 8, "u8": 8, "s8": 8, "b16": 16, "u16": 16, "s16": 16, "f16": 16, "bf16": 16, "f16x2": 32,
             "bf16x2": 32, "b32": 32, "u32": 32, "s32": 32, "f32": 32, "b64": 64, "u64": 64, "s64": 64, "f64": 64,
             "b128": 128}
PTX_FILE = re.compile(r'^\s*\.file\s+(\d+)\s+"([^"]+)"')
PTX_LOC = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)(?:\s+\d+)?(?:,.*?inlined_at\s+(\d+)\s+(\d+))?")
LABEL = re.compile(r"^(\$?[A-Za-z_][\w$]*):")
TTGIR_OP = re.compile(r"^\s*(?:[%\w#:,\s]+=\s*)?\"?((?:tt|ttg|ttng|scf|gpu|nvvm)\.[a-z_][\w.]*)")


class Statement(NamedTuple):
    """One PTX instruction: its opcode (predicate dropped) and its operand text."""

    opcode: str
    operands: str
    loc: str = ""


def ptx_statements(ptx: str) -> list[Statement | str]:
    """The instructions of a PTX text in order; a label is given as its name (a plain string).

    Each instruction carries the kernel source line it was lowered from (``FILE:LINE``): the PTX ``.loc``
    before it, or the ``inlined_at`` site of that ``.loc`` (or the kernel line in its comment) when the
    ``.loc`` points into Triton's own library (``tl.sum`` is written in ``standard.py``), or else the last
    kernel line seen."""
    files = {m.group(1): m.group(2).rsplit("/", 1)[-1] for m in map(PTX_FILE.match, ptx.splitlines()) if m}
    out: list[Statement | str] = []
    loc = ""
    for raw in ptx.splitlines():
        line = raw.split("//", 1)[0]
        directive = PTX_LOC.match(line)
        if directive:
            loc = kernel_loc(directive, files) or comment_loc(raw) or loc
            continue
        if PTX_FILE.match(line):
            continue
        for stmt in line.split(";"):
            stmt = stmt.strip().strip("{}").strip()
            label = LABEL.match(stmt)
            if label:
                out.append(label.group(1))
                stmt = stmt[label.end():].strip()
            if not stmt or stmt.startswith(".") or stmt.startswith(")") or stmt.startswith("("):
                continue
            if stmt.startswith("@"):
                stmt = stmt.split(None, 1)[1] if " " in stmt else ""
            parts = stmt.split(None, 1)
            if parts and re.match(r"^[a-z][\w.:]*$", parts[0]):
                out.append(Statement(parts[0], parts[1] if len(parts) > 1 else "", loc))
    return out


def comment_loc(raw: str) -> str | None:
    """The kernel line in a ``.loc`` comment's inlining chain (Triton 3.6 writes ``// standard.py:293:36 @[
    kernels_smem.py:40:23 ]`` where 3.9 writes ``inlined_at``), or None."""
    site = re.search(r"@\[\s*(kernels\w*\.py):(\d+)", raw)
    return f"{site.group(1)}:{site.group(2)}" if site else None


def kernel_loc(directive: re.Match, files: dict[str, str]) -> str | None:
    """``FILE:LINE`` of a ``.loc`` in a corpus file (``kernels*.py``), itself or where it was inlined, or None."""
    sites = [(directive.group(1), directive.group(2))]
    if directive.group(3):
        sites.append((directive.group(3), directive.group(4)))
    for file, line in sites:
        name = files.get(file, file)
        if name.startswith("kernels"):
            return f"{name}:{line}"
    return None


def family(opcode: str) -> str | None:
    """The instruction family an opcode belongs to (see the module docstring), or None."""
    parts = opcode.split(".")
    spaces = {p.split("::")[0] for p in parts[1:]}
    if parts[0] in ("st", "ld", "atom", "red"):
        for space in ("shared", "global"):
            if space in spaces:
                return f"{parts[0]}.{space}"
        return None
    if parts[0] in ("stmatrix", "ldmatrix"):
        return parts[0]
    if opcode.startswith("shfl.sync"):
        return "shfl.sync"
    if opcode.startswith("bar.warp.sync"):
        return "bar.warp.sync"
    if parts[0] in ("bar", "barrier") and len(parts) > 1 and parts[1] == "sync":
        return "bar.sync"
    if opcode.startswith("cp.async.bulk"):
        return "cp.async.bulk"
    for name in ("cp.async.commit_group", "cp.async.wait_group", "wgmma.mma_async", "fence.proxy.async"):
        if opcode.startswith(name):
            return name
    if opcode.startswith("cp.async"):
        return "cp.async"
    if parts[0] == "mbarrier":
        return "mbarrier"
    return None


def access_bits(opcode: str, operands: str) -> int | None:
    """Bits one thread moves with one ld/st/atom/red.shared (vector width x element type), else None."""
    parts = opcode.split(".")
    vec = next((int(p[1:]) for p in parts if re.fullmatch(r"v[248]", p)), 1)
    bits = next((TYPE_BITS[p] for p in reversed(parts) if p in TYPE_BITS), None)
    if opcode.startswith("cp.async") and not opcode.startswith("cp.async.bulk"):
        size = re.search(r",\s*(0x[0-9a-fA-F]+|\d+)\s*(?:,|$)", operands)
        return int(size.group(1), 0) * 8 if size else None
    return vec * bits if bits else None


def loop_spans(stmts: list[Statement | str]) -> list[tuple[int, int]]:
    """(first, last) statement index of every PTX loop: a branch back to a label at or before it."""
    where = {s: i for i, s in enumerate(stmts) if isinstance(s, str)}
    spans = []
    for i, s in enumerate(stmts):
        if isinstance(s, Statement) and s.opcode.startswith("bra"):
            target = s.operands.strip().rstrip(";").strip()
            if target in where and where[target] <= i:
                spans.append((where[target], i))
    return spans


def count_ptx(ptx: str) -> dict:
    """Per family: total, in_loop, by_opcode, by_bits (see the module docstring); and ``by_loc``: per source
    line (``FILE:LINE`` of the PTX ``.loc``, the op Triton lowered), the shared-memory families' counts."""
    stmts = ptx_statements(ptx)
    spans = loop_spans(stmts)
    table: dict[str, dict] = {}
    by_loc: dict[str, Counter] = {}
    for i, s in enumerate(stmts):
        if not isinstance(s, Statement):
            continue
        fam = family(s.opcode)
        if fam is None:
            continue
        row = table.setdefault(fam, {"total": 0, "in_loop": 0, "by_opcode": Counter(), "by_bits": Counter()})
        row["total"] += 1
        row["in_loop"] += any(a <= i <= b for a, b in spans)
        row["by_opcode"][s.opcode] += 1
        if fam in SHARED_FAMILIES:
            by_loc.setdefault(s.loc or "?", Counter())[fam] += 1
        bits = access_bits(s.opcode, s.operands)
        if bits and fam not in ("bar.sync", "shfl.sync", "ldmatrix", "stmatrix"):
            row["by_bits"][str(bits)] += 1
    for row in table.values():
        row["by_opcode"] = dict(sorted(row["by_opcode"].items()))
        row["by_bits"] = dict(sorted(row["by_bits"].items(), key=lambda kv: int(kv[0])))
    order = SHARED_FAMILIES + CONTEXT_FAMILIES
    locs = {loc: dict(sorted(c.items())) for loc, c in sorted(by_loc.items(), key=lambda kv: loc_key(kv[0]))}
    return {"loops": len(spans), "families": {f: table[f] for f in order if f in table}, "by_loc": locs}


def loc_key(loc: str) -> tuple[str, int]:
    file, _, line = loc.rpartition(":")
    return (file, int(line) if line.isdigit() else 0)


SASS_FAMILIES = ("LDS", "STS", "LDSM", "STSM", "SHFL", "BAR", "ATOMS", "LDGSTS", "LDGDEPBAR", "DEPBAR", "ATOMG",
                 "ATOM", "RED", "REDG", "UTMALDG", "UTMASTG", "HGMMA", "WARPGROUP", "SYNCS")
SASS_PREFIX = re.compile(r"^\s*(?:[0-9a-f-]{2}:[0-9a-f-]:[0-9a-f-]:[A-Za-z-]:[0-9a-f]\s+|/\*[0-9a-f]+\*/\s+)")
SASS_LABEL = re.compile(r"^\s*(\.?L[\w.]*|LBB\d+):\s*$")
SASS_OP = re.compile(r"^(@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_.]*)(.*)$")


def sass_statements(sass: str) -> list[Statement | str]:
    """The instructions of a SASS listing (cuobjdump or nvdisasm style) in order; labels as plain strings.

    An instruction predicated ``@!PT`` (never true) is dropped: ptxas pads with ``@!PT LDS RZ, [RZ]``, which
    no thread executes."""
    out: list[Statement | str] = []
    for line in sass.splitlines():
        label = SASS_LABEL.match(line)
        if label:
            out.append(label.group(1))
            continue
        prefix = SASS_PREFIX.match(line)
        if not prefix:
            continue
        op = SASS_OP.match(line[prefix.end():].strip())
        if op and (op.group(1) or "").strip() != "@!PT":
            operands = op.group(3).split(";")[0].strip()
            out.append(Statement(op.group(2), operands))
    return out


def count_sass(sass: str) -> dict:
    """Per SASS family (LDS, STS, LDSM, ...): total, in_loop and by_opcode, as count_ptx does for PTX."""
    stmts = sass_statements(sass)
    where = {s: i for i, s in enumerate(stmts) if isinstance(s, str)}
    spans = []
    for i, s in enumerate(stmts):
        if isinstance(s, Statement) and s.opcode.split(".")[0] == "BRA":
            target = s.operands.split(",")[-1].strip().strip("`()")
            if target in where and where[target] < i - 1:
                spans.append((where[target], i))
    table: dict[str, dict] = {}
    for i, s in enumerate(stmts):
        if not isinstance(s, Statement) or s.opcode.split(".")[0] not in SASS_FAMILIES:
            continue
        row = table.setdefault(s.opcode.split(".")[0], {"total": 0, "in_loop": 0, "by_opcode": Counter()})
        row["total"] += 1
        row["in_loop"] += any(a <= i <= b for a, b in spans)
        row["by_opcode"][s.opcode] += 1
    for row in table.values():
        row["by_opcode"] = dict(sorted(row["by_opcode"].items()))
    return {"loops": len(spans), "families": {f: table[f] for f in SASS_FAMILIES if f in table}}


def compiled_sass(kernel) -> dict | None:
    """SASS family counts of a compiled kernel (Triton disassembles its cubin), or None where it cannot."""
    try:
        return count_sass(kernel.asm["sass"])
    except Exception:  # noqa: BLE001 - no disassembler: the PTX counts still stand
        return None


def ttgir_ops(ttgir: str) -> dict[str, int]:
    """How many times each tt/ttg/ttng/scf op occurs in a TTGIR text."""
    ops = Counter(m.group(1) for line in ttgir.splitlines() if (m := TTGIR_OP.match(line)))
    return dict(sorted(ops.items()))
