"""``plan_conversion``: how to move a tensor from one distributed layout to another.

Concepts
========

1. **Minimal conversion.**  :func:`~linlayout.convert.solve.conversion_map`
   picks the source slot of every destination slot so that data moves as
   little as possible; the dimensions the map is trivial over
   (:func:`~linlayout.core.quotient.is_trivial_over`) are stripped
   (``ConversionPlan.minimal``).  Its level gives the paths that are possible:
   ``none`` (the layouts are equal), ``registers``, ``shuffles`` (inside each
   warp) and ``shared_memory`` (inside each CTA).  Data crossing the
   ``block`` dimension is refused with one clear line.
2. **Every possible path is planned** with exact per-thread PTX instruction
   counts (:mod:`linlayout.convert.warp`, :mod:`linlayout.convert.smem`).
3. **The cost model** (per warp, in sixteenths of an SM cycle of an H100
   with its SMs full, :data:`~linlayout.convert.cost.COST_WEIGHTS`, fitted
   to timings of 583 plans in a throughput harness) chooses: an ALU
   instruction (``selp``, ``prmt``, ``mov``) costs 11; ``shfl.sync`` 6,
   plus 29 once for a plan that shuffles; a shared-memory access 4 (its
   issue) plus 6 per wavefront it takes, plus 8 once for a plan that uses
   shared memory; ``bar.sync`` 7 and ``bar.warp.sync`` 4 per barrier
   executed, the caller's barrier before the scratch is written again
   included (:func:`~linlayout.convert.cost.executed_barriers`).
   Every alternative's cost is reported and :meth:`ConversionPlan.explain`
   says why the chosen one wins.  ``paper_notes/convert.md`` records what
   was measured about it.
4. **Never more than Triton.**  The model chooses among the candidates a
   rule leaves: a round trip takes no more shared-memory instructions,
   barriers, ``shfl.sync`` or ``selp`` per thread than Triton 3.9's own
   staging (:func:`~linlayout.convert.smem.within_tritons_counts`; that
   staging is always a candidate), and a shuffle program no more
   ``shfl.sync`` than the planner's programs that pack whole words
   (:func:`~linlayout.convert.warp.packed_shuffle_bound`).

>>> from linlayout.core.layout import LinearLayout
>>> rows = LinearLayout({"register": [[0, 1]], "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]}, {"dim0": 32, "dim1": 2})
>>> cols = LinearLayout({"register": [[1, 0]], "lane": [[0, 1], [2, 0], [4, 0], [8, 0], [16, 0]]}, {"dim0": 32, "dim1": 2})
>>> p = plan_conversion(rows, cols, 32)       # a 32x2 fp32 transpose within a warp
>>> p.path, p.instructions, p.cost
('shared_memory', {'st.shared': 1, 'ldmatrix': 1, 'bar.warp.sync': 1}, 48)
>>> [(a.path, a.cost) for a in p.alternatives]        # one shfl.sync and 3 selp: 6 + 3 * 11 + 29
[('shuffles', 68), ('shared_memory', 48)]
"""

from __future__ import annotations

from dataclasses import field
from typing import Any

from ..core.dims import split_columns
from ..core.layout import LinearLayout
from ..core.quotient import is_trivial_over
from ..core.record import record
from ..errors import InputError, InputTypeError, UnsupportedConversion
from ..hw import SharedMemory
from .cost import COST_WEIGHTS, cost_of, merge, opcode
from .multistep import MAX_STEP_PLANS, cheapest_path
from .query import PATHS, ConversionQuery
from .smem import RoundTrip, round_trip
from .solve import HW_DIMS, ConversionMap, aligned, conversion_map
from .warp import RegisterProgram, ShuffleProgram, register_program, shuffle_lower_bound, shuffle_program

__all__ = ["Alternative", "ConversionPlan", "plan_conversion"]

OPCODES = ("shfl.sync", "selp", "prmt", "mov", "st.shared", "ld.shared", "stmatrix", "ldmatrix", "bar.sync",
           "bar.warp.sync")


