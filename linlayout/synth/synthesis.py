"""Synthesis: the optimal shared-memory swizzle for a write layout and a read layout.

Concepts
========

A tile is written to shared memory by one distributed layout and read back
by another.  Both accesses go through the same **memory layout** ``M``
(``offset`` → tensor).  Offsets are split by what their bits mean to the
hardware (for 32-bit elements: bits 0-4 choose the bank, bits 5 and up the
128-byte row, the "segment")::

    offset bits:   | vector | word fill | bank bits      | segment bits   |
    byte address:  |   within a 4-byte word  | bytes 2..6 | bytes 7..      |

``M``'s columns (one tensor direction per offset bit) are chosen in that
order:

1. **Vector** ``V``: register directions common to both layouts (at most
   128 bits), so each lane moves a contiguous vector on both sides.
2. **Extension**: registers of *one* side placed right after ``V``, widening
   that side's vector (below 32 bits this halves its wavefronts per step;
   above, it saves instructions).  At most one side can be extended: a
   direction that is a register of both sides is already in ``V``.  The
   extension's registers are taken in two orders (``construct.low_blocks``);
   the second is kept only when strictly cheaper.
3. **Word fill**: if the vector stops short of a 32-bit word, the rest of
   the word takes lane directions, so lanes that differ there share a word.
4. **Segment** bits ``S`` avoid the lanes of each pass as far as dimensions
   allow (Lemma 9.5 generalised), and the **bank** bits ``B`` complete the
   space.  In the quotient by the word bits, with ``U`` = write lanes and
   ``W`` = read lanes of one pass, ``I = U ∩ W``: first every free direction
   (neither side's lane), then pairs ``e ^ f`` (``e`` a write-only lane,
   ``f`` a read-only lane), then unpaired lanes, then (only when forced) the
   rest.  This meets both sides' Grassmann bounds at once:
   ``conflicts_X = max(0, lanes_X - bank_bits)`` per pass (in log2 ways).

A pass costs ``2^dim(P)`` wavefronts (see :mod:`linlayout.count.closed_form`), an
instruction ``passes x 2^dim(P)``, a side ``instructions x that``.  Every
candidate (extension side and length, word fill split, and with
``instructions=[...]`` every pair of instructions) is scored in closed form,
the best is built, and the objective picks one (a built layout is scored
exactly unless its analytic cost is provably exact:
:func:`linlayout.synth.construct.analytic_is_exact`).  The
search stops early at a candidate that meets a **floor** no memory layout
can beat (each side conflict-free at its best vector width, the fewest
instructions two vectors sharing a prefix allow:
:func:`linlayout.synth.bounds.search_floor`); ties go to the first candidate
either way, so the answer is the full search's.

Optimality is proven, not assumed: a **relaxation** gives, for every pair of
vector widths ``(k_w, k_r)`` that any memory layout can produce (their common
prefix holds common registers only), a lower bound on each side's cost; if
the result meets the relaxation's optimum, no memory layout can beat it
(``optimal=True``).  The argument is in ``paper_notes/synthesis.md``.

>>> from linlayout import LinearLayout
>>> SH = {"dim0": 16, "dim1": 32}
>>> store = LinearLayout({"register": [[1, 0], [2, 0], [4, 0], [8, 0]],
...                       "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]]}, SH)
>>> read = LinearLayout({"register": [[0, 2], [0, 4], [0, 8], [0, 16]],
...                      "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1]]}, SH)
>>> res = optimal_swizzle(store, read, 32)
>>> res.write_wavefronts, res.read_wavefronts, res.optimal, res.write_instructions   # 128-bit stores
(16, 16, True, 4)
>>> optimal_swizzle(store, read, 32, vector_bits=32).segment   # 32-bit accesses: offset = 32m + (n ^ 2m)
((1, 2), (2, 4), (4, 8), (8, 16))
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from functools import cached_property, lru_cache
from itertools import count
from types import MappingProxyType
from typing import Any, NamedTuple

from ..core.layout import LinearLayout
from ..core.validate import check_keyword, check_sequence
from ..count.plan import check_element_bits, check_tile_bytes, matrix_tile
from ..errors import DimensionError, LoweringError, SizeError, SwizzleError
from ..hw import Instruction, SharedMemory, get_hardware, parse_instruction
from .bounds import OBJECTIVES, objective_key, relaxation, search_floor
from .construct import analytic_is_exact, complete, low_blocks, pair_sides, plans, prefix_len
from .explain import explain as _explain
from .explain import unflat as _unflat
from .general import exact_pair, general_blocks, general_columns, improve
from .sides import Cost, Geometry, exact_cost, geometry, memory_inverse, side_of

__all__ = ["SwizzleResult", "optimal_swizzle", "OBJECTIVES"]

# A NamedTuple from every one of its fields, in order, at C speed (the generated __new__ is Python code).
_new = tuple.__new__



# ---------------------------------------------------------------------------
# Construction
# ---------------------------------------------------------------------------


class _Candidate(NamedTuple):
    cols: tuple[int, ...]
    vector: tuple[int, ...]
    extension: tuple[int, ...]
    extended: str | None
    fill: tuple[int, ...]
    bank: tuple[int, ...]
    segment: tuple[int, ...]
    write_ins: Instruction
    read_ins: Instruction
    write_cost: Cost
    read_cost: Cost
    taus: Mapping[str, int] = MappingProxyType({})  # per side, the mask of its pass lanes outside the low block
    low: tuple[int, ...] = ()  # the low block: vector and extension, or a matrix instruction's tile
    general: bool = False  # built by the mixed-basis construction (synth/general.py)
    tier: int = 0  # 1: an extension in low_blocks' second order (kept only when strictly cheaper)


# ---------------------------------------------------------------------------
# Result
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class SwizzleResult:
    """The synthesized memory layout and everything known about it.

    ``memory`` maps ``offset`` (element offsets, vector bits lowest) to the
    tensor.  ``vector``, ``extension``, ``word_fill``, ``bank`` and
    ``segment`` list its columns by role (tensor coordinates, in offset
    order).  ``vector_bits`` is the width of the memory's contiguous vector
    block (the widest access either side makes, as Triton reports it) and
    ``common_vector_bits`` the width both sides use.  ``write`` and ``read`` are the exact counter's reports
    (:class:`~linlayout.count.closed_form.WavefrontReport`), computed on first use.
    ``lower_bound`` holds each side's best cost over *all* memory layouts
    (each side alone), ``optimal`` is True only when the result is proven
    optimal for the objective, and ``frontier`` lists the Pareto-optimal
    (write, read) pairs among the layouts the synthesizer built.
    """

    memory: LinearLayout
    element_bits: int
    extended_side: str | None
    vector_bits: int
    common_vector_bits: int
    write_instruction: str
    read_instruction: str
    write_wavefronts: int
    read_wavefronts: int
    write_instructions: int
    read_instructions: int
    objective: str
    hardware: str
    _hw: SharedMemory = field(repr=False, compare=False)
    _proof: tuple = field(repr=False, compare=False)
    _layouts: tuple[LinearLayout, LinearLayout] = field(repr=False, compare=False)
    _vector_arg: int | None = field(repr=False, compare=False, default=None)

    @classmethod
    def from_fields(cls, values: dict[str, Any]) -> SwizzleResult:
        """The result from a dict of every field by name, without the frozen dataclass's per-field ``__setattr__``.

        The synthesizer builds one result per call (issue 16: every
        microsecond of a small synthesis counts); the dict becomes the
        instance's ``__dict__`` (the result owns it from then on), holding the
        fields exactly as the generated ``__init__`` would store them.
        """
        if values.keys() != _FIELD_NAMES:
            raise TypeError(f"SwizzleResult.from_fields needs exactly the fields {sorted(_FIELD_NAMES)}")
        return _new_result(cls, values)

    def _part(self, cols: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
        outs = self.memory.out_dim_bits
        return tuple(_unflat(v, outs) for v in cols)

    @cached_property
    def vector(self) -> tuple[tuple[int, ...], ...]:
        """Common register directions at the lowest offsets (tensor coordinates)."""
        return self._part(self._proof[8].vector)

    @cached_property
    def extension(self) -> tuple[tuple[int, ...], ...]:
        """Registers of ``extended_side`` that follow the vector."""
        return self._part(self._proof[8].extension)

    @cached_property
    def word_fill(self) -> tuple[tuple[int, ...], ...]:
        """Lane directions filling the rest of a 32-bit word."""
        return self._part(self._proof[8].fill)

    @cached_property
    def bank(self) -> tuple[tuple[int, ...], ...]:
        """Directions at the remaining bank positions."""
        return self._part(self._proof[8].bank)

    @cached_property
    def segment(self) -> tuple[tuple[int, ...], ...]:
        """Directions at the segment positions (128-byte rows)."""
        return self._part(self._proof[8].segment)

    @cached_property
    def _relaxed(self) -> tuple[dict[str, int], tuple[int, int] | None]:
        sides, w_opts, r_opts, common, geo, hw, fixed, _, _ = self._proof
        return relaxation(sides, w_opts, r_opts, common, geo, hw, fixed, self.objective)

    @property
    def lower_bound(self) -> dict[str, int]:
        """Each side's least possible wavefronts over every memory layout (that side alone)."""
        return self._relaxed[0]

    @property
    def relaxed_optimum(self) -> tuple[int, int] | None:
        """The (write, read) bound pair that minimises the objective over the relaxation."""
        return self._relaxed[1]

    @property
    def gap(self) -> tuple[int, int]:
        """(write, read) wavefronts above the relaxation's optimum pair: (0, 0) when proven optimal.

        A positive entry is how far the proof falls short, not a known loss:
        the relaxation may be loose (paper_notes/synthesis.md §7).
        """
        relaxed = self.relaxed_optimum or (0, 0)
        return (self.write_wavefronts - relaxed[0], self.read_wavefronts - relaxed[1])

    @cached_property
    def optimal(self) -> bool:
        """True when proven: the result meets the relaxation's optimum, so no memory layout beats it."""
        relaxed = self.relaxed_optimum
        return relaxed is not None and objective_key(self.objective, self.write_wavefronts, self.read_wavefronts) == objective_key(self.objective, *relaxed)

    @cached_property
    def frontier(self) -> tuple[tuple[int, int], ...]:
        """Pareto-optimal (write, read) wavefront pairs among the layouts the synthesizer can build."""
        pts = sorted(set(self._proof[7]()))
        return tuple(p for p in pts if not any(q != p and q[0] <= p[0] and q[1] <= p[1] for q in pts))

    @cached_property
    def explanation(self) -> str:
        """A short human explanation: which directions were protected, paired, and why."""
        sides, _, _, _, geo, _, _, _, best = self._proof
        return _explain(best, sides, geo, self.lower_bound, self.optimal, self.relaxed_optimum, self.objective,
                        self.memory.out_dim_bits)

    @cached_property
    def write(self):
        """Exact report of the write side (``linlayout.count.closed_form.wavefronts``)."""
        from ..count.closed_form import wavefronts

        return wavefronts(self._layouts[0], self.memory, self.element_bits, "store", self.write_instruction,
                          None if parse_instruction(self.write_instruction).is_matrix else self._vector_arg, self._hw)

    @cached_property
    def read(self):
        """Exact report of the read side."""
        from ..count.closed_form import wavefronts

        return wavefronts(self._layouts[1], self.memory, self.element_bits, "load", self.read_instruction,
                          None if parse_instruction(self.read_instruction).is_matrix else self._vector_arg, self._hw)

    @cached_property
    def standards(self):
        """Every standard swizzle of the tile that both sides can access, scored exactly with this result's
        instructions and vector width, in the order of preference of :mod:`linlayout.synth.standard`."""
        from .standard import score_standards, standard_swizzles

        images = {nm: {d: L.flat_bases(d) for d in L.in_dims} for nm, L in zip(("write", "read"), self._layouts)}
        ins = {"write": parse_instruction(self.write_instruction), "read": parse_instruction(self.read_instruction)}
        cands = standard_swizzles(self.memory.out_dim_bits, self.element_bits)
        return tuple(score_standards(cands, images, self.element_bits, ins, self._hw, self._vector_arg))

    @cached_property
    def standard_ties(self):
        """The standard swizzles (``StandardScore``) that cost exactly what this result costs, in preference order."""
        mine = (self.write_wavefronts, self.read_wavefronts, self.write_instructions, self.read_instructions)
        return tuple(sc for sc in self.standards
                     if (sc.write_wavefronts, sc.read_wavefronts, sc.write_instructions, sc.read_instructions) == mine)

    @property
    def _standard_tie(self):
        return self.standard_ties[0] if self.standard_ties else None

    @property
    def standard(self) -> str | None:
        """The first standard swizzle (in the documented order) that costs exactly what this result costs, or None."""
        tie = self._standard_tie
        return tie.swizzle.name if tie else None

    @property
    def standard_memory(self) -> LinearLayout | None:
        """The memory layout of :attr:`standard` (same cost as :attr:`memory`), or None."""
        tie = self._standard_tie
        if tie is None:
            return None
        return LinearLayout.from_flat((("offset", self.memory.in_bits),), self.memory.out_dim_bits, (tie.swizzle.columns,))

    @property
    def preferred_memory(self) -> LinearLayout:
        """:attr:`standard_memory` when a standard swizzle ties, else :attr:`memory` (what ``--emit`` writes)."""
        return self.standard_memory or self.memory

    def emitted_memory(self, spells: Callable[[LinearLayout], bool] | None = None) -> tuple[LinearLayout, str]:
        """The memory ``--emit`` writes, and a note saying why when it is not :attr:`memory`.

        Among memories of equal cost a standard swizzle is preferred (issue 12 §4): the first of
        :attr:`standard_ties`, in preference order, that ``spells`` accepts (a form such as CuTe's
        ``Swizzle<B,M,S>`` cannot spell every layout; ``None`` accepts all), with the note
        ``"standard swizzle NAME (the same cost as the synthesized optimum)"``.  Otherwise the synthesized
        :attr:`memory` and an empty note (the form may still fail to spell it: the caller says so).
        """
        for tie in self.standard_ties:
            memory = LinearLayout.from_flat((("offset", self.memory.in_bits),), self.memory.out_dim_bits,
                                            (tie.swizzle.columns,))
            if spells is None or spells(memory):
                return memory, f"standard swizzle {tie.swizzle.name} (the same cost as the synthesized optimum)"
        return self.memory, ""

    @property
    def best_standard(self):
        """The standard swizzle that is best for the objective (a ``StandardScore``), or None if none fits."""
        if not self.standards:
            return None
        return min(self.standards, key=lambda sc: objective_key(self.objective, sc.write_wavefronts, sc.read_wavefronts)
                   + (sc.write_instructions + sc.read_instructions,))

    def standard_text(self) -> str:
        """One line on standard swizzles: the one that ties, or the best one's cost beside the optimum."""
        if self.standard:
            return (f"standard: {self.standard} ({self._standard_tie.swizzle.description}) costs exactly the same; "
                    f"--emit writes it")
        b = self.best_standard
        if b is None:
            return "standard: no standard swizzle lets both sides access the tile"
        return (f"standard: none ties; the best, {b.swizzle.name}, costs {b.write_wavefronts} + {b.read_wavefronts} "
                f"wavefronts ({b.write_instructions} + {b.read_instructions} instructions) beside the synthesized memory's "
                f"{self.write_wavefronts} + {self.read_wavefronts} ({self.write_instructions} + {self.read_instructions})")

    def to_dict(self) -> dict[str, Any]:
        """The JSON result of ``linlayout swizzle --json``."""

        def side(r):
            return {
                "wavefronts": r.wavefronts,
                "instructions": r.instructions,
                "wavefronts_per_instruction": r.wavefronts_per_instruction,
                "passes_per_instruction": r.passes_per_instruction,
                "conflict_ways": r.conflict_ways,
                "vector_bits": r.vector_bits,
                "instruction": r.instruction,
            }

        return {
            "memory": self.memory.to_dict(),
            "vector_bits": self.vector_bits,
            "common_vector_bits": self.common_vector_bits,
            "instructions": {"write": self.write_instruction, "read": self.read_instruction},
            "parts": {
                "vector": [list(v) for v in self.vector],
                "extension": [list(v) for v in self.extension],
                "extended_side": self.extended_side,
                "word_fill": [list(v) for v in self.word_fill],
                "bank": [list(v) for v in self.bank],
                "segment": [list(v) for v in self.segment],
            },
            "write": side(self.write),
            "read": side(self.read),
            "lower_bound": dict(self.lower_bound),
            "optimal": self.optimal,
            "objective": self.objective,
            "frontier": [list(p) for p in self.frontier],
            "hardware": self.hardware,
            "explanation": self.explanation,
            "relaxed_optimum": list(self.relaxed_optimum) if self.relaxed_optimum else None,
            "gap": list(self.gap),
            "standard": self.standard,
            "standard_memory": self.standard_memory.to_dict() if self.standard_memory is not None else None,
            "best_standard": self.best_standard.to_dict() if self.best_standard is not None else None,
        }


