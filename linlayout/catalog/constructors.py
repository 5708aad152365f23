"""Constructors: the distributed layouts of real kernels, so nobody writes bases by hand.

Concepts
========

Every distributed layout here is a product (Def. 4.3) of identity pieces:
registers, then lanes, then warps, each covering some tensor bits.  When the
layout's tile is **smaller** than the tensor it repeats: extra register bits
step over the remaining tile copies.  When it is **larger**, the bases that
fall outside the tensor become 0: those lanes and warps hold duplicates
(broadcast), and such registers are dropped.  This is how Triton builds its
layouts, and :func:`blocked` matches Triton's conversion bit for bit (a test
compares them where Triton is installed).

The ``mma.sync`` m16n8k16 accumulator of one warp, for example (each cell
names the thread and the register holding that element)::

    >>> print(mma("C", (16, 8)).grid())
    dim0\\dim1      0      1      2      3      4      5      6      7
            0  t0:r0  t0:r1  t1:r0  t1:r1  t2:r0  t2:r1  t3:r0  t3:r1
            1  t4:r0  t4:r1  t5:r0  t5:r1  t6:r0  t6:r1  t7:r0  t7:r1
            2  t8:r0  t8:r1  t9:r0  t9:r1 t10:r0 t10:r1 t11:r0 t11:r1
            3 t12:r0 t12:r1 t13:r0 t13:r1 t14:r0 t14:r1 t15:r0 t15:r1
            4 t16:r0 t16:r1 t17:r0 t17:r1 t18:r0 t18:r1 t19:r0 t19:r1
            5 t20:r0 t20:r1 t21:r0 t21:r1 t22:r0 t22:r1 t23:r0 t23:r1
            6 t24:r0 t24:r1 t25:r0 t25:r1 t26:r0 t26:r1 t27:r0 t27:r1
            7 t28:r0 t28:r1 t29:r0 t29:r1 t30:r0 t30:r1 t31:r0 t31:r1
            8  t0:r2  t0:r3  t1:r2  t1:r3  t2:r2  t2:r3  t3:r2  t3:r3
            9  t4:r2  t4:r3  t5:r2  t5:r3  t6:r2  t6:r3  t7:r2  t7:r3
           10  t8:r2  t8:r3  t9:r2  t9:r3 t10:r2 t10:r3 t11:r2 t11:r3
           11 t12:r2 t12:r3 t13:r2 t13:r3 t14:r2 t14:r3 t15:r2 t15:r3
           12 t16:r2 t16:r3 t17:r2 t17:r3 t18:r2 t18:r3 t19:r2 t19:r3
           13 t20:r2 t20:r3 t21:r2 t21:r3 t22:r2 t22:r3 t23:r2 t23:r3
           14 t24:r2 t24:r3 t25:r2 t25:r3 t26:r2 t26:r3 t27:r2 t27:r3
           15 t28:r2 t28:r3 t29:r2 t29:r3 t30:r2 t30:r3 t31:r2 t31:r3

(``r`` counts elements: ``r0, r1`` share the first 32-bit register for
16-bit data; for 32-bit accumulators each is one register.)

Provenance.  NVIDIA layouts follow the PTX ISA ("Matrix fragments for
mma.m16n8k*", "wgmma register fragments", ``ldmatrix``/``stmatrix``) and
are checked against tables recorded on an H100 (``tests/data/``).  AMD MFMA
layouts follow AMD's matrix instruction documentation and are **not
measured on hardware** here.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import DimensionError, NotLinearError, SizeError
from ..core.dims import log2_size
from ..core.layout import LinearLayout
from ..core.validate import check_instance, check_int, check_int_sequence, check_sequence, check_str
from ..hw import get_hardware

__all__ = [
    "blocked",
    "sliced",
    "mma",
    "wgmma",
    "ldmatrix",
    "stmatrix",
    "cute_tv_layout",
    "mfma",
    "fit_to_shape",
    "MMA_INSTRUCTIONS",
]

AMD_WAVE64_LANE_BITS = 6
"""log2 of the 64 lanes of an AMD CDNA wavefront (wave64), the lanes of :func:`mfma`'s layouts.

