"""Layouts by name in JSON: constructors and standard swizzles instead of bases, and ``show --json`` documents.

Wherever a query or a command reads a layout (``"layout"``, ``"memory"``,
``"write"``, ``"read"``, a ``show``/``draw`` file), it may give, instead of
``{"bases": ..., "out_dims": ...}``, an object with exactly one key naming a
constructor of :mod:`linlayout.catalog`, whose value holds its arguments (an
object of keyword arguments, or for the one-argument forms the argument
itself)::

    {"blocked": {"shape": [32, 32], "size_per_thread": [1, 4], "threads_per_warp": [4, 8],
                 "warps_per_cta": [1, 1], "order": [1, 0]}}
    {"mma": {"operand": "A", "shape": [16, 16], "instr": "m16n8k16"}}
    {"wgmma": {"operand": "C", "shape": [64, 16], "n": 16}}
    {"ldmatrix": {"matrices": 4}}          {"mfma": {"operand": "C", "instr": "32x32x8"}}
    {"row_major": [64, 64]}                {"col_major": [64, 64]}
    {"unswizzled": {"shape": [64, 64], "order": [0, 1]}}
    {"mma_swizzle": {"rows": 16, "cols": 32, "vec": 2, "per_phase": 1, "max_phase": 16}}
    {"nvmma": {"shape": [64, 128], "element_bits": 16, "swizzle_bytes": 128}}
    {"swizzle": "tma128B"}                 (also tma64B, tma32B, none)

``{"swizzle": MODE}`` is Triton's NVMMA layout (TMA swizzled boxes) of the
*query's* tensor: in a ``conflicts`` query its shape is the layout's and its
element width the query's ``element_bits``; elsewhere give them:
``{"swizzle": {"mode": "tma128B", "shape": [64, 128], "element_bits": 16}}``.

What one command prints, the others read: a ``linlayout show --json``
document (``{"layout": {...}, "rank": ..., ...}``) is accepted wherever a
layout is, and ``swizzle --emit json`` prints a layout object.

>>> named_layout({"row_major": [4, 8]}).bases["offset"][:3]
[(0, 1), (0, 2), (0, 4)]
>>> named_layout({"swizzle": "tma128B"}, shape=[8, 64], element_bits=16) == named_layout(
...     {"nvmma": {"shape": [8, 64], "element_bits": 16, "swizzle_bytes": 128}})
True
>>> unwrap_document({"layout": {"bases": {"offset": [1]}}, "rank": 1})
{'bases': {'offset': [1]}}
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..catalog import constructors as c
from ..catalog import swizzles as sw
from ..core.layout import LinearLayout
from ..core.memory import unswizzled
from ..errors import LayoutJSONError, LinLayoutError

__all__ = ["NAMED_LAYOUTS", "SHOW_KEYS", "SWIZZLE_MODES", "is_named", "named_layout", "unwrap_document"]

SWIZZLE_MODES = {"none": 0, "tma32B": 32, "tma64B": 64, "tma128B": 128}
"""Names of ``{"swizzle": MODE}``: bytes of the TMA swizzle."""

SHOW_KEYS = frozenset({"in_dims", "out_dims", "rank", "surjective", "injective", "invertible", "free_variables",
                       "distributed", "memory_layout"})
"""The keys ``linlayout show --json`` prints beside ``"layout"``."""


def _rank_order(shape: Sequence[int], first: int) -> list[int]:
    n = len(shape) if isinstance(shape, (list, tuple)) else 0
    return list(range(n - 1, -1, -1)) if first else list(range(n))


NAMED_LAYOUTS: dict[str, tuple[Callable[..., LinearLayout], str | None]] = {
    "blocked": (c.blocked, None),
    "mma": (c.mma, None),
    "wgmma": (c.wgmma, None),
    "ldmatrix": (c.ldmatrix, "matrices"),
    "stmatrix": (c.stmatrix, "matrices"),
    "mfma": (c.mfma, "operand"),
    "cute_tv": (c.cute_tv_layout, None),
    "row_major": (lambda shape: unswizzled(shape), "shape"),
    "col_major": (lambda shape: unswizzled(shape, _rank_order(shape, 0)), "shape"),
    "unswizzled": (unswizzled, "shape"),
    "mma_swizzle": (sw.mma_swizzle, None),
    "nvmma": (sw.nvmma_layout, None),
    "tma_swizzle": (sw.tma_swizzle, None),
}
"""Constructor names a JSON layout may use: (function, the argument a bare value stands for)."""


def unwrap_document(obj: Any) -> Any:
    """The layout object of a ``show --json`` document; anything else unchanged."""
    if isinstance(obj, Mapping) and isinstance(obj.get("layout"), Mapping) and set(obj) - {"layout"} <= SHOW_KEYS:
        return obj["layout"]
    return obj


def is_named(obj: Any) -> bool:
    """Whether ``obj`` is a one-key object naming a constructor or ``"swizzle"``."""
    return isinstance(obj, Mapping) and len(obj) == 1 and next(iter(obj)) in (*NAMED_LAYOUTS, "swizzle")


def named_layout(obj: Mapping[str, Any], what: str = "layout", *, shape: Sequence[int] | None = None,
                 element_bits: int | None = None) -> LinearLayout:
    """Build the layout a one-key object names (see the module); ``shape``/``element_bits``: the query's tensor."""
    if not is_named(obj):
        raise LayoutJSONError(f"{what}: expected one key naming a constructor: {sorted(NAMED_LAYOUTS)} or \"swizzle\"")
    (name, args), = obj.items()
    if name == "swizzle":
        return _swizzle(args, what, shape, element_bits)
    fn, single = NAMED_LAYOUTS[name]
    if isinstance(args, Mapping):
        try:
            return fn(**args)
        except LinLayoutError:
            raise
        except TypeError as e:  # unknown or missing keyword arguments
            raise LayoutJSONError(f"{what}: bad arguments for {name!r}: {e}") from None
    if single is None:
        raise LayoutJSONError(f"{what}: {name!r} takes an object of keyword arguments, got {args!r}")
    return fn(args)


def _swizzle(args: Any, what: str, shape: Sequence[int] | None, element_bits: int | None) -> LinearLayout:
    if isinstance(args, Mapping):
        extra = set(args) - {"mode", "shape", "element_bits"}
        if extra:
            raise LayoutJSONError(f"{what}: unknown key {sorted(extra)[0]!r} in \"swizzle\"; allowed: mode, shape, "
                                  f"element_bits")
        mode, shape, element_bits = args.get("mode"), args.get("shape", shape), args.get("element_bits", element_bits)
    else:
        mode = args
    if not isinstance(mode, str) or mode not in SWIZZLE_MODES:
        raise LayoutJSONError(f"{what}: \"swizzle\" is one of {', '.join(SWIZZLE_MODES)}, got {mode!r}")
    if shape is None or element_bits is None:
        raise LayoutJSONError(f"{what}: {{\"swizzle\": {mode!r}}} needs the tensor's shape and element_bits: use it in a "
                              f"conflicts query, or give {{\"swizzle\": {{\"mode\": ..., \"shape\": ..., "
                              f"\"element_bits\": ...}}}}")
    return sw.nvmma_layout(shape, element_bits, SWIZZLE_MODES[mode])
