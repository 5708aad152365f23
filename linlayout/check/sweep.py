"""Exhaustive sweeps: the closed form against brute-force simulation over a family of memory layouts.

Concepts
========

A **family** is a base memory layout (``offset`` → tensor) and a list of
**toggles**.  Toggle ``t`` is a pair (offset basis ``k``, tensor vector
``x``): offset basis ``k`` may be XORed with ``x``, or not.  Configuration
``c`` (an integer, ``0 <= c < 2^T`` for ``T`` toggles) applies toggle ``t``
exactly when bit ``t`` of ``c`` is set, so a family holds ``2^T`` memory
layouts; several toggles on one basis add up (basis 5 XOR ``x`` XOR ``y``).
A family also names one or more **accesses** (a distributed layout, the
element width, op or instruction, and optionally the vector width): the
layout-level queries of ``linlayout conflicts`` without their memory.

For every configuration and access the sweep

1. builds the memory; one that is not invertible (two offsets on one
   element) is skipped and reported, with the toggles that caused it;
2. counts wavefronts per instruction in **closed form**: the subspace rule
   of :mod:`linlayout.conflicts` evaluated on numpy arrays of configurations
   (batched F2 inversion, the same vector, pass and matrix planning).  With
   ``T`` the lane byte images (pass-selecting lanes removed, or the 8 row
   generators of a matrix), ``dim P = rank(T >> 2) - rank(bank bits of T)``
   (``P``, the colliding word directions, is ``K`` modulo same-word
   differences, and ``K`` the part of ``T`` with zero bank bits), so one
   instruction costs ``passes * 2^(rank(T >> 2) - rank(bank bits of T))``;
3. generates the 32 lane byte offsets of **every** instruction (warp 0) and
   counts them with the address-level simulator,
   :func:`linlayout.simulate.simulate_batch`;
4. requires every simulated instruction to cost exactly the closed-form
   count, and tallies how many configurations give 1, 2, 4, ... wavefronts
   per instruction.

Finally the library itself (:func:`linlayout.conflicts.wavefronts` and
:func:`~linlayout.conflicts.lane_byte_offsets`, on full layout objects) is
run on a sample of configurations and must agree with the vectorised counts
and with the generated addresses.  Work is split across processes.

Worked example: the seeds' 16x32 fp32 transpose (:func:`transpose_16x32_family`).
A warp stores the tile by rows (lane ``t`` holds column ``t``, register ``r``
row ``r``) and reads it back transposed.  Offset bits 0-4 are ``n``; segment
basis ``j`` is ``(m_j, C_j)`` for a 5-bit mask ``C_j``, i.e. the memory puts
element ``(m, n)`` at ``32 m + (n ^ XOR of C_j over the set bits j of m)``.
The read's lanes span ``{32 m_j ^ C_j} ∪ {1}``, so a read instruction costs
``2^(5 - rank{C_0, .., C_3, 1})`` wavefronts, and a store always costs 1::

    C_j                         read wavefronts / instruction    store
    0, 0, 0, 0   (32m + n)      16                               1
    1, 2, 4, 8   (32m + n^m)    2                                1
    2, 4, 8, 16  (32m + n^2m)   1                                1

With 3-bit masks (2^12 layouts; ``linlayout sweep`` runs all 2^20 in a few seconds):

>>> r = sweep(transpose_16x32_family(mask_bits=3))
>>> r.ok, r.configs, r.checked_instructions
(True, 4096, 131072)
>>> r.sides["read"].histogram
{4: 3360, 8: 720, 16: 16}

Family JSON (``linlayout sweep FAMILY.json``)::

    {"name": "optional label",
     "memory": LAYOUT,                               # the base memory (offset -> tensor)
     "queries": {"store": {"layout": LAYOUT, "element_bits": 32, "op": "store"},
                 "read":  {"layout": LAYOUT, "element_bits": 32, "op": "load",
                           "instruction": "ld.shared", "vector_bits": 32, "hardware": "sm90"}},
     "toggles": [{"basis": 5, "xor": [0, 1]}, {"basis": 5, "xor": [0, 2]}, ...]}

or, for one access, ``{"query": QUERY, "toggles": [...]}`` with ``QUERY`` a
layout-level ``linlayout conflicts`` query (its ``memory`` is the base).
``xor`` has one integer per memory output dimension (a plain integer for a
1-D tensor).  ``examples/sweep_transpose_16x32.json`` is the built-in family
written this way.
"""

from __future__ import annotations

import os
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core import f2
from ..errors import BasisError, DimensionError, LayoutJSONError, LinLayoutError, LoweringError, NotInvertibleError, SizeError, SweepError
from ..hw import Instruction, SharedMemory, get_hardware, parse_instruction
from ..core.layout import LinearLayout
from ..count.plan import access_shape, matrix_tile, matrix_tile_ok_batch, plan_access, vector_cap, widest_vector_batch

__all__ = [
    "SweepError",
    "Toggle",
    "Access",
    "Family",
    "SideSummary",
    "SweepResult",
    "transpose_16x32_family",
    "family_from_json",
    "evaluate",
    "sweep",
    "batch_rank",
]

MAX_TOGGLES = 32  # 2^32 configurations; larger families need sample=


# ---------------------------------------------------------------------------
# Families
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Toggle:
    """Offset basis ``basis`` may be XORed with the tensor vector ``xor`` (one int per output dimension)."""

    basis: int
    xor: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"basis": self.basis, "xor": list(self.xor)}


