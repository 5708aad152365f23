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

**Why it exists (the speed devices of this module).** ``dataclass`` writes the source text of
six methods for each frozen class and compiles it: about 1 ms per class on Python 3.11, nearly all
of it in the compiler. Importing the package and the lint path creates about 60 records, so
``dataclass`` alone took 55-70 ms of the ~100 ms that ``linlayout lint`` spends importing.
``record`` lets ``dataclass`` collect the fields (it generates nothing then) and compiles only the
methods that run on every record made, compared or hashed: ``__init__``, ``__eq__`` and
``__hash__``, the same code as ``dataclass``'s. ``__repr__`` and the frozen
``__setattr__``/``__delattr__`` (which only raise) are closures over the field names, which cost no
compilation. (Closures for ``__eq__`` and ``__hash__`` were tried: through a type's slot, ``hash(x)``
or ``x == y``, a closure cost twice what a plain function costs.)

Each of the three is compiled the first time it runs, not when the class is made: until then the
class holds a stand-in (:func:`_compiled_on_first_call`) that compiles the method, puts it on the
class in its own place and calls it. Most records are never compared or hashed in a run, and many
never made (``linlayout lint`` of a kernel makes about half of the ~60 it imports and hashes none
through these methods), so compiling every method when its class was made cost ~84 M instructions,
a fifth of that command. The stand-in of ``__init__`` carries the signature ``__init__`` will have,
so ``inspect.signature`` and the class's generated docstring read the same before and after.
``tests/core/test_record.py`` compares every behaviour above with ``dataclass`` on twin classes that
use every feature the package uses, before and after the first call.
"""

from __future__ import annotations

import dataclasses
import inspect
import reprlib
from typing import Any, Callable, TypeVar, overload

__all__ = ["record"]

T = TypeVar("T", bound=type)


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
    """Make ``cls`` a dataclass with ``frozen`` fields, compiling only ``__init__``, ``__eq__`` and ``__hash__``.

    Used bare (``@record``) it makes a frozen record; ``@record(frozen=False)`` a mutable one.
    Fields are declared as for ``dataclass``, with ``dataclasses.field`` where needed
    (``default``, ``default_factory``, ``init``, ``repr``, ``compare``, ``hash``); keyword-only
    fields raise ``TypeError``, as does a frozen record that defines ``__setattr__``.
    """
    def wrap(klass: T) -> T:
        return _make_record(klass, frozen)
    return wrap if cls is None else wrap(cls)


def _make_record(cls: T, frozen: bool) -> T:
    documented = bool(cls.__dict__.get("__doc__"))
    if frozen and ("__setattr__" in cls.__dict__ or "__delattr__" in cls.__dict__):
        raise TypeError(f"record {cls.__name__} is frozen: it cannot define __setattr__ or __delattr__")
    class_hash = cls.__dict__.get("__hash__", dataclasses.MISSING)
    explicit_hash = not (class_hash is dataclasses.MISSING or (class_hash is None and "__eq__" in cls.__dict__))
    # dataclass collects the fields and sets __dataclass_fields__ and __match_args__; it generates nothing.
    cls = dataclasses.dataclass(cls, init=False, repr=False, eq=False)
    fields = dataclasses.fields(cls)
    if any(f.kw_only is True for f in fields):
        raise TypeError(f"record {cls.__name__}: keyword-only fields are not supported")
    # Methods the class writes itself are kept, as dataclass keeps them (a __hash__ it wrote is explicit_hash).
    compiled = [name for name in ("__init__", "__eq__") if name not in cls.__dict__]
    compiled += ["__hash__"] if frozen and not explicit_hash else []
    methods = {name: _compiled_on_first_call(cls, fields, frozen, name) for name in compiled}
    if "__repr__" not in cls.__dict__:
        methods["__repr__"] = _repr(fields)
    if frozen:
        methods["__setattr__"], methods["__delattr__"] = _frozen_setattr_delattr(cls, fields)
    elif not explicit_hash:
        methods["__hash__"] = None
    for name, method in methods.items():
        if method is not None:
            _name_method(cls, name, method)
        setattr(cls, name, method)
    if not documented:  # as dataclass writes it: the class's signature
        cls.__doc__ = cls.__name__ + str(inspect.signature(cls)).replace(" -> None", "")
    params = cls.__dataclass_params__
    params.init = params.repr = params.eq = True
    params.frozen = frozen
    return cls


def _repr(fields: tuple) -> Callable:
    shown = [f.name for f in fields if f.repr]

    @reprlib.recursive_repr()
    def __repr__(self):
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in shown)
        return f"{self.__class__.__qualname__}({inner})"
    return __repr__


def _frozen_setattr_delattr(cls: type, fields: tuple) -> tuple[Callable, Callable]:
    names = frozenset(f.name for f in fields)

    def __setattr__(self, name, value):
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self, name):
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)
    return __setattr__, __delattr__


def _name_method(cls: type, name: str, method: Callable) -> None:
    """Name ``method`` as the method ``name`` of ``cls`` (its qualified name), as ``dataclass`` does."""
    method.__qualname__ = f"{cls.__qualname__}.{name}"


def _compiled_on_first_call(cls: type, fields: tuple, frozen: bool, name: str) -> Callable:
    """A stand-in for the method ``name`` of ``cls`` that compiles it (:func:`_compiled`) the first time it runs.

    The compiled method replaces the stand-in on ``cls`` and answers the call; later calls reach it directly,
    through the class's slot, as if it had been compiled when the class was made."""
    def first_call(self, *args, **kwargs):
        method = _compiled(cls, fields, frozen, name)
        _name_method(cls, name, method)
        setattr(cls, name, method)
        return method(self, *args, **kwargs)
    first_call.__module__ = cls.__module__  # as the compiled method's (its namespace's __name__)
    if name == "__init__":
        first_call.__signature__ = _init_signature(fields)  # type: ignore[attr-defined]
    return first_call