There is no AMD hardware model in :mod:`linlayout.hw`.  :func:`blocked` and
:func:`cute_tv_layout` take the lanes of a warp as a parameter (default: the
default hardware model's, :func:`~linlayout.hw.get_hardware`); the NVIDIA
instruction layouts (:func:`mma`, :func:`wgmma`, :func:`ldmatrix`) have the
32 lanes their PTX instruction defines, in their tables.
"""


def _warp_lanes(lanes: int | None) -> int:
    """The lanes of a warp: ``lanes`` (a power of two) or, for ``None``, the default hardware model's."""
    if lanes is None:
        return get_hardware().lanes
    return 1 << log2_size(lanes, "lanes")


def _dims(rank: int) -> list[str]:
    return [f"dim{i}" for i in range(rank)]


def identity_nd(in_dim: str, sizes: Sequence[int], order: Sequence[int]) -> LinearLayout:
    """Identity pieces for each tensor dimension, the fastest (``order[0]``) first (Triton's ``identityStandardND``).

    >>> L = identity_nd("lane", [2, 4], [1, 0])    # dim1 (4) fastest, then dim0 (2)
    >>> L.out_dims, L.bases
    (('dim1', 'dim0'), {'lane': [(1, 0), (2, 0), (0, 1)]})
    """
    out = LinearLayout.empty()
    for d in order:
        out = out * LinearLayout.identity(sizes[d], in_dim, f"dim{d}")
    return out


def check_order(order: Sequence[int], rank: int, what: str = "order") -> list[int]:
    """``order`` as a list, if it is a permutation of ``0..rank-1``; else :class:`DimensionError`.

    >>> check_order([0, 0], 2)
    Traceback (most recent call last):
    ...
    linlayout.errors.DimensionError: order must be a permutation of 0..1, got [0, 0]
    """
    order = list(check_int_sequence(order, what))
    if sorted(order) != list(range(rank)):
        raise DimensionError(f"{what} must be a permutation of 0..{rank - 1}, got {order}")
    return order


def fit_tile(layout: LinearLayout, shape: Sequence[int], repeat_dim: str = "register",
             drop_broadcast_registers: bool = True) -> LinearLayout:
    """Triton's ``ensureLayoutNotLargerThan`` then ``ensureLayoutNotSmallerThan`` on ``dim0, dim1, ...``.

    Coordinates at or beyond ``shape[i]`` become 0 (broadcast); register
    bases left all-zero are dropped when ``drop_broadcast_registers``; an
    output dimension smaller than ``shape[i]`` is repeated by bits of
    ``repeat_dim`` (in the layout's output order).  The result's outputs are
    ``dim0, dim1, ...``.  ``shape`` holds powers of two, one per output
    dimension (the callers check it).  :func:`fit_to_shape` is this with
    Triton's register conventions on top.

    >>> tile = LinearLayout({"offset": [[0, 1], [1, 0]]}, {"dim0": 2, "dim1": 2})
    >>> fit_tile(tile, [4, 1], "offset").bases
    {'offset': [(0, 0), (1, 0), (2, 0)]}
    """
    want = {f"dim{i}": s for i, s in enumerate(shape)}
    outs = list(layout.out_dims)
    sizes = dict(layout.out_sizes)
    bases = {d: [list(b) for b in bl] for d, bl in layout.bases.items()}
    for j, n in enumerate(outs):
        if sizes[n] > want[n]:
            for bl in bases.values():
                for b in bl:
                    if b[j] >= want[n]:
                        b[j] = 0
            sizes[n] = want[n]
    if drop_broadcast_registers and "register" in bases:
        bases["register"] = [b for b in bases["register"] if any(b)]
    L = LinearLayout(bases, {n: sizes[n] for n in outs})
    for n in outs:
        if sizes[n] < want[n]:
            L = L * LinearLayout.identity(want[n] // sizes[n], repeat_dim, n)
    return L.transpose_outs(list(want))


def fit_to_shape(layout: LinearLayout, shape: Sequence[int], drop_broadcast_registers: bool = True) -> LinearLayout:
    """Fit a layout's tile to a tensor shape, as Triton does (``combineCtaCgaWithShape``).

    Formal: for each output dimension ``dim_i`` larger than ``shape[i]``,
    every basis coordinate ``>= shape[i]`` becomes 0 (broadcast), and register
    bases that became all-zero are dropped; for each output dimension smaller
    than ``shape[i]``, register bits repeating the tile are appended (output
    dimensions in the layout's order).  The result's output dimensions are
    ``dim0, dim1, ...`` in that order.

    >>> tile = LinearLayout({"lane": [[0, 1], [1, 0]]}, {"dim0": 2, "dim1": 2})
    >>> fit_to_shape(tile, [4, 1]).bases
    {'register': [(2, 0)], 'lane': [(0, 0), (1, 0)]}
    """
    check_instance(layout, LinearLayout, "layout")
    shape = [1 << log2_size(s, f"shape[{i}]") for i, s in enumerate(check_sequence(shape, "shape"))]
    if not shape:
        raise SizeError("shape must have at least one dimension (a layout needs a register dimension on some dim0)")
    names = _dims(len(shape))
    if sorted(layout.out_dims) != sorted(names):
        raise DimensionError(f"the layout's output dimensions {list(layout.out_dims)} do not match a rank-{len(shape)} shape")
    L = fit_tile(layout, shape, "register", drop_broadcast_registers)
    if "register" not in L.in_dims:
        L = L * LinearLayout.zeros(1, "register", names[0])
    # Canonical in-dim order and out-dim order.
    ins = [d for d in ("register", "lane", "warp", "block") if d in L.in_dims]
    ins += [d for d in L.in_dims if d not in ins]
    return L.transpose_ins(ins).transpose_outs(names)


def blocked(
    shape: Sequence[int],
    size_per_thread: Sequence[int],
    threads_per_warp: Sequence[int],
    warps_per_cta: Sequence[int],
    order: Sequence[int],
    lanes: int | None = None,
) -> LinearLayout:
    """Triton's blocked layout (``BlockedEncodingAttr``) on a tensor of ``shape``, rank 1 to 4.

    Each thread holds a ``size_per_thread`` block, threads tile a warp as
    ``threads_per_warp`` and warps tile the CTA as ``warps_per_cta``;
    ``order`` lists tensor dimensions fastest first.  The CTA tile repeats
    into registers when the tensor is larger and broadcasts when it is smaller.

    Requirements: power-of-two sizes; the product of ``threads_per_warp`` is
    ``lanes``, the lanes of a warp (default: the default hardware model's, 32
    on ``sm90``).

    >>> print(blocked([4, 16], [1, 2], [4, 8], [1, 1], [1, 0]).grid())
    dim0\\dim1      0      1      2      3      4      5      6      7      8      9     10     11     12     13     14     15
            0  t0:r0  t0:r1  t1:r0  t1:r1  t2:r0  t2:r1  t3:r0  t3:r1  t4:r0  t4:r1  t5:r0  t5:r1  t6:r0  t6:r1  t7:r0  t7:r1
            1  t8:r0  t8:r1  t9:r0  t9:r1 t10:r0 t10:r1 t11:r0 t11:r1 t12:r0 t12:r1 t13:r0 t13:r1 t14:r0 t14:r1 t15:r0 t15:r1
            2 t16:r0 t16:r1 t17:r0 t17:r1 t18:r0 t18:r1 t19:r0 t19:r1 t20:r0 t20:r1 t21:r0 t21:r1 t22:r0 t22:r1 t23:r0 t23:r1
            3 t24:r0 t24:r1 t25:r0 t25:r1 t26:r0 t26:r1 t27:r0 t27:r1 t28:r0 t28:r1 t29:r0 t29:r1 t30:r0 t30:r1 t31:r0 t31:r1
    """
    shape = list(check_int_sequence(shape, "shape"))
    rank = len(shape)
    if not 1 <= rank <= 4:
        raise SizeError(f"blocked layouts have rank 1 to 4, got shape {shape}")
    for what, v in (("size_per_thread", size_per_thread), ("threads_per_warp", threads_per_warp),
                    ("warps_per_cta", warps_per_cta)):
        v = check_int_sequence(v, what)
        if len(v) != rank:
            raise DimensionError(f"{what} has {len(v)} entries but the shape has rank {rank}")
        for i, x in enumerate(v):
            log2_size(x, f"{what}[{i}]")
    order = check_order(order, rank)
    tpw = 1
    for x in threads_per_warp:
        tpw *= x
    warp = _warp_lanes(lanes)
    if tpw != warp:
        raise SizeError(f"threads_per_warp must multiply to {warp} lanes, got {list(threads_per_warp)} = {tpw}")
    L = (identity_nd("register", size_per_thread, order) * identity_nd("lane", threads_per_warp, order)
         * identity_nd("warp", warps_per_cta, order))
    return fit_to_shape(L, shape)


def sliced(parent: LinearLayout, dim: int) -> LinearLayout:
    """Triton's slice layout: remove tensor dimension ``dim`` from a distributed layout.

    The bases lose that coordinate; lanes and warps that walked it now hold
    duplicates (broadcast), and registers that walked it are dropped.  The
    remaining dimensions are renumbered ``dim0, dim1, ...``.

    >>> sliced(blocked([64, 1], [1, 4], [4, 8], [2, 2], [1, 0]), 1).bases
    {'register': [(8,), (16,), (32,)], 'lane': [(0,), (0,), (0,), (1,), (2,)], 'warp': [(0,), (4,)]}
    """
    check_instance(parent, LinearLayout, "parent")
    name = f"dim{check_int(dim, 'dim')}"
    if any(not (n[:3] == "dim" and n[3:].isdigit()) for n in parent.out_dims):
        raise DimensionError(f"sliced needs output dimensions named dim0, dim1, ...; the layout has {list(parent.out_dims)}")
    if name not in parent.out_dims:
        raise DimensionError(f"the layout has no {name} to slice (dimensions {list(parent.out_dims)})")
    keep = [n for n in parent.out_dims if n != name]
    if not keep:
        raise DimensionError("cannot slice the only dimension of a layout")
    L = parent.sublayout(parent.in_dims, keep)
    bases = {d: [list(b) for b in bl] for d, bl in L.bases.items()}
    if "register" in bases:
        bases["register"] = [b for b in bases["register"] if any(b)]
    rename = {n: f"dim{i}" for i, n in enumerate(sorted(keep, key=lambda s: int(s[3:])))}
    out = LinearLayout(bases, L.out_sizes)
    return out.rename(None, rename).transpose_outs([rename[n] for n in sorted(keep, key=lambda s: int(s[3:]))])


# ---------------------------------------------------------------------------
# NVIDIA mma.sync
# ---------------------------------------------------------------------------

# Per instruction and operand: (register bases, lane bases) of one warp's tile, in (dim0, dim1)
# = (row, column) of the operand as PTX writes it: A is M x K, B is K x N, C/D is M x N.
# Registers count elements (two 16-bit or four 8-bit elements share a 32-bit register).
MMA_INSTRUCTIONS: dict[str, dict[str, tuple[list[list[int]], list[list[int]]]]] = {
    "m16n8k16": {  # 16-bit A/B (f16, bf16)
        "A": ([[0, 1], [8, 0], [0, 8]], [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]),
        "B": ([[1, 0], [8, 0]], [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]]),
        "C": ([[0, 1], [8, 0]], [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]),
    },
    "m16n8k32": {  # 8-bit A/B (s8, u8, e4m3, e5m2)
        "A": ([[0, 1], [0, 2], [8, 0], [0, 16]], [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]]),
        "B": ([[1, 0], [2, 0], [16, 0]], [[4, 0], [8, 0], [0, 1], [0, 2], [0, 4]]),
        "C": ([[0, 1], [8, 0]], [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]),
    },
    "m16n8k8": {  # tf32 A/B
        "A": ([[8, 0], [0, 4]], [[0, 1], [0, 2], [1, 0], [2, 0], [4, 0]]),
        "B": ([[4, 0]], [[1, 0], [2, 0], [0, 1], [0, 2], [0, 4]]),
        "C": ([[0, 1], [8, 0]], [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]),
    },
}
_MMA_TILE = {"m16n8k16": (16, 8, 16), "m16n8k32": (16, 8, 32), "m16n8k8": (16, 8, 8)}


