"""Triton's scratch layout (:mod:`linlayout.convert.triton_scratch`) and the facts the planner reads off a compiler's
layouts take the same answer by their shortcuts.

Each shortcut is compared with the exact computation it replaces, on random layouts of unit and of mixed
bases (over every element width, each with its own tile pairs, for Triton's rule), with repeated and zero columns.
"""

from __future__ import annotations

import random

import pytest

import linlayout.convert.smem as smem
import linlayout.convert.triton_scratch as ts
from linlayout.convert.solve import aligned, index_bits, register_rank, has_unit_columns
from linlayout.core import f2
from linlayout.core.layout import LinearLayout

from .samples import random_pair


def _exact_conflicts(tile_src, tile_dst, segment) -> int:
    """``2^dim(S ∩ T) - 1`` per tile, with ``dim(S ∩ T) = rank S + rank T - rank(S + T)``."""
    rank_s = f2.rank(segment)
    return sum((1 << (rank_s + f2.rank(t) - f2.rank(list(segment) + list(t)))) - 1 for t in (tile_src, tile_dst))


@pytest.mark.parametrize("seed", range(12))
def test_conflicts_of_unit_tiles_counted_as_sets_equal_the_ranks(seed, monkeypatch):
    """Where the layouts' bases are unit vectors, a pair's conflicts are counted as the segment vectors that are
    tile vectors, though the segment holds sums (``_conflicts``' ``unit_vectors``): the same as from ranks."""
    rng = random.Random(seed)
    seen = []
    real = ts._conflicts

    def checked(tile_src, tile_dst, segment, unit_vectors=False):
        got = real(tile_src, tile_dst, segment, unit_vectors)
        seen.append((got, _exact_conflicts(tile_src, tile_dst, segment), unit_vectors,
                     all(b & (b - 1) == 0 for b in segment)))
        return got

    monkeypatch.setattr(ts, "_conflicts", checked)
    for _ in range(6):
        src, dst = random_pair(rng, rng.choice([1, 2, 4, 8]), "any", mixed=rng.random() < 0.3, max_regs_bits=4)
        for eb in (8, 16, 32, 64):
            ts.triton_scratch(src, aligned(src, dst), eb)
    assert seen
    assert all(got == exact for got, exact, _, _ in seen)
    if seed == 0:  # the random pairs reach the shortcut with sums in the segment and with conflicts
        assert any(unit and not unit_segment for _, _, unit, unit_segment in seen)


def _unit_layout(rng: random.Random, bits: int = 6, warps: int = 1) -> LinearLayout:
    """A layout whose columns are unit vectors or zero, repeats allowed (a basis twice, broadcast bases)."""
    def column() -> int:
        return 0 if rng.random() < 0.2 else 1 << rng.randrange(bits)
    cols = [tuple(column() for _ in range(n)) for n in (rng.randint(0, 4), 5, warps)]
    return LinearLayout.from_flat((("register", len(cols[0])), ("lane", 5), ("warp", warps)), (("dim0", bits),),
                                  tuple(cols))


def _reference_rep_candidates(src: LinearLayout, dst: LinearLayout) -> list[int]:
    """The definition: bits held by one register basis (the unit on that bit) of each side and touched by no other."""
    out = []
    for b in range(src.out_bits):
        ok = True
        for layout, side in ((src, "src"), (dst, "dst")):
            ib, cols = index_bits(layout, side)
            touching = [i for i, c in enumerate(cols) if c >> b & 1]
            ok &= len(touching) == 1 and touching[0] < ib.reg and cols[touching[0]] == 1 << b
        if ok:
            out.append(b)
    return out


@pytest.mark.parametrize("seed", range(6))
def test_unit_column_shortcuts_equal_the_eliminations(seed):
    """On layouts of unit columns (``solve.has_unit_columns``), the register rank counts distinct non-zero columns and a
    preimage is the first equal column: each equals the elimination, on layouts with repeated and zero columns
    (the rep candidates, read by the same loop for every layout, are checked against their definition too)."""
    rng = random.Random(seed)
    for _ in range(30):
        src, dst = _unit_layout(rng), _unit_layout(rng)
        assert has_unit_columns(src) and has_unit_columns(dst)
        ib, cols = index_bits(src, "src")
        assert register_rank(src, "src") == f2.rank(cols[:ib.reg])
        assert smem.rep_candidates(src, dst) == _reference_rep_candidates(src, dst)
        flat = ts._flat(src)
        echelon = f2.echelon(cols)[0]
        for element in [0, *(1 << b for b in range(src.out_bits)), 3, 0b101]:
            residue, x = echelon.reduce(element)
            want = None if residue else (x & ((1 << ib.reg) - 1), (x >> ib.reg) & 31)
            assert flat.preimage(element) == want


