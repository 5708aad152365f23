"""Read a TTGIR module's text: aliases, operations, their types, source locations and loops.

This is a reader of what Triton prints (``kernel.asm["ttgir"]``,
``MLIR_ENABLE_DUMP=1``, ``TRITON_KERNEL_DUMP=1``), pretty or generic form,
not a full MLIR parser: one operation per line, ``#name = ...`` aliases,
regions by braces.  Each :class:`Op` keeps its result and operand value
names, its types (parsed where they are tensors or memdescs), its source
location (resolved through ``#loc`` aliases) and the ``scf.for`` loops that
enclose it.

>>> m = parse_module('''
... #blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
... module attributes {"ttg.num-warps" = 4 : i32} {
...   %0 = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32, #blocked> loc(#loc1)
... }
... #loc1 = loc("k.py":3:8)
... ''')
>>> m.num_warps, m.ops[0].name, m.ops[0].location, m.ops[0].result_types[0].shape
(4, 'tt.make_range', 'k.py:3:8', (128,))
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache, partial
from typing import Any

from ...core.validate import check_str
from ...lower.ir import Loop, Module, Op, UnreadType
from .attributes import (
    Attr,
    TTGIRError,
    parse_attribute,
    parse_type,
    split_top,
)

__all__ = ["parse_module"]


def is_ttgir_text(text: str) -> bool:
    """Whether ``text`` looks like TTGIR (a module or an attribute), not JSON."""
    s = text.lstrip()
    return s.startswith("#") or s.startswith("module") or s.startswith('"builtin.module"') or "#ttg." in s[:2000]


_ALIAS = re.compile(r"^\s*(#[\w.$-]+)\s*=\s*(.*)$")


def _strip_loc(line: str) -> tuple[str, str | None]:
    """Split a trailing ``loc(...)`` off a line."""
    i = line.rfind(" loc(")
    if i < 0:
        return line, None
    depth = 0
    for j in range(i + 5, len(line)):
        c = line[j]
        if c == "(":
            depth += 1
        elif c == ")":
            if depth == 0:
                if line[j + 1:].strip() == "":
                    return line[:i], line[i + 5:j]
                return line, None
            depth -= 1
    return line, None


_FILE_LINE_COL = re.compile(r'^"([^"]*)":(\d+):(\d+)')
_CALLSITE = re.compile(r"^callsite\((.*) at (.*)\)$")
_NAMED_LOC = re.compile(r'^"[^"]*"\((.*)\)$')
_FUSED = re.compile(r"^fused\[(.*?)[,\]]")


def _resolve_loc(ref: str | None, locs: dict[str, str], depth: int = 0) -> str:
    if ref is None or depth > 20:
        return "unknown"
    ref = ref.strip()
    if ref.startswith("#"):
        return _resolve_loc(locs.get(ref), locs, depth + 1)
    m = _FILE_LINE_COL.match(ref)
    if m:
        return f"{m.group(1)}:{m.group(2)}:{m.group(3)}"
    m = _CALLSITE.match(ref)
    if m:  # the caller: the line of the kernel that called the inlined function
        return _resolve_loc(m.group(2), locs, depth + 1)
    m = _NAMED_LOC.match(ref)  # a named location "x"(#loc3)
    if m:
        return _resolve_loc(m.group(1), locs, depth + 1)
    m = _FUSED.match(ref)
    if m:
        return _resolve_loc(m.group(1), locs, depth + 1)
    return "unknown"


def _types(sig: str, aliases: dict[str, Any], seen: dict[str, Any]) -> tuple[list[Any], list[Any]]:
    """Operand and result types of a signature ``(A, B) -> C``, ``A -> B`` or ``A``.

    ``seen`` remembers the types read so far in this module (its aliases are
    fixed): a kernel repeats a few types on most of its ops, and each is read
    once (the values are frozen, so sharing them is safe).
    """
    sig = sig.strip()
    parts = split_top(sig, "->")
    if len(parts) != 2:
        parts = split_top(sig, " to ")
    if len(parts) == 2:
        ins, outs = parts
    else:
        ins, outs = sig, sig
    def one(text: str) -> list[Any]:
        text = text.strip()
        if text.startswith("(") and text.endswith(")"):
            text = text[1:-1]
        out = []
        for t in split_top(text):
            if t.startswith("<") and t.endswith(">"):  # async_copy prints its memdesc result as <...>
                t = "!ttg.memdesc" + t
            if t.startswith("tensor<") or t.startswith("!ttg.memdesc<"):
                if t not in seen:
                    try:
                        seen[t] = parse_type(t, aliases)
                    except TTGIRError as e:
                        seen[t] = UnreadType(t, str(e))
                out.append(seen[t])
            else:
                out.append(t)
        return out
    return one(ins), one(outs)


def _signatures_once(aliases: dict[str, Any]) -> Callable[[str], tuple[list[Any], list[Any]]]:
    """:func:`_types` for one module, each distinct signature read once: a kernel repeats a few signatures on
    most of its ops (``: tensor<128x64xf32, #mma>``), and reading one splits its text several times. Each op
    gets lists of its own holding the shared (frozen) type values."""
    seen_types: dict[str, Any] = {}  # type text -> its value (see _types)
    read = cache(lambda sig: tuple(map(tuple, _types(sig, aliases, seen_types))))

    def types_of(sig: str) -> tuple[list[Any], list[Any]]:
        ins, outs = read(sig)
        return list(ins), list(outs)

    return types_of


_OPNAME = re.compile(r'^(?:"([\w.]+)"|([a-z_][\w]*\.[\w.]+))')
_RESULTS = re.compile(r"^((?:%[\w#:]+(?:,\s*)?)+)\s*=\s*(.*)$")
_OPERAND = re.compile(r"%[\w#]+")
_MODULE_ATTRIBUTES = re.compile(r"attributes\s*(\{.*\})\s*\{\s*$")


def parse_module(text: str) -> Module:
    """Read a TTGIR module (see the module docstring); raises :class:`TTGIRError` on what it cannot read."""
    lines = check_str(text, "TTGIR module text").splitlines()
    aliases: dict[str, Any] = {}
    locs: dict[str, str] = {}
    for ln in lines:
        m = _ALIAS.match(ln)
        if m and not ln.startswith(" "):
            name, value = m.group(1), m.group(2).strip()
            if value.startswith("loc("):
                locs[name] = value[4:-1] if value.endswith(")") else value
    for ln in lines:
        m = _ALIAS.match(ln)
        if m and not ln.startswith(" ") and not m.group(2).strip().startswith("loc("):
            try:
                aliases[m.group(1)] = parse_attribute(m.group(2), aliases)
            except TTGIRError as e:
                aliases[m.group(1)] = Attr("unreadable", {"error": str(e)}, (), m.group(2).strip())
    attributes: dict[str, Any] = {}
    ops: list[Op] = []
    loops: list[Loop] = []
    stack: list[int | None] = []  # per open region: the loop index it belongs to, or None
    owners: list[int | None] = []  # per open region: the index of the op that opened it
    types_of = _signatures_once(aliases)
    location = cache(partial(_resolve_loc, locs=locs))  # each #loc reference resolved once per module
    for lineno, raw in enumerate(lines, 1):
        s = raw.strip()
        if not s or s.startswith("//") or _ALIAS.match(raw) and not raw.startswith(" "):
            continue
        if s.startswith("module") or s.startswith('"builtin.module"'):
            m = _MODULE_ATTRIBUTES.search(s)
            if m:
                attributes = parse_attribute(m.group(1), aliases)
            stack.append(None)
            owners.append(None)
            continue
        if s.startswith("}"):
            body, loc = _strip_loc(s)
            closing = stack.pop() if stack else None
            owner = owners.pop() if owners else None
            if closing is not None:
                lp = loops[closing]
                loops[closing] = Loop(lp.index, lp.name, location(loc))
            if body.rstrip().endswith("{"):  # "} else {", "} do {"
                stack.append(closing if closing is not None and body.strip().startswith("} do") else None)
                owners.append(owner)
            elif owner is not None:  # generic form: "}) : (types) -> types loc(...)" closes the op
                tail = body.lstrip("}) ")
                parts = ["", tail[1:].strip()] if tail.startswith(":") else split_top(tail, " : ")
                if len(parts) >= 2 and not ops[owner].operand_types and not ops[owner].result_types:
                    ops[owner].operand_types, ops[owner].result_types = types_of(parts[-1])
                if ops[owner].location == "unknown" and loc:
                    ops[owner].location = location(loc)
            continue
        body, loc = _strip_loc(s)
        opens = body.rstrip().endswith("{")
        m = _RESULTS.match(body)
        results: list[str] = []
        rest = body
        if m:
            results = [r.strip().split(":")[0].split("#")[0] for r in m.group(1).split(",") if r.strip()]
            rest = m.group(2)
        nm = _OPNAME.match(rest)
        if not nm:
            if opens:
                stack.append(None)
                owners.append(None)
            continue
        name = nm.group(1) or nm.group(2)
        after = rest[nm.end():]
        sig_text = ""
        if not opens:
            parts = split_top(after, " : ")
            if len(parts) >= 2:
                sig_text = parts[-1]
                after = " : ".join(parts[:-1])
        operands = _OPERAND.findall(after)
        ins, outs = types_of(sig_text) if sig_text else ([], [])
        enclosing = [x for x in stack if x is not None]
        op = Op(name, results, operands, ins, outs, location(loc) if loc else "unknown", lineno, s,
                list(enclosing))
        ops.append(op)
        if opens:
            owners.append(len(ops) - 1)
            if name in ("scf.for", "scf.while"):
                loops.append(Loop(len(loops), name, "unknown"))
                stack.append(len(loops) - 1)
            else:
                stack.append(None)
    return Module(aliases, _checked_counts(attributes if isinstance(attributes, dict) else {}), ops, loops)


_COUNTS = ("ttg.num-warps", "ttg.num-ctas", "ttg.threads-per-warp")


def _checked_counts(attributes: dict[str, Any]) -> dict[str, Any]:
    """The module attributes, once their warp, CTA and lane counts are known to be positive integers."""
    for key in _COUNTS:
        v = attributes.get(key)
        if v is not None and (type(v) is not int or v < 1):
            raise TTGIRError(f'the module says "{key}" = {v!r}: it must be a positive integer (e.g. "{key}" = 4 : i32)')
    return attributes