def _init_signature(fields: tuple) -> inspect.Signature:
    """The signature of the ``__init__`` that :func:`_compiled` writes: ``self``, then each ``init`` field."""
    positional = inspect.Parameter.POSITIONAL_OR_KEYWORD
    params = [inspect.Parameter("self", positional)]
    for f in fields:
        if f.init:
            default = (_FACTORY if f.default_factory is not dataclasses.MISSING else
                       inspect.Parameter.empty if f.default is dataclasses.MISSING else f.default)
            params.append(inspect.Parameter(f.name, positional, default=default, annotation=f.type))
    return inspect.Signature(params, return_annotation=None)


def _compiled(cls: type, fields: tuple, frozen: bool, name: str) -> Callable:
    """The method ``name`` (``__init__``, ``__eq__`` or ``__hash__``), compiled from its text.

    These three run on every record made, compared or used as a key, so they are the code ``dataclass`` writes:
    a closure in a type's slot (``hash(x)``, ``x == y``) was measured at twice the cost of a plain function."""
    namespace: dict[str, Any] = {"__builtins__": __builtins__, "__name__": cls.__module__, "FACTORY": _FACTORY,
                                 "__object_setattr": object.__setattr__}
    if name == "__init__":
        lines = _init_lines(cls, fields, frozen, namespace)
    elif name == "__eq__":
        compared = [f.name for f in fields if f.compare]
        lines = ["def __eq__(self, other):",
                 " if other.__class__ is self.__class__:",
                 f"  return {_tuple('self', compared)} == {_tuple('other', compared)}",
                 " return NotImplemented"]
    else:
        hashed = [f.name for f in fields if (f.compare if f.hash is None else f.hash)]
        lines = ["def __hash__(self):", f" return hash({_tuple('self', hashed)})"]
    exec("\n".join(lines), namespace)  # noqa: S102 - the text is built here from field names only
    if name == "__init__":
        namespace["__init__"].__annotations__ = {f.name: f.type for f in fields if f.init} | {"return": None}
    return namespace[name]


def _init_lines(cls: type, fields: tuple, frozen: bool, namespace: dict) -> list[str]:
    """``__init__``'s text: parameters with their defaults, one assignment per field, then ``__post_init__``."""
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
        body.append(f" __object_setattr(self, {f.name!r}, {value})" if frozen else f" self.{f.name} = {value}")
    if hasattr(cls, "__post_init__"):
        body.append(" self.__post_init__()")
    # (Storing the fields into ``self.__dict__`` instead was tried: making a record costs half, but touching
    # ``__dict__`` makes CPython 3.11 build the instance's dict, and every later attribute read takes the slower
    # dict path: the synthesis, which reads its records' fields often, went from 251.5k to 265.0k instructions.)
    return [f"def __init__({', '.join(params)}):"] + (body or [" pass"])


def _tuple(owner: str, names: list[str]) -> str:
    """The text of the tuple of ``owner``'s ``names`` attributes."""
    return "(" + "".join(f"{owner}.{name}," for name in names) + ")"
