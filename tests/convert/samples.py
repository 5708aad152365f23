"""Layout pairs for testing conversions: random linear layouts and Triton's layouts from the catalog.

Test fixtures, not library code: the conversion tests and the tools that check
the planner (``tools/convert_*.py``) import them from here.

``random_pair(rng, ...)`` draws two distributed layouts of the same tensor,
threads and warps: registers, lanes and warps with unit or mixed (XOR)
bases and broadcast (zero) bases.  ``kind`` picks how ``dst`` relates to
``src``: ``"any"`` (independent), ``"warp"`` (same warp bases: a warp-local
conversion) or ``"thread"`` (same lane and warp bases).  ``catalog_pairs``
lists pairs of blocked, mma, wgmma, dot-operand and sliced layouts.

>>> import random
>>> s, d = random_pair(random.Random(1), warps=2, kind="warp")
>>> s.out_sizes == d.out_sizes and s.in_sizes["warp"] == d.in_sizes["warp"] == 2
True
>>> len(catalog_pairs()) > 20
True
"""

from __future__ import annotations

import random as _random

from linlayout.catalog.constructors import blocked, mma, sliced, wgmma
from linlayout.core import f2
from linlayout.core.layout import LinearLayout

__all__ = ["random_pair", "random_layout", "catalog_pairs"]


def _shape(rng: _random.Random, bits: int) -> dict[str, int]:
    a = rng.randint(0, bits)
    return {"dim0": 1 << a, "dim1": 1 << (bits - a)}


def _invertible(rng: _random.Random, n: int, mixed: bool) -> list[int]:
    cols = [1 << i for i in range(n)]
    rng.shuffle(cols)
    if mixed:
        for _ in range(rng.randint(0, n)):
            i, j = rng.sample(range(n), 2) if n > 1 else (0, 0)
            if i != j:
                cols[i] ^= cols[j]
    return cols


def _build(cols: list[int], reg: int, lane: int, warp: int, zeros: dict[str, int], rng, shape) -> LinearLayout:
    it = iter(cols)
    bases = {}
    for d, n in (("register", reg), ("lane", lane), ("warp", warp)):
        lst = [next(it) for _ in range(n)]
        for _ in range(zeros.get(d, 0)):
            lst.insert(rng.randint(0, len(lst)), 0)
        bases[d] = lst
    outs = list(shape.items())
    nb0 = outs[0][1].bit_length() - 1

    def split(v):
        return (v & ((1 << nb0) - 1), v >> nb0)

    return LinearLayout({d: [split(v) for v in vs] for d, vs in bases.items()}, shape)


def random_layout(rng: _random.Random, tensor_bits: int, warps: int = 1, mixed: bool = True,
                  zeros: dict[str, int] | None = None, shape: dict[str, int] | None = None) -> LinearLayout:
    """A random surjective distributed layout: 32 lanes, ``warps`` warps, the rest registers."""
    wb = warps.bit_length() - 1
    zeros = dict(zeros or {})
    lane = 5 - zeros.get("lane", 0)
    warp = wb - zeros.get("warp", 0)
    reg = tensor_bits - lane - warp
    if reg < 0:
        raise ValueError("tensor too small for the threads")
    cols = _invertible(rng, tensor_bits, mixed)
    return _build(cols, reg, lane, warp, zeros, rng, shape or _shape(rng, tensor_bits))


def _zeros(rng: _random.Random, wb: int) -> dict[str, int]:
    z = {}
    if rng.random() < 0.4:
        z["register"] = rng.randint(1, 2)
    if rng.random() < 0.3:
        z["lane"] = rng.randint(1, 2)
    if wb and rng.random() < 0.2:
        z["warp"] = 1
    return z


