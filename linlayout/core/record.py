"""``record``: the decorator of the package's value types, a dataclass made in one step.

Every analysis result of linlayout is a small immutable record: a frozen dataclass. ``record`` makes
the same class as ``@dataclass(frozen=True)``: the same fields (``dataclasses.fields``,
``replace``, ``asdict`` and ``is_dataclass`` work on it, and ``__dataclass_params__`` says what
it is), the same ``__init__`` (defaults, ``default_factory``, ``init=False`` fields,
``__post_init__``), ``__repr__``, ``__eq__``, ``__hash__`` and the same ``FrozenInstanceError`` on
assignment. Methods a class writes itself are kept, as ``dataclass`` keeps them.

>>> from dataclasses import FrozenInstanceError, field, replace
>>> @record
... class Point:
...     '''A point of a grid.'''
...     x: int
...     y: int = 0
...     tags: tuple[str, ...] = field(default=(), compare=False)
>>> p = Point(1)
>>> p, p == Point(1, 0, ("other",)), hash(p) == hash(Point(1))
(Point(x=1, y=0, tags=()), True, True)
>>> replace(p, y=2)
Point(x=1, y=2, tags=())
>>> try:
...     p.x = 3
... except FrozenInstanceError as error:
...     print(error)
cannot assign to field 'x'

``record(frozen=False)`` makes a mutable record, as ``@dataclass`` does (unhashable, fields
assignable).

**Why it exists (the one speed device of this module).** On Python 3.11 and 3.12 ``dataclass``
compiles each generated method with its own ``exec``: six per frozen class, about 1 ms per class.
Importing the package and the lint path creates about 60 records, so ``dataclass`` alone took
55-70 ms of the ~100 ms that ``linlayout lint`` spends importing. ``record`` lets ``dataclass``
collect the fields (no methods generated, no ``exec``) and then writes all the methods of a class
in one source text, compiled once. Python 3.13 does the same inside ``dataclass`` itself.
``tests/core/test_record.py`` compares every behaviour above with ``dataclass`` on classes that use
every feature the package uses.
"""

from __future__ import annotations

import dataclasses
import inspect
import reprlib
from typing import Any, Callable, TypeVar, overload

__all__ = ["record"]

T = TypeVar("T", bound=type)

_GENERATED = ("__init__", "__repr__", "__eq__")


class _FactoryDefault:
    """The default of a parameter whose field has a ``default_factory`` (shown as ``<factory>``)."""

    def __repr__(self) -> str:
        return "<factory>"


_FACTORY = _FactoryDefault()


@overload
def record(cls: T, /) -> T: ...
@overload
def record(*, frozen: bool = True) -> Callable[[T], T]: ...
def record(cls: Any = None, /, *, frozen: bool = True) -> Any:
    """Make ``cls`` a dataclass with ``frozen`` fields, its methods compiled in one ``exec``.

    Used bare (``@record``) it makes a frozen record; ``@record(frozen=False)`` a mutable one.
    Fields are declared as for ``dataclass``, with ``dataclasses.field`` where needed
    (``default``, ``default_factory``, ``init``, ``repr``, ``compare``, ``hash``); keyword-only
    fields, ordering and slots are not supported and raise ``TypeError``.
    """
    def wrap(klass: T) -> T:
        return _make_record(klass, frozen)
    return wrap if cls is None else wrap(cls)


def _make_record(cls: T, frozen: bool) -> T:
    documented = bool(cls.__dict__.get("__doc__"))
    own_setattr = "__setattr__" in cls.__dict__ or "__delattr__" in cls.__dict__
    if frozen and own_setattr:
        raise TypeError(f"record {cls.__name__} is frozen: it cannot define __setattr__ or __delattr__")
    class_hash = cls.__dict__.get("__hash__", dataclasses.MISSING)
    explicit_hash = not (class_hash is dataclasses.MISSING or (class_hash is None and "__eq__" in cls.__dict__))
    # dataclass collects the fields and sets __dataclass_fields__ and __match_args__; it generates nothing.
    cls = dataclasses.dataclass(cls, init=False, repr=False, eq=False)
    fields = dataclasses.fields(cls)
    if any(f.kw_only is True for f in fields):
        raise TypeError(f"record {cls.__name__}: keyword-only fields are not supported")
    wanted = [name for name in _GENERATED if name not in cls.__dict__]
    if frozen:
        wanted += ["__setattr__", "__delattr__"]
    if not explicit_hash:
        wanted.append("__hash__")
    source, namespace = _methods_source(cls, fields, wanted, frozen)
    exec(source, namespace)  # noqa: S102 - the source is built above from field names only
    methods = namespace["__create_fn__"](cls)
    for name, method in zip(wanted, methods):
        if method is not None:
            method.__qualname__ = f"{cls.__qualname__}.{name}"
        setattr(cls, name, method)
    if "__repr__" in wanted:
        cls.__repr__ = reprlib.recursive_repr()(cls.__repr__)
    if "__init__" in wanted:
        cls.__init__.__annotations__ = {f.name: f.type for f in fields if f.init} | {"return": None}
    if not documented:  # as dataclass writes it: the class's signature
        cls.__doc__ = cls.__name__ + str(inspect.signature(cls)).replace(" -> None", "")
    params = cls.__dataclass_params__
    params.init = params.repr = params.eq = True
    params.frozen = frozen
    return cls


