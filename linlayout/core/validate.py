"""What the public API accepts: the one place where argument types are decided.

Every public entry point checks its arguments once, on the way in, with the
small functions below (or with :func:`~linlayout.core.dims.log2_size`,
:func:`~linlayout.core.dims.as_int` and :func:`~linlayout.core.dims.check_name`,
which follow the same rules), and inner loops trust what passed.  A wrong
argument raises an :class:`~linlayout.errors.InputError` (for a wrong *type*,
:class:`~linlayout.errors.InputTypeError`, which is also a :class:`TypeError`)
naming the argument; nothing else escapes.

The rules
=========

* **Integers** are Python ints or anything with ``__index__`` (numpy
  integers).  A ``bool`` is *not* an integer (``True`` is refused, not read
  as 1), and neither is a float, even an integral one (``4.0`` is refused:
  write ``4``).  JSON follows the same rule: ``16.0`` is not an integer.
* **Sequences** (shapes, orders, lane offsets, instruction lists) are lists,
  tuples, ranges or 1-D numpy arrays; a string, a bytes object, a mapping or
  a set is not a sequence of values.  Sequences of sequences must be
  rectangular where the meaning needs it (one offset per lane in every
  instruction).
* **Mappings** (``{dimension: value}``) are :class:`collections.abc.Mapping`.
* **Names** of dimensions are non-empty strings, matched exactly.
* **Keywords** chosen from a fixed set (``op``, instruction names, hardware
  presets, objectives, swizzle modes) are strings, case-sensitive, matched
  after stripping surrounding whitespace (``" ld.shared "`` is
  ``"ld.shared"``); an unknown one is refused with the list of known ones.
* **Layouts** are :class:`~linlayout.core.layout.LinearLayout` values (use
  :meth:`~linlayout.core.layout.LinearLayout.from_json` for JSON).
* ``op`` may be omitted wherever it is accepted: it is then the op of the
  instruction, and ``"load"`` (``ld.shared``) when no instruction is named
  either (:func:`linlayout.hw.instructions.parse_instruction` is where this
  default is applied).

>>> check_int(3, "rows"), check_int_sequence((1, 2), "shape")
(3, (1, 2))
>>> check_int(4.0, "rows")
Traceback (most recent call last):
...
linlayout.errors.InputTypeError: rows must be an int, got 4.0 (float)
>>> check_sequence("ab", "order")
Traceback (most recent call last):
...
linlayout.errors.InputTypeError: order must be a list or tuple, got 'ab' (str)
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any, TypeVar

from ..errors import DimensionError, InputError, InputTypeError
from .dims import check_name

__all__ = [
    "check_int",
    "check_int_sequence",
    "check_sequence",
    "check_mapping",
    "check_str",
    "check_names",
    "check_keyword",
    "check_instance",
    "check_rectangular",
]

T = TypeVar("T")


def _show(x: Any) -> str:
    """``x`` for a message: its repr (cut short) and its type."""
    r = repr(x)
    if len(r) > 60:
        r = r[:57] + "..."
    return f"{r} ({type(x).__name__})"


def check_int(x: Any, what: str, *, minimum: int | None = None, error: type[InputError] = InputTypeError) -> int:
    """``x`` as an int (``__index__``, not bool, not float), at least ``minimum`` when given.

    A wrong type raises ``error`` (default :class:`InputTypeError`); a value
    below ``minimum`` raises :class:`InputError`.

    >>> check_int(-5, "seed", minimum=0)
    Traceback (most recent call last):
    ...
    linlayout.errors.InputError: seed must be at least 0, got -5
    """
    if isinstance(x, bool):
        raise error(f"{what} must be an int, got {_show(x)}")
    try:
        v = operator.index(x)
    except TypeError:
        raise error(f"{what} must be an int, got {_show(x)}") from None
    if minimum is not None and v < minimum:
        raise InputError(f"{what} must be at least {minimum}, got {v}")
    return v


def check_sequence(x: Any, what: str) -> Sequence[Any]:
    """``x`` if it is a sequence of values (list, tuple, range, 1-D array), else :class:`InputTypeError`."""
    if isinstance(x, (str, bytes, bytearray, Mapping, AbstractSet)) or not hasattr(x, "__len__") or not hasattr(x, "__getitem__"):
        raise InputTypeError(f"{what} must be a list or tuple, got {_show(x)}")
    if getattr(x, "ndim", 1) != 1:
        raise InputTypeError(f"{what} must be one-dimensional, got an array of shape {getattr(x, 'shape', '?')}")
    return x


def check_int_sequence(x: Any, what: str, *, length: int | None = None, minimum: int | None = None) -> tuple[int, ...]:
    """``x`` as a tuple of ints (each checked by :func:`check_int`), of ``length`` entries when given.

    >>> check_int_sequence([1, True], "shape")
    Traceback (most recent call last):
    ...
    linlayout.errors.InputTypeError: shape[1] must be an int, got True (bool)
    """
    seq = check_sequence(x, what)
    if length is not None and len(seq) != length:
        raise InputError(f"{what} must have {length} entries, got {len(seq)}")
    return tuple(check_int(v, f"{what}[{i}]", minimum=minimum) for i, v in enumerate(seq))


def check_rectangular(x: Any, what: str, width: int | None = None) -> list[tuple[int, ...]]:
    """``x`` as a list of int rows of one common length (``width`` when given).

    >>> check_rectangular([[0, 4], [8]], "lane offsets")
    Traceback (most recent call last):
    ...
    linlayout.errors.InputError: lane offsets[1] has 1 entries but lane offsets[0] has 2; every row needs the same length
    """
    rows = [check_int_sequence(r, f"{what}[{i}]") for i, r in enumerate(check_sequence(x, what))]
    first = width if width is not None else (len(rows[0]) if rows else 0)
    for i, r in enumerate(rows):
        if len(r) != first:
            ref = f"{width} are needed" if width is not None else f"{what}[0] has {first}"
            raise InputError(f"{what}[{i}] has {len(r)} entries but {ref}; every row needs the same length")
    return rows


def check_mapping(x: Any, what: str) -> Mapping[Any, Any]:
    """``x`` if it is a mapping, else :class:`InputTypeError`."""
    if not isinstance(x, Mapping):
        raise InputTypeError(f"{what} must be a mapping such as {{'lane': 3}}, got {_show(x)}")
    return x


def check_str(x: Any, what: str) -> str:
    """``x`` if it is a string, else :class:`InputTypeError`."""
    if not isinstance(x, str):
        raise InputTypeError(f"{what} must be a string, got {_show(x)}")
    return x


def check_names(x: Any, what: str) -> list[str]:
    """``x`` (an iterable of dimension names, not one string) as a list; each a non-empty string.

    >>> check_names(("lane", "warp"), "in_dims")
    ['lane', 'warp']
    >>> check_names("lane", "in_dims")
    Traceback (most recent call last):
    ...
    linlayout.errors.DimensionError: in_dims must be a list of dimension names, got 'lane'
    """
    if isinstance(x, (str, bytes, Mapping)) or not isinstance(x, Iterable):
        raise DimensionError(f"{what} must be a list of dimension names, got {x!r}")
    return [check_name(n, "dimension") for n in x]


def check_keyword(x: Any, what: str, choices: Sequence[str], *, error: type[InputError] = InputError) -> str:
    """``x`` stripped of surrounding whitespace, if it is one of ``choices``; else ``error`` listing them.

    >>> check_keyword(" load ", "op", ("load", "store"))
    'load'
    >>> check_keyword("Load", "op", ("load", "store"))
    Traceback (most recent call last):
    ...
    linlayout.errors.InputError: op must be one of 'load', 'store'; got 'Load'
    """
    if type(x) is str and x in choices:  # the common case, without stripping
        return x
    s = check_str(x, what).strip()
    if s not in choices:
        raise error(f"{what} must be one of {', '.join(map(repr, choices))}; got {x!r}")
    return s


def check_instance(x: T, cls: type | tuple[type, ...], what: str) -> T:
    """``x`` if it is an instance of ``cls``, else :class:`InputTypeError` naming both.

    >>> check_instance(5, str, "outer")
    Traceback (most recent call last):
    ...
    linlayout.errors.InputTypeError: outer must be a str, got 5 (int)
    """
    if not isinstance(x, cls):
        names = " or ".join(c.__name__ for c in (cls if isinstance(cls, tuple) else (cls,)))
        raise InputTypeError(f"{what} must be a {names}, got {_show(x)}")
    return x