@dataclass(frozen=True)
class Access:
    """One access swept over the family: the arguments of :func:`linlayout.conflicts.wavefronts` but the memory."""

    name: str
    layout: LinearLayout
    element_bits: int
    op: str | None = None
    instruction: str | None = None
    vector_bits: int | None = None
    hardware: str | SharedMemory = "sm90"

    @property
    def ins(self) -> Instruction:
        return parse_instruction(self.instruction, self.op)

    def query(self, memory: LinearLayout) -> dict[str, Any]:
        """Keyword arguments of :func:`linlayout.conflicts.wavefronts` for one memory layout."""
        return {
            "layout": self.layout,
            "memory": memory,
            "element_bits": self.element_bits,
            "op": self.op,
            "instruction": self.instruction,
            "vector_bits": self.vector_bits,
            "hardware": self.hardware,
        }


@dataclass(frozen=True)
class Family:
    """A base memory layout, the accesses to sweep, and the toggles that generate ``2^len(toggles)`` memories.

    Build it with :meth:`Family.make` (which validates everything), with
    :func:`family_from_json`, or take the built-in :func:`transpose_16x32_family`.
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
        :func:`linlayout.conflicts.wavefronts` without ``memory`` (``layout``,
        ``element_bits``, ``op``, ``instruction``, ``vector_bits``,
        ``hardware``), or is a sequence of :class:`Access`.  A toggle is a
        :class:`Toggle`, a pair ``(basis, xor)`` or ``{"basis": k, "xor": x}``.

        Raises :class:`SweepError` (and the layouts' own errors) with a message
        naming the offending toggle or access.

        >>> from linlayout.swizzles import unswizzled
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
        """The family as a JSON object (the format of :func:`family_from_json`, which reads it back).

        >>> f = transpose_16x32_family(mask_bits=1)
        >>> g = family_from_json(f.to_dict())
        >>> (g.memory, g.toggles, [a.layout for a in g.accesses]) == (f.memory, f.toggles, [a.layout for a in f.accesses])
        True
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
        plan_access(a.layout, ident, a.element_bits, a.op, a.instruction, a.vector_bits, a.hardware)
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


_FAMILY_KEYS = {"name", "memory", "queries", "query", "toggles"}


def family_from_json(source: Any) -> Family:
    """Parse a family document (JSON text or a decoded object); see the module docstring for the format.

    Raises :class:`~linlayout.errors.LayoutJSONError` for malformed documents,
    :class:`SweepError` for an unusable family and the layouts' own errors for
    invalid layouts.

    >>> fam = family_from_json({"query": {"layout": {"bases": {"lane": [[1], [2], [4], [8], [16]]}},
    ...                                   "memory": {"bases": {"offset": [[1], [2], [4], [8], [16]]}},
    ...                                   "element_bits": 32, "op": "load"},
    ...                         "toggles": [{"basis": 4, "xor": 1}]})
    >>> fam.size, [a.name for a in fam.accesses]
    (2, ['query'])
    """
    from ..io.jsonio import reject_unknown_keys, conflicts_query_from_json, decode, layout_from_json

    obj = decode(source, "family")
    if not isinstance(obj, Mapping):
        raise LayoutJSONError(f"a sweep family must be a JSON object, got {type(obj).__name__}")
    reject_unknown_keys(obj, _FAMILY_KEYS, "a sweep family")
    if "toggles" not in obj:
        raise LayoutJSONError("a sweep family needs \"toggles\": a list of {\"basis\": k, \"xor\": vector}")
    if not isinstance(obj["toggles"], list):
        raise LayoutJSONError(f"\"toggles\" must be a list, got {type(obj['toggles']).__name__}")
    name = obj.get("name", "custom family")
    if not isinstance(name, str):
        raise LayoutJSONError(f"\"name\" must be a string, got {name!r}")
    if ("query" in obj) == ("queries" in obj):
        raise LayoutJSONError(
            "a sweep family has either \"query\" (one layout-level conflicts query, with its memory) or "
            "\"memory\" and \"queries\" ({name: query without memory})"
        )
    if "query" in obj:
        if "memory" in obj:
            raise LayoutJSONError("the memory is given twice: at the top level and in \"query\"; keep one")
        q = obj["query"]
        if not isinstance(q, Mapping) or "memory" not in q or "layout" not in q:
            raise LayoutJSONError("\"query\" must be a layout-level conflicts query with \"layout\" and \"memory\"")
        mem_obj = q["memory"]
        raw = {"query": {k: v for k, v in q.items() if k != "memory"}}
    else:
        if "memory" not in obj:
            raise LayoutJSONError("a sweep family with \"queries\" needs the base \"memory\" at the top level")
        mem_obj = obj["memory"]
        raw = obj["queries"]
        if not isinstance(raw, Mapping) or not raw:
            raise LayoutJSONError("\"queries\" must be a non-empty object {name: query}")
    if isinstance(mem_obj, Mapping) and "padded" in mem_obj:
        raise SweepError("a padded memory has no offset bases to toggle; sweep a linear memory layout")
    memory = layout_from_json(mem_obj, "memory")
    accesses = {}
    for nm, q in raw.items():
        if not isinstance(q, Mapping):
            raise LayoutJSONError(f"query {nm!r} must be a JSON object, got {type(q).__name__}")
        if "memory" in q:
            raise LayoutJSONError(f"query {nm!r} has its own \"memory\"; give the memory once, at the top level")
        if "layout" not in q:
            raise LayoutJSONError(f"query {nm!r} needs a \"layout\"")
        parsed = conflicts_query_from_json({**q, "memory": mem_obj})
        parsed.pop("kind")
        parsed.pop("memory")
        accesses[nm] = parsed
    return Family.make(memory, accesses, obj["toggles"], name)


# ---------------------------------------------------------------------------
# Vectorised engine
# ---------------------------------------------------------------------------