def _tile_layout(regs, lanes, rows, cols, order) -> LinearLayout:
    L = LinearLayout({"register": regs, "lane": lanes}, {"dim0": rows, "dim1": cols})
    return L.transpose_outs([f"dim{d}" for d in order])


def _operand(operand: str) -> str:
    op = check_str(operand, "operand").strip().upper()
    if op == "D":
        op = "C"
    if op not in ("A", "B", "C"):
        raise DimensionError(f"operand must be 'A', 'B' or 'C' (accumulator, also 'D'), got {operand!r}")
    return op


def mma(operand: str, shape: Sequence[int], instr: str = "m16n8k16", warps_per_cta: Sequence[int] = (1, 1)) -> LinearLayout:
    """An ``mma.sync`` operand or accumulator layout (Triton's mma v2 and its dot operands).

    ``operand`` is ``"A"`` (shape ``(M, K)``), ``"B"`` (``(K, N)``) or ``"C"``
    (accumulator ``(M, N)``, also ``"D"``); ``instr`` is ``"m16n8k16"``
    (16-bit inputs), ``"m16n8k32"`` (8-bit) or ``"m16n8k8"`` (tf32).
    ``warps_per_cta = (wm, wn)`` arranges warps over M and N (N fastest);
    an operand is broadcast across the warps of the other dimension (A
    across wn, B across wm).  The tile repeats in registers to cover
    ``shape`` (K then M for A, K then N for B, N then M for C).

    >>> mma("A", (16, 16)).bases["register"]
    [(0, 1), (8, 0), (0, 8)]
    >>> mma("B", (16, 8), "m16n8k16").bases["lane"]
    [(2, 0), (4, 0), (0, 1), (0, 2), (0, 4)]
    """
    op = _operand(operand)
    if check_str(instr, "instr") not in MMA_INSTRUCTIONS:
        raise DimensionError(f"instr must be one of {sorted(MMA_INSTRUCTIONS)}, got {instr!r}")
    shape = list(check_int_sequence(shape, "shape"))
    if len(shape) != 2:
        raise SizeError(f"mma operands are 2-D, got shape {shape}")
    wm, wn = (log2_size(w, "warps_per_cta") for w in check_int_sequence(warps_per_cta, "warps_per_cta (wm, wn)", length=2))
    m, n, k = _MMA_TILE[instr]
    regs, lanes = MMA_INSTRUCTIONS[instr][op]
    rows, cols = {"A": (m, k), "B": (k, n), "C": (m, n)}[op]
    order = [0, 1] if op == "B" else [1, 0]
    L = _tile_layout(regs, lanes, rows, cols, order)
    # Warps: N bits first, then M bits (Triton's warp order [1, 0]).
    wn_dir = {"A": None, "B": "dim1", "C": "dim1"}[op]
    wm_dir = {"A": "dim0", "B": None, "C": "dim0"}[op]
    for nbits, direction in ((wn, wn_dir), (wm, wm_dir)):
        if nbits:
            piece = (LinearLayout.identity(1 << nbits, "warp", direction) if direction
                     else LinearLayout.zeros(1 << nbits, "warp", order and f"dim{order[0]}"))
            L = L * piece
    return fit_to_shape(L, shape)


