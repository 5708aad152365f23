"""The values of Triton's IR that the lowering model reads: attributes, tensor types, operations, a module.

These are plain data.  The reader of TTGIR text (:mod:`linlayout.io.ttgir`)
builds them; the lowering model (:mod:`linlayout.lower.lint` and the
per-version modules such as :mod:`linlayout.lower.triton_3_6`) reads them.
They live here, below ``io/``, so that the analysis never imports the reader.

* :class:`Attr`: a dialect attribute ``#ttg.blocked<{...}>``, its fields and
  the text it was read from;
* :class:`TensorType`: ``tensor<64x64xf16, #enc>`` or a ``!ttg.memdesc``;
  :class:`UnreadType` is a tensor or memdesc type the reader could not read;
* :class:`Op`: one operation line (results, operands, their types, the source
  location, the enclosing loops); :class:`Loop`: an ``scf.for``;
* :class:`Module`: the aliases, module attributes, operations and loops.

>>> t = TensorType((64, 64), "f16", None)
>>> t.element_bits, element_bits("!tt.ptr<f16>")
(16, 64)
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import field
from typing import Any

from ..core.record import record
from ..errors import TTGIRError

__all__ = ["Attr", "Loop", "Module", "Op", "TensorType", "UnreadType", "element_bits"]


@record
class Attr:
    """A dialect attribute ``#kind<...>``: its kind (``ttg.blocked``), named fields, and positional items."""

    kind: str
    fields: Mapping[str, Any] = field(default_factory=dict)
    items: tuple = ()
    text: str = ""

    def __hash__(self) -> int:
        return hash(self.text or self.kind)


@record
class TensorType:
    """``tensor<SHAPExELEM, #enc>`` (``memdesc=False``) or ``!ttg.memdesc<SHAPExELEM, #enc, #space[, mutable][, ALLOC]>``."""

    shape: tuple[int, ...]
    element: str
    encoding: Attr | None
    memdesc: bool = False
    mutable: bool = False
    alloc_shape: tuple[int, ...] = ()
    text: str = ""

    @property
    def element_bits(self) -> int:
        """Bits per element (``f16`` → 16, pointers → 64)."""
        return element_bits(self.element)


_ELEMENT_BITS = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64, "tf32": 32, "i1": 8, "i8": 8, "i16": 16, "i32": 32,
                 "i64": 64, "f8E4M3FN": 8, "f8E5M2": 8, "f8E4M3FNUZ": 8, "f8E5M2FNUZ": 8, "f8E4M3B11FNUZ": 8,
                 "f4E2M1FN": 4, "index": 64}


def element_bits(name: str) -> int:
    """Bits of an MLIR element type as stored in shared memory (``i1`` is a byte, pointers 64 bits).

    >>> element_bits("f8E4M3FN"), element_bits("!tt.ptr<f16>")
    (8, 64)
    """
    if name.startswith("!tt.ptr"):
        return 64
    if name in _ELEMENT_BITS:
        return _ELEMENT_BITS[name]
    m = re.fullmatch(r"[iuf](\d+)", name)
    if m:
        return int(m.group(1))
    raise TTGIRError(f"unknown element type {name!r}")


@record
class UnreadType:
    """A tensor or memdesc type the reader could not read, with why."""

    text: str
    error: str


@record
class Loop:
    """An ``scf.for`` (or other looping op) and its location; ``index`` numbers loops in the module."""

    index: int
    name: str
    location: str


@record(frozen=False)
class Op:
    """One operation line: name, results, operands, types, location, enclosing loops.

    Mutable while the reader builds it (the generic form prints an op's types
    on the line that closes its region); the analysis only reads it.
    """

    name: str
    results: list[str]
    operands: list[str]
    operand_types: list[Any]
    result_types: list[Any]
    location: str
    line: int
    text: str
    loops: list[int] = field(default_factory=list)


@record(frozen=False)
class Module:
    """A read TTGIR module: aliases, module attributes, operations and loops."""

    aliases: dict[str, Any]
    attributes: dict[str, Any]
    ops: list[Op]
    loops: list[Loop]

    @property
    def num_warps(self) -> int | None:
        """``ttg.num-warps`` of the module, if printed."""
        v = self.attributes.get("ttg.num-warps")
        return int(v) if v is not None else None

    @property
    def num_ctas(self) -> int:
        """``ttg.num-ctas`` of the module (1 when not printed)."""
        v = self.attributes.get("ttg.num-ctas")
        return int(v) if v is not None else 1
