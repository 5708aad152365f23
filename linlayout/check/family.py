"""Families of memory layouts: a base memory and toggles that XOR its offset bases.

Concepts
========

A **family** is a base memory layout (``offset`` → tensor) and a list of
**toggles**.  Toggle ``t`` is a pair (offset basis ``k``, tensor vector
``x``): offset basis ``k`` may be XORed with ``x``, or not.  Configuration
``c`` (an integer, ``0 <= c < 2^T`` for ``T`` toggles) applies toggle ``t``
exactly when bit ``t`` of ``c`` is set, so a family holds ``2^T`` memory
layouts; several toggles on one basis add up (basis 5 XOR ``x`` XOR ``y``).
A configuration whose memory is not invertible (two offsets on one element)
is part of the family; the sweep skips and reports it.

A family also names one or more **accesses** (:class:`Access`: a
distributed layout, the element width, op or instruction, and optionally
the vector width): the layout-level queries of ``linlayout conflicts``
without their memory.  Optionally it names a **known fact**
(:data:`KNOWN_FACTS`), a closed-form count the sweep checks on every
configuration.

Worked example: the seeds' 16x32 fp32 transpose (:func:`transpose_16x32_family`).
A warp stores the tile by rows (lane ``t`` holds column ``t``, register ``r``
row ``r``) and reads it back transposed.  Offset bits 0-4 are ``n``; segment
basis ``j`` is ``(m_j, C_j)`` for a 5-bit mask ``C_j``, i.e. the memory puts
element ``(m, n)`` at ``32 m + (n ^ XOR of C_j over the set bits j of m)``.
Toggle ``5 j + i`` sets bit ``i`` of ``C_j``.  The read's lanes span
``{32 m_j ^ C_j} ∪ {1}``, so a read instruction costs
``2^(5 - rank{C_0, .., C_3, 1})`` wavefronts, and a store always costs 1::

    C_j                         read wavefronts / instruction    store
    0, 0, 0, 0   (32m + n)      16                               1
    1, 2, 4, 8   (32m + n^m)    2                                1
    2, 4, 8, 16  (32m + n^2m)   1                                1

>>> f = transpose_16x32_family()
>>> f.size, f.toggles_of(0b00010_00001), f.memory_at(0b00010_00001).bases["offset"][5:7]
(1048576, [0, 6], [(1, 1), (2, 2)])

API
===

:class:`Family` (built by :meth:`Family.make`, which validates everything,
by :func:`linlayout.io.families.family_from_json`, or
:func:`transpose_16x32_family`), :class:`Toggle`, :class:`Access`,
:class:`KnownFact` and :data:`KNOWN_FACTS`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ..core import f2
from ..core.layout import LinearLayout
from ..core.record import record
from ..count.batched import batch_rank
from ..count.plan import access_shape, matrix_tile, plan_access
from ..count.query import AccessQuery
from ..errors import BasisError, DimensionError, LinLayoutError, LoweringError, SweepError
from ..hw import Instruction, SharedMemory, get_hardware, parse_instruction

__all__ = ["Toggle", "Access", "Family", "transpose_16x32_family"]

MAX_TOGGLES = 32
"""Most toggles of a family (2^32 configurations); larger families need ``sample=``."""


# ---------------------------------------------------------------------------
# Toggles, accesses, families
# ---------------------------------------------------------------------------


@record
class Toggle:
    """Offset basis ``basis`` may be XORed with the tensor vector ``xor`` (one int per output dimension)."""

    basis: int
    xor: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"basis": self.basis, "xor": list(self.xor)}


@record
class Access:
    """One access swept over the family: the fields of an :class:`~linlayout.count.query.AccessQuery` but the memory."""

    name: str
    layout: LinearLayout
    element_bits: int
    op: str | None = None
    instruction: str | None = None
    vector_bits: int | None = None
    hardware: str | SharedMemory = "sm90"

    @property
    def ins(self) -> Instruction:
        """The instruction this access issues (its ``instruction``, or the default for its ``op``)."""
        return parse_instruction(self.instruction, self.op)

    def query(self, memory: LinearLayout) -> AccessQuery:
        """The :class:`~linlayout.count.query.AccessQuery` of this access on one memory layout."""
        return AccessQuery(self.layout, memory, self.element_bits, self.op, self.instruction, self.vector_bits,
                           self.hardware)


@record
class Family:
    """A base memory layout, the accesses to sweep, and the toggles that generate ``2^len(toggles)`` memories.

    Build it with :meth:`Family.make` (which validates everything), with
    :func:`linlayout.io.families.family_from_json`, or take the built-in
    :func:`transpose_16x32_family`.
    ``expect`` optionally names a known closed-form fact to check on every
    configuration (``"transpose_16x32"``).
    """

    name: str
    memory: LinearLayout
    accesses: tuple[Access, ...]
    toggles: tuple[Toggle, ...]
    expect: str | None = None
    expect_args: tuple[int, ...] = ()

    @classmethod
    def make(
        cls,
        memory: LinearLayout,
        accesses: Mapping[str, Mapping[str, Any]] | Sequence[Access],
        toggles: Iterable[Toggle | tuple[int, Any] | Mapping[str, Any]],
        name: str = "custom family",
    ) -> Family:
        """Validate and build a family.

        ``accesses`` maps a name to the keyword arguments of
        :func:`linlayout.count.closed_form.wavefronts` without ``memory`` (``layout``,
        ``element_bits``, ``op``, ``instruction``, ``vector_bits``,
        ``hardware``), or is a sequence of :class:`Access`.  A toggle is a
        :class:`Toggle`, a pair ``(basis, xor)`` or ``{"basis": k, "xor": x}``.

        Raises :class:`SweepError` (and the layouts' own errors) with a message
        naming the offending toggle or access.

        >>> from linlayout.core.memory import unswizzled
        >>> lanes = LinearLayout({"lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]]}, {"dim0": 2, "dim1": 32})
        >>> f = Family.make(unswizzled([2, 32]), {"row": {"layout": lanes, "element_bits": 32, "op": "load"}},
        ...                 [(5, [0, 1])])
        >>> f.size, f.memory_at(1).bases["offset"][5]
        (2, (1, 1))
        """
        if not isinstance(memory, LinearLayout):
            raise SweepError(
                f"the memory of a family must be a linear layout (offset -> tensor), got {type(memory).__name__}; "
                "padded memories have no offset bases to toggle"
            )
        if memory.in_dims != ("offset",):
            raise DimensionError(f"a memory layout has one input dimension 'offset', got {list(memory.in_dims)}")
        nb = memory.in_size("offset").bit_length() - 1
        if nb != memory.out_bits:
            raise SweepError(
                f"the memory has {nb} offset bits but the tensor has {memory.out_bits} bits; an invertible memory "
                f"layout needs one offset bit per tensor bit"
            )
        if nb > 31:
            raise SweepError(f"the tensor has {nb} bits; sweeps handle tensors of up to 2^31 elements")
        if isinstance(accesses, Mapping):
            acc = []
            for nm, kw in accesses.items():
                if not isinstance(nm, str) or not nm:
                    raise SweepError(f"access names must be non-empty strings, got {nm!r}")
                if not isinstance(kw, Mapping):
                    raise SweepError(f"access {nm!r} must be a mapping of wavefronts() arguments, got {type(kw).__name__}")
                bad = [k for k in kw if k not in ("layout", "element_bits", "op", "instruction", "vector_bits", "hardware")]
                if bad:
                    raise SweepError(
                        f"access {nm!r} has an unknown argument {bad[0]!r}"
                        + ("; the memory belongs to the family, not to one access" if bad[0] == "memory" else "")
                    )
                if "layout" not in kw or "element_bits" not in kw:
                    raise SweepError(f"access {nm!r} needs a \"layout\" and \"element_bits\"")
                acc.append(Access(nm, kw["layout"], kw["element_bits"], kw.get("op"), kw.get("instruction"),
                                  kw.get("vector_bits"), kw.get("hardware") or "sm90"))
        else:
            acc = list(accesses)
        if not acc:
            raise SweepError("a family needs at least one access (a layout that loads or stores the tile)")
        names = [a.name for a in acc]
        if len(set(names)) != len(names):
            raise SweepError(f"access names must be distinct, got {names}")
        for a in acc:
            if not isinstance(a, Access):
                raise SweepError(f"accesses must be Access objects, got {type(a).__name__}")
            _check_access(a, memory)
        tg = tuple(_toggle(t, i, memory) for i, t in enumerate(toggles))
        if len(tg) > MAX_TOGGLES:
            raise SweepError(
                f"{len(tg)} toggles give 2^{len(tg)} memory layouts, too many to sweep exhaustively "
                f"(at most {MAX_TOGGLES} toggles); sweep a random sample instead (sample=N, CLI --sample N)"
            )
        return cls(name, memory, tuple(acc), tg)

    @property
    def size(self) -> int:
        """Number of configurations (memory layouts): ``2^len(toggles)``.

        >>> transpose_16x32_family(mask_bits=3).size
        4096
        """
        return 1 << len(self.toggles)

    def toggles_of(self, config: int) -> list[int]:
        """Indices of the toggles applied in ``config``: the set bits of ``config``.

        >>> transpose_16x32_family().toggles_of(0b100001)
        [0, 5]
        """
        return list(f2.bit_indices(config))

    def memory_at(self, config: int) -> LinearLayout:
        """The memory layout of configuration ``config``: base offset basis ``k`` XOR every applied toggle on ``k``.

        Requires ``0 <= config < size`` (:class:`SweepError` otherwise).

        >>> transpose_16x32_family().memory_at(0b00010_00001).bases["offset"][5:7]
        [(1, 1), (2, 2)]
        """
        if not 0 <= config < self.size:
            raise SweepError(f"configuration {config} is out of range; the family has {self.size}")
        bases = [list(b) for b in self.memory.bases["offset"]]
        for t in self.toggles_of(config):
            tg = self.toggles[t]
            bases[tg.basis] = [a ^ b for a, b in zip(bases[tg.basis], tg.xor)]
        return LinearLayout({"offset": bases}, self.memory.out_sizes)

    def to_dict(self) -> dict[str, Any]:
        """The family as a JSON object (the format :func:`linlayout.io.families.family_from_json` reads back).

        >>> d = transpose_16x32_family(mask_bits=1).to_dict()
        >>> sorted(d), sorted(d["queries"]), d["toggles"][0]
        (['memory', 'name', 'queries', 'toggles'], ['read', 'store'], {'basis': 5, 'xor': [0, 1]})
        """
        queries = {}
        for a in self.accesses:
            q: dict[str, Any] = {"layout": a.layout.to_dict(), "element_bits": a.element_bits}
            for k in ("op", "instruction", "vector_bits"):
                if getattr(a, k) is not None:
                    q[k] = getattr(a, k)
            if a.hardware != "sm90":
                q["hardware"] = a.hardware if isinstance(a.hardware, str) else a.hardware.name
            queries[a.name] = q
        return {
            "name": self.name,
            "memory": self.memory.to_dict(),
            "queries": queries,
            "toggles": [t.to_dict() for t in self.toggles],
        }


def _check_access(a: Access, memory: LinearLayout) -> None:
    """Reject what no configuration could fix: bad names, sizes, element width, instruction or hardware."""
    if not isinstance(a.layout, LinearLayout):
        raise SweepError(f"access {a.name!r}: the layout must be a LinearLayout, got {type(a.layout).__name__}")
    hw = get_hardware(a.hardware)
    if hw.banks * hw.bank_bytes > (1 << 30):
        raise SweepError(f"access {a.name!r}: hardware {hw.name} is too large for the vectorised sweep")
    if "register" not in a.layout.in_dims and a.ins.is_matrix:
        raise LoweringError(f"access {a.name!r}: {a.ins.name} needs register bases")
    # An identity memory over the same tensor: errors that do not depend on the memory surface here.
    ident = LinearLayout(
        {"offset": [tuple((1 << k) if j == d else 0 for j in range(len(memory.out_dims)))
                    for d, s in enumerate(memory.out_sizes.values()) for k in range(s.bit_length() - 1)]},
        memory.out_sizes,
    )
    try:
        plan_access(a.query(ident))
    except LoweringError:
        pass  # may depend on the memory: counted per configuration
    except LinLayoutError as e:
        raise type(e)(f"access {a.name!r}: {e}") from None
    if a.ins.is_matrix:
        # the memory-independent obstacles of a matrix instruction (the plan's tile and shape), raised once
        try:
            tile = matrix_tile(a.ins, a.element_bits, hw)
            if a.vector_bits not in (None, hw.register_bytes * 8):
                raise LoweringError(f"{a.ins.name} gives each lane one {hw.register_bytes * 8}-bit register per "
                                    f"matrix; vector_bits must be {hw.register_bytes * 8}")
            rest = [i for i, v in enumerate(a.layout.flat_bases("register")) if v and i not in tile.vector_registers]
            access_shape(a.ins, a.element_bits, hw, 0, len(rest) + len(tile.vector_registers), False)
        except LoweringError as e:
            raise LoweringError(f"access {a.name!r}: {e}") from None


def _toggle(t: Any, i: int, memory: LinearLayout) -> Toggle:
    if isinstance(t, Toggle):
        basis, xor = t.basis, t.xor
    elif isinstance(t, Mapping):
        bad = [k for k in t if k not in ("basis", "xor")]
        if bad:
            raise SweepError(f"toggle {i} has an unknown key {bad[0]!r}; a toggle is {{\"basis\": k, \"xor\": vector}}")
        if "basis" not in t or "xor" not in t:
            raise SweepError(f"toggle {i} needs \"basis\" (an offset bit) and \"xor\" (a tensor vector)")
        basis, xor = t["basis"], t["xor"]
    else:
        try:
            basis, xor = t
        except (TypeError, ValueError):
            raise SweepError(f"toggle {i} must be {{\"basis\": k, \"xor\": vector}} or a (basis, xor) pair, got {t!r}") from None
    nb = memory.in_size("offset").bit_length() - 1
    if isinstance(basis, bool) or not isinstance(basis, int):
        raise BasisError(f"toggle {i}: \"basis\" must be an offset bit index (an integer), got {basis!r}")
    if not 0 <= basis < nb:
        raise BasisError(f"toggle {i}: offset basis {basis} does not exist; the memory has offset bases 0..{nb - 1}")
    dims = memory.out_sizes
    if isinstance(xor, int) and not isinstance(xor, bool) and len(dims) == 1:
        xor = (xor,)
    if isinstance(xor, (str, bytes)) or not isinstance(xor, Iterable):
        raise BasisError(f"toggle {i}: \"xor\" must list one integer per tensor dimension {list(dims)}, got {xor!r}")
    xor = tuple(xor)
    if len(xor) != len(dims):
        raise DimensionError(
            f"toggle {i}: \"xor\" has {len(xor)} entries but the tensor has {len(dims)} dimensions {list(dims)}"
        )
    for v, (n, s) in zip(xor, dims.items()):
        if isinstance(v, bool) or not isinstance(v, int):
            raise BasisError(f"toggle {i}: \"xor\" entries must be integers, got {v!r}")
        if not 0 <= v < s:
            raise BasisError(f"toggle {i}: \"xor\" entry {v} for {n} is outside 0..{s - 1}")
    if not any(xor):
        raise SweepError(f"toggle {i} XORs offset basis {basis} with zero, which changes nothing; remove it")
    return Toggle(basis, xor)


def transpose_16x32_family(mask_bits: int = 5) -> Family:
    """The seeds' 16x32 fp32 transpose: segment basis ``j`` = ``(m_j, C_j)`` for every ``mask_bits``-bit ``C_j``.

    Offset bits 0-4 are ``n`` (banks ``[[0,1],[0,2],[0,4],[0,8],[0,16]]``);
    offset bit ``5 + j`` maps to ``(1 << j, C_j)``.  Toggle ``mask_bits * j + i``
    sets bit ``i`` of ``C_j``, so the family has ``2^(4 * mask_bits)`` memory
    layouts (2^20 with the default).  The accesses are ``store`` (one row per
    register, lane ``t`` on column ``t``) and ``read`` (lane ``t`` reads
    ``(t % 16, 2r + t // 16)``), as in ``examples/transpose_16x32.py``.  The
    sweep checks the known fact ``read = 2^(5 - rank{C_0..C_3, 1})``,
    ``store = 1`` on every configuration.

    >>> f = transpose_16x32_family()
    >>> f.size, f.memory_at(0b00001_00001).bases["offset"][5:7]
    (1048576, [(1, 1), (2, 1)])
    """
    if isinstance(mask_bits, bool) or not isinstance(mask_bits, int) or not 1 <= mask_bits <= 5:
        raise SweepError(f"mask_bits must be an integer from 1 to 5, got {mask_bits!r}")
    shape = {"dim0": 16, "dim1": 32}
    banks = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]]
    memory = LinearLayout({"offset": banks + [[1, 0], [2, 0], [4, 0], [8, 0]]}, shape)
    store = LinearLayout({"register": [[1, 0], [2, 0], [4, 0], [8, 0]], "lane": banks}, shape)
    read = LinearLayout({"register": [[0, 2], [0, 4], [0, 8], [0, 16]],
                         "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1]]}, shape)
    toggles = [Toggle(5 + j, (0, 1 << i)) for j in range(4) for i in range(mask_bits)]
    name = (f"seeds' 16x32 fp32 transpose: segment basis j = (m_j, C_j) for every {mask_bits}-bit C_0..C_3"
            if mask_bits < 5 else "seeds' 16x32 fp32 transpose: segment basis j = (m_j, C_j) for every 5-bit C_0..C_3")
    fam = Family.make(memory, {"store": {"layout": store, "element_bits": 32, "op": "store"},
                               "read": {"layout": read, "element_bits": 32, "op": "load"}}, toggles, name)
    return Family(fam.name, fam.memory, fam.accesses, fam.toggles, "transpose_16x32", (mask_bits,))



# ---------------------------------------------------------------------------
# Known facts
# ---------------------------------------------------------------------------


@record
class KnownFact:
    """A closed-form count a sweep checks on every configuration of a family.

    ``formula`` states it; ``counts(configs, *family.expect_args)`` gives, for
    an int64 array of configurations, the expected wavefronts per
    instruction of each access it covers (``{access name: array}``).

    >>> import numpy as np
    >>> fact = KNOWN_FACTS["transpose_16x32"]
    >>> fact.counts(np.array([0, 0b0100_0010]), 4)["read"].tolist()    # C_0 = 2, C_1 = 4
    [16, 4]
    """

    formula: str
    counts: Callable[..., dict[str, Any]]


def _transpose_16x32_counts(configs, mask_bits: int) -> dict[str, Any]:
    import numpy as np

    m = (1 << mask_bits) - 1
    cs = np.stack([(configs >> (mask_bits * j)) & m for j in range(4)] + [np.ones_like(configs)], axis=1)
    return {"read": np.int64(1) << (5 - batch_rank(cs)), "store": np.ones_like(configs)}


KNOWN_FACTS: dict[str, KnownFact] = {
    "transpose_16x32": KnownFact("read = 2^(5 - rank{C_0..C_3, 1}), store = 1", _transpose_16x32_counts),
}
"""Known facts by the name a :class:`Family` gives in ``expect``."""