@record
class Alternative:
    """One possible path with its exact counts and cost."""

    path: str
    cost: int
    instructions: dict[str, int]
    wavefronts: dict[str, int] | None = None
    reps: int = 1
    scratch_bytes: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "cost": self.cost, "instructions": dict(self.instructions),
                "wavefronts": self.wavefronts, "reps": self.reps, "scratch_bytes": self.scratch_bytes}


@record
class ConversionPlan:
    """How to convert ``src`` to ``dst``: the chosen path, its programs, counts, cost and alternatives.

    ``instructions`` are per thread, by PTX opcode; ``wavefronts`` per warp
    (``None`` unless the path uses shared memory).  ``registers``,
    ``shuffles`` and ``shared_memory`` hold the chosen path's program
    (others ``None``); ``shuffle_lower_bound`` is the least number of
    ``shfl.sync`` any warp-local program needs (None unless warp-local).
    ``multistep_unsettled``: the intermediate layouts the two-step search
    left unsettled when it stopped at its work bound
    (:data:`~linlayout.convert.multistep.MAX_STEP_PLANS` step plans; 0 when
    it completed or did not run): a cheaper two-step plan may then exist.
    """

    path: str
    element_bits: int
    hardware: str
    instructions: dict[str, int]
    wavefronts: dict[str, int] | None
    reps: int
    scratch_bytes: int
    cost: int
    alternatives: tuple[Alternative, ...]
    minimal: LinearLayout
    conversion: ConversionMap | None = field(repr=False, compare=False, default=None)
    registers: RegisterProgram | None = field(repr=False, compare=False, default=None)
    shuffles: ShuffleProgram | None = field(repr=False, compare=False, default=None)
    shared_memory: RoundTrip | None = field(repr=False, compare=False, default=None)
    shuffle_lower_bound: int | None = None
    steps: tuple[tuple[LinearLayout, ConversionPlan], ...] = field(repr=False, compare=False, default=())
    multistep_unsettled: int = 0

    @property
    def barriers(self) -> int:
        return self.instructions.get("bar.sync", 0) + self.instructions.get("bar.warp.sync", 0)

    def to_dict(self) -> dict[str, Any]:
        """The JSON of ``linlayout convert --json``."""
        d: dict[str, Any] = {
            "path": self.path,
            "element_bits": self.element_bits,
            "hardware": self.hardware,
            "instructions": {op: self.instructions.get(op, 0) for op in OPCODES},
            "wavefronts": self.wavefronts,
            "reps": self.reps,
            "scratch_bytes": self.scratch_bytes,
            "cost": self.cost,
            "alternatives": [a.to_dict() for a in self.alternatives],
            "minimal": self.minimal.to_dict(),
            "shuffle_lower_bound": self.shuffle_lower_bound,
            "explain": self.explain(),
        }
        if self.shared_memory is not None:
            d["memory"] = self.shared_memory.swizzle.memory.to_dict()
            d["swizzle_synthesized"] = self.shared_memory.swizzle.synthesized
        if self.steps:
            d["steps"] = [{"to": layout.to_dict(), "path": p.path, "cost": p.cost,
                           "instructions": {op: p.instructions.get(op, 0) for op in OPCODES}, "wavefronts": p.wavefronts}
                          for layout, p in self.steps]
        if self.multistep_unsettled:
            d["multistep_unsettled"] = self.multistep_unsettled
        return d

    def explain(self) -> str:
        """Why this path: what the minimal conversion moves and how the alternatives compare."""
        moved = [d for d in self.minimal.in_dims]
        lines = [f"minimal conversion moves data along {moved or 'nothing'}"]
        if self.path == "none":
            lines.append("src and dst are the same layout: nothing to do")
            return "\n".join(lines)
        for a in self.alternatives:
            ins = ", ".join(f"{k} {v}" for k, v in a.instructions.items()) or "no instructions"
            extra = f"; wavefronts {a.wavefronts['write']}+{a.wavefronts['read']}, reps {a.reps}, scratch {a.scratch_bytes} B" if a.wavefronts else ""
            mark = "chosen" if a.path == self.path else "rejected"
            lines.append(f"{a.path}: cost {a.cost} ({ins}{extra}) -- {mark}")
        if self.shared_memory is not None and self.shared_memory.triton_bound is not None:
            lines.append(_triton_bound_line(self.shared_memory.triton_bound))
        if self.shuffle_lower_bound is not None and self.shuffles is not None:
            got = self.shuffles.counts.get("shfl.sync", 0)
            lines.append(f"shuffles: {got} shfl.sync per thread, lower bound {self.shuffle_lower_bound}")
        if self.steps:
            lines.append("multistep: " + " then ".join(f"{p.path} (cost {p.cost})" for _, p in self.steps)
                         + " through an intermediate layout")
        if self.multistep_unsettled:
            n = self.multistep_unsettled
            lines.append(f"multistep: the search stopped at its bound of {MAX_STEP_PLANS} step plans with {n} "
                         f"intermediate layout{'s' * (n != 1)} unsettled (a cheaper two-step plan may exist)")
        if len(self.alternatives) > 1:
            lines.append(f"{self.path} wins: lowest cost under the model (weights {COST_WEIGHTS})")
        else:
            lines.append(f"{self.path} is the only possible path")
        return "\n".join(lines)


