"""JSON interchange: layouts (and, later, queries) in and out as JSON.

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

>>> layout_from_json('{"bases": [["lane", [[0, 1], [1, 0]]]], "out_dims": [["dim0", 2], ["dim1", 2]]}').bases
{'lane': [(0, 1), (1, 0)]}
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .errors import LayoutJSONError
from .layout import LinearLayout

__all__ = ["decode", "load_file", "layout_from_json", "layout_to_json"]

_LAYOUT_KEYS = {"bases", "out_dims"}


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


def load_file(path: str | Path, what: str = "JSON file") -> Any:
    """Read and decode a JSON file (``-`` reads standard input)."""
    import sys

    try:
        if str(path) == "-":
            text = sys.stdin.read()
        else:
            text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise LayoutJSONError(f"cannot read {path}: no such file") from None
    except IsADirectoryError:
        raise LayoutJSONError(f"cannot read {path}: it is a directory, expected a JSON file") from None
    except UnicodeDecodeError:
        raise LayoutJSONError(f"cannot read {path}: not UTF-8 text") from None
    except OSError as e:
        raise LayoutJSONError(f"cannot read {path}: {e.strerror or e}") from None
    return decode(text, f"{what} {path}")


def layout_from_json(source: str | bytes | Mapping[str, Any] | Any, what: str = "layout") -> LinearLayout:
    """Build a :class:`LinearLayout` from JSON text or a decoded JSON object.

    Raises :class:`LayoutJSONError` when the document is not a layout object,
    and the layout's own errors (:class:`SizeError`, :class:`BasisError`, ...)
    when its contents are invalid.

    >>> layout_from_json({"bases": {"offset": [1, 2]}}).out_sizes
    {'dim0': 4}
    """
    obj = decode(source, what)
    if not isinstance(obj, Mapping):
        raise LayoutJSONError(
            f"a {what} must be a JSON object with \"bases\" (and optionally \"out_dims\"), "
            f"got {type(obj).__name__}"
        )
    unknown = [k for k in obj if k not in _LAYOUT_KEYS]
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
    return LinearLayout(bases, out_dims)


def layout_to_json(layout: LinearLayout, indent: int | None = None) -> str:
    """The JSON text of a layout (object form); inverse of :func:`layout_from_json`."""
    return layout.to_json(indent=indent)