def wgmma(operand: str, shape: Sequence[int], n: int = 8, element_bits: int = 16, warps_per_cta: Sequence[int] = (4, 1)) -> LinearLayout:
    """A Hopper ``wgmma.mma_async`` m64nNk16 (16-bit) or m64nNk32 (8-bit) register layout.

    ``operand="A"`` is the A operand held in registers (shape ``(M, K)``),
    ``"C"`` the accumulator (shape ``(M, N)``).  A warpgroup is 4 warps
    stacked along M (16 rows each); ``warps_per_cta = (wm, wn)`` with ``wm``
    a multiple of 4 places further warpgroups along M first, then N.
    ``n`` is the instruction's N (8 to 256).

    >>> wgmma("C", (64, 16), n=16).bases
    {'register': [(0, 1), (8, 0), (0, 8)], 'lane': [(0, 2), (0, 4), (1, 0), (2, 0), (4, 0)], 'warp': [(16, 0), (32, 0)]}
    """
    op = _operand(operand)
    if op == "B":
        raise DimensionError("wgmma reads B from shared memory; only A (registers) and C have register layouts")
    if check_int(element_bits, "element_bits") not in (8, 16):
        raise SizeError(f"wgmma m64nNk16 takes 16-bit and m64nNk32 8-bit inputs, not {element_bits}-bit")
    nb = log2_size(n, "n")
    if not 3 <= nb <= 8:
        raise SizeError(f"wgmma N is 8 to 256, got {n}")
    wm, wn = check_int_sequence(warps_per_cta, "warps_per_cta (wm, wn)", length=2)
    log2_size(wm, "warps_per_cta[0]")
    log2_size(wn, "warps_per_cta[1]")
    if wm % 4:
        raise SizeError(f"a warpgroup is 4 warps along M: warps_per_cta[0] must be a multiple of 4, got {wm}")
    instr = "m16n8k16" if element_bits == 16 else "m16n8k32"
    if op == "A":
        regs, lanes = MMA_INSTRUCTIONS[instr]["A"]
        rows, cols = 16, _MMA_TILE[instr][2]
    else:
        regs = [[0, 1], [8, 0]] + [[0, 8 << i] for i in range(nb - 3)]
        lanes = MMA_INSTRUCTIONS[instr]["C"][1]
        rows, cols = 16, n
    L = _tile_layout(regs, lanes, rows, cols, [1, 0])
    L = L * LinearLayout.identity(wm, "warp", "dim0")
    if wn > 1:
        L = L * (LinearLayout.identity(wn, "warp", "dim1") if op == "C" else LinearLayout.zeros(wn, "warp", "dim1"))
    return fit_to_shape(L, shape)


