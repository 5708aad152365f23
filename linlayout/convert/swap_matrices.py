"""The register↔lane swap matrices a warp-shuffle program can use (:mod:`linlayout.convert.warp`).

A shuffle program (module doc of :mod:`linlayout.convert.warp`) reads, in
round ``k``, lane ``ρ(k, λ) = Sr k ⊕ J λ ⊕ Sω ω`` with ``J = Sr M ⊕ Sl``; it
exists only when every receiver of one sender wants the same word.  The lane
directions that break this are those in which the destination reads one
sender (``ker Sl``) but wants different words (outside ``ker Ql``); each must
be *fixed*, by swapping it with a round bit, by a free variable of the source
(a kernel vector of its columns inside the warp: the same element held
elsewhere), or, in a second phase, by a round of its own.  This module lists
those fixes, as :func:`swap_candidates`, in a fixed order (the planner's
answer depends on it: among equally cheap programs the first wins), at most
:data:`MAX_SWAP_CANDIDATES` of them.

What it works out only when needed, since most conversions inside a warp have
at most one direction to fix and most of their candidates are the matrix ``M
= 0`` (measured on the planner's median conversions: one to three candidates
per pack width): the kernel of ``(Sl, Ql)`` only when ``Sl`` has a kernel
(else no direction reads one sender), the options and the span of ``image(Sl)``
that independence is tested against only when a direction must be fixed, the
coordinates of the lane bits in the directions' basis only for a candidate
that moves something, and the elimination of ``Aq`` only for a lane direction
that wants another word.

:func:`image_part` splits a lane vector along the image of ``J`` (the lanes a
program reads) from one elimination, for the programs' send words ``H``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator, Sequence

from ..core import f2

__all__ = ["MAX_SWAP_CANDIDATES", "swap_candidates", "image_part"]

MAX_SWAP_CANDIDATES = 720
"""At most this many register↔lane swap matrices ``M`` are scored per pack width."""

Fix = tuple[list[int], list[int], list[int], tuple[int, ...]]
"""``(M, Dq, Ds, X)``: one candidate of :func:`swap_candidates`."""


def swap_candidates(As: Sequence[int], Ls: Sequence[int], Lq: Sequence[int], nl: int, mw: int,
                    kernel: Sequence[tuple[int, int]] = (), Aq: Sequence[int] = (),
                    fits: Callable[[int], bool] = lambda extra: True) -> Iterator[Fix]:
    """Fixes of the lanes that read one sender but want different words, at most MAX_SWAP_CANDIDATES.

    Each such lane direction ``v`` (a basis of ``ker Sl`` modulo ``ker Sl ∩ ker Ql``) is fixed either by
    a register↔lane swap (``M v`` = a round bit) or by a free variable: a within-warp kernel vector
    ``z = (zq, zs)`` of ``src`` (``src`` holds the same element at ``x`` and ``x ⊕ z``, for example a
    broadcast lane) added to the source slot of ``v``.  The fixes' lane images must be independent
    modulo ``image(Sl)``.  Yields ``(M, Dq, Ds, X)``: the swap matrix, the per-lane additions to ``Ql``
    and ``Sl``, and the word coordinates ``X`` of the extra round bits (none in the first phase).

    A second phase follows (its candidates win only when strictly cheaper): a direction ``v`` may also
    be fixed by an *extra round* beyond the destination's register bits (``M v`` = a new round bit ``e``
    with ``As e = 0`` and ``Aq e = Lq v``: in round ``e`` every thread reads the lane it reads in round 0
    and gets the other word; the receiver keeps the one it needs), and a lane direction ``u`` that reads
    distinct senders may be swapped with the round ``c`` for which ``Aq c = Lq u`` (its receivers then want
    the word the round brings, and no sender selects for ``u``).

    ``fits(n)``: whether a matrix with ``n >= 1`` extra round bits may be kept (it has no local rounds: ``J v = Sl v =
    0`` for a direction ``v`` fixed so, and its shuffles follow from ``n``); one left out still counts towards the cap.
    """
    image, _, KerLs = f2.echelon(list(Ls))  # one elimination of Sl: its kernel (null_space's) and its image
    if KerLs:
        both = [ls | (lq << nl) for ls, lq in zip(Ls, Lq)]
        Z = f2.null_space(both)  # lane vectors killed by Sl and Ql (inside ker Sl)
        bad = f2.complement(Z, KerLs)
    else:  # every lane direction reads distinct senders: none to fix, and ker(Sl, Ql) = 0
        Z, bad = [], []
    cmp_ = f2.complement(KerLs, nl)
    d = len(bad)
    lanes = LaneCoordinates(cmp_ + Z + bad, nl)
    # image(Sl) as a span, from the elimination above, copied per choice: read only to fix a direction
    img = image.span() if d else None

    def independent(vectors: list[int]) -> bool:
        """rank(img + vectors) == rank(img) + len(vectors)."""
        return not vectors or img.copy().extend(vectors) == len(vectors)

    options = []
    if d:
        options = [("round", 1 << c, As[c]) for c in range(mw)]  # As applied to round bit c
        options += [("free", z, z[1]) for z in kernel]
        # An option whose lane image lies in image(Sl) is in no independent choice: left out before the choices
        # are listed (the others keep their order, so the candidates come in the same order).
        options = [o for o in options if o[2] not in img]

    def lanewise(lead, vals):
        if not any(vals) and not any(lead):
            return [0] * nl  # no fix touches this part (say, no free variable chosen)
        return lanes.apply(list(lead) + [0] * len(Z) + vals)

    seen = 0
    lead = [0] * len(cmp_)
    for choice in itertools.permutations(range(len(options)), d):
        if not independent([options[i][2] for i in choice]):
            continue
        yield (lanewise(lead, [options[i][1] if options[i][0] == "round" else 0 for i in choice]),
               lanewise(lead, [options[i][1][0] if options[i][0] == "free" else 0 for i in choice]),
               lanewise(lead, [options[i][1][1] if options[i][0] == "free" else 0 for i in choice]), ())
        seen += 1
        if seen >= MAX_SWAP_CANDIDATES:
            break
    leads = round_swaps(cmp_, Lq, Aq)
    extended = options + [("extra", None, 0)]
    # Whether the second phase may reach the cap: only then must a matrix left out by ``fits`` be counted, which
    # needs its independence tested first; otherwise it is left out before that test.
    capped = math.prod(len(o) for o in leads) * len(extended) ** d > MAX_SWAP_CANDIDATES
    seen = 0
    for lead in itertools.product(*leads):
        for choice in itertools.product(range(len(extended)), repeat=d):
            fixed = [i for i in choice if extended[i][0] != "extra"]
            if (len(fixed) == d and not any(lead)) or len(set(fixed)) != len(fixed):
                continue  # a first-phase candidate, or one option used twice
            if not capped and len(fixed) < d and not fits(d - len(fixed)):
                continue  # more shuffles than the caller keeps (not counted: the cap is out of reach)
            if not independent([extended[i][2] for i in fixed]):
                continue
            if len(fixed) < d and not fits(d - len(fixed)):
                seen += 1  # more shuffles than the caller keeps
                if seen >= MAX_SWAP_CANDIDATES:
                    return
                continue
            mvals, qvals, svals, extra = [], [], [], []
            for v, i in zip(bad, choice):
                kind, val, _ = extended[i]
                if kind == "extra":
                    mvals.append(1 << (mw + len(extra)))
                    extra.append(f2.apply(Lq, v))
                else:
                    mvals.append(val if kind == "round" else 0)
                qvals.append(val[0] if kind == "free" else 0)
                svals.append(val[1] if kind == "free" else 0)
            yield lanewise(lead, mvals), lanewise([0] * len(lead), qvals), lanewise([0] * len(lead), svals), tuple(extra)
            seen += 1
            if seen >= MAX_SWAP_CANDIDATES:
                return


def round_swaps(directions: Sequence[int], Lq: Sequence[int], Aq: Sequence[int]) -> list[list[int]]:
    """Per lane direction ``u`` that reads distinct senders, the values its swap matrix column may take in the second
    phase: ``0`` (not swapped), and the round ``c`` with ``Aq c = Lq u`` when there is one (its receivers then want the
    word that round brings).  ``Aq`` is eliminated once, and only when some direction wants another word."""
    out = []
    aq_echelon = None
    for u in directions:
        opts = [0]
        lu = f2.apply(Lq, u)
        if lu:
            if aq_echelon is None:
                aq_echelon = f2.echelon(list(Aq))[0]
            residue, solution = aq_echelon.reduce(lu)  # f2.solve's answer when lu is in span(Aq)
            if not residue:
                opts.append(solution)
        out.append(opts)
    return out


class LaneCoordinates:
    """The coordinates of each lane bit in a basis of the lane space (``basis``, ``lanes`` vectors), inverted the
    first time a candidate moves something (:meth:`apply`): most candidates are ``M = 0`` and need none."""

    __slots__ = ("basis", "lanes", "coords")

    def __init__(self, basis: list[int], lanes: int) -> None:
        self.basis, self.lanes, self.coords = basis, lanes, None

    def apply(self, values: list[int]) -> list[int]:
        """Per lane bit, the combination of ``values`` (one per basis vector) its coordinates select."""
        if self.coords is None:
            self.coords = f2.inverse(self.basis)[:self.lanes]
        return [f2.apply(values, c) for c in self.coords]


def image_part(ech: f2.Echelon, v: int) -> int:
    """The columns (a mask) of an eliminated matrix whose XOR is the part of ``v`` in its image, ``v`` split along the
    image and its complement of the lowest unit vectors (:func:`~linlayout.core.f2.complement`'s choice).

    Those unit vectors are the ones at no leading bit of the echelon (a unit vector is picked exactly when no vector
    of the image has it as its highest bit), so reducing ``v`` by the echelon's vectors at its leading bits and
    dropping its other bits leaves the image part's combination: no second elimination of the image, no inverse.

    >>> image_part(f2.echelon([0b011, 0b110])[0], 0b101)
    3
    """
    mask = 0
    while v:
        h = v.bit_length() - 1
        b = ech.vec.get(h)
        if b is None:
            v ^= 1 << h  # a unit vector of the complement
        else:
            v ^= b
            mask ^= ech.combo[h]
    return mask
