"""JSON interchange: layouts, memory layouts and the queries of the CLI, in and out as JSON.

This module turns JSON into the library's values and back; it decides
nothing itself.  A ``linlayout conflicts`` query
(:func:`conflicts_query_from_json`) becomes a checked query value, an
:class:`~linlayout.count.query.AccessQuery` (layout level, counted by
:func:`~linlayout.count.closed_form.wavefronts`) or an
:class:`~linlayout.count.query.AddressQuery` (address level, counted by
:func:`~linlayout.count.simulate.simulate_access`); a
``linlayout swizzle`` query (:func:`swizzle_query_from_json`) becomes the arguments of
:func:`~linlayout.synth.synthesis.optimal_swizzle`.  ``"hardware"`` names a
model known to :func:`~linlayout.hw.get_hardware` (``sm90`` by default, or
any registered with :func:`~linlayout.hw.register_hardware`).

The layout object (``{"bases": {...}, "out_dims": {...}}``) is described
and checked in :mod:`linlayout.core.bases`; this module adds JSON text,
files and the queries around it.

>>> layout_from_json('{"bases": [["lane", [[0, 1], [1, 0]]]], "out_dims": [["dim0", 2], ["dim1", 2]]}').bases
{'lane': [(0, 1), (1, 0)]}
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ..core.bases import decode, parse_layout_object
from ..core.layout import LinearLayout
from ..count.query import AccessQuery, AddressQuery
from ..errors import LayoutJSONError
from .named import is_named, named_layout, unwrap_document

if TYPE_CHECKING:
    from pathlib import Path

__all__ = [
    "decode",
    "load_file",
    "layout_from_json",
    "layout_to_json",
    "memory_from_json",
    "conflicts_query_from_json",
    "swizzle_query_from_json",
]

def load_file(path: str | Path, what: str = "JSON file") -> Any:
    """Read and decode a JSON file (``-`` reads standard input)."""
    import sys

    try:
        if str(path) == "-":
            text = sys.stdin.read()
        else:
            from pathlib import Path  # here, not at import: pathlib costs import time

            text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise LayoutJSONError(f"cannot read {path}: no such file") from None
    except IsADirectoryError:
        raise LayoutJSONError(f"cannot read {path}: it is a directory, expected a JSON file") from None
    except UnicodeDecodeError:
        raise LayoutJSONError(f"cannot read {path}: not UTF-8 text") from None
    except OSError as e:
        raise LayoutJSONError(f"cannot read {path}: {e.strerror or e}") from None
    except ValueError:  # a NUL byte in the path
        raise LayoutJSONError(f"cannot read {path!r}: a file name cannot contain a NUL byte") from None
    if str(path).endswith((".ttgir", ".mlir")) or text.lstrip().startswith(("#ttg", "tensor<", "!ttg.memdesc<")):
        return {"ttgir": text}  # TTGIR: read by layout_from_json / memory_from_json
    return decode(text, f"{what} {path}")


def _ttgir_source(source: Any) -> Any:
    """TTGIR text (a type or attribute string) or ``{"ttgir": text[, "shape"][, "value"]}``, else None."""
    if isinstance(source, str) and source.lstrip().startswith(("tensor<", "!ttg.memdesc<", "#")):
        return {"ttgir": source}
    if isinstance(source, Mapping) and "ttgir" in source:
        return source
    return None


def _layout_from_ttgir(obj: Mapping[str, Any], what: str):
    from .ttgir.encodings import layout_from_ttgir

    reject_unknown_keys(obj, ("ttgir", "shape", "value"), what)
    if not isinstance(obj["ttgir"], str):
        raise LayoutJSONError(f"\"ttgir\" in the {what} must be TTGIR text")
    return layout_from_ttgir(obj["ttgir"], obj.get("shape"), obj.get("value"))


def layout_from_json(source: str | bytes | Mapping[str, Any] | Any, what: str = "layout") -> LinearLayout:
    """Build a :class:`LinearLayout` from JSON text or a decoded JSON object.

    Raises :class:`LayoutJSONError` when the document is not a layout object,
    and the layout's own errors (:class:`SizeError`, :class:`BasisError`, ...)
    when its contents are invalid.

    A layout may also be named (``{"row_major": [64, 64]}``, ``{"mma": {...}}``:
    :mod:`linlayout.io.named`), and a ``linlayout show --json`` document is
    read as its ``"layout"``.

    >>> layout_from_json({"bases": {"offset": [1, 2]}}).out_sizes
    {'dim0': 4}

    TTGIR is accepted too: a type string, or ``{"ttgir": "#ttg...", "shape": [...]}``
    (see :func:`linlayout.io.ttgir.encodings.layout_from_ttgir`).

    >>> layout_from_json("tensor<4xf32, #ttg.linear<{register = [[1], [2]], lane = [], warp = [], block = []}>>").bases
    {'register': [(1,), (2,)], 'lane': [], 'warp': [], 'block': []}
    >>> layout_from_json({"ldmatrix": {"matrices": 1}}).out_sizes
    {'dim0': 8, 'dim1': 8}
    """
    tt = _ttgir_source(source)
    if tt is None and isinstance(source, (str, bytes)):
        tt = _ttgir_source(decode(source, what))
    if tt is not None:
        L = _layout_from_ttgir(tt, what)
        if not isinstance(L, LinearLayout):
            raise LayoutJSONError(f"the {what} is a padded shared layout, not linear: use it as a memory layout")
        return L
    obj = unwrap_document(decode(source, what))
    if is_named(obj):
        return named_layout(obj, what)
    return LinearLayout(*parse_layout_object(obj, what))


def layout_to_json(layout: LinearLayout, indent: int | None = None) -> str:
    """The JSON text of a layout (object form); inverse of :func:`layout_from_json`."""
    return layout.to_json(indent=indent)


def memory_from_json(source: Any, what: str = "memory", *, shape: Any = None, element_bits: Any = None):
    """A memory layout: a layout object, or ``{"padded": {"shape": [32, 32], "pad": 1}}`` (simulator only).

    ``{"swizzle": "tma128B"}`` (:mod:`linlayout.io.named`) takes the tensor's
    ``shape`` and ``element_bits`` from the query.

    >>> memory_from_json({"padded": {"shape": [32, 32], "pad": 1}}).pitch
    33
    """
    from ..core.memory import padded

    tt = _ttgir_source(source)
    obj = decode(source, what) if tt is None else tt
    tt = _ttgir_source(obj)
    if tt is not None:
        M = _layout_from_ttgir(tt, what)
        if isinstance(M, LinearLayout) and "block" in M.in_dims and not M.bases["block"]:
            M = LinearLayout({"offset": M.bases.get("offset", [])}, M.out_sizes)  # one CTA: offsets only
        return M
    if isinstance(obj, Mapping) and "padded" in obj:
        if len(obj) != 1:
            raise LayoutJSONError(f"a padded {what} has only the key \"padded\"")
        p = obj["padded"]
        if not isinstance(p, Mapping) or set(p) != {"shape", "pad"}:
            raise LayoutJSONError(f"\"padded\" must be {{\"shape\": [rows, cols], \"pad\": elements}}, got {p!r}")
        shape = p["shape"]
        if not isinstance(shape, list) or not all(isinstance(x, int) and not isinstance(x, bool) for x in shape):
            raise LayoutJSONError(f"padded shape must be a list of integers, got {shape!r}")
        return padded(shape, p["pad"])
    if is_named(obj):
        return named_layout(obj, what, shape=shape, element_bits=element_bits)
    return layout_from_json(obj, what)


_LAYOUT_QUERY = {"layout", "memory", "element_bits", "op", "instruction", "vector_bits", "hardware"}
_ACCESS_QUERY = {"instruction", "op", "access_bytes", "lane_byte_offsets", "hardware"}


def _opt_int(obj: Mapping[str, Any], key: str, required: bool = False) -> int | None:
    if key not in obj or obj[key] is None:
        if required:
            raise LayoutJSONError(f"the query needs \"{key}\" (an integer)")
        return None
    v = obj[key]
    if not isinstance(v, int) or isinstance(v, bool):
        raise LayoutJSONError(f"\"{key}\" must be an integer, got {v!r}")
    return v


def _opt_str(obj: Mapping[str, Any], key: str) -> str | None:
    v = obj.get(key)
    if v is not None and not isinstance(v, str):
        raise LayoutJSONError(f"\"{key}\" must be a string, got {v!r}")
    return v if v is None else v.strip()  # keywords: surrounding whitespace ignored (core/validate.py)


def reject_unknown_keys(obj: Mapping[str, Any], allowed: Iterable[str], what: str) -> None:
    """Raise LayoutJSONError naming the first key of ``obj`` outside ``allowed``."""
    keys = set(allowed)
    unknown = [k for k in obj if k not in keys]
    if unknown:
        raise LayoutJSONError(f"unknown key {unknown[0]!r} in {what}; allowed: {sorted(keys)}")


def conflicts_query_from_json(source: Any) -> AccessQuery | AddressQuery:
    """Parse a ``linlayout conflicts`` query into a checked query value.

    Layout-level query: ``{"layout": LAYOUT, "memory": LAYOUT, "element_bits": 16,
    "op": "load", "instruction": "ld.shared", "vector_bits": 64, "hardware": "sm90"}``
    (``instruction``, ``vector_bits``, ``hardware`` optional; ``memory`` may be
    ``{"padded": ...}``).  Returns an :class:`~linlayout.count.query.AccessQuery`,
    the argument of :func:`linlayout.count.closed_form.wavefronts`.

    Address-level query: ``{"instruction": "ld.shared", "op": "load",
    "access_bytes": 8, "lane_byte_offsets": [32 ints]}``.  Returns an
    :class:`~linlayout.count.query.AddressQuery`, the argument of
    :func:`linlayout.count.simulate.simulate_access`.

    Both have ``kind`` (``"layout"`` or ``"access"``).  Raises
    :class:`LayoutJSONError` for a document that is not a query, and the
    query's own checks (:class:`~linlayout.errors.SizeError`, ...) for bad values.

    >>> q = conflicts_query_from_json({"instruction": "ld.shared", "op": "load", "access_bytes": 4,
    ...                                "lane_byte_offsets": [4 * l for l in range(32)]})
    >>> q.kind, q.access_bytes, q.hw.name
    ('access', 4, 'sm90')
    """
    obj = decode(source, "query")
    if not isinstance(obj, Mapping):
        raise LayoutJSONError(f"a query must be a JSON object, got {type(obj).__name__}")
    if "layout" in obj or "memory" in obj:
        return _layout_query(obj)
    if "lane_byte_offsets" in obj:
        reject_unknown_keys(obj, _ACCESS_QUERY, "an address query")
        offs = obj["lane_byte_offsets"]
        if not isinstance(offs, list) or not all(isinstance(x, int) and not isinstance(x, bool) for x in offs):
            raise LayoutJSONError("\"lane_byte_offsets\" must be a list of integers (one per lane)")
        return AddressQuery(
            instruction=_opt_str(obj, "instruction"),
            op=_opt_str(obj, "op"),
            access_bytes=_opt_int(obj, "access_bytes", required=True),
            lane_byte_offsets=tuple(offs),
            hardware=_opt_str(obj, "hardware") or "sm90",
        )
    raise LayoutJSONError(
        "a conflicts query has either \"layout\" and \"memory\" (layout-level) or \"lane_byte_offsets\" "
        "(address-level)"
    )


def _layout_query(obj: Mapping[str, Any]) -> AccessQuery:
    """The :class:`~linlayout.count.query.AccessQuery` of a layout-level ``conflicts`` query object."""
    reject_unknown_keys(obj, _LAYOUT_QUERY, "a layout query")
    for k in ("layout", "memory"):
        if k not in obj:
            raise LayoutJSONError(f"a layout query needs \"{k}\"")
    layout = layout_from_json(obj["layout"], "layout")
    eb = obj.get("element_bits")
    memory = memory_from_json(obj["memory"], "memory", shape=list(layout.out_sizes.values()),
                              element_bits=eb if isinstance(eb, int) and not isinstance(eb, bool) else None)
    return AccessQuery(
        layout=layout,
        memory=memory,
        element_bits=_opt_int(obj, "element_bits", required=True),
        op=_opt_str(obj, "op"),
        instruction=_opt_str(obj, "instruction"),
        vector_bits=_opt_int(obj, "vector_bits"),
        hardware=_opt_str(obj, "hardware") or "sm90",
    )


_SWIZZLE_QUERY = {"write", "read", "element_bits", "hardware", "objective", "vector_bits", "instructions"}


def swizzle_query_from_json(source: Any) -> dict[str, Any]:
    """Parse a ``linlayout swizzle`` query into the arguments of :func:`linlayout.synth.synthesis.optimal_swizzle`.

    ``{"write": LAYOUT, "read": LAYOUT, "element_bits": 16, "hardware": "sm90",
    "objective": "balanced", "vector_bits": 64, "instructions": ["st.shared", "ldmatrix.x4"]}``
    (the last four optional).
    """
    obj = decode(source, "query")
    if not isinstance(obj, Mapping):
        raise LayoutJSONError(f"a swizzle query must be a JSON object, got {type(obj).__name__}")
    reject_unknown_keys(obj, _SWIZZLE_QUERY, "a swizzle query")
    for k in ("write", "read"):
        if k not in obj:
            raise LayoutJSONError(f"a swizzle query needs \"{k}\" (a layout)")
    ins = obj.get("instructions")
    if ins is not None and (not isinstance(ins, list) or not all(isinstance(x, str) for x in ins)):
        raise LayoutJSONError("\"instructions\" must be a list of instruction names")
    return {
        "write": layout_from_json(obj["write"], "write layout"),
        "read": layout_from_json(obj["read"], "read layout"),
        "element_bits": _opt_int(obj, "element_bits", required=True),
        "hardware": _opt_str(obj, "hardware") or "sm90",
        "objective": _opt_str(obj, "objective") or "balanced",
        "vector_bits": _opt_int(obj, "vector_bits"),
        "instructions": ins,
    }