def batch_rank(vectors):  # -> numpy.ndarray
    """Rank over F2 of each row of an ``(n, k)`` integer array (the row's ``k`` vectors).

    Elimination with the lowest set bit as pivot: after vector ``i`` has been
    reduced by the earlier pivots, its lowest bit is cleared from every later
    vector, so the nonzero vectors left are independent.

    >>> import numpy as np
    >>> batch_rank(np.array([[1, 2, 3], [4, 4, 0], [0, 0, 0]])).tolist()
    [2, 1, 0]
    """
    import numpy as np

    v = np.array(vectors, dtype=np.int64, copy=True)
    n, k = v.shape
    for i in range(k):
        p = v[:, i] & -v[:, i]
        for j in range(i + 1, k):
            v[:, j] ^= np.where(v[:, j] & p != 0, v[:, i], 0)
    return (v != 0).sum(axis=1)


def _span(gens):
    """(c, g) generators -> (c, 2^g): every XOR combination, index bit i = generator i."""
    import numpy as np

    out = np.zeros((gens.shape[0], 1), dtype=np.int64)
    for i in range(gens.shape[1]):
        out = np.concatenate([out, out ^ gens[:, i : i + 1]], axis=1)
    return out


def _batch_inverse(cols, n: int):
    """Batched F2 inverse of square matrices given by columns ``cols`` (c, n): (inverse columns (c, n), invertible)."""
    import numpy as np

    c = cols.shape[0]
    sh = np.arange(n, dtype=np.int64)
    bits = (cols[:, :, None] >> sh[None, None, :]) & 1  # bits[:, j, r]: row r of column j
    rows = (bits << sh[None, :, None]).sum(axis=1)  # rows[:, r]: bit j = M[r, j]
    rows |= (np.int64(1) << (n + sh))[None, :]  # augmented with the identity
    ok = np.ones(c, dtype=bool)
    ar = np.arange(c)
    for p in range(n):
        b = (rows[:, p:] >> p) & 1
        ok &= b.any(axis=1)
        idx = p + b.argmax(axis=1)
        piv = rows[ar, idx].copy()
        rows[ar, idx] = rows[:, p].copy()
        rows[:, p] = piv
        hit = ((rows >> p) & 1).astype(bool)
        hit[:, p] = False
        rows ^= np.where(hit, piv[:, None], 0)
    inv_rows = rows >> n  # inv_rows[:, r]: bit k set when tensor bit k contributes to offset bit r
    inv_cols = (((inv_rows[:, None, :] >> sh[None, :, None]) & 1) << sh[None, None, :]).sum(axis=2)
    return inv_cols, ok


def _apply_cols(cols, v: int):
    """XOR of the columns selected by the set bits of ``v`` (per row)."""
    import numpy as np

    out = np.zeros(cols.shape[0], dtype=np.int64)
    for k in f2.bit_indices(v):
        out ^= cols[:, k]
    return out


@dataclass
class _Side:
    """Per-chunk result of one access (arrays over the chunk's configurations)."""

    status: Any  # int8: 0 counted, 1 memory not invertible, 2 not lowerable
    closed: Any  # wavefronts per instruction (closed form), 0 where not counted
    instructions: Any  # instructions per configuration
    access_bytes: Any
    groups: list  # (row indices, simulated (cg, I) array, addresses (cg, I, 32) or None)


