"""What the lint of a kernel finds, as immutable records: per conversion, per op, per buffer, per kernel.

The lowering model (:mod:`linlayout.lower.lint`) returns these values and
:mod:`linlayout.io.ttgir.lint` prints them as text and JSON; nothing reads
them back by string keys.  Every record is a frozen dataclass, and its
collections are tuples, so a report cannot change once it is made.

* :class:`LoweredConversion`: how the compiler lowers one
  ``ttg.convert_layout`` (the counted store and load of a shared-memory round
  trip, or no shared memory at all) and, as :class:`ConversionSuggestion`,
  what linlayout's own planner would do instead;
* :class:`OpLint`: one op that touches shared memory, counted (its
  :class:`~linlayout.count.closed_form.WavefrontReport`) or not (with the
  reason);
* :class:`BufferLint`: one shared-memory buffer, its accesses summed, and the
  optimal memory layout for its writer and reader (:class:`BufferOptimum`)
  or why none was computed;
* :class:`KernelTotal` and :class:`LoopTrip`: the kernel's totals over a grid;
* :class:`LintReport`: the whole kernel.

>>> from linlayout.lower.records import LoopTrip
>>> t = LoopTrip("k.py:69", 8)
>>> t.trip_count = 9
Traceback (most recent call last):
  ...
dataclasses.FrozenInstanceError: cannot assign to field 'trip_count'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.layout import LinearLayout
from ..core.record import record
from ..count.closed_form import WavefrontReport

__all__ = [
    "BufferLint",
    "BufferOptimum",
    "ConversionSuggestion",
    "ConvertPlanner",
    "KernelTotal",
    "LintReport",
    "LoopTrip",
    "LoweredConversion",
    "INSTRUCTION_NAMES",
    "OpLint",
    "TOTAL_CATEGORIES",
    "opcode_base",
]

TOTAL_CATEGORIES = ("ld", "ldsm", "st", "stsm")
"""The instruction families a kernel total is split into (ncu's per-instruction counters)."""

INSTRUCTION_NAMES = ("st.shared", "ld.shared", "stmatrix", "ldmatrix", "shfl.sync", "bar.sync", "bar.warp.sync",
                     "atom.shared", "red.shared", "cp.async")
"""The PTX opcode base names an op's ``instructions`` map counts, per thread."""


def opcode_base(instruction: str) -> str:
    """The base name of a counted instruction: ``ldmatrix.x4.trans`` → ``ldmatrix``, ``st.shared`` → ``st.shared``.

    >>> opcode_base("stmatrix.x2.trans"), opcode_base("ld.shared")
    ('stmatrix', 'ld.shared')
    """
    for base in ("ldmatrix", "stmatrix"):
        if instruction.startswith(base):
            return base
    return instruction


@record
class ConversionSuggestion:
    """linlayout's own plan for a conversion (:func:`~linlayout.convert.plan.plan_conversion`), summarised.

    ``path`` (``"none"``, ``"registers"``, ``"shuffles"``, ``"shared_memory"``),
    ``instructions`` per thread and ``cost`` under
    :func:`~linlayout.convert.cost.cost_of`; for the shared-memory path also
    ``wavefronts`` per warp (``write``, ``read``), ``reps`` and
    ``scratch_bytes``.  ``counted_cost`` is the counted lowering's cost under
    the same model, when that lowering goes through shared memory.  When the
    planner has no plan, ``error`` says why and the rest is empty.
    """

    path: str = ""
    instructions: tuple[tuple[str, int], ...] = ()
    cost: int | None = None
    wavefronts: tuple[tuple[str, int], ...] | None = None
    reps: int | None = None
    scratch_bytes: int | None = None
    counted_cost: int | None = None
    error: str | None = None


@record
class LoweredConversion:
    """How the compiler lowers one ``convert_layout``, counted per warp (was ``ConvertPlan``).

    ``method`` says what the lowering does; ``store`` and ``load`` are the
    wavefronts per warp of its shared-memory round trip through ``memory``
    (all three ``None`` when it uses no shared memory); ``suggestion`` is a
    cheaper plan's summary, if the planner has one.  ``reps`` is how many
    times the round trip runs through a smaller scratch buffer (store,
    barrier, load, then a barrier before the next rep).
    """

    method: str
    store: WavefrontReport | None = None
    load: WavefrontReport | None = None
    memory: LinearLayout | None = None
    suggestion: ConversionSuggestion | None = None
    reps: int = 1

    @property
    def uses_shared_memory(self) -> bool:
        """Whether the counted lowering makes a shared-memory round trip."""
        return self.store is not None and self.load is not None


ConvertPlanner = Callable[[LinearLayout, LinearLayout, int], LoweredConversion]
"""The seam for a conversion planner: ``planner(src, dst, element_bits) -> LoweredConversion``.

Called for every ``convert_layout`` that is read.  The default is the
lowering's ``planned_conversion`` (Triton's expected lowering counted,
linlayout's plan suggested); its ``shared_round_trip`` (the round trip alone,
only for conversions that cross warps) or another planner plugs in through
``lint_text(..., convert_planner=...)``.
"""


@record
class OpLint:
    """One op that touches shared memory, for one execution by one warp.

    ``op``, ``location`` (``file:line:col``), ``line`` (in the TTGIR text),
    ``element_bits`` and ``shape`` say which op; ``layout_text`` and
    ``memory_text`` are its register and shared encodings as printed in the
    module (a conversion: ``SRC -> DST``).  ``kind`` is ``"store"``,
    ``"load"``, ``"convert"`` or ``""``.  A counted local load or store has
    its ``access``; a counted conversion its ``conversion`` (whose store and
    load are counted).  ``reason`` says why an op is not counted.
    ``loops`` are the locations of the enclosing loops and
    ``executions_per_warp`` the product of their trip counts (``None`` when
    one is unknown).  ``buffer`` names the shared buffer(s) the op uses.

    ``instructions`` are the PTX instructions each thread issues for one
    execution of the op, by opcode base name (:data:`INSTRUCTION_NAMES`);
    ``None`` when the lowering is not known, with ``instructions_note``
    saying why (the note also names what the map leaves out).  A lowering
    through scratch memory (a reduction, a scan, a histogram, a scalar
    atomic's broadcast, ``cp.async``) lists its counted ``accesses`` and
    says what it does in ``method``.  A conversion (and Triton 3.9's
    exchange of a reduction's partials) keeps its source and destination
    ``layouts`` (aliases resolved), for a ready ``linlayout convert`` query.  ``uncounted`` says which part of a counted op's traffic is left out of the totals, and
    why (a gather's loads, whose addresses are the indices); such an op is listed in the totals' ``not_counted``.
    """

    op: str
    location: str
    line: int
    element_bits: int
    shape: tuple[int, ...]
    kind: str
    counted: bool
    reason: str = ""
    layout_text: str = ""
    memory_text: str = ""
    buffer: str | None = None
    access: WavefrontReport | None = None
    conversion: LoweredConversion | None = None
    loops: tuple[str, ...] = ()
    executions_per_warp: int | None = 1
    instructions: tuple[tuple[str, int], ...] | None = None
    instructions_note: str = ""
    accesses: tuple[tuple[str, WavefrontReport], ...] = ()
    method: str = ""
    layouts: tuple[LinearLayout, LinearLayout] | None = None
    uncounted: str = ""

    @property
    def counted_accesses(self) -> tuple[tuple[str, WavefrontReport], ...]:
        """The counted accesses as ``(kind, report)``: one for a local load/store, store and load for a conversion,
        the op's own list for a scratch lowering (a reduction's exchange, a scan's carry, ``cp.async`` as
        ``"async_copy"``)."""
        if not self.counted:
            return ()
        if self.accesses:
            return self.accesses
        if self.access is not None:
            return ((self.kind, self.access),)
        if self.conversion is not None and self.conversion.uses_shared_memory:
            return (("store", self.conversion.store), ("load", self.conversion.load))  # type: ignore[return-value]
        return ()


@record
class BufferOptimum:
    """The optimal memory layout of a buffer for its one writer and one reader, counted as the lowering accesses it."""

    memory: LinearLayout
    element_bits: int
    write_wavefronts: int
    read_wavefronts: int


@record
class BufferLint:
    """One shared-memory buffer: its current encoding and wavefronts per warp, and its optimum (or why not)."""

    name: str
    allocated_at: str
    encoding_text: str
    write_wavefronts: int
    read_wavefronts: int
    optimal: BufferOptimum | None = None
    reason: str | None = None

    @property
    def saving(self) -> int:
        """Wavefronts per warp saved by the optimum (0 without one)."""
        if self.optimal is None:
            return 0
        return (self.write_wavefronts + self.read_wavefronts) - (self.optimal.write_wavefronts
                                                                  + self.optimal.read_wavefronts)


@record
class KernelTotal:
    """The kernel's wavefronts over a grid: per warp × warps × CTAs × executions.

    ``by_instruction`` splits them into :data:`TOTAL_CATEGORIES`;
    ``async_copy_wavefronts`` are ``cp.async``'s (LDGSTS), a third total
    (ncu's ``..._op_ldgsts``).  ``per_iteration`` gives, per data-dependent
    loop (``scf.while``), its body's load and store wavefronts for one
    iteration; they are not in the totals.  When a
    loop has no trip count, ``missing_trip_counts`` names it and the totals
    are ``None``.  ``not_counted`` lists the ops that touch shared memory but
    are not counted, with the reason.
    """

    grid: tuple[int, ...]
    ctas: int
    warps_per_cta: int
    load_wavefronts: int | None
    store_wavefronts: int | None
    by_instruction: tuple[tuple[str, int], ...] = ()
    missing_trip_counts: tuple[str, ...] = ()
    not_counted: tuple[str, ...] = ()
    async_copy_wavefronts: int | None = None
    per_iteration: tuple[tuple[str, int, int], ...] = ()


@record
class LoopTrip:
    """A loop of the module (its location, ``scf.for`` or ``scf.while``) and its trip count (``None`` if unknown), with
    where the count came from: ``"given"``, ``"constant bounds"``, ``"data-dependent"`` or ``""``."""

    location: str
    trip_count: int | None
    kind: str = "scf.for"
    source: str = ""


@record
class LintReport:
    """The lint of one kernel: its ops, its buffers, the totals (given a grid) and the loops' trip counts."""

    num_warps: int
    ops: tuple[OpLint, ...]
    buffers: tuple[BufferLint, ...]
    total: KernelTotal | None
    loops: tuple[LoopTrip, ...]
    lowering: str = ""
    remedies: tuple[Any, ...] = ()
    """What the kernel could do instead (:mod:`linlayout.lower.remedies`: ``BufferRemedy``, ``ExchangeRemedy``)."""
