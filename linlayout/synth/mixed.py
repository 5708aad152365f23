"""Candidates for any pair of layouts: mixed, repeated, dependent or zero bases (issue 12 §1).

The distributed construction (:mod:`linlayout.synth.candidates`) works in
tensor coordinates because every basis of a distributed layout is a unit
vector.  Here the same four steps are made coordinate-free (the paper's
letters, as mapped in :mod:`linlayout.synth.candidates`, now name subspaces
and their bases; ``K`` and ``T_X`` are new here):

1. **Vector** ``V``: register images common to both sides, each the image of
   exactly one basis of its side, such that ``span(V)`` meets the span of every
   other basis of *both* sides only in 0 (the counter's alignment rule: no
   other basis may touch the vector's offset bits).  Every prefix is a
   candidate.
2. **Extension** ``E`` of one side ``X``: more of ``X``'s registers with the
   same rule for ``X`` alone, while ``V`` stays clean for the other side.
3. **Complement** ``K`` of ``span(V + E)`` holding the other bases (the wide
   side's first, then the narrow side's), completed by unit vectors: every
   later column is taken from ``K``, so the vectors stay aligned.
4. **Word fill, bank, segment** inside ``K``, with the subspace form of the
   distributed rule (paper_notes/synthesis.md §3, whose proof only uses linear
   independence): pass-lane subspaces ``T_W``, ``T_R`` (projected onto ``K``
   along the low block), ``I = T_W ∩ T_R``, complements ``E``, ``F``, ``C``;
   segment = ``C``, pairs ``e_i ^ f_i``, the unpaired rest, then ``I``.

Every candidate is scored exactly (:func:`~linlayout.synth.scoring.exact_pair`);
:func:`improve_columns` then tries column moves (``m_p ^= m_q`` and swaps) while
they lower the exact objective.  The relaxation (:mod:`linlayout.synth.bounds`)
is stated for subspaces, so ``optimal=True`` is still a proof.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from ..core import f2
from ..hw import Instruction, SharedMemory
from .sides import Geometry, Side, pass_lanes

__all__ = ["MixedBlock", "mixed_blocks", "mixed_memories", "improve_columns"]

MixedBlock = tuple[list[int], list[int], list[int], "str | None"]  # (low block, vector, extension, extended side)


def _all_bases(side: Side) -> list[int]:
    return [x for x in side.regs + side.lanes + side.others if x]


def _vectorizable(side: Side) -> list[int]:
    """Register images that are the image of exactly one basis of the side (distinct, in register order)."""
    count = Counter(_all_bases(side))
    return list(dict.fromkeys(r for r in side.regs if r and count[r] == 1))


def _others(side: Side, low: Sequence[int]) -> list[int]:
    low_set = set(low)
    return [x for x in _all_bases(side) if x not in low_set]


def _clean(low: Sequence[int], rest: Sequence[int]) -> bool:
    """``span(low)`` is independent and meets ``span(rest)`` only in 0."""
    return f2.rank(list(rest) + list(low)) == f2.rank(rest) + len(low)


def mixed_blocks(sides: dict[str, Side], common: Sequence[int], geo: Geometry, fixed: int | None,
                   problems: list[str]) -> list[MixedBlock]:
    """Candidate low blocks (vector, extension) for two ld/st sides."""
    sw, sr = sides["write"], sides["read"]
    vw, vr = set(_vectorizable(sw)), set(_vectorizable(sr))
    V: list[int] = []
    for r in common:
        if len(V) >= geo.max_vector:
            break
        if r in vw and r in vr:
            trial = V + [r]
            if _clean(trial, _others(sw, trial) + _others(sr, trial)):
                V = trial
    lo = max(0, (8 // geo.element_bits).bit_length() - 1) if geo.element_bits < 8 else 0
    if fixed is not None:
        if fixed > len(V):
            problems.append(f"vector_bits={geo.element_bits << fixed} needs {1 << fixed} common register directions that both "
                            f"layouts can vectorize, they have {len(V)}")
            return []
        return [(V[:fixed], V[:fixed], [], None)]
    out: list[MixedBlock] = [(V[:j], V[:j], [], None) for j in range(len(V), lo - 1, -1) if j >= 0]
    for nm, other in (("write", "read"), ("read", "write")):
        me, you = sides[nm], sides[other]
        avail = [r for r in _vectorizable(me) if r not in V]
        avail.sort(key=lambda x: 0 if x in you.lane_set else 1)
        E: list[int] = []
        for e in avail:
            if len(V) + len(E) >= geo.max_vector:
                break
            D = V + E + [e]
            if not _clean(D, _others(me, D)):
                continue
            if not _clean(V, _others(me, D) + _others(you, V) + E + [e]):
                continue
            E.append(e)
            out.append((V + E, list(V), list(E), nm))
    if geo.element_bits << len(V) < 8:
        out = [o for o in out if geo.element_bits << len(o[0]) >= 8]
        if not out:
            problems.append(f"{geo.element_bits}-bit elements need at least {8 // geo.element_bits} contiguous registers on each side")
    return out


def _coordinates(basis: Sequence[int]):
    """An echelon form of the independent ``basis``: ``.reduce(x)[1]`` gives ``x``'s coordinates (bit i: basis[i])."""
    return f2.echelon(list(basis))[0]