class _Engine:
    """The family compiled to plain ints; evaluates arrays of configurations."""

    def __init__(self, family: Family) -> None:
        mem = family.memory
        self.family = family
        self.n = mem.out_bits
        self.base = [int(v) for v in mem.flat_bases("offset")]
        names = list(mem.out_dims)
        sizes = list(mem.out_sizes.values())
        self.shift = {}
        s = 0
        for nm, sz in zip(names, sizes):
            self.shift[nm] = s
            s += sz.bit_length() - 1
        self.toggles = [(t.basis, self._pack(dict(zip(names, t.xor)))) for t in family.toggles]
        self.sides = []
        for a in family.accesses:
            lay = a.layout
            imgs = {}
            for d in lay.in_dims:
                imgs[d] = [self._pack(dict(zip(lay.out_dims, b))) for b in lay.bases[d]]
            self.sides.append((a, imgs))

    def _pack(self, coords: Mapping[str, int]) -> int:
        return sum(v << self.shift[k] for k, v in coords.items())

    def memories(self, configs):
        import numpy as np

        cols = np.tile(np.array(self.base, dtype=np.int64), (len(configs), 1))
        for t, (k, x) in enumerate(self.toggles):
            cols[:, k] ^= ((configs >> t) & 1) * x
        return cols

    def evaluate(self, configs, detail: bool = False) -> tuple[Any, list[_Side]]:
        """(invertible mask, per-access results) for an int64 array of configurations."""
        import numpy as np

        configs = np.asarray(configs, dtype=np.int64)
        cols = self.memories(configs)
        inv, ok = _batch_inverse(cols, self.n)
        return ok, [self._side(a, imgs, inv, ok, detail) for a, imgs in self.sides]

    def _side(self, a: Access, imgs, inv, ok, detail: bool) -> _Side:
        """Evaluate the access plan (:mod:`linlayout.count.plan`) of one access over the configurations.

        The shape (passes, instructions, within-pass generators) depends on
        the layout only through its zero bases, so it is computed once per
        vector choice; the vector and the matrix tile use the plan's array
        rules, and the conflict rule is ``dim P`` of the generators' bytes.
        """
        import numpy as np

        c = inv.shape[0]
        hw = get_hardware(a.hardware)
        ins = a.ins
        eb = a.element_bits
        offs = {d: (np.stack([_apply_cols(inv, v) for v in vs], axis=1) if vs else np.zeros((c, 0), dtype=np.int64))
                for d, vs in imgs.items()}
        regs = offs.get("register", np.zeros((c, 0), dtype=np.int64))
        nz = [i for i, v in enumerate(imgs.get("register", [])) if v]
        lane_imgs = imgs.get("lane", [])
        broadcast = any(i < len(lane_imgs) and lane_imgs[i] == 0 for i in (0, 1))
        status = np.where(ok, 0, 1).astype(np.int8)
        closed = np.zeros(c, dtype=np.int64)
        n_ins = np.zeros(c, dtype=np.int64)
        abytes = np.zeros(c, dtype=np.int64)
        groups: list = []

        def gen_bytes(sel, gens):
            return np.stack([offs[d][sel, i] for d, i in gens], axis=1) * eb >> 3 if gens else np.zeros((len(sel), 0), np.int64)

        if ins.is_matrix:
            tile = matrix_tile(ins, eb, hw)
            status[ok & ~matrix_tile_ok_batch(tile, offs)] = 2
            rest = [i for i in nz if i not in tile.vector_registers]
            shape = access_shape(ins, eb, hw, 0, len(rest) + len(tile.vector_registers), broadcast)
            nmat = shape.matrix_registers
            sel = np.flatnonzero(status == 0)
            if len(sel):
                rows = gen_bytes(sel, shape.within_pass)
                gens = np.concatenate([rows, regs[sel][:, rest[:nmat]] * eb >> 3], axis=1)
                issue = regs[sel][:, rest[nmat:]] * eb >> 3
                per = shape.passes << self._dim_p(rows, hw)
                masks = np.array([l if l < hw.matrix_rows * ins.matrices else 0 for l in range(hw.lanes)])
                groups.append(self._simulate(a, ins, hw, shape.access_bytes, sel, gens, masks, issue, per, detail))
                closed[sel] = per
                n_ins[sel] = shape.instructions
                abytes[sel] = shape.access_bytes
            return _Side(status, closed, n_ins, abytes, groups)
        # ld/st.shared: the plan's vector rule on arrays
        cap_k = vector_cap(eb, hw)
        others = np.concatenate([v for d, v in offs.items() if d != "register"] + [np.zeros((c, 0), np.int64)], axis=1)
        veclen, order = widest_vector_batch(regs, others, cap_k)
        use = veclen.copy()
        if a.vector_bits is not None:
            want = (a.vector_bits // eb).bit_length() - 1
            status[ok & (veclen < want)] = 2
            use = np.minimum(use, want)
        status[(status == 0) & ((eb << use) < 8)] = 2
        vmask = np.zeros(c, dtype=np.int64)
        for k in range(cap_k):
            vmask |= np.where(k < use, np.int64(1) << np.maximum(order[:, k], 0), 0)
        counted = status == 0
        nr = regs.shape[1]
        for key in np.unique(vmask[counted]):
            sel = np.flatnonzero(counted & (vmask == key))
            vec = [i for i in range(nr) if key >> i & 1]
            shape = access_shape(ins, eb, hw, len(vec), len(nz), broadcast)
            issue_regs = [i for i in nz if i not in vec]
            lanes = offs["lane"][sel] * eb >> 3
            issue = regs[sel][:, issue_regs] * eb >> 3
            per = shape.passes << self._dim_p(gen_bytes(sel, shape.within_pass), hw)
            groups.append(self._simulate(a, ins, hw, shape.access_bytes, sel, lanes, np.arange(hw.lanes), issue, per,
                                         detail))
            closed[sel] = per
            n_ins[sel] = shape.instructions
            abytes[sel] = shape.access_bytes
        return _Side(status, closed, n_ins, abytes, groups)

    @staticmethod
    def _dim_p(gens, hw: SharedMemory):
        """dim P per row: rank of the word parts minus rank of the bank parts of the generators."""
        words = gens >> hw.word_shift
        return batch_rank(words) - batch_rank(words & (hw.banks - 1))

    def _simulate(self, a, ins, hw, access_bytes, sel, gens, masks, issue, per, detail):
        """Simulate every instruction of the selected configurations; return (sel, sim, addresses)."""
        import numpy as np

        from ..count.simulate import simulate_batch

        lane_vals = _span(gens)[:, masks]  # (cg, lanes)
        base = _span(issue)  # (cg, I)
        if max(int(lane_vals.max(initial=0)), int(base.max(initial=0))) < (1 << 30):
            lane_vals, base = lane_vals.astype(np.int32), base.astype(np.int32)  # XORs stay below 2^30
        ni = base.shape[1]
        sims = []
        addrs_all = [] if detail else None
        step = max(1, 16384 // ni)
        for s in range(0, len(sel), step):
            addrs = base[s : s + step, :, None] ^ lane_vals[s : s + step, None, :]
            flat = addrs.reshape(-1, hw.lanes)
            sims.append(simulate_batch(ins.name, ins.op, access_bytes, flat, hw).reshape(-1, ni))
            if detail:
                addrs_all.append(addrs)
        sim = np.concatenate(sims) if sims else np.zeros((0, ni), dtype=np.int64)
        return (sel, sim, per, np.concatenate(addrs_all) if detail and addrs_all else None)


def evaluate(family: Family, configs: Iterable[int]) -> dict[str, list[dict[str, Any]]]:
    """Closed-form and simulated wavefronts of each access, for a few configurations (a list per access).

    Each entry has ``config``, ``status`` (``"ok"``, ``"singular"`` memory or
    ``"not lowerable"``), and when counted ``wavefronts_per_instruction``
    (closed form), ``instructions``, ``access_bytes``, ``simulated`` (one
    count per instruction) and ``lane_byte_offsets`` (per instruction, as
    :func:`linlayout.conflicts.lane_byte_offsets` gives them).  This is the
    vectorised engine of :func:`sweep`, for checking it against the library.

    >>> e = evaluate(transpose_16x32_family(), [0])
    >>> e["read"][0]["wavefronts_per_instruction"], e["read"][0]["simulated"][:3]
    (16, [16, 16, 16])
    """
    import numpy as np

    cfg = np.array(list(configs), dtype=np.int64)
    if len(cfg) and (cfg.min() < 0 or cfg.max() >= family.size):
        raise SweepError(f"configurations must lie in 0..{family.size - 1}")
    eng = _Engine(family)
    _, sides = eng.evaluate(cfg, detail=True)
    out: dict[str, list[dict[str, Any]]] = {}
    for a, side in zip(family.accesses, sides):
        rows: list[dict[str, Any]] = [
            {"config": int(c), "status": ("ok", "singular", "not lowerable")[int(s)]} for c, s in zip(cfg, side.status)
        ]
        for sel, sim, per, addrs in side.groups:
            for j, r in enumerate(sel):
                rows[r].update(
                    wavefronts_per_instruction=int(side.closed[r]),
                    instructions=int(side.instructions[r]),
                    access_bytes=int(side.access_bytes[r]),
                    simulated=[int(x) for x in sim[j]],
                    lane_byte_offsets=addrs[j].tolist(),
                )
        out[a.name] = rows
    return out


# ---------------------------------------------------------------------------
# Known facts
# ---------------------------------------------------------------------------


def _expect_transpose_16x32(configs, mask_bits: int) -> dict[str, Any]:
    import numpy as np

    m = (1 << mask_bits) - 1
    cs = np.stack([(configs >> (mask_bits * j)) & m for j in range(4)] + [np.ones_like(configs)], axis=1)
    return {"read": np.int64(1) << (5 - batch_rank(cs)), "store": np.ones_like(configs)}


_EXPECT: dict[str, tuple[Callable, str]] = {
    "transpose_16x32": (_expect_transpose_16x32, "read = 2^(5 - rank{C_0..C_3, 1}), store = 1"),
}


# ---------------------------------------------------------------------------
# The sweep
# ---------------------------------------------------------------------------


@dataclass
class SideSummary:
    """What the sweep found for one access.

    ``histogram`` maps wavefronts per instruction (closed form) to the number
    of configurations; ``simulated`` maps wavefronts to the number of
    simulated instructions; ``instructions_per_layout`` maps instruction
    counts to configurations; ``disagreements`` counts instructions whose
    simulation differs from the closed form (``examples`` lists the first
    ones); ``not_lowerable`` counts configurations the instruction cannot
    access (``LoweringError``).
    """

    name: str
    instruction: str
    op: str
    element_bits: int
    histogram: dict[int, int] = field(default_factory=dict)
    simulated: dict[int, int] = field(default_factory=dict)
    instructions_per_layout: dict[int, int] = field(default_factory=dict)
    access_bytes: dict[int, int] = field(default_factory=dict)
    checked_instructions: int = 0
    disagreements: int = 0
    examples: list[dict[str, Any]] = field(default_factory=list)
    not_lowerable: int = 0
    not_lowerable_examples: list[int] = field(default_factory=list)
    expect_mismatches: int = 0
    expect_examples: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "instruction": self.instruction,
            "op": self.op,
            "element_bits": self.element_bits,
            "histogram": {str(k): v for k, v in sorted(self.histogram.items())},
            "simulated_instructions": {str(k): v for k, v in sorted(self.simulated.items())},
            "instructions_per_layout": {str(k): v for k, v in sorted(self.instructions_per_layout.items())},
            "access_bytes": {str(k): v for k, v in sorted(self.access_bytes.items())},
            "checked_instructions": self.checked_instructions,
            "disagreements": self.disagreements,
            "disagreement_examples": self.examples,
            "not_lowerable": self.not_lowerable,
            "not_lowerable_examples": self.not_lowerable_examples,
            "expect_mismatches": self.expect_mismatches,
            "expect_examples": self.expect_examples,
        }


@dataclass
class SweepResult:
    """The outcome of :func:`sweep`.

    ``ok`` is true when the closed form equals the simulation on every
    instruction, the known fact (if any) holds on every configuration and the
    library spot check agrees.  ``singular`` counts the configurations whose
    memory is not invertible (skipped); ``singular_examples`` lists the first
    few with the library's message; ``singular_toggles`` lists the toggles
    that alone make the base memory singular.
    """

    family: str
    configs: int
    total_configs: int
    sampled: bool
    seconds: float
    jobs: int
    sides: dict[str, SideSummary]
    singular: int = 0
    singular_examples: list[dict[str, Any]] = field(default_factory=list)
    singular_toggles: list[int] = field(default_factory=list)
    expect: str | None = None
    library_checked: int = 0
    library_mismatches: list[str] = field(default_factory=list)

    @property
    def checked_instructions(self) -> int:
        return sum(s.checked_instructions for s in self.sides.values())

    @property
    def disagreements(self) -> int:
        return sum(s.disagreements for s in self.sides.values())

    @property
    def ok(self) -> bool:
        return (
            self.disagreements == 0
            and not self.library_mismatches
            and all(s.expect_mismatches == 0 for s in self.sides.values())
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "family": self.family,
            "configs": self.configs,
            "total_configs": self.total_configs,
            "sampled": self.sampled,
            "ok": self.ok,
            "seconds": round(self.seconds, 3),
            "jobs": self.jobs,
            "checked_instructions": self.checked_instructions,
            "disagreements": self.disagreements,
            "singular": self.singular,
            "singular_examples": self.singular_examples,
            "singular_toggles": self.singular_toggles,
            "expect": self.expect,
            "library_checked": self.library_checked,
            "library_mismatches": self.library_mismatches,
            "sides": {k: v.to_dict() for k, v in self.sides.items()},
        }

    def text(self) -> str:
        """A human report."""
        L = []
        what = f"a random sample of {self.configs:,} of {self.total_configs:,}" if self.sampled else f"all {self.configs:,}"
        L.append(f"family: {self.family}")
        L.append(f"swept {what} memory layouts in {self.seconds:.1f} s ({self.jobs} process{'es' if self.jobs > 1 else ''})")
        if self.singular:
            L.append(f"skipped {self.singular:,} memory layouts that are not invertible (two offsets on one element):")
            for ex in self.singular_examples:
                L.append(f"  config {ex['config']} (toggles {ex['toggles']}): {ex['message']}")
            if self.singular_toggles:
                L.append(f"  toggles that alone make the base memory singular: {self.singular_toggles}")
        for s in self.sides.values():
            L.append("")
            ipl = ", ".join(f"{k} ({v:,} layouts)" if len(s.instructions_per_layout) > 1 else f"{k}"
                            for k, v in sorted(s.instructions_per_layout.items()))
            acc = "/".join(f"{k}" for k in sorted(s.access_bytes)) or "-"
            L.append(f"{s.name}: {s.instruction} ({s.op}), {s.element_bits}-bit elements, {acc}-byte accesses, "
                     f"{ipl} instructions x 32 lanes per layout; {s.checked_instructions:,} instructions simulated")
            if s.not_lowerable:
                L.append(f"  not lowerable on {s.not_lowerable:,} layouts (skipped), e.g. configs {s.not_lowerable_examples}")
            L.append("  wavefronts per instruction    layouts (closed form)    instructions (simulation)")
            for k in sorted(set(s.histogram) | set(s.simulated)):
                L.append(f"  {k:>26}    {s.histogram.get(k, 0):>21,}    {s.simulated.get(k, 0):>25,}")
            if s.disagreements:
                L.append(f"  DISAGREEMENT on {s.disagreements:,} instructions; first ones:")
                for ex in s.examples:
                    L.append(f"    config {ex['config']} (toggles {ex['toggles']}), instruction {ex['instruction']}: "
                             f"closed form {ex['closed_form']}, simulation {ex['simulation']}; "
                             f"lane byte offsets {ex['lane_byte_offsets']}")
            if s.expect_mismatches:
                L.append(f"  KNOWN FACT FAILS on {s.expect_mismatches:,} layouts, e.g. {s.expect_examples}")
        L.append("")
        n = self.checked_instructions
        if self.disagreements:
            L.append(f"closed form vs simulation: {self.disagreements:,} of {n:,} instructions DISAGREE")
        else:
            L.append(f"closed form vs simulation: agree on all {n:,} instructions")
        if self.expect:
            bad = sum(s.expect_mismatches for s in self.sides.values())
            L.append(f"known fact ({self.expect}): " + (f"FAILS on {bad:,} layouts" if bad else
                                                        f"holds on all {self.configs - self.singular:,} layouts"))
        if self.library_checked:
            L.append(
                f"library check (linlayout.conflicts.wavefronts and lane_byte_offsets on {self.library_checked} "
                "sampled layouts): " + ("all equal" if not self.library_mismatches else
                                        f"{len(self.library_mismatches)} MISMATCHES: " + "; ".join(self.library_mismatches[:5]))
            )
        return "\n".join(L)


_WORKER: dict[str, Any] = {}


def _worker_init(family: Family, examples: int) -> None:
    _WORKER["engine"] = _Engine(family)
    _WORKER["examples"] = examples


def _worker_run(task) -> dict[str, Any]:
    return _run_chunk(_WORKER["engine"], task, _WORKER["examples"])


def _task_configs(task):
    import numpy as np

    if isinstance(task, tuple):
        return np.arange(task[0], task[1], dtype=np.int64)
    return task


def _run_chunk(eng: _Engine, task, examples: int) -> dict[str, Any]:
    """Evaluate one chunk of configurations; return mergeable tallies."""
    import numpy as np

    fam = eng.family
    configs = _task_configs(task)
    ok, sides = eng.evaluate(configs)
    expected = None
    if fam.expect is not None:
        expected = _EXPECT[fam.expect][0](configs, *fam.expect_args)
    out: dict[str, Any] = {
        "configs": len(configs),
        "singular": int((~ok).sum()),
        "singular_examples": [int(c) for c in configs[~ok][:examples]],
        "sides": {},
    }
    for a, side in zip(fam.accesses, sides):
        d: dict[str, Any] = {
            "histogram": Counter(), "simulated": Counter(), "ipl": Counter(), "abytes": Counter(),
            "checked": 0, "disagreements": 0, "examples": [],
            "not_lowerable": int((side.status == 2).sum()),
            "not_lowerable_examples": [int(c) for c in configs[side.status == 2][:examples]],
            "expect_mismatches": 0, "expect_examples": [],
        }
        counted = side.status == 0
        for v, k in zip(*np.unique(side.closed[counted], return_counts=True)):
            d["histogram"][int(v)] += int(k)
        for v, k in zip(*np.unique(side.instructions[counted], return_counts=True)):
            d["ipl"][int(v)] += int(k)
        for v, k in zip(*np.unique(side.access_bytes[counted], return_counts=True)):
            d["abytes"][int(v)] += int(k)
        for sel, sim, per, _ in side.groups:
            for v, k in zip(*np.unique(sim, return_counts=True)):
                d["simulated"][int(v)] += int(k)
            d["checked"] += sim.size
            bad = sim != per[:, None]
            nbad = int(bad.sum())
            if nbad:
                d["disagreements"] += nbad
                rows, ins_idx = np.nonzero(bad)
                for r, i in list(zip(rows, ins_idx))[:examples]:
                    cfg = int(configs[sel[r]])
                    d["examples"].append({"config": cfg, "instruction": int(i), "closed_form": int(per[r]),
                                          "simulation": int(sim[r, i])})
        if expected is not None and a.name in expected:
            exp = expected[a.name]
            bad = counted & (side.closed != exp)
            d["expect_mismatches"] = int(bad.sum())
            d["expect_examples"] = [{"config": int(c), "closed_form": int(v), "expected": int(e)}
                                    for c, v, e in zip(configs[bad][:examples], side.closed[bad][:examples],
                                                       exp[bad][:examples])]
        out["sides"][a.name] = d
    return out


def _merge(total: dict[str, Any] | None, part: dict[str, Any], examples: int) -> dict[str, Any]:
    if total is None:
        return part
    total["configs"] += part["configs"]
    total["singular"] += part["singular"]
    total["singular_examples"] = sorted(total["singular_examples"] + part["singular_examples"])[:examples]
    for nm, d in part["sides"].items():
        t = total["sides"][nm]
        for k in ("histogram", "simulated", "ipl", "abytes"):
            t[k].update(d[k])
        for k in ("checked", "disagreements", "not_lowerable", "expect_mismatches"):
            t[k] += d[k]
        t["examples"] = sorted(t["examples"] + d["examples"], key=lambda e: (e["config"], e["instruction"]))[:examples]
        t["expect_examples"] = sorted(t["expect_examples"] + d["expect_examples"], key=lambda e: e["config"])[:examples]
        t["not_lowerable_examples"] = sorted(t["not_lowerable_examples"] + d["not_lowerable_examples"])[:examples]
    return total


class _Progress:
    def __init__(self, total: int, enabled: bool, stream=None) -> None:
        self.total = total
        self.enabled = enabled
        self.stream = stream or sys.stderr
        self.done = 0
        self.t0 = time.perf_counter()
        self.last = 0.0

    def update(self, n: int) -> None:
        self.done += n
        if not self.enabled:
            return
        now = time.perf_counter()
        if now - self.last < 0.1 and self.done < self.total:
            return
        self.last = now
        frac = self.done / self.total if self.total else 1.0
        width = 30
        bar = "#" * int(frac * width) + "." * (width - int(frac * width))
        el = now - self.t0
        eta = f", {el / frac - el:.0f} s left" if 0 < frac < 1 else ""
        self.stream.write(f"\rsweep [{bar}] {frac * 100:5.1f}% {self.done:,}/{self.total:,} layouts, {el:.1f} s{eta}   ")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()


def _default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def sweep(
    family: Family,
    jobs: int | None = None,
    progress: bool = False,
    sample: int | None = None,
    seed: int = 0,
    library_check: int = 64,
    examples: int = 5,
    chunk: int | None = None,
) -> SweepResult:
    """Sweep every configuration of ``family``: closed form against simulation of every instruction.

    Parameters
    ----------
    family
        A :class:`Family` (:func:`transpose_16x32_family`, :func:`family_from_json`, :meth:`Family.make`).
    jobs
        Worker processes (default: the CPUs this process may use; families of
        fewer than 16,384 configurations run in this process).
    progress
        Draw a progress bar on standard error.
    sample, seed
        Sweep ``sample`` configurations drawn at random (without replacement)
        instead of all of them.
    library_check
        Also run :func:`linlayout.conflicts.wavefronts` and
        :func:`~linlayout.conflicts.lane_byte_offsets` on this many sampled
        configurations (configuration 0 included) and compare.
    examples
        How many failing configurations to keep per kind of failure.

    Returns a :class:`SweepResult`; it does not raise on disagreements
    (``result.ok`` is false and the examples name the failing configurations).

    >>> r = sweep(transpose_16x32_family(mask_bits=2), library_check=4)
    >>> r.sides["store"].histogram, r.sides["read"].histogram, r.library_checked
    ({1: 256}, {8: 240, 16: 16}, 4)
    """
    import numpy as np

    if not isinstance(family, Family):
        raise SweepError(f"sweep needs a Family, got {type(family).__name__}")
    t0 = time.perf_counter()
    total = family.size
    if sample is not None:
        if isinstance(sample, bool) or not isinstance(sample, int) or sample <= 0:
            raise SweepError(f"sample must be a positive integer, got {sample!r}")
        rng = np.random.default_rng(seed)
        if sample >= total:
            sample = None
        elif total <= (1 << 24):
            picked = np.sort(rng.choice(total, size=sample, replace=False)).astype(np.int64)
        else:
            picked = np.unique(rng.integers(0, total, size=sample * 2, dtype=np.int64))[:sample]
            rng.shuffle(picked)
            picked = np.sort(picked[:sample])
    n = total if sample is None else len(picked)
    if jobs is None:
        jobs = _default_jobs() if n >= 16384 else 1
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise SweepError(f"jobs must be a positive integer, got {jobs!r}")
    eng = _Engine(family)
    per_cfg = 0
    for a in family.accesses:
        nz = sum(1 for v in a.layout.flat_bases("register") if v) if "register" in a.layout.in_dims else 0
        per_cfg += 1 << nz
    if chunk is None:
        chunk = max(64, min(1 << 15, (1 << 18) // max(1, per_cfg)))
        if jobs > 1:
            chunk = max(64, min(chunk, -(-n // (jobs * 4))))
    if sample is None:
        tasks: list = [(s, min(total, s + chunk)) for s in range(0, total, chunk)]
    else:
        tasks = [picked[s : s + chunk] for s in range(0, n, chunk)]
    bar = _Progress(n, progress)
    merged = None
    try:
        if jobs == 1 or len(tasks) == 1:
            jobs = 1
            for t in tasks:
                merged = _merge(merged, _run_chunk(eng, t, examples), examples)
                bar.update(len(_task_configs(t)))
        else:
            import multiprocessing as mp

            methods = mp.get_all_start_methods()
            ctx = mp.get_context("fork" if "fork" in methods and sys.platform.startswith("linux") else "spawn")
            with ctx.Pool(jobs, initializer=_worker_init, initargs=(family, examples)) as pool:
                for part in pool.imap_unordered(_worker_run, tasks):
                    merged = _merge(merged, part, examples)
                    bar.update(part["configs"])
    finally:
        bar.close()
    assert merged is not None
    res = SweepResult(
        family=family.name,
        configs=n,
        total_configs=total,
        sampled=sample is not None,
        seconds=0.0,
        jobs=jobs,
        sides={},
        singular=merged["singular"],
        expect=_EXPECT[family.expect][1] if family.expect else None,
    )
    for a in family.accesses:
        d = merged["sides"][a.name]
        s = SideSummary(a.name, a.ins.name, a.ins.op, a.element_bits)
        s.histogram = dict(sorted(d["histogram"].items()))
        s.simulated = dict(sorted(d["simulated"].items()))
        s.instructions_per_layout = dict(sorted(d["ipl"].items()))
        s.access_bytes = dict(sorted(d["abytes"].items()))
        s.checked_instructions = d["checked"]
        s.disagreements = d["disagreements"]
        s.not_lowerable = d["not_lowerable"]
        s.not_lowerable_examples = d["not_lowerable_examples"]
        s.expect_mismatches = d["expect_mismatches"]
        s.expect_examples = d["expect_examples"]
        if d["examples"]:
            det = evaluate(family, sorted({e["config"] for e in d["examples"]}))[a.name]
            by = {r["config"]: r for r in det}
            for e in d["examples"]:
                e["toggles"] = family.toggles_of(e["config"])
                e["lane_byte_offsets"] = by[e["config"]]["lane_byte_offsets"][e["instruction"]]
            s.examples = d["examples"]
        res.sides[a.name] = s
    for c in merged["singular_examples"]:
        try:
            family.memory_at(c).invert()
            msg = "invertible in the library (engine disagrees)"
            res.library_mismatches.append(f"config {c}: the engine calls the memory singular, the library inverts it")
        except NotInvertibleError as e:
            msg = str(e)
        res.singular_examples.append({"config": c, "toggles": family.toggles_of(c), "message": msg})
    if res.singular:
        base_ok = eng.evaluate(np.array([0], dtype=np.int64))[0][0]
        if base_ok and family.toggles:
            alone = np.array([1 << t for t in range(len(family.toggles))], dtype=np.int64)
            inv_ok = eng.evaluate(alone)[0]
            res.singular_toggles = [int(t) for t in np.flatnonzero(~inv_ok)]
    if library_check:
        _library_check(family, res, n if sample is None else picked, library_check, seed)
    res.seconds = time.perf_counter() - t0
    return res


def _library_check(family: Family, res: SweepResult, pool, k: int, seed: int) -> None:
    """Compare the engine with conflicts.wavefronts / lane_byte_offsets on ``k`` sampled configurations."""
    import numpy as np

    from ..count.by_simulation import lane_byte_offsets
    from ..count.closed_form import wavefronts

    rng = np.random.default_rng(seed + 1)
    if isinstance(pool, int):
        cand = rng.choice(pool, size=min(k, pool), replace=False) if pool <= (1 << 24) else rng.integers(0, pool, k)
        cand = set(int(c) for c in cand) | {0}
    else:
        cand = set(int(c) for c in rng.choice(pool, size=min(k, len(pool)), replace=False))
    cfgs = sorted(cand)[: max(k, 1)]
    det = evaluate(family, cfgs)
    res.library_checked = len(cfgs)
    for a in family.accesses:
        for row in det[a.name]:
            c = row["config"]
            mem = family.memory_at(c)
            try:
                rep = wavefronts(**a.query(mem))
            except NotInvertibleError:
                if row["status"] != "singular":
                    res.library_mismatches.append(f"{a.name} config {c}: the library finds the memory singular, the engine does not")
                continue
            except LoweringError as e:
                if row["status"] != "not lowerable":
                    res.library_mismatches.append(f"{a.name} config {c}: the library cannot lower it ({e}), the engine can")
                continue
            if row["status"] != "ok":
                res.library_mismatches.append(f"{a.name} config {c}: the engine says {row['status']}, the library counts it")
                continue
            if (rep.wavefronts_per_instruction, rep.instructions, rep.access_bytes) != (
                row["wavefronts_per_instruction"], row["instructions"], row["access_bytes"]
            ):
                res.library_mismatches.append(
                    f"{a.name} config {c}: library {rep.wavefronts_per_instruction} wavefronts x {rep.instructions} "
                    f"instructions ({rep.access_bytes} B), engine {row['wavefronts_per_instruction']} x "
                    f"{row['instructions']} ({row['access_bytes']} B)"
                )
            elif lane_byte_offsets(**a.query(mem)) != row["lane_byte_offsets"]:
                res.library_mismatches.append(f"{a.name} config {c}: lane byte offsets differ from the library's")