def random_pair(rng: _random.Random, warps: int = 1, kind: str = "any", mixed: bool = True,
                max_regs_bits: int = 4) -> tuple[LinearLayout, LinearLayout]:
    """Two layouts of one tensor (see the module doc)."""
    wb = warps.bit_length() - 1
    zs, zd = _zeros(rng, wb), _zeros(rng, wb)
    if kind != "any":
        zd["warp"] = zs.get("warp", 0)
    if kind == "thread":
        zd["lane"] = zs.get("lane", 0)
    # tensor bits: enough for the threads that are not broadcast, plus some registers
    base = max(5 - zs.get("lane", 0) + wb - zs.get("warp", 0), 5 - zd.get("lane", 0) + wb - zd.get("warp", 0))
    bits = base + rng.randint(0, max_regs_bits)
    shape = _shape(rng, bits)
    src = random_layout(rng, bits, warps, mixed, zs, shape)
    if kind == "any":
        return src, random_layout(rng, bits, warps, mixed, zd, shape)
    # keep the warp (and lane) bases, redraw the rest inside their complement
    keep_dims = ("warp",) if kind == "warp" else ("lane", "warp")
    nb0 = shape["dim0"].bit_length() - 1
    kept = {d: [a | (b << nb0) for a, b in src.bases.get(d, [])] for d in keep_dims}
    fixed = [v for vs in kept.values() for v in vs if v]
    inner = ("register",) if kind == "thread" else ("register", "lane")
    rest = f2.basis(a | (b << nb0) for d in inner for a, b in src.bases.get(d, []))
    # a random invertible mix of the rest, modulo the kept span
    mix = _invertible(rng, len(rest), mixed)
    vecs = [f2.apply(rest, m) for m in mix]
    n_lane = 0 if kind == "thread" else 5 - zd.get("lane", 0)
    lanes, regs = vecs[:n_lane], vecs[n_lane:]
    for _ in range(zd.get("lane", 0) if kind != "thread" else 0):
        lanes.insert(rng.randint(0, len(lanes)), 0)
    for _ in range(zd.get("register", 0)):
        regs.insert(rng.randint(0, len(regs)), 0)

    def split(v):
        return (v & ((1 << nb0) - 1), v >> nb0)

    bases = {"register": regs}
    bases["lane"] = kept["lane"] if kind == "thread" else lanes
    bases["warp"] = kept["warp"]
    dst = LinearLayout({d: [split(v) for v in vs] for d, vs in bases.items()}, shape)
    return src, dst


def catalog_pairs() -> list[tuple[str, LinearLayout, LinearLayout]]:
    """Named pairs of Triton layouts (same tensor, same warps) from :mod:`linlayout.catalog.constructors`."""
    out = []
    for shape, warps in (((64, 64), (2, 2)), ((32, 32), (1, 1)), ((128, 64), (4, 1))):
        n = warps[0] * warps[1]
        lays = {
            "mma_C": mma("C", shape, warps_per_cta=warps),
            "blocked_row": blocked(list(shape), [1, 4], [4, 8], [n, 1], [1, 0]),
            "blocked_col": blocked(list(shape), [4, 1], [8, 4], [1, n], [0, 1]),
            "blocked_vec8": blocked(list(shape), [1, 8], [8, 4], [n, 1], [1, 0]),
        }
        if warps == (4, 1):
            lays["wgmma_C"] = wgmma("C", shape, n=shape[1], warps_per_cta=warps)
        for a in lays:
            for b in lays:
                if a != b:
                    out.append((f"{a}->{b} {shape[0]}x{shape[1]} w{n}", lays[a], lays[b]))
    a = mma("A", (32, 32))
    b = blocked([32, 32], [1, 8], [8, 4], [1, 1], [1, 0])
    out.append(("blocked->mma_A 32x32", b, a))
    out.append(("mma_A->blocked 32x32", a, b))
    s1 = sliced(blocked([64, 64], [1, 4], [4, 8], [2, 2], [1, 0]), 1)
    s2 = sliced(blocked([64, 64], [4, 1], [8, 4], [2, 2], [0, 1]), 1)
    out.append(("slice(blocked_row)->slice(blocked_col)", s1, s2))
    out.append(("slice(blocked_col)->slice(blocked_row)", s2, s1))
    return out