_FIELD_NAMES = frozenset(f.name for f in fields(SwizzleResult))


def _new_result(cls: type, values: dict[str, Any]) -> SwizzleResult:
    """:meth:`SwizzleResult.from_fields` without the check of the names (``_result`` writes them all)."""
    self = object.__new__(cls)
    object.__setattr__(self, "__dict__", values)
    return self


# ---------------------------------------------------------------------------
# Entry point
# ---------------------------------------------------------------------------


def optimal_swizzle(
    write: LinearLayout,
    read: LinearLayout,
    element_bits: int,
    hardware: str | SharedMemory | None = "sm90",
    objective: str = "balanced",
    vector_bits: int | None = None,
    instructions: Sequence[str] | None = None,
) -> SwizzleResult:
    """The memory layout with the fewest wavefronts for writing with ``write`` and reading with ``read``.

    Parameters
    ----------
    write, read
        Distributed layouts (``register``, ``lane``, optional ``warp``,
        ``block``) onto the same tensor; broadcast registers and lanes are fine.
    element_bits
        Bits per element (a power of two, 1 to 128).
    hardware
        Bank model (default the measured ``sm90``).
    objective
        How unavoidable costs are split: ``"balanced"`` (minimise the larger
        side, then the sum), ``"read"``, ``"write"`` (that side first) or
        ``"sum"``.  Wavefronts first, then the number of instructions.
    vector_bits
        Ask for narrower vectors than the widest common one (both sides then
        use exactly this width with ld/st.shared).
    instructions
        Let the synthesizer choose instructions per side from this list
        (``st.shared``, ``stmatrix.x4``, ``ld.shared``, ``ldmatrix.x2.trans``,
        ...); stores apply to the write side and loads to the read side.
        Default: ``st.shared`` and ``ld.shared``.

    Returns a :class:`SwizzleResult`.  Raises :class:`SwizzleError` (a
    ``ValueError``) when the layouts cannot share a memory layout as asked.
    """
    hw = get_hardware(hardware)
    objective = check_keyword(objective, "objective", OBJECTIVES, error=SwizzleError)
    check_element_bits(element_bits)
    if not isinstance(write, LinearLayout) or not isinstance(read, LinearLayout):
        raise DimensionError("write and read must be LinearLayout objects")
    d = write.out_bits
    check_tile_bytes(1 << d, element_bits, hw)
    outs = write.out_dim_bits
    if outs != read.out_dim_bits and sorted(outs) != sorted(read.out_dim_bits):
        raise DimensionError(
            f"write and read must cover the same tensor: {write.out_sizes} vs {read.out_sizes}"
        )
    sides = {"write": side_of("write", "store", write, hw, outs, d), "read": side_of("read", "load", read, hw, outs, d)}
    geo = geometry(d, element_bits, hw)
    w_opts, r_opts = _instruction_options(instructions)
    fixed = None
    if vector_bits is not None:
        if isinstance(vector_bits, bool) or not isinstance(vector_bits, int) or vector_bits <= 0 or vector_bits & (vector_bits - 1):
            raise SizeError(f"vector_bits must be a power of two, got {vector_bits!r}")
        if vector_bits < element_bits or vector_bits < 8:
            raise LoweringError(f"vector_bits={vector_bits} is narrower than one element or one byte")
        fixed = (vector_bits // element_bits).bit_length() - 1
        if fixed > geo.cap:
            raise LoweringError(f"vector_bits={vector_bits} exceeds the widest access ({max(hw.access_sizes()) * 8} bits)")
    sw, sr = sides["write"], sides["read"]
    rr = sr.reg_set
    common = [r for r in sw.regs if r in rr]  # rr holds no 0
    if not sw.distributed:  # repeated register images
        common = list(dict.fromkeys(common))
    problems: list[str] = []
    if not (sw.distributed and sr.distributed):
        return _general(sides, w_opts, r_opts, common, geo, hw, fixed, objective, problems, element_bits, vector_bits)
    # The floor (bounds.search_floor): the first candidate that meets it has the smallest key any candidate can
    # have (ties go to the first), so the search stops there.
    floor = search_floor(sides, w_opts, r_opts, common, geo, hw, fixed, objective)

    blocks_seen = count()  # the low blocks in enumeration order, across passes (ties go to the first)
    skipped: list = []  # blocks the floor's instruction count ruled out, scored only if the search goes on

    def score_blocks(scored: list, shorter: bool, stop, tier: int = 0) -> bool:
        """Append every candidate's analytic score; True when one meets ``stop`` (the rest are left out).
        Tier 1: the extensions in low_blocks' second order, which win only when strictly cheaper."""
        most = None if stop is None else stop[2]  # the floor's instruction total
        for wi in w_opts:
            for ri in r_opts:
                ins = {"write": wi, "read": ri}
                nmat = int(wi.is_matrix) + int(ri.is_matrix)
                per_side = None
                # ``fixed`` applies to the ld/st side(s) whatever the other side uses (issue 12).
                # The vector widths follow from the block (plans' ``ks``) for the widest common vector: an
                # extension then holds no register of the other side (it would be common, hence in V).
                ldst = not nmat and fixed is None and not shorter
                for D, V, E, ext in low_blocks(sides, ins, common, geo, hw, fixed, problems, shorter, tier == 1):
                    if per_side is None:
                        per_side = pair_sides(sides, ins, geo, hw)
                    ks = None
                    if ldst:
                        ks = (len(D), len(V)) if ext == "write" else (len(V), len(D)) if ext == "read" else (len(V),) * 2
                    block = (D, V, ext, wi, ri, nmat, tier, next(blocks_seen), per_side, ks)
                    if score_block(scored, block, most, stop):
                        return True
        return False

    def score_block(scored: list, block: tuple, most: int | None, stop) -> bool:
        """Score one low block's word fills; a block whose instructions exceed ``most`` cannot meet the floor
        and is kept in ``skipped`` instead."""
        D, V, ext, wi, ri, nmat, tier, n, per_side, ks = block
        got = plans(D, per_side, geo, hw, fixed, most, ks)
        if got is None:
            skipped.append(block)
            return False
        for j, (plan, cw, cr) in enumerate(got):
            if cw is None or cr is None:
                continue
            k = objective_key(objective, cw.total, cr.total) + (cw.instructions + cr.instructions, nmat, tier, n, j)
            scored.append((k, plan, wi, ri, cw, cr, V, ext))
            if k[:4] == stop:
                return True
        return False

    def more_passes(scored: list) -> tuple | None:
        """The passes after the widest vectors' first order, as needed; returns the relaxation when computed.

        Merged broadcast loads (issue 12 §2): a narrower common vector can cost fewer wavefronts, so the shorter
        vectors are tried when the widest ones do not already meet the relaxation's optimum.  Second-order
        extensions (tier 1) have the instruction counts of the first-order extension of the same side and
        length (a side's count depends on its vector width only), so they can win at the best's wavefronts
        only when some first-order candidate takes fewer instructions than the best; otherwise they are skipped
        (they could still lower the wavefronts; the relaxation that would tell is not computed)."""
        relaxed = None
        shorter = False
        if fixed is None and hw.merge_broadcast_loads and sr.broadcast:
            relaxed = relaxation(sides, w_opts, r_opts, common, geo, hw, fixed, objective)
            if relaxed[1] is None or not scored or min(e[0] for e in scored)[:2] > objective_key(objective, *relaxed[1]):
                shorter = True
                score_blocks(scored, True, None)
        if scored:
            nobj = len(objective_key(objective, 0, 0))
            best0 = min(e[0] for e in scored)
            if shorter or min(e[0][nobj] for e in scored) < best0[nobj]:
                score_blocks(scored, False, None, 1)
                if shorter:
                    score_blocks(scored, True, None, 1)
        return relaxed

    def score_all() -> tuple[list, tuple | None]:
        """Every candidate (the search without the floor's stop), sorted, and the relaxation if computed."""
        every: list = []
        score_blocks(every, False, None)
        relaxed = more_passes(every)
        every.sort(key=lambda x: x[0])
        return every, relaxed

    scored: list = []
    complete_search = not score_blocks(scored, False, floor)
    if complete_search:
        for block in skipped:  # no candidate met the floor: the blocks it ruled out join the search
            score_block(scored, block, None, None)
    relaxed = more_passes(scored) if complete_search else None
    if not scored:
        why = "; ".join(dict.fromkeys(problems)) or "no instruction pair fits both layouts"
        raise SwizzleError(f"no memory layout lets both sides access the tile: {why}")
    if len(scored) > 1:
        scored.sort(key=lambda x: x[0])

    def built(entry, at_floor: bool = False) -> _Candidate:
        """The candidate's memory columns and exact costs.  ``at_floor``: the candidate meets the search floor,
        and where :func:`~linlayout.synth.construct.analytic_is_exact` holds its analytic costs are the exact
        ones (paper_notes/synthesis.md §3), so the built memory is not evaluated again."""
        _, plan, wi, ri, ew, er, V, ext = entry
        B, S = complete(plan)
        B, S = tuple(B), tuple(S)
        cols = plan.D + plan.F + B + S
        if not (at_floor and analytic_is_exact(cols, sw, wi, ew, fixed, geo)
                and analytic_is_exact(cols, sr, ri, er, fixed, geo)):
            inv = memory_inverse(cols)  # shared by both sides
            ew = exact_cost(cols, sw, wi, geo, hw, fixed, inv)
            er = exact_cost(cols, sr, ri, geo, hw, fixed, inv)
        E = plan.D[len(V):] if ext else ()
        return _new(_Candidate, (cols, V, E, ext, plan.F, B, S, wi, ri, ew, er, plan.taus, plan.D, False,
                                 entry[0][-3]))

    def exact_key(c: _Candidate, order: int):
        return objective_key(objective, c.write_cost.total, c.read_cost.total) + (
            c.write_cost.instructions + c.read_cost.instructions, int(c.write_ins.is_matrix) + int(c.read_ins.is_matrix),
            c.tier, order)

    def choose(entries) -> _Candidate:
        best = built(entries[0])
        if (best.write_cost, best.read_cost) != (entries[0][4], entries[0][5]):
            # The built layout did better than its analytic score (a bank or fill column happened to
            # extend a side's vector).  Score every candidate exactly and choose on exact costs.
            every = [c for c in map(built, entries) if c.write_cost is not None and c.read_cost is not None]
            if not every:  # pragma: no cover - the analytic score only admits addressable candidates
                raise SwizzleError("no memory layout lets both sides access the tile as asked")
            best = min(zip(every, range(len(every))), key=lambda t: exact_key(*t))[0]
        return best

    if not complete_search:
        best = built(scored[0], at_floor=True)
        if (best.write_cost, best.read_cost) != (scored[0][4], scored[0][5]):
            # The exact evaluation found a matrix instruction's built layout above its analytic score (the
            # analytic tile model can be optimistic there): score everything exactly.
            scored, relaxed = score_all()
            complete_search = True
    if complete_search:
        best = choose(scored)
        if best.tier:
            # A second-order extension won: keep the first order's choice unless it is strictly cheaper there too.
            first = [e for e in scored if e[0][-3] == 0]
            if first:
                alt = choose(first)
                if exact_key(alt, 0)[:-2] <= exact_key(best, 0)[:-2]:
                    best = alt
    res = _result(best, sides, w_opts, r_opts, common, geo, hw, fixed, objective, element_bits, vector_bits,
                  lambda: [(c.write_cost.total, c.read_cost.total) for c in map(built, scored if complete_search else score_all()[0])
                           if c.write_cost is not None and c.read_cost is not None])
    if relaxed is not None:
        res.__dict__["_relaxed"] = relaxed  # already computed (the cached property's slot)
    return res


def _result(best: _Candidate, sides, w_opts, r_opts, common, geo, hw, fixed, objective, element_bits, vector_bits,
            frontier) -> SwizzleResult:
    sw, sr = sides["write"], sides["read"]
    d = geo.d
    outs = sw.layout.out_dim_bits
    mem = LinearLayout.from_flat((("offset", d),), outs, (tuple(best.cols),), check=False)
    cw, cr = best.write_cost, best.read_cost
    # Access widths of the two sides (a matrix instruction moves one 32-bit register per lane and matrix).
    ww = hw.register_bytes * 8 if best.write_ins.is_matrix else element_bits << cw.vector
    wr = hw.register_bytes * 8 if best.read_ins.is_matrix else element_bits << cr.vector
    return _new_result(SwizzleResult, {
        "memory": mem,
        "element_bits": element_bits,
        "extended_side": best.extended,
        "vector_bits": ww if ww > wr else wr,
        "common_vector_bits": wr if ww > wr else ww,
        "write_instruction": best.write_ins.name,
        "read_instruction": best.read_ins.name,
        "write_wavefronts": cw.total,
        "read_wavefronts": cr.total,
        "write_instructions": cw.instructions,
        "read_instructions": cr.instructions,
        "objective": objective,
        "hardware": hw.name,
        "_proof": (sides, w_opts, r_opts, common, geo, hw, fixed, frontier, best),
        "_hw": hw,
        "_layouts": (sw.layout, sr.layout),
        "_vector_arg": vector_bits,
    })


def _general(sides, w_opts, r_opts, common, geo, hw, fixed, objective, problems, element_bits, vector_bits):
    """Synthesis for layouts with mixed, repeated, dependent or zero bases (:mod:`linlayout.synth.general`)."""
    found: list[tuple[tuple, _Candidate]] = []
    for wi in w_opts:
        for ri in r_opts:
            ins = {"write": wi, "read": ri}
            if wi.is_matrix or ri.is_matrix:
                blocks = [(D, V, E, ext, sides["write"] if wi.is_matrix else sides["read"])
                          for D, V, E, ext in low_blocks(sides, ins, common, geo, hw, fixed, problems)]
            else:
                blocks = [(D, V, E, ext, sides[ext] if ext else None)
                          for D, V, E, ext in general_blocks(sides, common, geo, fixed, problems)]
            for D, V, E, ext, wide in blocks:
                ks = {}
                for nm, sd in sides.items():
                    if ins[nm].is_matrix:
                        ks[nm] = len(matrix_tile(ins[nm], geo.eb, hw).vector_registers)
                    elif fixed is not None:
                        ks[nm] = fixed
                    else:
                        ks[nm] = prefix_len(D, sd.reg_set, geo.cap)
                for cols in general_columns(D, wide, sides, ks, ins, geo, hw):
                    costs = exact_pair(cols, sides, ins, geo, hw, fixed)
                    if costs is None:
                        continue
                    cw, cr = costs
                    key = objective_key(objective, cw.total, cr.total) + (
                        cw.instructions + cr.instructions, int(wi.is_matrix) + int(ri.is_matrix), len(found))
                    found.append((key, _Candidate(cols, tuple(V), tuple(E), ext, (), (), (), wi, ri, cw, cr, {},
                                                  tuple(D))))
    if not found:
        why = "; ".join(dict.fromkeys(problems)) or "no instruction pair fits both layouts"
        raise SwizzleError(f"no memory layout lets both sides access the tile: {why}")
    found.sort(key=lambda x: x[0])
    _, first = found[0]
    _, target = relaxation(sides, w_opts, r_opts, common, geo, hw, fixed, objective)
    ins = {"write": first.write_ins, "read": first.read_ins}
    target_key = None if target is None else objective_key(objective, *target)

    def score(cols):
        c = exact_pair(cols, sides, ins, geo, hw, fixed)
        if c is None:
            return None
        return objective_key(objective, c[0].total, c[1].total) + (c[0].instructions + c[1].instructions,)

    keep = len(first.low) if (first.write_ins.is_matrix or first.read_ins.is_matrix) else 0
    cols = improve(first.cols, score, target_key, keep)
    cw, cr = exact_pair(cols, sides, ins, geo, hw, fixed)
    best = _general_parts(cols, first, cw, cr, geo)
    pts = [(c.write_cost.total, c.read_cost.total) for _, c in found] + [(cw.total, cr.total)]
    return _result(best, sides, w_opts, r_opts, common, geo, hw, fixed, objective, element_bits, vector_bits,
                   lambda: pts)


def _general_parts(cols, first: _Candidate, cw: Cost, cr: Cost, geo: Geometry) -> _Candidate:
    """Roles of a general memory's columns by position: common vector, extension, word fill, bank, segment."""
    kv = min(cw.vector, cr.vector) if not (first.write_ins.is_matrix or first.read_ins.is_matrix) else 0
    kx = max(cw.vector, cr.vector) if not (first.write_ins.is_matrix or first.read_ins.is_matrix) else 0
    ext = None if kx == kv else ("write" if cw.vector > cr.vector else "read")
    low = len(first.low) if (first.write_ins.is_matrix or first.read_ins.is_matrix) else kx
    word = max(low, geo.word_end)
    bank = max(word, geo.bank_end)
    return _Candidate(tuple(cols), tuple(cols[:kv]), tuple(cols[kv:kx]), ext, tuple(cols[low:word]),
                      tuple(cols[word:bank]), tuple(cols[bank:]), first.write_ins, first.read_ins, cw, cr, {},
                      tuple(cols[:low]), True)


@lru_cache(maxsize=1)
def _default_options() -> tuple[tuple[Instruction, ...], tuple[Instruction, ...]]:
    return (parse_instruction("st.shared"),), (parse_instruction("ld.shared"),)


def _instruction_options(instructions: Sequence[str] | None) -> tuple[tuple[Instruction, ...], tuple[Instruction, ...]]:
    """The store and load options, each without repeats (default: ``st.shared`` and ``ld.shared``)."""
    if instructions is None:
        return _default_options()
    if isinstance(instructions, str):
        instructions = [instructions]
    w, r = [], []
    for name in check_sequence(instructions, "instructions"):
        ins = parse_instruction(name)
        (w if ins.op == "store" else r).append(ins)
    if not w:
        raise SwizzleError("instructions lists no store for the write side (st.shared or stmatrix.*)")
    if not r:
        raise SwizzleError("instructions lists no load for the read side (ld.shared or ldmatrix.*)")
    return tuple(dict.fromkeys(w)), tuple(dict.fromkeys(r))