def test_layouts_with_mixed_columns_take_the_general_computation():
    src = LinearLayout({"register": [[3], [1]], "lane": [[2], [4], [8], [16], [32]]}, {"dim0": 64})
    assert not has_unit_columns(src)
    assert register_rank(src, "src") == 2 and smem.rep_candidates(src, src) == []


def _exact_complement(basis, dim):
    """Triton's ``complementBasis`` by elimination: the unit vectors that are not a lowest-bit pivot of the basis."""
    return [1 << i for i in range(dim) if i not in ts._low_pivots(basis)]


@pytest.mark.parametrize("seed", range(4))
def test_complement_of_disjoint_vectors_reads_their_lowest_bits(seed):
    """``_complement`` takes each vector's lowest bit as its pivot where the vectors' supports are disjoint (Triton's
    vector and segment of unit layouts: units and sums ``a ^ b`` of bits no other vector has); on any basis, disjoint
    or not (repeats, zeros, overlapping sums), it equals the elimination."""
    rng = random.Random(seed)
    disjoint = 0
    for _ in range(300):
        dim = rng.randint(1, 12)
        bits = rng.sample(range(dim), rng.randint(0, dim))
        basis = []
        while bits:  # vectors of one to three of the remaining bits: disjoint supports
            n = rng.randint(1, 3)
            basis.append(sum(1 << b for b in bits[:n]))
            bits = bits[n:]
        if rng.random() < 0.4:  # make them overlap, repeat or vanish
            basis.append(rng.choice([0, *basis, rng.randrange(1 << dim)]) if basis else 0)
        rng.shuffle(basis)
        union = 0
        for v in basis:
            union |= v
        disjoint += sum(map(int.bit_count, basis)) == union.bit_count()
        assert ts._complement(basis, dim) == _exact_complement(basis, dim)
    assert 50 < disjoint < 300  # both kinds of basis were drawn


@pytest.mark.parametrize("seed", range(4))
def test_segment_of_unit_banks_equals_the_general_rule(seed):
    """``_segment`` with ``unit`` (every bank vector a unit vector or zero) reads the unused units off a mask; it
    equals the rule's set membership, and its vectors are distinct and non-zero (``_conflicts`` counts them as a
    set)."""
    rng = random.Random(seed)
    for _ in range(300):
        dim = rng.randint(1, 12)
        bank_src = [rng.choice([0, 1 << rng.randrange(dim)]) for _ in range(rng.randint(0, dim))]
        bank_dst = [rng.choice([0, 1 << rng.randrange(dim)]) for _ in range(rng.randint(0, dim))]
        length = rng.randint(0, dim)
        got = ts._segment(bank_src, bank_dst, dim, length, unit=True)
        assert got == ts._segment(bank_src, bank_dst, dim, length)
        assert 0 not in got and len(set(got)) == len(got)


@pytest.mark.parametrize("seed", range(4))
def test_conflicts_of_unit_tiles_on_their_segment_equal_the_ranks(seed):
    """``_conflicts`` with ``unit_vectors`` counts the segment vectors that are tile vectors as a set: on unit tiles
    (repeats and zeros included) and the segment :func:`_segment` builds of them (less some reps), with and without
    conflicts, it equals ``2^dim(S ∩ T) - 1`` per tile from ranks."""
    rng = random.Random(seed)
    conflicted = 0
    for _ in range(300):
        dim = rng.randint(2, 12)
        vb = [1 << b for b in rng.sample(range(dim), rng.randint(0, 2))]
        tiles = [[rng.choice([0, 1 << rng.randrange(dim)]) for _ in range(rng.randint(1, 6))] for _ in range(2)]
        segment = ts._segment(vb + tiles[0], vb + tiles[1], dim, rng.randint(0, dim), unit=True)
        segment = [s for s in segment if rng.random() < 0.8]  # some become reps
        got = ts._conflicts(tiles[0], tiles[1], segment, True)
        assert got == _exact_conflicts(tiles[0], tiles[1], segment)
        conflicted += got > 0
    assert conflicted > 20