# ---------------------------------------------------------------------------
# ldmatrix / stmatrix
# ---------------------------------------------------------------------------


def ldmatrix(matrices: int = 4, trans: bool = False) -> LinearLayout:
    """The register layout ``ldmatrix.sync.aligned.m8n8.xN[.trans].b16`` produces (16-bit elements).

    The tensor is the ``N`` 8x8 matrices as they sit in memory, stacked along
    ``dim0`` (matrix ``j`` is rows ``8j .. 8j+7``; each row is 16 bytes whose
    address lane ``8j + r`` supplies).  Without ``.trans`` lane ``t`` receives
    row ``t // 4``, columns ``2 (t % 4)`` and ``+1`` of each matrix, matrix
    ``j`` in its register ``j``; with ``.trans`` it receives column ``t // 4``,
    rows ``2 (t % 4)`` and ``+1``.  ``stmatrix`` uses the same layouts.

    >>> print(ldmatrix(1).grid())
    dim0\\dim1      0      1      2      3      4      5      6      7
            0  t0:r0  t0:r1  t1:r0  t1:r1  t2:r0  t2:r1  t3:r0  t3:r1
            1  t4:r0  t4:r1  t5:r0  t5:r1  t6:r0  t6:r1  t7:r0  t7:r1
            2  t8:r0  t8:r1  t9:r0  t9:r1 t10:r0 t10:r1 t11:r0 t11:r1
            3 t12:r0 t12:r1 t13:r0 t13:r1 t14:r0 t14:r1 t15:r0 t15:r1
            4 t16:r0 t16:r1 t17:r0 t17:r1 t18:r0 t18:r1 t19:r0 t19:r1
            5 t20:r0 t20:r1 t21:r0 t21:r1 t22:r0 t22:r1 t23:r0 t23:r1
            6 t24:r0 t24:r1 t25:r0 t25:r1 t26:r0 t26:r1 t27:r0 t27:r1
            7 t28:r0 t28:r1 t29:r0 t29:r1 t30:r0 t30:r1 t31:r0 t31:r1
    """
    matrices = check_int(matrices, "matrices")
    check_instance(trans, bool, "trans")
    if matrices not in (1, 2, 4):
        raise SizeError(f"ldmatrix/stmatrix move 1, 2 or 4 matrices (.x1/.x2/.x4), not {matrices}")
    nmat = matrices.bit_length() - 1
    mat = [[8 << i, 0] for i in range(nmat)]
    if not trans:
        regs = [[0, 1]] + mat
        lanes = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]
    else:
        regs = [[1, 0]] + mat
        lanes = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]]
    return LinearLayout({"register": regs, "lane": lanes}, {"dim0": 8 * matrices, "dim1": 8})


