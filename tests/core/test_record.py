"""``record`` makes the class ``dataclass`` makes: compared feature by feature on twin classes."""

import copy
import dataclasses
import inspect
import re
from dataclasses import field
from pathlib import Path
from typing import ClassVar

import pytest

import linlayout
from linlayout.core.record import record


def _twins(frozen: bool):
    """The same class bodies under ``dataclass`` and under ``record``: every feature the package uses."""
    made = {}
    for maker in ("dataclass", "record"):
        decorate = (dataclasses.dataclass(frozen=frozen) if maker == "dataclass" else record(frozen=frozen))

        class Plain:
            """Required, default and factory fields."""
            a: int
            b: str = "b"
            c: list = field(default_factory=list)

        class Options:
            """Fields left out of init, repr, comparison and hashing, a class variable and a __post_init__."""
            kind: ClassVar[str] = "options"
            a: int
            hidden: int = field(default=7, repr=False)
            note: str = field(default="", compare=False)
            unhashed: int = field(default=0, hash=False)
            derived: int = field(init=False, repr=False, compare=False)
            made: dict = field(default_factory=dict, init=False, compare=False)

            def __post_init__(self):
                object.__setattr__(self, "derived", 2 * self.a) if frozen else setattr(self, "derived", 2 * self.a)

        class Own:
            """Methods the class writes itself are kept."""
            a: int

            def __repr__(self):
                return f"Own<{self.a}>"

            def __hash__(self):
                return 42

        class OwnEq:
            """An own __eq__ without __hash__."""
            a: int

            def __eq__(self, other):
                return type(other) is type(self) and self.a % 2 == other.a % 2

        class Empty:
            """No fields at all."""

        class Undocumented:
            a: int
            b: int = 1

        for cls in (Plain, Options, Own, OwnEq, Empty, Undocumented):
            cls.__qualname__ = cls.__name__
            made[maker, cls.__name__] = decorate(cls)
    return made


EXAMPLES = {"Plain": [(1,), (1, "x"), (1, "x", [2])], "Options": [(1,), (1, 3, "n", 5), (2, 3, "m", 5)],
            "Own": [(1,), (2,)], "OwnEq": [(1,), (3,), (2,)], "Empty": [()], "Undocumented": [(1,), (1, 2)]}


def _behaviour(cls, frozen):
    """Everything observable about a class and its instances, as comparable data."""
    out = {"signature": str(inspect.signature(cls)), "doc": cls.__doc__, "match_args": cls.__match_args__,
           "fields": [(f.name, f.init, f.repr, f.compare, f.hash) for f in dataclasses.fields(cls)],
           "params": {k: getattr(cls.__dataclass_params__, k) for k in ("init", "repr", "eq", "frozen")},
           "hashable": cls.__hash__ is not None, "is_dataclass": dataclasses.is_dataclass(cls)}
    objects = [cls(*args) for args in EXAMPLES[cls.__name__]]
    out["repr"] = [repr(o) for o in objects]
    out["eq"] = [[x == y for y in objects] for x in objects]
    out["ne_other"] = [o == (1,) for o in objects]
    if cls.__hash__ is not None:
        out["hash"] = [_outcome(lambda: hash(x) == hash(y)) for y in objects for x in objects]
    out["asdict"] = [dataclasses.asdict(o) for o in objects]
    out["replace"] = [repr(dataclasses.replace(o)) for o in objects]
    out["copy"] = [copy.deepcopy(o) == o for o in objects]  # the reduce protocol that pickle uses
    out["assign"] = [_outcome(action) for o in objects
                     for action in (lambda: setattr(o, "a", 9), lambda: delattr(o, "a"), lambda: setattr(o, "new", 1))]
    return out


def _outcome(action):
    """What ``action`` returns, or the type and text of what it raises."""
    try:
        return action()
    except Exception as error:  # the exception's type and text are the behaviour compared
        return type(error).__name__, str(error)


@pytest.mark.parametrize("frozen", [True, False])
@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_record_behaves_as_dataclass(name, frozen):
    made = _twins(frozen)
    assert _behaviour(made["record", name], frozen) == _behaviour(made["dataclass", name], frozen)


def test_defaults_are_not_shared():
    made = _twins(True)
    x, y = made["record", "Plain"](1), made["record", "Plain"](2)
    x.c.append(1)
    assert y.c == [] and made["record", "Options"](1).derived == 2


def test_record_refuses_what_it_does_not_support():
    with pytest.raises(TypeError, match="__setattr__"):
        @record
        class Guarded:
            """Frozen with its own __setattr__."""
            a: int

            def __setattr__(self, name, value):
                pass
    with pytest.raises(TypeError, match="keyword-only"):
        @record
        class KeywordOnly:
            """A keyword-only field."""
            a: int = field(kw_only=True)


def test_package_records_are_records():
    """Every value type of the package is made by ``record``: no module decorates with ``dataclass`` itself."""
    package = Path(linlayout.__file__).parent
    found = [f"{path.relative_to(package)}:{number}" for path in sorted(package.rglob("*.py"))
             if path != package / "core" / "record.py"
             for number, line in enumerate(path.read_text().splitlines(), 1)
             if re.match(r"\s*@(dataclasses\.)?dataclass\b", line)]
    assert not found, f"use linlayout.core.record.record instead of dataclass at {found}"
    from linlayout.convert.plan import ConversionPlan
    from linlayout.lower.records import LintReport
    for cls in (ConversionPlan, LintReport):
        assert cls.__setattr__.__module__ == record.__module__ and cls.__dataclass_params__.frozen
        assert cls.__eq__.__module__ == cls.__module__  # as dataclass's methods


@pytest.mark.parametrize("decorate", [dataclasses.dataclass(frozen=True), record], ids=["dataclass", "record"])
def test_equality_compares_tuples(decorate):
    """A value unequal to itself (NaN) still makes equal records when it is the same object, in both."""
    @decorate
    class One:
        """One compared field."""
        x: float

    nan = float("nan")
    assert One(nan) == One(nan) and One(nan) != One(float("nan"))


def test_methods_are_compiled_on_first_call():
    """``__init__``, ``__eq__`` and ``__hash__`` are compiled when first called, on the class that declared them
    (a subclass's call too), and read the same before and after: signature, docstring, name, module."""
    @record
    class Base:
        a: int
        b: str = field(default="b", compare=False)

    class Sub(Base):
        """A plain subclass: it inherits the stand-ins."""

    before = {name: Base.__dict__[name] for name in ("__init__", "__eq__", "__hash__")}
    seen = (str(inspect.signature(Base)), Base.__doc__, Base.__init__.__qualname__, Base.__eq__.__module__)
    assert seen == ("(a: int, b: str = 'b') -> None", "Base(a: int, b: str = 'b')", f"{Base.__qualname__}.__init__",
                    __name__)
    x, y = Sub(1), Sub(1, "other")
    assert (x == y, hash(x) == hash(y), x == Base(2)) == (True, True, False)
    after = {name: Base.__dict__[name] for name in ("__init__", "__eq__", "__hash__")}
    assert all(after[name] is not before[name] for name in before) and not set(Sub.__dict__) & set(before)
    assert (str(inspect.signature(Base)), Base.__doc__, Base.__init__.__qualname__, Base.__eq__.__module__) == seen
    assert Base.__init__.__annotations__ == {"a": int, "b": str, "return": None}
    with pytest.raises(TypeError, match=r"Base.__init__\(\) missing 1 required positional argument: 'a'"):
        Base()
