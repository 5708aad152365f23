"""Any JSON document to its picture: :func:`picture_kind` tells which, :func:`draw` draws it.

This is what ``linlayout draw FILE -o PICTURE`` runs.  The document decides
the picture:

=================================================  ===============  =========================================
document                                           kind             picture
=================================================  ===============  =========================================
a layout whose only input is ``offset``            ``memory``       :func:`~.layouts.draw_memory`
any other layout (``{"bases": ...}``)              ``distributed``  :func:`~.layouts.draw_distributed`
a conflicts query with ``layout`` and ``memory``   ``access``       :func:`~.access.draw_access`
a conflicts query with ``lane_byte_offsets``       ``access``       :func:`~.access.draw_access_offsets`
a swizzle query (``write`` and ``read``)           ``swizzle``      :func:`~.swizzle.draw_swizzle`
=================================================  ===============  =========================================

The documents are those of :mod:`linlayout.io.jsonio` (the same as the
``show``, ``conflicts`` and ``swizzle`` commands read).

>>> picture_kind({"bases": {"offset": [[0, 1], [1, 0]]}})
'memory'
>>> picture_kind({"write": {}, "read": {}})
'swizzle'
>>> fig = draw('{"bases": {"offset": [[0, 1], [1, 0]]}}', element_bits=16)
>>> [ax.get_label() for ax in fig.axes]
['tensor', 'tensor colour bar', 'memory', 'memory colour bar']
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ...count.query import AddressQuery
from ...errors import DrawError, LayoutJSONError
from ..jsonio import conflicts_query_from_json, decode, layout_from_json, load_file, swizzle_query_from_json
from ..named import is_named, unwrap_document
from .access import draw_access, draw_access_offsets
from .figure import begin_picture
from .layouts import draw_distributed, draw_memory
from .swizzle import draw_swizzle

__all__ = ["picture_kind", "draw"]


def picture_kind(source: Any) -> str:
    """Which picture a JSON document asks for: ``distributed``, ``memory``, ``access`` or ``swizzle``.

    Parameters
    ----------
    source
        JSON text or a decoded object.

    Returns
    -------
    str
        ``"memory"`` for a layout (``"bases"``) whose only input dimension is
        ``offset``, ``"distributed"`` for any other layout, ``"swizzle"``
        for a query with ``"write"``/``"read"``, ``"access"`` for one with
        ``"layout"``/``"memory"`` or ``"lane_byte_offsets"``.

    Raises
    ------
    LayoutJSONError
        Malformed JSON, a malformed layout, or none of these keys.

    >>> picture_kind('{"bases": {"register": [[0, 1]], "lane": [[1, 0]]}}')
    'distributed'
    >>> picture_kind({"lane_byte_offsets": [0] * 32, "access_bytes": 4})
    'access'
    """
    obj = unwrap_document(decode(source, "JSON document"))
    if is_named(obj):
        return "memory" if layout_from_json(obj).in_dims == ("offset",) else "distributed"
    if isinstance(obj, Mapping):
        if "queries" in obj or "toggles" in obj:
            raise LayoutJSONError(
                "this is a sweep family (\"queries\", \"toggles\"), which has no single picture; draw its memory "
                "layout, or one of its queries with a memory layout, instead"
            )
        if "write" in obj or "read" in obj:
            return "swizzle"
        if "layout" in obj or "memory" in obj or "lane_byte_offsets" in obj:
            return "access"
        if "bases" in obj:
            return "memory" if layout_from_json(obj).in_dims == ("offset",) else "distributed"
    raise LayoutJSONError(
        "cannot tell what to draw: expected a layout ({\"bases\": ...}), a conflicts query "
        "(\"layout\" and \"memory\", or \"lane_byte_offsets\") or a swizzle query (\"write\" and \"read\")"
    )


def draw(
    source: Any,
    path: str | Path | None = None,
    *,
    element_bits: int | None = None,
    max_side: int = 64,
):
    """Draw a layout, a conflicts query or a swizzle query given as JSON.

    Parameters
    ----------
    source
        JSON text, a decoded object, or a :class:`~pathlib.Path` to a JSON
        file.  The picture follows :func:`picture_kind`.
    path
        ``.png`` or ``.svg`` file to write, or ``None``.
    element_bits
        Bits per element of a memory layout (default 32); an error for other
        documents (queries give their own).
    max_side
        At most this many rows and columns of a tensor are drawn.

    Returns
    -------
    matplotlib.figure.Figure
        The figure of :func:`~.layouts.draw_distributed`, :func:`~.layouts.draw_memory`,
        :func:`~.access.draw_access`, :func:`~.access.draw_access_offsets` or
        :func:`~.swizzle.draw_swizzle`.

    Raises
    ------
    LinLayoutError
        A subclass for any bad document or option
        (:class:`~linlayout.errors.LayoutJSONError`,
        :class:`~linlayout.errors.DrawError`, ...), and
        :class:`~linlayout.errors.MissingDependencyError` without matplotlib.
    """
    obj = load_file(source, "JSON file") if isinstance(source, Path) else decode(source, "JSON document")
    kind = picture_kind(obj)
    if element_bits is not None and kind != "memory":
        raise DrawError(f"element_bits applies to memory layouts, and this is a {kind} "
                        + ("layout" if kind == "distributed" else "query (it gives its own element_bits)"))
    begin_picture(path, max_side)
    if kind == "distributed":
        return draw_distributed(layout_from_json(obj), path, max_side=max_side)
    if kind == "memory":
        return draw_memory(layout_from_json(obj), path, element_bits=32 if element_bits is None else element_bits,
                           max_side=max_side)
    if kind == "swizzle":
        return draw_swizzle(**swizzle_query_from_json(obj), path=path, max_side=max_side)
    q = conflicts_query_from_json(obj)
    if isinstance(q, AddressQuery):
        return draw_access_offsets(q.instruction, q.op, q.access_bytes, list(q.lane_byte_offsets), q.hardware,
                                   path=path)
    return draw_access(q.layout, q.memory, q.element_bits, q.op, q.instruction, q.vector_bits, q.hardware, path=path)
