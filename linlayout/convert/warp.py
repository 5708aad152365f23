"""Conversions inside a warp: register permutations and warp-shuffle programs.

Concepts
========

Inside a warp the conversion map ``P`` (:mod:`linlayout.convert.solve`) sends
a destination slot ``(r, λ, ω)`` (register, lane, and ``ω`` = warp and block,
which it keeps) to the source slot ``(q, s, ω)`` with, linearly::

    q = Qr r ⊕ Ql λ ⊕ Qω ω        s = Sr r ⊕ Sl λ ⊕ Sω ω

**Registers** (``s = λ`` always): each destination register reads source
register ``q``.  The part ``Ql λ ⊕ Qω ω`` depends on the thread; when it is
not zero, every destination register is a select among ``2^rank`` source
registers (a tree of ``2^rank - 1`` ``selp``).  Otherwise it is a pure
renaming: no instruction.

**Shuffles.**  Destination registers that duplicate others (``P r = 0``) are
copies; the others are split into *pack* bits ``Π`` (registers of both sides:
``Sr = 0``, so ``32/element_bits`` elements travel in one 32-bit word) and
*round* bits.  One round moves one word per thread with one ``shfl.sync``
(two for 64-bit elements).  In round ``k`` thread ``λ`` fills destination word
``k ⊕ Mλ``, reading lane ``ρ(k, λ) = Sr k ⊕ J λ ⊕ Sω ω`` with ``J = Sr M ⊕ Sl``;
the sender ``s`` offers word ``σ(k, s) = A k ⊕ H s ⊕ Hω ω``.  The register
↔ lane swap matrix ``M`` is chosen so that every receiver of one sender wants
the same word (``ker J ⊆ ker K``, ``K = Qr M ⊕ Ql``); then ``H = K J⁺``,
``A = Qr ⊕ H Sr`` and ``Hω = H Sω ⊕ Qω``.  This handles any number of mixed
register/lane swaps at once (Triton issue #9680), broadcast bases (zero
columns) and lanes of ``src`` that hold duplicates.  Two more kinds of
``M`` are scored after these (kept only when cheaper): *extra rounds*, round
bits beyond the destination's registers (a lane direction whose receivers
read one sender but want different words, with no destination register bit
left to swap it with, gets a round of its own in which every thread reads
the same lane and takes the other word; the received word that is not needed
is dropped), and swaps of a lane direction that reads distinct senders with
the round that brings the word its receivers want (no sender selects for it).
The swap matrices are listed by :mod:`linlayout.convert.swap_matrices`; a
pack width whose programs all take more shuffles than the widest pack's
fewest is skipped unlisted (:meth:`PackWidths.fewest_shuffles`).

Exact per-thread instruction counts follow from the program: ``shfl.sync``
per round whose source lane is not the thread itself for some thread;
``selp``: either chains over the distinct candidates of each selection
(strategy ``mux``: per round, the words senders offer minus one; per
destination word, its candidates minus one) or conditional-swap layers
(strategy ``layers``: ``rank(H|Hω)`` layers over the source words and
``rank(M)`` layers over the received words, one ``selp`` per word and
layer), whichever costs less; ``prmt``: ``n - 1`` to pack a word of ``n`` elements and ``n - 1`` to
unpack it (16-bit pairs: one ``mov.b32 {lo, hi}`` instead).  A 64-bit element is
split into two 32-bit halves by register naming (``mov.b64 {lo, hi}``,
which ptxas removes; Triton's PTX shows the same), so it costs no ``mov``.  The lower bound on shuffles is computed
from the data alone: the most elements one thread needs from other lanes,
divided by the elements per word.

>>> from linlayout.core.layout import LinearLayout
>>> from linlayout.convert.solve import conversion_map
>>> rows = LinearLayout({"register": [[1]], "lane": [[2], [4], [8], [16], [32]]}, {"dim0": 64})
>>> cols = LinearLayout({"register": [[2]], "lane": [[1], [4], [8], [16], [32]]}, {"dim0": 64})
>>> prog = shuffle_program(conversion_map(rows, cols), 32)
>>> prog.counts, prog.lower_bound
({'shfl.sync': 1, 'selp': 3}, 1)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cached_property, partial

from ..core import f2
from ..core.record import record
from .cost import COST_WEIGHTS
from .solve import ConversionMap
from .swap_matrices import MAX_SWAP_CANDIDATES, image_part, swap_candidates

__all__ = ["RegisterProgram", "ShuffleProgram", "image_part", "packed_shuffle_bound", "products", "register_program",
           "shuffle_lower_bound", "shuffle_program", "thread_ids", "MAX_SWAP_CANDIDATES", "PackWidths",
           "program_candidates"]


def _mask(n: int) -> int:
    return (1 << n) - 1


def _split(cm: ConversionMap):
    """Per destination bit group: the (register, lane) parts of its source columns."""
    sh, dh = cm.src_bits, cm.dst_bits
    reg, lane = _mask(sh.reg), _mask(sh.lane)
    q = [c & reg for c in cm.columns]
    s = [(c >> sh.reg) & lane for c in cm.columns]
    r0, l0, o0 = 0, dh.reg, dh.reg + dh.lane
    n = dh.bits
    return (q[r0:l0], s[r0:l0]), (q[l0:o0], s[l0:o0]), (q[o0:n], s[o0:n])


def thread_ids(cm: ConversionMap):
    """Every (lane, ω) of the conversion, ω = warp and block bits together."""
    nl = cm.dst_bits.lane
    no = cm.dst_bits.warp + cm.dst_bits.block
    return [(lane, om) for om in range(1 << no) for lane in range(1 << nl)]


@record
class RegisterProgram:
    """A conversion inside each thread: destination register ``r`` reads source register ``q(r, thread)``."""

    element_bits: int
    Qr: tuple[int, ...]
    Ql: tuple[int, ...]
    Qo: tuple[int, ...]
    dst_regs: int
    src_regs: int
    distinct: int  # destination registers that are not copies of others

    def source_register(self, reg: int, lane: int, omega: int) -> int:
        """The source register read by destination register ``reg`` of thread (lane, ω)."""
        return f2.apply(self.Qr, reg) ^ f2.apply(self.Ql, lane) ^ f2.apply(self.Qo, omega)

    @cached_property
    def counts(self) -> dict[str, int]:
        """``selp`` per thread: for each distinct destination register, its source candidates over threads, minus one.

        Counted from ranks, not by listing every register of every thread: register ``r`` of thread ``t``
        reads ``Qr r ⊕ T t`` (``T = [Ql Qo]``), so the registers' rows over the threads are the cosets
        ``Qr r ⊕ image(T)``: one distinct row per element of ``image(Qr)``, each with ``|image(T)|``
        candidates.
        """
        rows = 1 << f2.rank(list(self.Qr))
        candidates = 1 << f2.rank(list(self.Ql) + list(self.Qo))
        sel = rows * (candidates - 1)  # candidates >= 1
        return {"selp": sel} if sel else {}


def register_program(cm: ConversionMap, element_bits: int) -> RegisterProgram:
    """The register path of a level-0 conversion map."""
    (qr, sr), (ql, sl), (qo, so) = _split(cm)
    assert cm.level == 0
    kernel = f2.null_space(qr)
    return RegisterProgram(element_bits, tuple(qr), tuple(ql), tuple(qo), 1 << cm.dst_bits.reg, 1 << cm.src_bits.reg,
                           1 << (cm.dst_bits.reg - len(kernel)))


@record
class ShuffleProgram:
    """A warp-shuffle program (see the module doc); matrices are lists of columns."""

    element_bits: int
    lanes: int  # lane bits
    src_reg_bits: int
    dst_reg_bits: int
    pack: tuple[int, ...]       # Π: destination register vectors packed into one word
    rounds_basis: tuple[int, ...]  # C': destination register vector of each round bit
    copies: tuple[int, ...]     # K: destination register vectors that duplicate (P r = 0)
    word_basis: tuple[int, ...]  # source register vectors: QΠ then W (pack coordinates low)
    M: tuple[int, ...]          # lane -> round coordinates
    As: tuple[int, ...]
    J: tuple[int, ...]
    Os: tuple[int, ...]
    A: tuple[int, ...]          # round -> word coordinates
    H: tuple[int, ...]          # lane -> word coordinates
    Ho: tuple[int, ...]         # ω -> word coordinates
    lower_bound: int
    extra_rounds: int = 0       # round bits beyond the destination's registers (their words are not kept)

    @property
    def pack_bits(self) -> int:
        return len(self.pack)

    @property
    def round_bits(self) -> int:
        """Round bits: one per ``rounds_basis`` vector, then ``extra_rounds``."""
        return len(self.rounds_basis) + self.extra_rounds

    @property
    def kept(self) -> int:
        """Received words that fill destination registers: ``0 .. kept - 1`` (the extra round bits are zero)."""
        return 1 << len(self.rounds_basis)

    @property
    def words_per_element(self) -> int:
        return max(1, self.element_bits // 32)

    def source_lane(self, k: int, lane: int, omega: int) -> int:
        """ρ(k, λ, ω): the lane thread λ reads in round ``k``."""
        return f2.apply(self.As, k) ^ f2.apply(self.J, lane) ^ f2.apply(self.Os, omega)

    def send_word(self, k: int, lane: int, omega: int) -> int:
        """σ(k, s, ω): the source word (coordinates) lane ``s`` offers in round ``k``."""
        return f2.apply(self.A, k) ^ f2.apply(self.H, lane) ^ f2.apply(self.Ho, omega)

    def word_registers(self, word: int) -> list[int]:
        """The source registers of a word, pack position 0 first."""
        p = self.pack_bits
        return [f2.apply(self.word_basis, j | (word << p)) for j in range(1 << p)]

    def dst_round(self, reg: int, lane: int) -> tuple[int, int]:
        """(round, pack position) that fills destination register ``reg`` of lane ``lane``."""
        basis = list(self.rounds_basis) + list(self.pack) + list(self.copies)
        coords = f2.apply(self._dst_inverse, reg)
        nr = len(self.rounds_basis)
        r = coords & _mask(nr)
        j = (coords >> nr) & _mask(self.pack_bits)
        assert len(basis) == self.dst_reg_bits
        return r ^ f2.apply(self.M, lane), j

    @cached_property
    def _dst_inverse(self) -> list[int]:
        return f2.inverse(list(self.rounds_basis) + list(self.pack) + list(self.copies))

    @cached_property
    def has_local_rounds(self) -> bool:
        """Whether some round is local (:attr:`self_rounds` not empty): every thread reads its own lane in round 0
        exactly when ``J`` is the identity and the warps add nothing (``Sω = 0``), and round 0 is then local; the
        counts ask only this, not which rounds (the test, not the listing)."""
        return not any(self.Os) and all(self.J[i] == 1 << i for i in range(self.lanes))

    @cached_property
    def self_rounds(self) -> frozenset[int]:
        """Rounds in which every thread reads its own lane (no shuffle needed)."""
        if not self.has_local_rounds:
            return frozenset()
        return frozenset(f2.subset_xors(f2.null_space(list(self.As))))  # {k : As k = 0}, listed from its basis

    def schedule(self, lane: int, omega: int = 0) -> list[dict[str, object]]:
        """Round by round for one thread: the lane it reads, the registers it sends, the registers it fills."""
        out = []
        for k in range(1 << self.round_bits):
            fills = [reg for reg in range(1 << self.dst_reg_bits) if self.dst_round(reg, lane)[0] == k]
            out.append({"round": k, "shuffle": k not in self.self_rounds,
                        "source_lane": self.source_lane(k, lane, omega),
                        "send_registers": self.word_registers(self.send_word(k, lane, omega)),
                        "fills_registers": fills})
        return out

    @cached_property
    def sender_span(self) -> f2.Span:
        """``span(H, Hω)``, the words a sender's choice adds to a round's (eliminated once for both strategies' counts:
        copy it before extending it)."""
        return f2.Span(list(self.H) + list(self.Ho))

    @property
    def sender_rank(self) -> int:
        return len(self.sender_span)

    @cached_property
    def swap_basis(self) -> list[int]:
        """The reduced basis of ``span(M)`` (:func:`~linlayout.core.f2.basis`): the receive layers' ``b`` and the rank
        both strategies' counts read."""
        return f2.basis(list(self.M))

    @cached_property
    def selections(self) -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[tuple[str, int], ...], ...]]:
        """What the selects choose among, over all threads.

        ``(send, receive)``: ``send[k]`` the source words offered in round
        ``k`` (one per thread pattern; empty for a local round) and
        ``receive[r]`` the candidates of destination word ``r``: ``("recv",
        k)`` (the word received in shuffled round ``k``) or ``("src", w)``
        (source word ``w`` of the thread itself, from a local round).
        """
        rounds = 1 << self.round_bits
        sent = [f2.apply(self.A, k) for k in range(rounds)]  # the word round k sends where H and Ho add nothing
        local = self.self_rounds
        # The thread-dependent parts are linear, so their values over all threads form a span.
        span_send = f2.subset_xors(f2.basis(list(self.H) + list(self.Ho)))
        send = [() if k in local else tuple(sorted({sent[k] ^ v for v in span_send})) for k in range(rounds)]
        wb = self.src_reg_bits + 1  # word coordinates fit below bit wb
        joint = [(m << wb) | h for m, h in zip(self.M, self.H)] + [h for h in self.Ho]  # (Mλ, Hλ ⊕ Hω ω)
        pairs_ = [(v >> wb, v & ((1 << wb) - 1)) for v in f2.subset_xors(f2.basis(joint))]
        recv = []
        for r in range(rounds):
            cands = set()
            for m, h in pairs_:
                k = r ^ m
                cands.add(("src", sent[k] ^ h) if k in local else ("recv", k))
            recv.append(tuple(sorted(cands)))
        return tuple(send), tuple(recv)

    @cached_property
    def used_rounds(self) -> tuple[int, ...]:
        """The shuffled rounds whose word some thread keeps (strategy ``mux``; every shuffled round without extra rounds)."""
        if not self.has_local_rounds:  # word r takes round r ⊕ Mλ
            # {r ⊕ m : r < kept, m ∈ span(M)} is the subspace spanned by the kept rounds' bits and M: every round, as
            # each extra round bit is the swap matrix's image of the direction it fixes (a column of M).
            return tuple(range(1 << self.round_bits))
        _, recv = self.selections
        return tuple(sorted({k for c in recv[:self.kept] for kind, k in c if kind == "recv"}))

    @cached_property
    def mux_counts(self) -> dict[str, int]:
        """Instructions when every selection is a chain of selects over its candidates (strategy ``mux``)."""
        return self._finish(*self.mux_terms)

    @cached_property
    def mux_terms(self) -> tuple[int, int, int, int]:
        """:attr:`mux_counts` as :meth:`_finish`'s terms ``(shfl.sync, selp, packed words, unpacked words)``.

        Counted from ranks, not from the listed :attr:`selections` (the tests compare).  Without local rounds the
        shuffled rounds are the span ``U`` of the kept rounds' bits and ``M``, round ``k`` offers ``A k ⊕ S`` (``S =
        span(H, Hω)``), word ``r`` chooses among rounds ``r ⊕ span(M)``, and the words offered are ``A(U) + S``."""
        if self.has_local_rounds:
            return self._local_mux_terms()
        S = self.sender_span  # its size, and an echelon basis
        # U is every round, extra ones included (each extra round bit is the swap of a direction, so in span(M)):
        shuffled, ncos = 1 << self.round_bits, 1 << S.copy().extend(self.A)  # |U| and |A(U) + S| / |S|
        sel = ((1 << len(S)) - 1) * shuffled + ((1 << len(self.swap_basis)) - 1) * self.kept  # |span(M)| - 1 each
        return shuffled * self.words_per_element, sel, ncos << len(S), self.kept

    def _local_mux_terms(self) -> tuple[int, int, int, int]:
        """``mux_terms`` with local rounds, from ranks.

        Local rounds are the subspace ``L = ker As`` (no extra rounds then: every round is kept), the shuffled
        rounds the others, each offering a coset of ``S``.  Word ``r`` chooses among rounds ``r ⊕ span(M)``: those
        outside ``L`` are received, those inside give source words, and over ``r`` in ``L + span(M)`` (else none)
        these are a coset of ``φ(T_L)``, ``φ(λ, ω) = A M λ ⊕ H λ ⊕ Hω ω`` on the threads whose ``M λ`` lies in
        ``L``.  When ``span(M) ⊆ L`` the words of ``L`` are all source words (element-wise selects) and the packed
        words are those the shuffled rounds offer: the cosets of ``S`` that ``A`` meets, less those whose rounds (a
        coset of ``K = {k : A k ∈ S}``) all lie in ``L`` (``|L|/|K|`` when ``K ⊆ L``).  Otherwise every word
        unpacks and the packed words are ``A(all rounds) + S``.
        """
        rounds, n = 1 << self.round_bits, 1 << self.pack_bits
        local = f2.Span(f2.null_space(list(self.As)))
        S = self.sender_span
        span_m = self.swap_basis
        grow = local.copy().extend(span_m)  # rank(L + span M) - rank(L)
        threads_local = f2.null_space([f2.apply(self.As, m) for m in self.M])  # lanes with M λ in L
        phi = [f2.apply(self.A, f2.apply(self.M, v)) ^ f2.apply(self.H, v) for v in threads_local] + list(self.Ho)
        sources = 1 << f2.rank(phi)  # source words each such word chooses among
        shuffled = rounds - (1 << len(local))
        sel = shuffled * ((1 << len(S)) - 1)
        if grow:
            near = 1 << (len(local) + grow)  # words r in L + span(M)
            received_near = (1 << len(span_m)) - ((1 << len(span_m)) >> grow)  # |span M| - |span M ∩ L|
            sel += near * (received_near + sources - 1) + (rounds - near) * ((1 << len(span_m)) - 1)
            return shuffled * self.words_per_element, sel, 1 << (len(S) + S.copy().extend(self.A)), rounds
        sel += (1 << len(local)) * (sources - 1) * n + shuffled * ((1 << len(span_m)) - 1)
        lead = sorted(S.lead.items(), reverse=True)
        A = []  # A modulo S: each word's coset by its canonical word (no leading bit of S's echelon basis; linear)
        for v in self.A:
            for h, b in lead:
                if v >> h & 1:
                    v ^= b
            A.append(v)
        K = f2.null_space(A)
        met = (1 << f2.rank(A)) - (0 if local.copy().extend(K) else 1 << (len(local) - len(K)))
        return shuffled * self.words_per_element, sel, met << len(S), shuffled

    def _finish(self, shfl: int, sel: int, packed: int, unpack: int) -> dict[str, int]:
        """The counts of ``shfl`` shuffles, ``sel`` selects, ``packed`` words packed and ``unpack`` words unpacked."""
        n = 1 << self.pack_bits
        c = {"shfl.sync": shfl, "selp": sel, "prmt": packed * (n - 1), "mov": 0}
        if n == 2 and self.element_bits == 16:
            c["mov"] += unpack  # mov.b32 {lo, hi}
        else:
            c["prmt"] += unpack * (n - 1)
        return {k: v for k, v in c.items() if v}

    @cached_property
    def layers(self) -> tuple[tuple[tuple[int, int, int], ...], tuple[tuple[int, int], ...]]:
        """Conditional-swap layers (strategy ``layers``).

        ``(send, receive)``: ``send`` lists ``(h, lane_mask, omega_mask)``: the source words are
        XOR-permuted by ``h`` where ``parity(lane & lane_mask) ^ parity(ω & omega_mask)``, so that
        word ``A k`` is the one to send in round ``k``; ``receive`` lists ``(b, lane_mask)``: the
        received words are XOR-permuted by ``b`` where ``parity(lane & lane_mask)``, so that word
        ``r`` ends up holding round ``r ⊕ Mλ``.
        """

        def split(cols_l, cols_o, nbits):
            B = f2.basis(list(cols_l) + list(cols_o))
            if not B:
                return []
            inv = f2.inverse(B + f2.complement(B, nbits))
            out = []
            for i, b in enumerate(B):
                lm = sum(1 << j for j, v in enumerate(cols_l) if f2.apply(inv, v) >> i & 1)
                om = sum(1 << j for j, v in enumerate(cols_o) if f2.apply(inv, v) >> i & 1)
                out.append((b, lm, om))
            return out

        send = split(self.H, self.Ho, self.src_reg_bits - self.pack_bits)
        recv = [(b, lm) for b, lm, _ in split(self.M, (), self.round_bits)]
        return tuple(send), tuple(recv)

    @cached_property
    def layer_needs(self) -> tuple[tuple[int, ...], ...]:
        """Strategy ``layers``: the received words each receive layer's input must hold, first layer's input first.

        Layer ``i`` computes word ``k`` from words ``k`` and ``k ⊕ b`` of its
        input; the last layer's output needs the kept words only.  Without
        extra rounds every set is every round.
        """
        need = set(range(self.kept))
        out = [tuple(sorted(need))]
        for b in reversed(self.swap_basis):  # the receive layers' b, as ``layers`` has them
            need |= {k ^ b for k in need}
            out.append(tuple(sorted(need)))
        return tuple(reversed(out))

    @cached_property
    def layer_counts(self) -> dict[str, int]:
        """Instructions with conditional-swap layers on both sides (strategy ``layers``)."""
        return self._finish(*self.layer_terms)

    @cached_property
    def layer_terms(self) -> tuple[int, int, int, int]:
        """:attr:`layer_counts` as :meth:`_finish`'s terms.

        Counted from ranks (every program the planner scores needs this, the sets only the emitter): each set of
        :attr:`layer_needs` is a subspace, the kept rounds' span plus the receive layers' ``b`` added so far;
        the local rounds are the kernel of ``As`` (:attr:`self_rounds`), so the shuffled rounds of the first
        set number its size less its intersection with that kernel.
        """
        nwords = 1 << (self.src_reg_bits - self.pack_bits)
        need = f2.Span(1 << i for i in range(len(self.rounds_basis)))  # grown by each layer's b, eliminated once
        sizes = [1 << len(need)]  # the last layer's input first
        for b in reversed(self.swap_basis):
            need.add(b)
            sizes.append(1 << len(need))
        sel = self.sender_rank * nwords + sum(sizes[:-1])  # one send layer per basis vector
        shuffled = sizes[-1]
        if self.has_local_rounds:  # |need ∩ ker As| = |need| / |As(need)|, read on any basis of need
            shuffled -= 1 << (len(need) - f2.rank([f2.apply(self.As, v) for v in need.lead.values()]))
        return shuffled * self.words_per_element, sel, nwords, self.kept

    @cached_property
    def priced(self) -> tuple[str, int]:
        """``(strategy, cost)``: the cheaper way to make the thread-dependent selections, ``mux`` or ``layers`` (mux on
        ties), and its price under the cost model, both strategies priced here once (the search compares the cost)."""
        layers, mux = self._price(*self.layer_terms), self._price(*self.mux_terms)
        return ("layers", layers) if layers < mux else ("mux", mux)

    def _price(self, shfl: int, sel: int, packed: int, unpack: int) -> int:
        """``cost_of(self._finish(...))`` by arithmetic, without the counts' dict: the search prices both strategies of
        every program it builds and keeps one program's counts."""
        w, n = COST_WEIGHTS, 1 << self.pack_bits
        c = w["shfl.sync"] * shfl + w["selp"] * sel + w["prmt"] * packed * (n - 1) + (w["shuffle_path"] if shfl else 0)
        if n == 2 and self.element_bits == 16:
            return c + w["mov"] * unpack  # mov.b32 {lo, hi}
        return c + w["prmt"] * unpack * (n - 1)

    @property
    def strategy(self) -> str:
        """``mux`` or ``layers``: the cheaper way to make the thread-dependent selections (mux on ties)."""
        return self.priced[0]

    @property
    def cost(self) -> int:
        """``cost_of(counts)``."""
        return self.priced[1]

    @cached_property
    def counts(self) -> dict[str, int]:
        """Exact PTX instructions per thread of the chosen strategy (see the module doc)."""
        return self.layer_counts if self.strategy == "layers" else self.mux_counts