def _methods_source(cls: type, fields: tuple, wanted: list[str], frozen: bool) -> tuple[str, dict]:
    """The text of one function that defines and returns the ``wanted`` methods, and its globals."""
    namespace: dict[str, Any] = {"__builtins__": __builtins__, "FACTORY": _FACTORY,
                                 "FrozenInstanceError": dataclasses.FrozenInstanceError,
                                 "__object_setattr": object.__setattr__}
    compared = [f.name for f in fields if f.compare]
    hashed = [f.name for f in fields if (f.compare if f.hash is None else f.hash)]
    lines = ["def __create_fn__(cls):"]
    bodies = {
        "__init__": lambda: _init_lines(cls, fields, frozen, namespace),
        "__repr__": lambda: ["  def __repr__(self):",
                             "    return self.__class__.__qualname__ + f\"(" +
                             ", ".join(f"{f.name}={{self.{f.name}!r}}" for f in fields if f.repr) + ")\""],
        "__eq__": lambda: ["  def __eq__(self, other):",
                           "    if other.__class__ is self.__class__:",
                           f"      return {_tuple('self', compared)} == {_tuple('other', compared)}",
                           "    return NotImplemented"],
        "__hash__": lambda: (["  __hash__ = None"] if not frozen else
                             ["  def __hash__(self):", f"    return hash({_tuple('self', hashed)})"]),
        "__setattr__": lambda: ["  def __setattr__(self, name, value):",
                                f"    if type(self) is cls or name in {_names(fields)}:",
                                "      raise FrozenInstanceError(f'cannot assign to field {name!r}')",
                                "    super(cls, self).__setattr__(name, value)"],
        "__delattr__": lambda: ["  def __delattr__(self, name):",
                                f"    if type(self) is cls or name in {_names(fields)}:",
                                "      raise FrozenInstanceError(f'cannot delete field {name!r}')",
                                "    super(cls, self).__delattr__(name)"],
    }
    for name in wanted:
        lines += bodies[name]()
    lines.append(f"  return ({', '.join(wanted)},)")
    return "\n".join(lines), namespace


def _init_lines(cls: type, fields: tuple, frozen: bool, namespace: dict) -> list[str]:
    """``__init__``'s lines: parameters with their defaults, one assignment per field, ``__post_init__``."""
    params, body = ["self"], []
    for f in fields:
        default_name = f"__default_{f.name}"
        has_factory = f.default_factory is not dataclasses.MISSING
        if has_factory:
            namespace[default_name] = f.default_factory
        elif f.default is not dataclasses.MISSING:
            namespace[default_name] = f.default
        if f.init:
            if has_factory:
                params.append(f"{f.name}=FACTORY")
                value = f"{default_name}() if {f.name} is FACTORY else {f.name}"
            else:
                params.append(f.name if f.default is dataclasses.MISSING else f"{f.name}={default_name}")
                value = f.name
        elif has_factory:
            value = f"{default_name}()"
        elif f.default is not dataclasses.MISSING:
            value = default_name
        else:
            continue
        body.append(f"    __object_setattr(self, {f.name!r}, {value})" if frozen else f"    self.{f.name} = {value}")
    if hasattr(cls, "__post_init__"):
        body.append("    self.__post_init__()")
    return [f"  def __init__({', '.join(params)}):"] + (body or ["    pass"])


def _tuple(owner: str, names: list[str]) -> str:
    return "(" + "".join(f"{owner}.{name}," for name in names) + ")"


def _names(fields: tuple) -> str:
    return "(" + "".join(f"{f.name!r}," for f in fields) + ")"