def _complement(low_block: Sequence[int], wide: Side | None, sides: dict[str, Side], d: int) -> list[int] | None:
    """The complement ``K`` of the low block: the wide side's other bases, then the narrow side's, then unit
    vectors (None when the block is dependent)."""
    order = [wide] if wide is not None else []
    order += [s for s in (sides["write"], sides["read"]) if s is not wide]
    span = f2.Span(low_block)
    if len(span) != len(low_block):
        return None
    K = [x for s in order for x in _others(s, low_block) if span.add(x)]
    K += [u for u in (1 << i for i in range(d)) if span.add(u)]
    return K


def mixed_memories(low_block: Sequence[int], wide: Side | None, sides: dict[str, Side], widths: dict[str, int],
                   ins: dict[str, Instruction], geo: Geometry, hw: SharedMemory) -> list[tuple[int, ...]]:
    """Full memories (columns, offset bit 0 first) for one low block: one per word-fill split."""
    K = _complement(low_block, wide, sides, geo.offset_bits)
    if K is None:
        return []
    n = len(K)
    nd = len(low_block)
    coords = _coordinates(list(low_block) + K)
    spaces = {}  # per side, the pass-lane subspace T_X projected onto K along the low block (K coordinates)
    for nm, sd in sides.items():
        lanes = pass_lanes(sd, ins[nm], widths[nm], geo, hw) if widths[nm] >= 0 else []
        spaces[nm] = f2.basis(coords.reduce(x)[1] >> nd for x in lanes)
    TW, TR = spaces["write"], spaces["read"]
    u = max(0, geo.word_end - nd)
    b = max(0, geo.bank_end - max(nd, geo.word_end))
    s = n - u - b
    inter = f2.intersection(TW, TR)
    ew = f2.complement(inter, TW)
    fr = f2.complement(inter, TR)
    free = f2.complement(f2.span_sum(TW, TR), n)
    out: list[tuple[int, ...]] = []
    seen = set()
    for split in range(u + 1) if u else (0,):
        fill: list[int] = []
        sp = f2.Span()
        pool = inter + ew[:split] + fr + ew[split:] + free + [1 << i for i in range(n)]
        for v in pool:
            if len(fill) == u:
                break
            if sp.add(v):
                fill.append(v)
        key = tuple(sorted(f2.basis(fill)))
        if key in seen:
            continue
        seen.add(key)
        G = f2.complement(fill, n)
        B, S = _bank_and_segment(fill, G, TW, TR, b, s)
        cols = (tuple(low_block) + tuple(f2.apply(K, v) for v in fill)
                + tuple(f2.apply(K, f2.apply(G, v)) for v in B) + tuple(f2.apply(K, f2.apply(G, v)) for v in S))
        out.append(cols)
    return out


def _bank_and_segment(fill: list[int], G: list[int], TW: list[int], TR: list[int], b: int,
                      s: int) -> tuple[list[int], list[int]]:
    """Bank and segment columns (in coordinates of ``G``, the complement of the fill in ``K``): §3's order on
    the pass-lane subspaces taken in the quotient by the fill."""
    q = _coordinates(fill + G)
    nf = len(fill)
    m = len(G)
    U = f2.basis(q.reduce(x)[1] >> nf for x in TW)
    W = f2.basis(q.reduce(x)[1] >> nf for x in TR)
    I = f2.intersection(U, W)
    E = f2.complement(I, U)
    F = f2.complement(I, W)
    C = f2.complement(f2.span_sum(U, W), m)
    if len(E) > len(F):
        E, F = F, E  # the construction is symmetric: pair along the smaller one
    npair = len(E)
    seg_order = C + [E[i] ^ F[i] for i in range(npair)] + F[npair:] + E + I
    S: list[int] = []
    ss = f2.Span()
    for v in seg_order:
        if len(S) == s:
            break
        if ss.add(v):
            S.append(v)
    B = [v for v in I + E + F + C + [1 << i for i in range(m)] if ss.add(v)]
    if len(S) != s or len(B) != b:  # pragma: no cover - dimension bookkeeping guard
        raise AssertionError(f"general completion gave {len(B)} + {len(S)} columns, expected {b} + {s}")
    return B, S


def improve_columns(cols: tuple[int, ...], score: Callable[[tuple[int, ...]], tuple | None], target: tuple | None,
            keep: int, rounds: int = 12) -> tuple[int, ...]:
    """Local search: replace column ``p`` by ``m_p ^ m_q`` or swap two columns while the exact key drops.

    ``score`` returns the exact objective key (None: unusable); columns below
    ``keep`` (a matrix tile) stay.  Stops at ``target`` (the relaxation's key).
    """
    best = score(cols)
    if best is None:
        return cols
    d = len(cols)
    for _ in range(rounds):
        if target is not None and best[:2] <= target:
            break
        found = None
        for p in range(keep, d):
            for q in range(d):
                if q == p:
                    continue
                for trial in (cols[:p] + (cols[p] ^ cols[q],) + cols[p + 1:],
                              tuple(cols[q] if i == p else cols[p] if i == q else c for i, c in enumerate(cols))
                              if q > p else None):
                    if trial is None:
                        continue
                    k = score(trial)
                    if k is not None and k < best:
                        best, found = k, trial
            if found is not None:
                break
        if found is None:
            break
        cols = found
    return cols