def _triton_bound_line(bound: dict[str, int]) -> str:
    """The explanation's line for the planner's rule on round trips (:func:`~linlayout.convert.smem.within_tritons_counts`)."""
    counts = ", ".join(f"{what} {n}" for what, n in bound.items() if n)
    return f"shared_memory: chosen among round trips with no more per thread than Triton 3.9's own staging ({counts})"


def _minimal(cm: ConversionMap) -> LinearLayout:
    """The map without the dimensions it is trivial over (:func:`~linlayout.core.quotient.is_trivial_over`), stripped
    from the top (``block``, ``warp``, ``lane``, ``register``) while the map stays trivial over all stripped so far.

    One pass over the flat columns instead of one triviality check per prefix and a checked sublayout: the map's
    input and output dimensions are the hardware dimensions in the same order (lowest first), so the stripped ones
    are the top dimensions ``i..``; the map is trivial over them when each is the identity onto itself (its columns
    the unit vectors of its output bits) and no lower input reaches their bits (every lower column is below the
    first of them; the identity columns reach no others).
    """
    L = cm.layout
    ins, outs = L.in_dim_bits, L.out_dim_bits
    columns = cm.columns
    col_end, out_end = len(columns), sum(b for _, b in outs)  # where the dimensions above the current one start
    if [n for n, _ in ins] != list(HW_DIMS) or [n for n, _ in outs] != list(HW_DIMS) or out_end > len(_UNITS):
        return _minimal_checked(L)
    keep = len(ins)
    for i in range(len(ins) - 1, -1, -1):
        b = ins[i][1]
        col_start, out_start = col_end - b, out_end - outs[i][1]
        if b != outs[i][1] or columns[col_start:col_end] != _UNITS[out_start:out_end] \
                or max(columns[:col_start], default=0) >> out_start:
            break
        keep, col_end, out_end = i, col_start, out_start
    # the kept inputs reach only the kept outputs' bits (the lowest): their columns stay as they are (the map's
    # layout was built from this split of them)
    return LinearLayout.from_flat(ins[:keep], outs[:keep], split_columns(columns, ins[:keep]), check=False)


_UNITS = tuple(1 << k for k in range(256))
"""The unit vectors by bit: a dimension of the map is the identity when its columns are a run of them."""


def _minimal_checked(L: LinearLayout) -> LinearLayout:
    stripped: list[str] = []
    for d in ("block", "warp", "lane", "register"):
        if is_trivial_over(L, stripped + [d]):
            stripped.append(d)
        else:
            break
    return L.sublayout([d for d in L.in_dims if d not in stripped], [d for d in L.out_dims if d not in stripped])