def shuffle_lower_bound(cm: ConversionMap, element_bits: int) -> int:
    """A lower bound on ``shfl.sync`` per thread, from the data alone (a program's ``lower_bound``).

    One shuffle brings one 32-bit word from one lane.  For every thread take
    the elements it needs that its own lane does not hold: at least
    ``ceil(count / per_word)`` shuffles; and when each of them is held by
    one lane only, at least ``ceil(n_l / per_word)`` from each source lane
    ``l``.  The bound is the largest over threads (64-bit elements: two
    shuffles each).

    Counted from ranks, not by listing every thread's elements.  Let ``Dr``
    and ``Sr`` be the spans of the destination's and the source's register
    columns.  Thread ``λ`` of warp ``ω`` needs the coset ``dst(λ, ω) ⊕ Dr``
    (``|Dr|`` elements) and its own lane holds ``src(λ, ω) ⊕ Sr``: the two
    meet in a coset of ``Dr ∩ Sr`` when ``dst(λ, ω) ⊕ src(λ, ω) ∈ Dr + Sr``
    (the thread is *own*), else not at all.  Those differences are linear in
    ``(λ, ω)``, so some thread is not own unless every lane and warp column's
    difference lies in ``Dr + Sr`` (thread 0 always is).  An element is held
    by one lane of its warp exactly when the source's lane columns are
    independent modulo ``Sr``; then the lanes holding a thread's elements
    split them into ``|Dr| / |Dr ∩ Sr|`` cosets of ``Dr ∩ Sr``, one per lane.
    The worst thread is one that is not own when there is one.
    """
    sh, dh = cm.src_bits, cm.dst_bits
    per_word = max(1, 32 // element_bits)
    wpe = max(1, element_bits // 32)
    s_reg, d_reg = list(cm.src_cols[:sh.reg]), list(cm.dst_cols[:dh.reg])
    s_lane, d_lane = cm.src_cols[sh.reg:sh.reg + sh.lane], cm.dst_cols[dh.reg:dh.reg + dh.lane]
    s_rest, d_rest = cm.src_cols[sh.reg + sh.lane:], cm.dst_cols[dh.reg + dh.lane:]
    kernel_reg, kernel_lane = len(cm.source_kernel(sh.reg)), len(cm.source_kernel(sh.reg + sh.lane))  # source ranks
    rank_d, rank_s = f2.rank(d_reg), sh.reg - kernel_reg
    differences = [a ^ b for a, b in zip(s_lane, d_lane)] + [a ^ b for a, b in zip(s_rest, d_rest)]
    both = d_reg + s_reg  # Dr + Sr: its dimension, and whether every difference lies in it
    if f2.single_bits(both):  # single element bits: the span is a bit mask
        mask = reach = 0
        for v in both:
            mask |= v
        for v in differences:
            reach |= v
        dimension, own = mask.bit_count(), not reach & ~mask
    else:
        span_both = f2.Span(both)  # eliminated once (no reduced basis needed: its size and members)
        dimension, own = len(span_both), all(v in span_both for v in differences)
    needed = 1 << rank_d
    shared = 1 << (rank_d + rank_s - dimension)  # |Dr ∩ Sr|
    remote = needed - shared if own else needed  # own: every thread meets its own lane's elements
    bound = -(-remote // per_word)
    single = kernel_lane == kernel_reg  # rank(s_reg + s_lane) == rank_s + len(s_lane)
    if single and remote:
        bound = max(bound, (needed // shared - own) * -(-shared // per_word))
    return bound * wpe


class _Candidate:
    """One swap matrix of :func:`program_candidates`, its program built only when asked (:meth:`program`, once).

    ``shuffles``: the program's ``shfl.sync`` per thread when ``M`` alone tells it (no local rounds: both strategies
    shuffle every round of ``span(kept rounds, M)``, :attr:`ShuffleProgram.used_rounds`), else None."""

    __slots__ = ("shuffles", "_build", "_program")

    def __init__(self, shuffles: int | None, build: Callable[[], ShuffleProgram]):
        self.shuffles = shuffles
        self._build = build
        self._program: ShuffleProgram | None = None

    def program(self) -> ShuffleProgram:
        if self._program is None:
            self._program = self._build()
        return self._program

    @property
    def counts(self) -> dict[str, int]:
        """The program's counts, or only its ``shfl.sync`` when that is known without building it."""
        return {"shfl.sync": self.shuffles} if self.shuffles is not None else self.program().counts


class PackWidths:
    """What :func:`program_candidates` works out the same at every pack width, once per :func:`shuffle_program` call:
    the map's columns by part (:func:`_split`), the copies ``K`` (destination register vectors whose source is
    slot 0), a complement ``C`` of them and, when first asked, the pack candidates (vectors of span(C) that stay in
    the thread's registers), the free variables inside the warp (``kernel``) and a floor on each width's shuffles."""

    def __init__(self, cm: ConversionMap) -> None:
        self.cm = cm
        self.parts = (qr, sr), _, _ = _split(cm)
        sh, dh = cm.src_bits, cm.dst_bits
        both = [q | (s << sh.reg) for q, s in zip(qr, sr)]
        self.copies = f2.null_space(both)  # destination register vectors (one bit per column of ``both``)
        self.complement = f2.complement(self.copies, dh.reg)

    @cached_property
    def pack_all(self) -> list[int]:
        """The pack candidates: vectors of span(C) whose source stays in the thread's registers (``Sr = 0``); asked
        only at pack widths above 0."""
        C, sr = self.complement, self.parts[0][1]
        csr = [sr[c.bit_length() - 1] for c in C]  # f2.apply(sr, c): a complement in F2^n is made of unit vectors
        return [f2.apply(C, v) for v in f2.null_space(csr)]

    def fewest_shuffles(self, p: int, element_bits: int) -> int | None:
        """A floor on the ``shfl.sync`` per thread of every program at pack width ``p`` (None: the width has none).

        A program at width ``p`` has ``mw = |C| - p`` round bits in the destination's registers, and maybe extra
        ones.  Without local rounds it shuffles all of its ``2^(mw + extra)`` rounds.  Local rounds need no warp term
        (``Sω = 0``) and ``J`` to be the identity (:attr:`may_read_own_lane`); they are then ``ker As``, ``As`` the
        source lanes of the rounds, whose rank is ``rank(Sr)`` at every width (the packs and copies have ``Sr = 0``),
        so such a program shuffles ``2^mw - 2^(mw - rank Sr)`` rounds.  Each round moves a word per 32 bits of an
        element.
        """
        if p and p > len(self.pack_all):
            return None
        mw, wpe = len(self.complement) - p, max(1, element_bits // 32)
        if any(self.parts[2][1]) or not self.may_read_own_lane:  # no local rounds
            return wpe << mw
        return wpe * ((1 << mw) - (1 << (mw - f2.rank(self.parts[0][1]))))

    @cached_property
    def may_read_own_lane(self) -> bool:
        """Whether some swap matrix may give ``J = I`` (every thread reading its own lane, which local rounds need).

        ``J = As M ⊕ Sl ⊕ Ds``: ``As`` maps into ``image(Sr)`` and the additions ``Ds`` of free variables into the
        span of their lane parts, so ``J = I`` needs every lane bit ``e_i ⊕ Sl e_i`` in the sum of the two."""
        (_, sr), (_, sl), _ = self.parts
        reach = f2.Span(list(sr) + [z[1] for z in self.kernel])
        return all((1 << i) ^ v in reach for i, v in enumerate(sl))

    @cached_property
    def kernel(self) -> list[tuple[int, int]]:
        """Free variables inside the warp: ``src(x) = src(x ^ z)``, ``z = (register part, lane part)``, lane part
        non-zero."""
        sh = self.cm.src_bits
        nullw = self.cm.source_kernel(sh.reg + sh.lane)
        return [(z & _mask(sh.reg), z >> sh.reg) for z in nullw if z >> sh.reg]


def program_candidates(cm: ConversionMap, element_bits: int, p: int, lower: int, limit: int | None = None,
                       tighten: bool = False, widths: PackWidths | None = None) -> list[_Candidate]:
    """The shuffle programs at pack width ``p`` (one per swap matrix that makes a program), not yet built.

    ``limit``: leave out the candidates whose shuffles are known (without local rounds) to exceed it, which
    :func:`shuffle_program` would drop unbuilt anyway (it passes the packed-shuffle bound once it has it); the
    shuffles are read before the rest of the candidate is worked out.  ``tighten``: the limit is also the fewest
    known shuffles among the candidates kept so far (at the widest pack width, whose fewest shuffles are the
    bound: a candidate above one already kept can neither lower the bound nor pass it).  ``widths``: ``cm``'s
    :class:`PackWidths`, when the caller tries several pack widths."""
    if widths is None:
        widths = PackWidths(cm)
    (qr, sr), (ql, sl), (qo, so) = widths.parts
    sh, dh = cm.src_bits, cm.dst_bits
    nl = dh.lane
    K, C = widths.copies, widths.complement
    if p and len(widths.pack_all) < p:
        return []
    pack = widths.pack_all[:p] if p else []
    rounds = f2.complement(pack, C) if pack else list(C)
    qpack = [f2.apply(qr, v) for v in pack]
    word_basis = qpack + f2.complement(qpack, sh.reg)
    winv, pmask = f2.inverse(word_basis) if pack else None, _mask(p)

    def wc(v: int) -> tuple[int, int]:  # (pack coordinates, word coordinates) of a source register vector
        if not pack:  # nothing packed: a word is one register, whose coordinates are the register vector itself
            return 0, v
        c = f2.apply(winv, v)
        return c & pmask, c >> p

    adj, Aq, As = [], [], []
    for c in rounds:  # unit vectors (C is made of them): Qr c and Sr c are columns of the map
        k = c.bit_length() - 1
        pj, word = wc(qr[k])  # make Qr(c) free of pack components: Qr(c ^ pack pj) has Qr(c)'s word coordinates, no pack
        adj.append(c ^ f2.apply(pack, pj))
        Aq.append(word)
        As.append(sr[k])  # the packs have Sr = 0: the adjusted round reads the same lane
    rounds = adj
    qo_coords = [wc(v) for v in qo]
    if any(pc for pc, _ in qo_coords):
        return []
    # Whether a word's packed elements change places from lane to lane under the destination's own lane columns.
    # A swap matrix changes those columns only through free variables (its additions Dq), so without free
    # variables every candidate would be dropped for it below: none is enumerated.
    ql_coords = [wc(v) for v in ql]
    lanes_move_packs = any(pc for pc, _ in ql_coords)
    mw = len(rounds)
    Lq0 = [w for _, w in ql_coords]
    Oq = [w for _, w in qo_coords]
    kernel = widths.kernel
    if lanes_move_packs and not kernel:
        return []
    out = []
    wpe = max(1, element_bits // 32)
    local = not any(so)  # the warps' columns keep their words: local rounds are possible

    frame = _Frame(element_bits, nl, sh.reg, dh.reg, tuple(pack), tuple(rounds), tuple(K), tuple(word_basis),
                   tuple(so), tuple(Oq), lower)  # shared by every candidate of this width

    def fits(extra_rounds: int) -> bool:  # a matrix with extra rounds has no local rounds (see swap_candidates)
        return limit is None or wpe << (mw + extra_rounds) <= limit

    for M, Dq, Ds, X in swap_candidates(As, sl, Lq0, nl, mw, kernel, Aq, fits):
        shuffles = wpe << (mw + len(X))  # unless it has local rounds: M's extra round bits are independent
        if limit is not None and not local and shuffles > limit:
            continue  # no local rounds: its shuffles are these, above the limit
        qlx = [ql[j] ^ Dq[j] for j in range(nl)] if any(Dq) else ql
        if lanes_move_packs if qlx is ql else any(wc(v)[0] for v in qlx):
            continue  # the packed elements of a word would change places from lane to lane
        slx = [sl[j] ^ Ds[j] for j in range(nl)]
        Asx = As + [0] * len(X)  # extra rounds: the same lane, another word
        J = [m ^ s for m, s in zip(products(Asx, M), slx)]
        if local and all(J[i] == 1 << i for i in range(nl)):
            shuffles = None  # local rounds: counted on the built program
        elif limit is not None and shuffles > limit:
            continue
        Lq = Lq0 if qlx is ql else [wc(v)[1] for v in qlx]
        Aqx = Aq + list(X)
        Kc = [m ^ q for m, q in zip(products(Aqx, M), Lq)]
        echJ, _, kerJ = f2.echelon(J)  # one elimination of J: its kernel here, H from it when built
        if any(f2.apply(Kc, z) for z in kerJ):
            continue  # two receivers of one sender would want different words
        if tighten and shuffles is not None and (limit is None or shuffles < limit):
            limit = shuffles
        out.append(_Candidate(shuffles, partial(_build_program, frame, M, Asx, Aqx, J, Kc, echJ, len(X))))
    return out


@record
class _Frame:
    """What every program of one pack width shares (:func:`program_candidates`)."""

    element_bits: int
    lanes: int
    src_reg_bits: int
    dst_reg_bits: int
    pack: tuple[int, ...]
    rounds: tuple[int, ...]
    copies: tuple[int, ...]
    word_basis: tuple[int, ...]
    Os: tuple[int, ...]
    Oq: tuple[int, ...]
    lower: int


def _build_program(f: _Frame, M: list[int], Asx: list[int], Aqx: list[int], J: list[int], Kc: list[int],
                   echJ: f2.Echelon, extra: int) -> ShuffleProgram:
    """The program of one swap matrix: ``H`` is defined on image(J) by H(J b) = K b and is zero on a complement of
    the image, the lowest unit vectors that complete it (:func:`~linlayout.core.f2.complement`'s); the send words
    follow (see the module doc).  ``echJ``: the elimination of ``J`` (:func:`~linlayout.core.f2.echelon`), which
    splits each lane bit along the two (:func:`image_part`); which columns of ``J`` give its image part does not
    matter, as ``K`` vanishes on ker J (:func:`program_candidates` checks)."""
    nl = f.lanes
    H = [f2.apply(Kc, image_part(echJ, 1 << t)) for t in range(nl)]  # H = Kc J⁻¹ when J is invertible
    A = [q ^ h for q, h in zip(Aqx, products(H, Asx))]
    Ho = [h ^ q for h, q in zip(products(H, f.Os), f.Oq)]
    return ShuffleProgram(f.element_bits, nl, f.src_reg_bits, f.dst_reg_bits, f.pack, f.rounds, f.copies, f.word_basis,
                          tuple(M), tuple(Asx), tuple(J), f.Os, tuple(A), tuple(H), tuple(Ho), f.lower, extra)


def products(cols: Sequence[int], vectors: Sequence[int]) -> list[int]:
    """``cols`` applied to each of ``vectors``, a zero vector giving zero without a product: most columns of a swap
    matrix ``M``, of the rounds' source lanes ``As`` and of the warps' ``Sω`` are zero (a lane the swap leaves, a
    round read from the thread's own lane, a warp that keeps its lanes)."""
    return [f2.apply(cols, v) if v else 0 for v in vectors]


def _cost_key(prog: ShuffleProgram) -> tuple[int, ...]:
    return (prog.cost, prog.counts.get("shfl.sync", 0))


def shuffle_program(cm: ConversionMap, element_bits: int, ceiling: int | None = None) -> ShuffleProgram | None:
    """The cheapest shuffle program of a level-0/1 conversion map, or None if none exists.

    Pack widths from ``32/element_bits`` elements per word down to one are
    tried; each swap matrix is scored with the exact counts and the cheapest
    program under the cost model (:func:`linlayout.convert.cost.cost_of`)
    among those within :func:`packed_shuffle_bound` wins.

    ``ceiling``: only a program cheaper than this matters to the caller (a
    multi-step search's step).  Programs whose shuffles alone cost that much
    are not scored; the answer is the same program whenever the cheapest
    costs less than ``ceiling``, and otherwise some program costing at least
    ``ceiling`` (None still means that no program exists).
    """
    if cm.level > 1:
        return None
    lower = shuffle_lower_bound(cm, element_bits)
    best = first = None
    pmax = max(0, (32 // element_bits).bit_length() - 1) if element_bits < 32 else 0
    by_width: dict[int, list[_Candidate]] = {}
    widths = PackWidths(cm)
    for p in range(pmax, -1, -1):  # the widest pack width that has programs (they bound the shuffles)
        by_width[p] = program_candidates(cm, element_bits, p, lower, tighten=ceiling is None, widths=widths)
        if by_width[p]:
            break
    bound = packed_shuffle_bound(by_width[min(by_width)])
    for p in range(pmax, -1, -1):
        if p not in by_width:
            fewest = widths.fewest_shuffles(p, element_bits)
            if ceiling is None and bound is not None and (fewest is None or fewest > bound):
                continue  # every program of this width takes more shuffles than the bound: none can be picked
            by_width[p] = program_candidates(cm, element_bits, p, lower, bound if ceiling is None else None,
                                             widths=widths)
        for cand in by_width[p]:
            if ceiling is None and bound is not None and cand.shuffles is not None and cand.shuffles > bound:
                continue  # more shuffles than the bound (below), known before the program is built
            limit = best.cost if best is not None else None
            if ceiling is not None and (limit is None or ceiling < limit):
                limit = ceiling
            if limit is not None and first is not None and cand.shuffles is not None \
                    and COST_WEIGHTS["shfl.sync"] * cand.shuffles >= limit:
                continue  # _shuffle_floor of its program (no local rounds: it shuffles cand.shuffles words), unbuilt
            prog = cand.program()
            if limit is not None and _shuffle_floor(prog) >= limit:
                first = first or prog  # costs at least the ceiling when nothing better is found: a valid answer then
                continue  # its shuffles alone cost as much as the best program (or the ceiling): it cannot win
            if bound is not None and prog.counts.get("shfl.sync", 0) > bound:
                continue  # more shuffles than packing as many elements per word as can be needs
            if best is None or _cost_key(prog) < _cost_key(best):
                best = prog
    return best or first


def packed_shuffle_bound(packed: Sequence[ShuffleProgram | _Candidate]) -> int | None:
    """The most ``shfl.sync`` a shuffle program may take: the fewest of ``packed``, the planner's programs at the
    widest pack width that has any (``None`` when there are none; :func:`shuffle_program` passes them unbuilt,
    each one's ``counts`` holding at least its ``shfl.sync``).

    Triton 3.9 packs narrow elements into 32-bit words before it shuffles
    (``getWarpLayoutConvertDecomposition``'s ``nPack`` pack bits; its PTX
    shows the packing ``mov``/``prmt``); the planner's widest-pack programs
    are its counterpart, and no program the planner picks takes more shuffles
    than the fewest of them (the planner's rule, as
    :func:`~linlayout.convert.smem.within_tritons_counts` is for round trips):
    a narrower pack saves packing ALU work, which the measured weights
    overrate, with more shuffles than Triton's.
    """
    return min((prog.counts.get("shfl.sync", 0) for prog in packed), default=None)


def _shuffle_floor(prog: ShuffleProgram) -> int:
    """A lower bound on a program's cost from its shuffles alone (0 when it has local rounds: not cheap to tell)."""
    if prog.has_local_rounds:
        return 0
    return COST_WEIGHTS["shfl.sync"] * prog.words_per_element << prog.round_bits  # every round (:attr:`used_rounds`)
