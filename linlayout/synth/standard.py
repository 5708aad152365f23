"""Standard swizzles, in a documented order of preference, scored like the synthesized memory.

A synthesized memory layout is often not expressible downstream (no CuTe
``Swizzle<B,M,S>``, no Triton ``NVMMASharedLayout``) although a standard
swizzle costs exactly the same.  :func:`standard_swizzles` lists the standard
memory layouts of a tile, and :func:`score_standards` counts both sides on
every one of them with the synthesis' own instruction choice and vector width
(the batched counter: the access plan of :mod:`linlayout.count.plan`).

**Order of preference** (the first standard swizzle whose cost equals the
optimum's, wavefronts and instructions of both sides, is reported as
``standard``):

1. TMA / NVMMA swizzle modes, ``tma128B``, ``tma64B``, ``tma32B``, then no
   swizzle (``row_major``); each with ``dim1`` contiguous, then with ``dim0``
   contiguous (``tma128B_mn``, ..., ``col_major``).  These are PTX's TMA
   swizzle modes (16-byte atomicity), Triton's ``NVMMASharedLayout`` and
   CUTLASS's ``SW128``/``SW64``/``SW32`` atoms.
2. Triton's ``SwizzledSharedLayout(vec, perPhase, maxPhase, order)``
   (paper Def. 4.11): order ``[1, 0]`` then ``[0, 1]``; the widest ``vec``
   first, then the fewest phases, then the smallest ``perPhase``.
3. CuTe ``Swizzle<B,M,S>`` in element units over the row-major, then the
   column-major tile: the fewest bits ``B`` first, then ``M``, then ``S``.

Names: ``tma128B``, ``triton_swizzled(vec=8,perPhase=1,maxPhase=8,order=[1,0])``,
``cute_Swizzle<3,3,3>_row_major``.  Only 1-D and 2-D tiles have standard
swizzles besides ``row_major``/``col_major``.

>>> [s.name for s in standard_swizzles((("dim0", 3), ("dim1", 6)), 16)][:4]   # 8 x 64 fp16 (128-byte rows)
['tma128B', 'tma64B', 'tma32B', 'row_major']
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core import f2
from ..core.record import record
from ..errors import LinLayoutError
from ..hw import Instruction, SharedMemory

__all__ = ["StandardScore", "StandardSwizzle", "score_standards", "standard_swizzles"]


@record
class StandardSwizzle:
    """A standard memory layout: its name, what it is, and its columns (flat tensor vectors, offset bit 0 first)."""

    name: str
    description: str
    columns: tuple[int, ...]


@record
class StandardScore:
    """A standard swizzle's exact cost with the synthesis' instructions and vector width."""

    swizzle: StandardSwizzle
    write_wavefronts: int
    read_wavefronts: int
    write_instructions: int
    read_instructions: int

    def to_dict(self) -> dict:
        return {"name": self.swizzle.name, "description": self.swizzle.description,
                "write_wavefronts": self.write_wavefronts, "read_wavefronts": self.read_wavefronts,
                "write_instructions": self.write_instructions, "read_instructions": self.read_instructions}


def _major(bits: Sequence[int], order: Sequence[int]) -> list[int]:
    """Columns of the unswizzled layout whose dimensions are contiguous in ``order`` (fastest first)."""
    starts = [sum(bits[:i]) for i in range(len(bits))]
    return [1 << (starts[dim] + k) for dim in order for k in range(bits[dim])]


def _xor_pairs(base: list[int], pairs: Sequence[tuple[int, int]]) -> tuple[int, ...] | None:
    """Physical offset bit ``src`` also moves logical bit ``dst`` (an involution when sources and targets differ)."""
    n = len(base)
    sw = [1 << i for i in range(n)]
    for src, dst in pairs:
        if dst < 0 or src >= n:
            continue
        sw[src] |= 1 << dst
    return tuple(f2.apply(base, v) for v in sw)


def _pow2s(limit: int) -> list[int]:
    return [1 << i for i in range(max(0, limit).bit_length()) if 1 << i <= limit]


def standard_swizzles(outs: Sequence[tuple[str, int]], element_bits: int) -> list[StandardSwizzle]:
    """The standard memory layouts of a tile (``outs``: (dimension, bits) pairs, ``dim0`` lowest), in preference order."""
    bits = [b for _, b in outs]
    rank = len(bits)
    out: list[StandardSwizzle] = []
    seen: set[tuple[int, ...]] = set()

    def add(name: str, description: str, cols: tuple[int, ...] | None) -> None:
        if cols is None or cols in seen or f2.rank(cols) != len(cols):
            return
        seen.add(cols)
        out.append(StandardSwizzle(name, description, cols))

    z = element_bits.bit_length() - 1 - 3  # element offset bit p is byte-address bit p + z
    orders = [("", list(range(rank - 1, -1, -1)), "dim1 contiguous"), ("_mn", list(range(rank)), "dim0 contiguous")]
    if rank == 2 and element_bits <= 128:
        for suffix, order, what in orders:
            inner = bits[order[0]]
            for mode, nb in ((128, 3), (64, 2), (32, 1)):
                box = (mode * 8 // element_bits).bit_length() - 1  # log2 elements per swizzled row
                if box > inner or box < 0 or 4 - z < 0:
                    continue
                base = _major(bits, order)
                # Boxes of `box` contiguous elements: rows of the box are the other dimension, then more boxes.
                cols = base[:box] + base[inner:] + base[box:inner]
                pairs = [(7 + i - z, 4 + i - z) for i in range(nb)]
                add(f"tma{mode}B{suffix}", f"TMA / NVMMA {mode}B swizzle ({what}); CuTe SW{mode}, "
                    f"NVMMASharedLayout(swizzle_byte_width={mode})", _xor_pairs(cols, pairs))
    for suffix, order, what in orders[: 2 if rank > 1 else 1]:
        add("row_major" if suffix == "" else "col_major", f"unswizzled, {what}", tuple(_major(bits, order)))
    if rank == 2:
        for name_order, order in (("[1,0]", [1, 0]), ("[0,1]", [0, 1])):
            rb, cb = bits[order[1]], bits[order[0]]  # rows, contiguous columns
            base = _major(bits, order)
            col_v, row_v = base[:cb], base[cb:]
            for vec in reversed(_pow2s(1 << cb)):
                for mp in _pow2s((1 << cb) // vec):
                    for pp in _pow2s(1 << rb):
                        cols = list(col_v)
                        for i in range(rb):
                            c = (vec * (((1 << i) // pp) % mp)) % (1 << cb)
                            cols.append(row_v[i] ^ f2.apply(col_v, c))
                        add(f"triton_swizzled(vec={vec},perPhase={pp},maxPhase={mp},order={name_order})",
                            f"Triton SwizzledSharedLayout(vec={vec}, per_phase={pp}, max_phase={mp}, order={order})",
                            tuple(cols))
    if rank in (1, 2):
        n = sum(bits)
        for suffix, order, what in orders[: 2 if rank > 1 else 1]:
            base = _major(bits, order)
            label = "row_major" if suffix == "" else "col_major"
            for b in range(1, n):
                for m in range(n):
                    for s in range(b, n - m):
                        if m + s + b > n + b - 1 or m + b > n:
                            continue
                        pairs = [(m + s + i, m + i) for i in range(b)]
                        add(f"cute_Swizzle<{b},{m},{s}>_{label}",
                            f"CuTe composition(Swizzle<{b},{m},{s}>{{}} (element units), {what} layout)",
                            _xor_pairs(base, pairs))
    return out


def score_standards(candidates: Sequence[StandardSwizzle], images: dict[str, dict[str, tuple[int, ...]]],
                    element_bits: int, ins: dict[str, Instruction], hw: SharedMemory,
                    vector_bits: int | None, chunk: int = 64) -> list[StandardScore]:
    """Exact costs of both sides on every candidate (those one side cannot access are left out), in order."""
    import numpy as np

    from ..count.batched import COUNTED, count_batch, memory_batch

    scores: list[StandardScore] = []
    for start in range(0, len(candidates), chunk):
        part = candidates[start:start + chunk]
        mb = memory_batch(np.array([c.columns for c in part], dtype=np.int64))
        res = {}
        for side in ("write", "read"):
            i = ins[side]
            try:
                b = count_batch(mb, images[side], element_bits, i, hw, None if i.is_matrix else vector_bits)
            except LinLayoutError:
                res = None
                break
            res[side] = (b.status == COUNTED, b.wavefronts * b.instructions, b.instructions)
        if res is None:
            continue
        ok = res["write"][0] & res["read"][0]
        for j in np.flatnonzero(ok):
            scores.append(StandardScore(part[j], int(res["write"][1][j]), int(res["read"][1][j]),
                                        int(res["write"][2][j]), int(res["read"][2][j])))
    return scores
