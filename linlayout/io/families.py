"""Sweep families as JSON: the document ``linlayout sweep FAMILY.json`` reads.

A family (:mod:`linlayout.check.family`) is a base memory, the accesses to
sweep and the toggles that XOR the memory's offset bases.  As JSON::

    {"name": "optional label",
     "memory": LAYOUT,                               # the base memory (offset -> tensor)
     "queries": {"store": {"layout": LAYOUT, "element_bits": 32, "op": "store"},
                 "read":  {"layout": LAYOUT, "element_bits": 32, "op": "load",
                           "instruction": "ld.shared", "vector_bits": 32, "hardware": "sm90"}},
     "toggles": [{"basis": 5, "xor": [0, 1]}, {"basis": 5, "xor": [0, 2]}, ...]}

or, for one access, ``{"query": QUERY, "toggles": [...]}`` with ``QUERY`` a
layout-level ``linlayout conflicts`` query (its ``memory`` is the base; the
access is named ``"query"``).  ``LAYOUT`` is the layout format of
:mod:`linlayout.io.jsonio`; each query is parsed by
:func:`~linlayout.io.jsonio.conflicts_query_from_json`.  ``xor`` has one
integer per memory output dimension (a plain integer for a 1-D tensor).
``examples/sweep_transpose_16x32.json`` is the built-in family
(:func:`~linlayout.check.family.transpose_16x32_family`) written this way,
and :meth:`Family.to_dict <linlayout.check.family.Family.to_dict>` writes
any family in this format:

>>> from linlayout.check.family import transpose_16x32_family
>>> f = transpose_16x32_family(mask_bits=1)
>>> g = family_from_json(f.to_dict())
>>> (g.memory, g.toggles, [a.layout for a in g.accesses]) == (f.memory, f.toggles, [a.layout for a in f.accesses])
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..check.family import Family
from ..errors import LayoutJSONError, LinLayoutError, SweepError
from .jsonio import conflicts_query_from_json, decode, layout_from_json, reject_unknown_keys

__all__ = ["family_from_json"]

_FAMILY_KEYS = {"name", "memory", "queries", "query", "toggles"}


def family_from_json(source: Any) -> Family:
    """Parse a family document (JSON text or a decoded object); see the module docstring for the format.

    Raises :class:`~linlayout.errors.LayoutJSONError` for malformed documents,
    :class:`~linlayout.errors.SweepError` for an unusable family and the layouts' own errors for
    invalid layouts.

    >>> fam = family_from_json({"query": {"layout": {"bases": {"lane": [[1], [2], [4], [8], [16]]}},
    ...                                   "memory": {"bases": {"offset": [[1], [2], [4], [8], [16]]}},
    ...                                   "element_bits": 32, "op": "load"},
    ...                         "toggles": [{"basis": 4, "xor": 1}]})
    >>> fam.size, [a.name for a in fam.accesses]
    (2, ['query'])
    """
    obj = decode(source, "family")
    if not isinstance(obj, Mapping):
        raise LayoutJSONError(f"a sweep family must be a JSON object, got {type(obj).__name__}")
    reject_unknown_keys(obj, _FAMILY_KEYS, "a sweep family")
    if "toggles" not in obj:
        raise LayoutJSONError("a sweep family needs \"toggles\": a list of {\"basis\": k, \"xor\": vector}")
    if not isinstance(obj["toggles"], list):
        raise LayoutJSONError(f"\"toggles\" must be a list, got {type(obj['toggles']).__name__}")
    name = obj.get("name", "custom family")
    if not isinstance(name, str):
        raise LayoutJSONError(f"\"name\" must be a string, got {name!r}")
    if ("query" in obj) == ("queries" in obj):
        raise LayoutJSONError(
            "a sweep family has either \"query\" (one layout-level conflicts query, with its memory) or "
            "\"memory\" and \"queries\" ({name: query without memory})"
        )
    if "query" in obj:
        if "memory" in obj:
            raise LayoutJSONError("the memory is given twice: at the top level and in \"query\"; keep one")
        q = obj["query"]
        if not isinstance(q, Mapping) or "memory" not in q or "layout" not in q:
            raise LayoutJSONError("\"query\" must be a layout-level conflicts query with \"layout\" and \"memory\"")
        mem_obj = q["memory"]
        raw = {"query": {k: v for k, v in q.items() if k != "memory"}}
    else:
        if "memory" not in obj:
            raise LayoutJSONError("a sweep family with \"queries\" needs the base \"memory\" at the top level")
        mem_obj = obj["memory"]
        raw = obj["queries"]
        if not isinstance(raw, Mapping) or not raw:
            raise LayoutJSONError("\"queries\" must be a non-empty object {name: query}")
    if isinstance(mem_obj, Mapping) and "padded" in mem_obj:
        raise SweepError("a padded memory has no offset bases to toggle; sweep a linear memory layout")
    memory = layout_from_json(mem_obj, "memory")
    accesses = {}
    for nm, q in raw.items():
        if not isinstance(q, Mapping):
            raise LayoutJSONError(f"query {nm!r} must be a JSON object, got {type(q).__name__}")
        if "memory" in q:
            raise LayoutJSONError(f"query {nm!r} has its own \"memory\"; give the memory once, at the top level")
        if "layout" not in q:
            raise LayoutJSONError(f"query {nm!r} needs a \"layout\"")
        try:
            parsed = conflicts_query_from_json({**q, "memory": mem_obj})
        except LayoutJSONError:
            raise
        except LinLayoutError as e:  # the query's checks: say which access failed them
            raise type(e)(f"access {nm!r}: {e}") from None
        accesses[nm] = {"layout": parsed.layout, "element_bits": parsed.element_bits, "op": parsed.op,
                        "instruction": parsed.instruction, "vector_bits": parsed.vector_bits,
                        "hardware": parsed.hardware}
    return Family.make(memory, accesses, obj["toggles"], name)