def plan_conversion(src: LinearLayout | ConversionQuery, dst: LinearLayout | None = None,
                    element_bits: int | None = None, hardware: Any = "sm90", scratch_bytes: int | None = None,
                    paths: Any = None, multistep: bool = True) -> ConversionPlan:
    """Plan the conversion of a register tensor from layout ``src`` to layout ``dst``.

    Parameters
    ----------
    src, dst
        Distributed layouts (``register``, ``lane``, optional ``warp``,
        ``block``) onto the same tensor, with the same lanes, warps and blocks.
    element_bits
        Bits per element: 8, 16, 32 or 64.
    hardware
        Bank model for the shared-memory path (default ``sm90``).
    scratch_bytes
        Most shared memory the round trip may use (``None``: what Triton 3.9
        allocates for the conversion, :func:`~linlayout.convert.smem.triton_scratch_bytes`).
    paths
        Restrict the choice to these paths (``"registers"``, ``"shuffles"``,
        ``"shared_memory"``); ``None`` allows all.  The alternatives still
        list every possible path.
    multistep
        Also search two-step plans through an intermediate layout (default;
        only warp-local conversions are searched, and only a two-step plan
        cheaper than every one-step plan is chosen: ``docs/convert.md``, Two
        steps).  ``False`` plans one step only.

    Instead of the arguments, one :class:`~linlayout.convert.query.ConversionQuery`
    may be given.  Returns a :class:`ConversionPlan`.  Raises
    :class:`UnsupportedConversion` when data must cross the ``block``
    dimension, :class:`InputError` on bad input.
    """
    if type(src) is ConversionQuery:
        if dst is not None or element_bits is not None or scratch_bytes is not None or paths is not None \
                or multistep is not True or hardware != "sm90":
            raise InputTypeError("pass either one ConversionQuery or the query's fields as arguments, not both")
        return _plan(src)
    return _plan(ConversionQuery(src, dst, element_bits, hardware, scratch_bytes, paths, multistep))


def _plan(query: ConversionQuery, with_shared: bool = True) -> ConversionPlan:
    """The :class:`ConversionPlan` of a checked :class:`~linlayout.convert.query.ConversionQuery`.

    ``with_shared=False`` leaves the shared-memory path out (a multi-step search's warp-local step).
    """
    src, eb, hw = query.src, query.element_bits, query.hw
    dst = aligned(src, query.dst)
    cm = conversion_map(src, dst)
    minimal = _minimal(cm)
    if cm.level == 3:
        raise UnsupportedConversion(
            "the conversion moves data across the block dimension (between CTAs); only conversions inside a CTA are planned")
    if src == dst:
        return ConversionPlan("none", eb, hw.name, {}, None, 1, 0, 0, (Alternative("none", 0, {}),), minimal, cm)
    alts, progs, lower = _alternatives(src, dst, cm, eb, hw, query.scratch_bytes, with_shared)
    best = _cheapest(alts, query.paths)
    unsettled = 0
    if query.multistep and query.paths is None and best.cost > 0 and cm.level <= 1:
        two_step, unsettled = _two_step_plan(query, dst, best.cost, alts, minimal, cm, lower)
        if two_step is not None:
            return two_step
    return ConversionPlan(
        path=best.path, element_bits=eb, hardware=hw.name, instructions=dict(best.instructions),
        wavefronts=best.wavefronts, reps=best.reps, scratch_bytes=best.scratch_bytes, cost=best.cost,
        alternatives=tuple(alts), minimal=minimal, conversion=cm,
        registers=progs.get("registers") if best.path == "registers" else None,
        shuffles=progs.get("shuffles") if best.path == "shuffles" else None,
        shared_memory=progs.get("shared_memory") if best.path == "shared_memory" else None,
        shuffle_lower_bound=lower, multistep_unsettled=unsettled,
    )


