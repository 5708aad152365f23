"""The JSON interchange form of a layout, checked before it becomes a value.

The layout format (also documented in README.md)::

    {"bases": {"register": [[0, 1], [8, 0]],
               "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]],
               "warp": []},
     "out_dims": {"dim0": 16, "dim1": 16}}

* ``bases`` lists, per input dimension in minor-to-major order, the image of
  each input bit: one int per output dimension, in ``out_dims`` order.  With
  a single output dimension a basis may be a plain int.  An input dimension of
  size 1 has an empty list.
* ``out_dims`` gives the output dimensions and their power-of-two sizes, minor
  to major.  It may be omitted: the names become ``dim0, dim1, ...`` and each
  size the smallest power of two holding the bases.
* For parsers that do not keep object key order, both fields may be lists of
  pairs: ``{"bases": [["register", [...]], ...], "out_dims": [["dim0", 16], ...]}``.

This module checks the *shape* of the document (keys, lists, integers) and
says what is wrong in JSON terms; :class:`~linlayout.core.layout.LinearLayout`
checks the values.  :mod:`linlayout.io.jsonio` builds the queries on top.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..errors import LayoutJSONError

__all__ = ["LAYOUT_KEYS", "decode", "parse_layout_object"]

LAYOUT_KEYS = frozenset({"bases", "out_dims"})
"""The keys of a layout object."""


def decode(source: str | bytes | Any, what: str = "JSON") -> Any:
    """Decode JSON text; objects and lists pass through.  Errors become :class:`LayoutJSONError`."""
    if isinstance(source, (str, bytes, bytearray)):
        try:
            return json.loads(source)
        except json.JSONDecodeError as e:
            raise LayoutJSONError(
                f"malformed {what}: {e.msg} at line {e.lineno} column {e.colno}; check brackets, commas and quotes"
            ) from None
        except UnicodeDecodeError as e:
            raise LayoutJSONError(f"malformed {what}: not UTF-8 text ({e.reason})") from None
    return source


def parse_layout_object(obj: Any, what: str = "layout") -> tuple[Any, Any]:
    """Check a decoded JSON layout object; return ``(bases, out_dims)`` for :class:`LinearLayout`.

    Raises :class:`LayoutJSONError` when the document is not a layout object
    (the layout's own checks of sizes and bases follow in the constructor).

    >>> parse_layout_object({"bases": {"offset": [1, 2]}})
    ({'offset': [1, 2]}, None)
    """
    if not isinstance(obj, Mapping):
        raise LayoutJSONError(
            f"a {what} must be a JSON object with \"bases\" (and optionally \"out_dims\"), "
            f"got {type(obj).__name__}"
        )
    unknown = [k for k in obj if k not in LAYOUT_KEYS]
    if unknown:
        raise LayoutJSONError(
            f"unknown key {unknown[0]!r} in {what}; a layout has only \"bases\" and \"out_dims\""
        )
    if "bases" not in obj:
        raise LayoutJSONError(f"the {what} has no \"bases\"; give {{\"bases\": {{in_dim: [basis, ...]}}}}")
    bases = obj["bases"]
    if isinstance(bases, list):
        for p in bases:
            if not (isinstance(p, list) and len(p) == 2 and isinstance(p[0], str)):
                raise LayoutJSONError(
                    f"in the ordered-pairs form, each \"bases\" entry is [name, [basis, ...]], got {p!r}"
                )
        bases = [(p[0], p[1]) for p in bases]
    elif not isinstance(bases, Mapping):
        raise LayoutJSONError(f"\"bases\" must be an object or a list of [name, bases] pairs, got {bases!r}")
    for name, bl in bases.items() if isinstance(bases, Mapping) else bases:
        if not isinstance(bl, list):
            raise LayoutJSONError(f"the bases of {name!r} must be a list, got {bl!r}")
        for k, b in enumerate(bl):
            if isinstance(b, list):
                for x in b:
                    if not isinstance(x, int) or isinstance(x, bool):
                        raise LayoutJSONError(f"basis {k} of {name!r} must hold integers, got {x!r}")
            elif not isinstance(b, int) or isinstance(b, bool):
                raise LayoutJSONError(f"basis {k} of {name!r} must be a list of integers or an integer, got {b!r}")
    out_dims = obj.get("out_dims")
    if out_dims is not None:
        if isinstance(out_dims, list):
            for p in out_dims:
                if not (isinstance(p, str) or (isinstance(p, list) and len(p) == 2 and isinstance(p[0], str))):
                    raise LayoutJSONError(
                        f"in the ordered-pairs form, each \"out_dims\" entry is [name, size], got {p!r}"
                    )
            out_dims = [p if isinstance(p, str) else (p[0], p[1]) for p in out_dims]
        elif not isinstance(out_dims, Mapping):
            raise LayoutJSONError(f"\"out_dims\" must be an object {{name: size}} or a list of pairs, got {out_dims!r}")
        for p in out_dims.values() if isinstance(out_dims, Mapping) else [q[1] for q in out_dims if not isinstance(q, str)]:
            if not isinstance(p, int) or isinstance(p, bool):
                raise LayoutJSONError(f"output sizes must be integers, got {p!r}")
    return bases, out_dims