stmatrix = ldmatrix


# ---------------------------------------------------------------------------
# CuTe thread-value layouts
# ---------------------------------------------------------------------------


def _flatten_mode(shape, stride, what, depth=0):
    if not isinstance(shape, (list, tuple)):
        return [shape], [stride]
    if not isinstance(stride, (list, tuple)) or len(shape) != len(stride) or depth > 16:
        raise DimensionError(f"{what}: shape {shape} and stride {stride} must have the same nesting (at most 16 deep)")
    s, t = [], []
    for a, b in zip(shape, stride):
        fs, ft = _flatten_mode(a, b, what, depth + 1)
        s += fs
        t += ft
    return s, t


def cute_tv_layout(tv_shape, tv_stride, tile: Sequence[int], lanes: int | None = None) -> LinearLayout:
    """A CuTe thread-value layout ``((threads), (values)) : ((strides), (strides))`` as a distributed layout.

    CuTe maps ``(thread, value)`` to an index into a tile of shape ``tile``,
    column-major (``index = i + M j`` for an ``M x N`` tile).  Thread bits
    become lanes (the first log2 ``lanes``: 5 for the default model's 32)
    and warps, value bits become registers.
    Shapes and strides must be powers of two (0 strides broadcast) and the
    modes must not overlap in index bits; otherwise :class:`NotLinearError`.

    >>> L = cute_tv_layout(((4, 8), 2), ((2, 8), 1), (8, 8))   # 32 threads x 2 values on 8x8
    >>> L.apply(lane=1, register=1)
    {'dim0': 3, 'dim1': 0}
    """
    for arg, what in ((tv_shape, "tv_shape"), (tv_stride, "tv_stride")):
        if not (isinstance(arg, (tuple, list)) and len(arg) == 2):
            raise DimensionError(f"{what} must be ((thread modes), (value modes)), got {arg!r}")
    ts, tt = _flatten_mode(tv_shape[0], tv_stride[0], "threads")
    vs, vt = _flatten_mode(tv_shape[1], tv_stride[1], "values")
    tile = list(check_sequence(tile, "tile"))
    tb = [log2_size(x, f"tile[{i}]") for i, x in enumerate(tile)]
    total = sum(tb)

    def images(shapes, strides, what):
        out = []
        used = 0
        for i, (n, st) in enumerate(zip(shapes, strides)):
            b = log2_size(n, f"{what} shape[{i}]")
            if isinstance(st, bool) or not isinstance(st, int) or st < 0:
                raise SizeError(f"{what} stride[{i}] must be a non-negative int, got {st!r}")
            if st and st & (st - 1):
                raise NotLinearError(f"{what} stride[{i}] = {st} is not a power of two: not linear over F2")
            for k in range(b):
                v = st << k
                if v and (v & used or v >> total):
                    raise NotLinearError(f"{what} mode {i} reaches index {v}, overlapping another mode or outside the tile")
                used |= v
                out.append(v)
        return out

    thr = images(ts, tt, "threads")
    val = images(vs, vt, "values")
    lane_bits = _warp_lanes(lanes).bit_length() - 1
    if len(thr) < lane_bits:
        thr += [0] * (lane_bits - len(thr))

    def coords(v):  # column-major index -> (dim0, dim1, ...)
        out = []
        for b in tb:
            out.append(v & ((1 << b) - 1))
            v >>= b
        return out

    bases = {"register": [coords(v) for v in val], "lane": [coords(v) for v in thr[:lane_bits]],
             "warp": [coords(v) for v in thr[lane_bits:]]}
    return LinearLayout(bases, {f"dim{i}": x for i, x in enumerate(tile)})


