"""The loops of a kernel and how many times each runs: read from the IR, given by the user, or data-dependent.

A kernel's totals multiply each op's traffic by the trip counts of its
enclosing loops.  Where they come from, in order:

* given: ``--trip-count LOC=N`` (a location matched by :func:`loop_matches`);
  a location that matches no loop is an error listing the loops (strict
  mode, the command line's), never silently ignored;
* read from the IR: an ``scf.for`` whose lower bound, upper bound and step
  are all ``arith.constant`` integers runs ``ceil((ub - lb) / step)`` times;
* a total: ``--loop-total LOC=N`` says the loop's body runs ``N`` times per
  program in all, over every execution of the loops around it (a persistent
  or grouped kernel's tile loop: tiles per program, whatever the loops that
  hand them out); an op inside it runs ``N`` times its inner loops' trip
  counts, and the loops around it need no trip count (``source`` is
  ``"total per program"``);
* data-dependent: an ``scf.while`` (a spin lock's ``tt.atomic_cas``) has no
  trip count; its body's traffic is reported per iteration;
* otherwise unknown: the totals say which loop needs ``--trip-count``.

>>> from linlayout.lower.ir import Loop, Module, Op
>>> ops = [Op("arith.constant", ["%c0"], [], [], [], "", 1, "%c0 = arith.constant 0 : i32"),
...        Op("arith.constant", ["%c8"], [], [], [], "", 2, "%c8 = arith.constant 8 : i32"),
...        Op("arith.constant", ["%c2"], [], [], [], "", 3, "%c2 = arith.constant 2 : i32"),
...        Op("scf.for", [], [], [], [], "k.py:9:5", 4, "scf.for %i = %c0 to %c8 step %c2 {")]
>>> trips = loop_trip_counts(Module({}, {}, ops, [Loop(0, "scf.for", "k.py:9:5")]), {})
>>> trips[0]
LoopCount(trip_count=4, source='constant bounds', kind='scf.for')
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from ..errors import InputError
from .ir import Module, Op

__all__ = ["TOTAL", "LoopCount", "executions", "loop_matches", "loop_trip_counts"]


class LoopCount(NamedTuple):
    """A loop's trip count (``None`` when unknown) and where it came from: ``"given"``, ``"constant bounds"``,
    ``"data-dependent"`` (an ``scf.while``) or ``""`` (unknown)."""

    trip_count: int | None
    source: str
    kind: str


def loop_matches(location: str, key: str) -> bool:
    """Whether a trip-count key names the loop at ``location``: its ``file:line:col``, ``file:line`` or ``line``.

    >>> loop_matches("kernels.py:69:8", "kernels.py:69"), loop_matches("kernels.py:69:8", "69"), loop_matches("a.py:7:1", "8")
    (True, True, False)
    """
    if location == key or location.endswith(key):
        return True
    base = location.rsplit(":", 1)[0]  # file:line without the column
    return base == key or base.endswith(key) or base.endswith("/" + key) or base.split(":")[-1] == key


def _constants(module: Module) -> dict[str, int]:
    out = {}
    for op in module.ops:
        m = re.search(r"arith\.constant\s+(-?\d+)\s*:\s*(?:i\d+|index)\b", op.text)
        if op.name == "arith.constant" and m and op.results:
            out[op.results[0]] = int(m.group(1))
    return out


def _constant_trips(op: Op, consts: Mapping[str, int]) -> int | None:
    m = re.search(r"scf\.for\s+%[\w#]+\s*=\s*(%[\w#]+)\s+to\s+(%[\w#]+)\s+step\s+(%[\w#]+)", op.text)
    if not m or any(v not in consts for v in m.groups()):
        return None
    lb, ub, step = (consts[v] for v in m.groups())
    return max(0, -(-(ub - lb) // step)) if step > 0 else None


TOTAL = "total per program"
"""The :class:`LoopCount` source of a loop whose body's total executions per program were given."""


def _check_keys(module: Module, keys, flag: str) -> None:
    for key in keys:
        if not any(loop_matches(lp.location, key) for lp in module.loops):
            found = ", ".join(f"{lp.location} ({lp.name})" for lp in module.loops) or "none"
            raise InputError(f"{flag} {key}: no loop at that location; the loops are: {found}")


def loop_trip_counts(module: Module, given: Mapping[str, int], strict: bool = False,
                     totals: Mapping[str, int] | None = None) -> dict[int, LoopCount]:
    """Every loop's :class:`LoopCount` by index (see the module docstring).

    With ``strict``, a ``given`` or ``totals`` location that matches no loop raises an
    :class:`~linlayout.errors.InputError` that lists the loops found; a loop given both is an error always.
    """
    heads = [op for op in module.ops if op.name in ("scf.for", "scf.while")]
    consts = _constants(module)
    totals = dict(totals or {})
    if strict:
        _check_keys(module, given, "--trip-count")
        _check_keys(module, totals, "--loop-total")
    out = {}
    for lp in module.loops:
        n = next((v for k, v in given.items() if loop_matches(lp.location, k)), None)
        t = next((v for k, v in totals.items() if loop_matches(lp.location, k)), None)
        head = heads[lp.index] if lp.index < len(heads) else None
        if n is not None and t is not None:
            raise InputError(f"the loop at {lp.location} has both a trip count and a total: give one")
        if t is not None:
            out[lp.index] = LoopCount(t, TOTAL, lp.name)
        elif n is not None:
            out[lp.index] = LoopCount(n, "given", lp.name)
        elif lp.name == "scf.while":
            out[lp.index] = LoopCount(None, "data-dependent", lp.name)
        else:
            c = _constant_trips(head, consts) if head is not None else None
            out[lp.index] = LoopCount(c, "constant bounds" if c is not None else "", lp.name)
    return out


def executions(op_loops: Sequence[int], counts: Mapping[int, LoopCount]) -> tuple[int | None, list[int]]:
    """How many times per program an op inside ``op_loops`` (loop indices, outermost first) runs, and the loops
    whose trip counts that takes: from the innermost loop with a total inward, else all of them (``None`` when one
    is unknown).

    >>> counts = {0: LoopCount(None, "", "scf.for"), 1: LoopCount(2, TOTAL, "scf.while"), 2: LoopCount(16, "given", "scf.for")}
    >>> executions([0, 1, 2], counts), executions([0], counts)
    ((32, [1, 2]), (None, [0]))
    """
    start = max((i for i, li in enumerate(op_loops) if counts[li].source == TOTAL), default=0)
    needed = list(op_loops[start:])
    n: int | None = 1
    for li in needed:
        t = counts[li].trip_count
        n = None if t is None or n is None else n * t
    return n, needed
