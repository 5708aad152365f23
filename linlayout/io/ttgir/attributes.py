"""Read TTGIR attribute and type text: ``#ttg.blocked<{...}>``, ``tensor<...>``, ``!ttg.memdesc<...>``.

The grammar read is the part of MLIR's attribute syntax that Triton's
layouts print: integers, booleans, strings, lists ``[...]``, dictionaries
``{key = value, ...}``, references ``#name`` (resolved through the module's
``#name = ...`` aliases) and dialect attributes ``#ttg.kind<...>`` whose body
is a dictionary, ``key = value`` pairs, or (``padded_shared``) interval pairs
``[32:+4]``.  :func:`parse_attribute` returns an :class:`~linlayout.lower.ir.Attr` value
(the IR's plain values live in :mod:`linlayout.lower.ir`);
:mod:`linlayout.io.ttgir.encodings` turns it into a layout.

>>> a = parse_attribute("#ttg.blocked<{sizePerThread = [1, 4], order = [1, 0]}>")
>>> a.kind, a.fields["sizePerThread"]
('ttg.blocked', [1, 4])
>>> t = parse_type("!ttg.memdesc<2x64x64xf16, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>, #smem, mutable, 2x64x64>")
>>> t.shape, t.element, t.encoding.kind, t.mutable
((2, 64, 64), 'f16', 'ttg.swizzled_shared', True)
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from ...core.validate import check_str
from ...errors import TTGIRError
from ...lower.ir import Attr, TensorType, element_bits

__all__ = ["Attr", "TTGIRError", "TensorType", "element_bits", "parse_attribute", "parse_type", "split_top"]


_TOKEN = re.compile(r"""\s*(?:
    (?P<str>"(?:[^"\\]|\\.)*")
  | (?P<ref>[#!][A-Za-z_][\w.$-]*)
  | (?P<num>[-+]?\d+(?:\.\d+)?)
  | (?P<id>[A-Za-z_][\w.$-]*)
  | (?P<punct>[\[\]{}<>()=,:+?*-]))""", re.VERBOSE)


MAX_DEPTH = 64
"""Brackets nested deeper than this are refused (Triton's layouts nest a few levels: a slice of a dot operand of an mma)."""
MAX_DIGITS = 40
"""Numbers longer than this are refused (a layout field is a small integer; Python refuses to convert 4,300 digits)."""


def _tokens(text: str) -> list[tuple[str, str]]:
    out = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise TTGIRError(f"cannot read attribute text at {text[pos:pos + 30]!r}")
        kind = m.lastgroup
        if kind == "num" and len(m.group(kind)) > MAX_DIGITS:
            raise TTGIRError(f"a number of {len(m.group(kind))} digits at {text[m.start(kind):m.start(kind) + 20]!r}...: "
                             f"layout fields are small integers (at most {MAX_DIGITS} digits read)")
        out.append((kind, m.group(kind), m.start(kind), m.end(kind)))
        pos = m.end()
        while pos < len(text) and text[pos].isspace():
            pos += 1
    return out


class _Parser:
    def __init__(self, text: str, aliases: Mapping[str, Any]):
        self.text = text
        self.toks = _tokens(text)
        self.i = 0
        self.aliases = aliases
        self.depth = 0

    def peek(self, k: int = 0) -> tuple[str, str]:
        j = self.i + k
        return self.toks[j][:2] if j < len(self.toks) else ("end", "")

    def take(self, value: str | None = None) -> tuple[str, str]:
        tok = self.peek()
        if tok[0] == "end":  # every loop that reads up to a closing bracket ends here on truncated text
            raise TTGIRError(f"unexpected end of text{f' (expected {value!r})' if value else ''} in {self.text[:120]!r}")
        if value is not None and tok[1] != value:
            raise TTGIRError(f"expected {value!r} but found {tok[1] or 'the end'!r} in {self.text[:120]!r}")
        self.i += 1
        return tok

    def value(self) -> Any:
        """One value; lists, dictionaries and attributes recurse here, so the nesting depth is checked here."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise TTGIRError(f"attribute text nested more than {MAX_DEPTH} levels deep: {self.text[:60]!r}...; "
                             "a TTGIR layout nests a few levels")
        try:
            return self.item()
        finally:
            self.depth -= 1

    def item(self) -> Any:
        kind, v = self.peek()
        if kind == "num":
            self.take()
            if self.peek()[1] == ":" and self.peek(1)[0] == "id":  # typed integer "4 : i32"
                self.take()
                self.take()
            return float(v) if "." in v else int(v)
        if kind == "str":
            self.take()
            return v[1:-1]
        if kind == "id":
            self.take()
            if v in ("true", "false"):
                return v == "true"
            return v
        if v == "[":
            return self.listing()
        if v == "{":
            return self.dictionary()
        if kind == "ref":
            return self.reference()
        raise TTGIRError(f"unexpected {v or 'end of text'!r} in {self.text[:120]!r}")

    def listing(self) -> list:
        self.take("[")
        out = []
        while self.peek()[1] != "]":
            item = self.value()
            if self.peek()[1] == ":":  # padded_shared interval pair  32:+4
                self.take(":")
                if self.peek()[1] == "+":
                    self.take("+")
                item = (item, self.value())
            out.append(item)
            if self.peek()[1] == ",":
                self.take(",")
            elif self.peek()[1] != "]":
                raise TTGIRError(f"expected ',' or ']' in {self.text[:120]!r}")
        self.take("]")
        return out

    def dictionary(self) -> dict:
        self.take("{")
        out = {}
        while self.peek()[1] != "}":
            key = self.take()[1].strip('"')
            if self.peek()[1] == "=":
                self.take("=")
                out[key] = self.value()
            else:
                out[key] = True
            if self.peek()[1] == ",":
                self.take(",")
        self.take("}")
        return out

    def reference(self) -> Any:
        begin = self.toks[self.i][2]
        _, name = self.take()
        if self.peek()[1] != "<":
            if name in self.aliases:
                return self.aliases[name]
            return Attr(name, {}, (), name)
        self.take("<")
        fields: dict = {}
        items: list = []
        while self.peek()[1] != ">":
            kind, v = self.peek()
            if v == "{":
                fields.update(self.dictionary())
            elif kind == "id" and self.peek(1)[1] == "=":
                self.take()
                self.take("=")
                fields[v] = self.value()
            else:
                items.append(self.value())
            if self.peek()[1] == ",":
                self.take(",")
        self.take(">")
        text = _inline_aliases(self.text[begin:self.toks[self.i - 1][3]], self.aliases)
        return Attr(name.lstrip("#!"), fields, tuple(items), text)


_ALIAS_REF = re.compile(r"#[A-Za-z_][\w$-]*(?![\w.$<-])")


def _inline_aliases(text: str, aliases: Mapping[str, Any]) -> str:
    """``text`` with every alias it names replaced by the alias' own (already self-contained) text, so that a
    printed layout stands alone: ``#ttg.slice<{dim = 1, parent = #blocked}>`` shows its parent inline."""
    if "#" not in text[1:]:
        return text
    return _ALIAS_REF.sub(lambda m: getattr(aliases.get(m.group(0)), "text", "") or m.group(0), text)


def parse_attribute(text: str, aliases: Mapping[str, Any] | None = None) -> Any:
    """Read one attribute value (``#ttg.blocked<{...}>``, a list, an integer, ``#alias``...).

    >>> parse_attribute("#ttg.slice<{dim = 1, parent = #b}>", {"#b": 7}).fields["parent"]
    7
    """
    p = _Parser(check_str(text, "TTGIR attribute text").strip(), aliases or {})
    v = p.value()
    if p.peek()[0] != "end":
        raise TTGIRError(f"unexpected text after the attribute: {text.strip()[:120]!r}")
    return v


def split_top(text: str, sep: str = ",") -> list[str]:
    """Split at ``sep`` outside brackets and strings.

    Only quotes, brackets and ``sep`` matter, so one regular expression finds
    them and the text between is sliced, not walked character by character
    (a module's signatures are most of the time of reading it).  A ``>``
    right after ``-`` is the arrow of a signature, not a bracket.

    >>> split_top("64x64xf16, #ttg.b<{a = [1, 2]}>, #smem")
    ['64x64xf16', '#ttg.b<{a = [1, 2]}>', '#smem']
    >>> split_top("(tensor<4xf32>, i32) -> tensor<4xf32>", "->")
    ['(tensor<4xf32>, i32)', 'tensor<4xf32>']
    """
    if sep not in text:  # nothing to split at (most signatures have no "->"), whatever the brackets
        text = text.strip()
        return [text] if text else []
    out: list[str] = []
    depth, in_string, start = 0, False, 0
    for m in _split_pattern(sep).finditer(text):
        token = m.group()
        if token == '"':
            in_string = not in_string
        elif in_string:
            continue
        elif token in _OPENERS:
            depth += 1
        elif token in _CLOSERS:
            depth -= 1
        elif depth == 0:  # the separator
            out.append(text[start:m.start()].strip())
            start = m.end()
    tail = text[start:].strip()
    if tail:
        out.append(tail)
    return out


_OPENERS, _CLOSERS = frozenset("<[{("), frozenset(">]})")


@lru_cache(maxsize=8)
def _split_pattern(sep: str) -> re.Pattern[str]:
    """Quotes, brackets (``>`` not after ``-``) and ``sep``: the tokens :func:`split_top` reacts to."""
    return re.compile(r'"|[<\[{(\]})]|(?<!-)>|' + re.escape(sep))


_SHAPE_ELEMENT = re.compile(r"^((?:\d{1,%d}x)*)(.+)$" % MAX_DIGITS)
_DIMENSION = re.compile(r"\d+x")
_TYPE = re.compile(r"^(tensor|!ttg\.memdesc)<(.*)>$", re.DOTALL)
_ALLOC_SHAPE = re.compile(r"(\d{1,%d}x)*\d{1,%d}" % (MAX_DIGITS, MAX_DIGITS))


def _shape_element(text: str) -> tuple[tuple[int, ...], str]:
    m = _SHAPE_ELEMENT.match(text.strip())
    if not m or _DIMENSION.match(m.group(2)):
        raise TTGIRError(f"cannot read the shape and element type {text[:120]!r} (expected e.g. 64x64xf16)")
    dims = tuple(int(d) for d in m.group(1).split("x") if d)
    return dims, m.group(2).strip()


def parse_type(text: str, aliases: Mapping[str, Any] | None = None) -> TensorType:
    """Read ``tensor<...>`` or ``!ttg.memdesc<...>`` (a ``#name`` encoding resolved through ``aliases``)."""
    text = check_str(text, "TTGIR type text").strip()
    m = _TYPE.match(text)
    if not m:
        raise TTGIRError(f"not a tensor or memdesc type: {text[:120]!r}")
    parts = split_top(m.group(2))
    if not parts:
        raise TTGIRError(f"{text[:120]!r} has no shape and element type: write e.g. tensor<64x64xf16, #blocked>")
    shape, elem = _shape_element(parts[0])
    enc = parse_attribute(parts[1], aliases) if len(parts) > 1 else None
    if enc is not None and not isinstance(enc, Attr):
        raise TTGIRError(f"the encoding of {text[:120]!r} is not an attribute")
    if m.group(1) == "tensor":
        return TensorType(shape, elem, enc, False, False, shape, text)
    rest = parts[2:]
    mutable = "mutable" in rest
    alloc = shape
    for r in rest:
        if _ALLOC_SHAPE.fullmatch(r):
            alloc = tuple(int(x) for x in r.split("x"))
    return TensorType(shape, elem, enc, True, mutable, alloc, text)