# ---------------------------------------------------------------------------
# AMD MFMA (wave64), from AMD's matrix instruction documentation; not measured here
# ---------------------------------------------------------------------------

_MFMA = {
    # (instr, operand): (register bases, lane bases) on (dim0, dim1); 64 lanes (AMD_WAVE64_LANE_BITS lane bits).
    ("32x32x8", "C"): ([[1, 0], [2, 0], [8, 0], [16, 0]], [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [4, 0]]),
    ("32x32x8", "A"): ([[0, 1], [0, 2]], [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 4]]),
    ("32x32x8", "B"): ([[1, 0], [2, 0]], [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [4, 0]]),
    ("16x16x16", "C"): ([[1, 0], [2, 0]], [[0, 1], [0, 2], [0, 4], [0, 8], [4, 0], [8, 0]]),
    ("16x16x16", "A"): ([[0, 1], [0, 2]], [[1, 0], [2, 0], [4, 0], [8, 0], [0, 4], [0, 8]]),
    ("16x16x16", "B"): ([[1, 0], [2, 0]], [[0, 1], [0, 2], [0, 4], [0, 8], [4, 0], [8, 0]]),
}


def mfma(operand: str, instr: str = "32x32x8") -> LinearLayout:
    """AMD MFMA (CDNA, wave64) f16 operand and accumulator layouts of one wavefront (NOT measured here).

    ``instr`` is ``"32x32x8"`` (``v_mfma_f32_32x32x8f16``: A 32x8, B 8x32,
    C 32x32) or ``"16x16x16"`` (``v_mfma_f32_16x16x16f16``).  From AMD's
    matrix instruction documentation: for 32x32x8, ``C[i][j]`` is in lane
    ``j + 32 * ((i // 4) % 2)``, register ``(i % 4) + 4 * (i // 8)``; ``A[i][k]``
    in lane ``i + 32 * (k // 4)``, register ``k % 4``.  These layouts have 64
    lanes (:data:`AMD_WAVE64_LANE_BITS`); the ``sm90`` bank model does not apply to them.

    >>> mfma("A").in_sizes["lane"] == 1 << AMD_WAVE64_LANE_BITS
    True
    >>> mfma("C", "16x16x16").apply(lane=17, register=2)
    {'dim0': 6, 'dim1': 1}
    """
    op = _operand(operand)
    key = (check_str(instr, "instr"), op)
    if key not in _MFMA:
        raise DimensionError(f"instr must be '32x32x8' or '16x16x16', got {instr!r}")
    regs, lanes = _MFMA[key]
    return LinearLayout({"register": regs, "lane": lanes})