@pytest.mark.parametrize("seed", range(4))
def test_bank_of_the_kept_pair_is_the_complement_of_its_other_bases_in_any_order(seed):
    """Triton's rule works out only the kept pair's bank, as the complement of its vector, segment and reps
    (``triton_scratch._segment_and_reps``) where the rule took the complement of the vector and the whole segment:
    the complement depends on the span alone, so the order of the bases does not change it."""
    rng = random.Random(seed)
    for _ in range(200):
        dim = rng.randint(3, 12)
        basis = []
        while len(basis) < rng.randint(1, dim):
            v = 1 << rng.randrange(dim) if rng.random() < 0.7 else rng.randrange(1, 1 << dim)
            if f2.rank(basis + [v]) > len(basis):
                basis.append(v)
        shuffled = rng.sample(basis, len(basis))
        assert ts._complement(shuffled, dim) == ts._complement(basis, dim)
        assert f2.rank(basis + ts._complement(basis, dim)) == dim


@pytest.mark.parametrize("seed", range(4))
def test_triton_scratch_parts_equal_the_whole_swizzle_of_the_kept_pair(seed, monkeypatch):
    """The scratch layout's bases, with the bank made for the kept pair only, are ``_swizzle``'s (vector, bank,
    segment, reps) for one of the pairs scored, or the ld/st fallback's."""
    rng = random.Random(seed)
    real = ts._segment_and_reps
    scored = 0
    for _ in range(6):
        src, dst = random_pair(rng, rng.choice([1, 2, 4, 8]), "any", mixed=rng.random() < 0.3, max_regs_bits=4)
        dst = aligned(src, dst)
        for eb in (8, 16, 32):
            calls = []

            def spy(*args):
                calls.append(args)
                return real(*args)

            monkeypatch.setattr(ts, "_segment_and_reps", spy)
            got = list(ts.triton_scratch(src, dst, eb).memory.flat_columns())
            monkeypatch.setattr(ts, "_segment_and_reps", real)
            wholes = [sum(ts._swizzle(*args), []) for args in calls]
            scored += len(calls)
            dim = sum(b for _, b in src.out_dim_bits)
            assert got in wholes or got == sum(ts._ldst_fallback(ts._flat(src), ts._flat(dst), eb, dim), [])
    assert scored


@pytest.mark.parametrize("seed", range(3))
def test_slice_memory_columns_dropped_by_shift_equal_the_dropper(seed):
    """A slice memory's unit columns move down by the dropped bits below them (``smem._dropped_columns``), as the
    bit dropper moves them; a sum goes through the dropper.  A version shifting by the bits above fails."""
    rng = random.Random(seed)
    wrong_seen = False
    for _ in range(300):
        dim = rng.randint(2, 14)
        bits = tuple(sorted(rng.sample(range(dim), rng.randint(1, min(3, dim - 1)))))
        mask = sum(1 << b for b in bits)
        free = [p for p in range(dim) if p not in bits]
        cols = [0 if rng.random() < 0.1 else 1 << rng.choice(free) if rng.random() < 0.7
                else sum(1 << p for p in rng.sample(free, min(len(free), 2))) for _ in range(rng.randint(1, 8))]
        drop = smem._bit_dropper(bits)
        assert list(smem._dropped_columns(cols, bits, mask)) == [drop(c) for c in cols]
        wrong = [c >> (mask & ~(c - 1) & ~c).bit_count() if c & (c - 1) == 0 else drop(c) for c in cols]
        wrong_seen |= wrong != [drop(c) for c in cols]
    assert wrong_seen


def test_matrix_sizes_depend_on_the_non_zero_registers_only():
    """The matrix sizes a side may try are worked out once per (family, non-zero registers, width): the same as
    counting, per size, the non-zero registers outside the tile's word (as before the memo)."""
    from linlayout.count.matrix_tile import matrix_tile
    from linlayout.hw import get_hardware, parse_instruction

    rng = random.Random(3)
    hw = get_hardware("sm90")
    for _ in range(300):
        family = rng.choice(["stmatrix", "ldmatrix", "stmatrix.trans", "ldmatrix.trans"])
        eb = rng.choice([8, 16, 32])
        regs = [rng.choice([0, 1 << rng.randrange(10)]) for _ in range(rng.randint(0, 6))]
        base, _, trans = family.partition(".")
        want = []
        for size in ts.MATRIX_SIZES:
            name = f"{base}.{size}{'.' + trans if trans else ''}"
            try:
                ins = parse_instruction(name)
                rest = sum(1 for i, c in enumerate(regs) if c and i not in matrix_tile(ins, eb, hw).vector_registers)
            except Exception:
                continue
            if rest >= ins.matrices.bit_length() - 1:
                want.append(name)
        assert list(ts._matrix_sizes(family, regs, eb)) == want