def _alternatives(src: LinearLayout, dst: LinearLayout, cm: ConversionMap, eb: int, hw: SharedMemory,
                  scratch_bytes: int | None,
                  with_shared: bool = True) -> tuple[list[Alternative], dict[str, Any], int | None]:
    """Every possible path with its program, and the shuffle lower bound (``None`` unless warp-local)."""
    alts: list[Alternative] = []
    progs: dict[str, Any] = {}
    lower = None
    if cm.level == 0:
        rp = register_program(cm, eb)
        progs["registers"] = rp
        alts.append(Alternative("registers", cost_of(rp.counts), dict(rp.counts)))
        # Only the bound is reported: a level-0 map always has a shuffle program (every lane reads itself, pack
        # width 0), whose lower_bound this is, and the register path is the only warp-local alternative.
        lower = shuffle_lower_bound(cm, eb)
    elif cm.level == 1:
        sp = shuffle_program(cm, eb)
        if sp is not None:
            lower = sp.lower_bound
            progs["shuffles"] = sp
            alts.append(Alternative("shuffles", sp.cost, dict(sp.counts)))  # priced once, when the search compared it
    smem_error = None
    if src.in_sizes.get("block", 1) == 1 and (with_shared or not alts):
        try:
            rt = round_trip(src, dst, eb, hw, scratch_bytes)
        except InputError as e:
            smem_error = e
        else:
            progs["shared_memory"] = rt
            ins: dict[str, int] = {}
            for op, n in rt.instructions.items():
                ins[opcode(op)] = ins.get(opcode(op), 0) + n
            # the round trip's own cost: its counts by opcode family price the same (one weight per family)
            alts.append(Alternative("shared_memory", rt.cost, ins, rt.wavefronts, rt.reps, rt.scratch_bytes))
    if not alts:
        why = f": {smem_error}" if smem_error else ": it moves data between warps and the shared-memory path needs one CTA (block size 1)"
        raise UnsupportedConversion(f"no path for this conversion{why}")
    return alts, progs, lower


def _cheapest(alts: list[Alternative], paths: tuple[str, ...] | None) -> Alternative:
    """The cheapest alternative among the allowed ``paths`` (ties: registers, shuffles, shared memory)."""
    allowed = alts
    if paths is not None:
        allowed = [a for a in alts if a.path in paths]
        if not allowed:
            raise UnsupportedConversion(f"none of the paths {list(paths)} can do this conversion "
                                        f"(possible: {[a.path for a in alts]})")
    return min(allowed, key=lambda a: (a.cost, PATHS.index(a.path)))


def _two_step_plan(query: ConversionQuery, dst: LinearLayout, bound: int, alts: list[Alternative],
                   minimal: LinearLayout, cm: ConversionMap, lower: int | None) -> tuple[ConversionPlan | None, int]:
    """A two-step plan cheaper than ``bound`` (:func:`~linlayout.convert.multistep.cheapest_path`) or ``None``, and
    the intermediate layouts the search left unsettled at its work bound.

    Only warp-local conversions (``cm.level <= 1``) are searched: the steps are register/lane swaps, which keep the
    warps, so they pay only inside a warp; each step is planned without shared memory.
    """
    eb, hw, scratch_bytes = query.element_bits, query.hw, query.scratch_bytes

    def step(a: LinearLayout, b: LinearLayout, warp_local: bool, ceiling: int) -> ConversionPlan:
        # The exact step, the search's ceiling not passed on: with a ceiling, warp.shuffle_program scores the
        # candidates its packed-shuffle bound would drop unbuilt, which made the speed corpus's step plans half as
        # slow again (30 against 20 ms).
        return _plan(ConversionQuery(a, b, eb, hw, scratch_bytes, multistep=False), with_shared=False)

    found = cheapest_path(query.src, dst, bound, step, eb)
    if found.path is None:
        return None, found.unsettled
    cost, steps = found.path
    ins = merge(*(p.instructions for _, p in steps))
    for i, (_, p) in enumerate(steps):  # a later step rewrites the scratch: a barrier after this step's reads
        if p.shared_memory is not None and any(q.path == "shared_memory" for _, q in steps[i + 1:]):
            ins = merge(ins, {p.shared_memory.barrier_instruction: 1})
            cost += COST_WEIGHTS[p.shared_memory.barrier_instruction]
    if cost >= bound:
        return None, found.unsettled
    wf_steps = [p.wavefronts for _, p in steps if p.wavefronts]
    wf = {k: sum(w[k] for w in wf_steps) for k in ("write", "read")} if wf_steps else None
    scratch = max(p.scratch_bytes for _, p in steps)
    reps = max(p.reps for _, p in steps)
    alt = Alternative("multistep", cost, ins, wf, reps, scratch)
    return ConversionPlan("multistep", eb, hw.name, ins, wf, reps, scratch, cost, tuple(alts) + (alt,),
                          minimal, cm, shuffle_lower_bound=lower, steps=tuple(steps),
                          multistep_unsettled=found.unsettled), found.unsettled
