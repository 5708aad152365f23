"""``plan_gather``: ``out[i] = src[i with coordinate axis replaced by index[i]]`` (paper §5.5).

The output and the index share ``index_layout``.  The gather is
**warp-local** when every element a warp may need is held by that warp: the
source's warp and block bases do not move along ``axis`` and, on the other
coordinates, the conversion map from the index layout to the source
(:func:`~linlayout.convert.solve.conversion_map` on the layouts projected off
``axis``) keeps warps and blocks (level at most 1).  Each output element then
reads, for every source register that may hold it (the registers whose
bases move only along ``axis``: ``2^k`` of them), that register from the lane
the index names (``shfl.sync`` with a computed lane, two for 64-bit
elements) and keeps the right one (``2^k - 1`` ``selp``).  Otherwise the
source goes through shared memory (row-major), a barrier, and one scalar
``ld.shared`` per output element; the read wavefronts depend on the index
values, so only the write side is counted exactly.

>>> from linlayout.core.layout import LinearLayout
>>> src = LinearLayout({"register": [[0, 1]], "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]}, {"dim0": 32, "dim1": 2})
>>> g = plan_gather(src, src, axis=0, element_bits=32)
>>> g.path, g.instructions, g.candidates
('warp_local', {'shfl.sync': 2}, 1)
"""

from __future__ import annotations

import random
from typing import Any

from ..core import f2
from ..core.layout import LinearLayout
from ..core.record import record
from ..core.validate import check_instance
from ..count.closed_form import wavefronts
from ..count.plan import check_element_bits
from ..errors import DimensionError, InputError
from ..hw import get_hardware
from .cost import cost_of
from .solve import conversion_map, index_bits

__all__ = ["GatherPlan", "plan_gather", "execute_gather"]


@record
class GatherPlan:
    """A gather plan: path, per-thread instructions, per-warp wavefronts (write side only), cost."""

    path: str
    axis: int
    element_bits: int
    instructions: dict[str, int]
    wavefronts: dict[str, int | None] | None
    cost: int
    candidates: int  # source registers tried per output element (warp-local path)
    axis_registers: tuple[int, ...]  # register combinations that move only along the axis
    reason: str

    def explain(self) -> str:
        return self.reason

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "axis": self.axis, "instructions": dict(self.instructions),
                "wavefronts": self.wavefronts, "cost": self.cost, "candidates": self.candidates,
                "explain": self.reason}


def _drop_axis(layout: LinearLayout, name: str) -> LinearLayout:
    keep = [d for d in layout.out_dims if d != name]
    return layout.sublayout(list(layout.in_dims), keep)


def plan_gather(src: LinearLayout, index_layout: LinearLayout, axis: int, element_bits: int,
                hardware: Any = "sm90") -> GatherPlan:
    """Plan a gather along ``axis`` (see the module doc).

    Raises :class:`DimensionError` when the tensors differ off the axis or the
    axis does not exist.
    """
    check_instance(src, LinearLayout, "src")
    check_instance(index_layout, LinearLayout, "index_layout")
    eb = check_element_bits(element_bits)
    if eb not in (8, 16, 32, 64):
        raise InputError(f"element_bits must be 8, 16, 32 or 64, got {eb}")
    name = f"dim{axis}" if isinstance(axis, int) and not isinstance(axis, bool) else None
    if name is None or name not in src.out_dims or name not in index_layout.out_dims:
        raise DimensionError(f"axis {axis!r} is not a dimension of both layouts ({list(src.out_dims)})")
    a_src, a_idx = _drop_axis(src, name), _drop_axis(index_layout, name)
    if a_src.out_sizes != a_idx.out_sizes:
        raise DimensionError(f"src and index must agree off the axis: {a_src.out_sizes} vs {a_idx.out_sizes}")
    sh, scols = index_bits(src, "src")
    # source register combinations that move only along the axis
    off_axis = index_bits(a_src, "src")[1]
    kernel = f2.null_space(list(off_axis[:sh.reg]))
    k = len(kernel)
    cand = 1 << k
    try:
        level = conversion_map(a_src, a_idx).level
    except InputError:
        level = 3
    warps_move_axis = any(
        v[src.out_dims.index(name)] for d in ("warp", "block") for v in src.bases.get(d, []))
    ih, _ = index_bits(index_layout, "index")
    per_thread = 1 << ih.reg
    wpe = max(1, eb // (get_hardware(hardware).register_bytes * 8))  # shuffles per element: one per register
    if level <= 1 and not warps_move_axis:
        ins = {"shfl.sync": per_thread * cand * wpe}
        if cand > 1:
            ins["selp"] = per_thread * (cand - 1)
        why = (f"warp-local: the source's warps do not move along {name} and every element a warp needs is in "
               f"that warp; each of the {per_thread} output registers tries {cand} source register(s) "
               f"through a shuffle from the lane the index names")
        return GatherPlan("warp_local", axis, eb, ins, None, cost_of(ins), cand, tuple(kernel), why)
    mem = LinearLayout.from_flat((("offset", src.out_bits),), src.out_dim_bits,
                                 (tuple(1 << i for i in range(src.out_bits)),))
    if src.in_sizes.get("block", 1) > 1:
        raise InputError("a gather across warps goes through shared memory, planned for one CTA (block size 1)")
    w = wavefronts(src, mem, eb, "store", None, None, hardware)
    ins = {w.instruction: w.instructions, "ld.shared": per_thread, "bar.sync": 1}
    wf = {"write": w.wavefronts, "read": None}
    c = cost_of(ins, {"write": w.wavefronts, "read": per_thread})  # read side at its best: one wavefront each
    why = (f"shared memory: {'the source warps move along ' + name if warps_move_axis else 'a warp needs elements other warps hold'}; "
           f"the read side's wavefronts depend on the index values (cost counts one per load, the best case)")
    return GatherPlan("shared_memory", axis, eb, ins, wf, c, 1, (), why)


def execute_gather(plan: GatherPlan, src: LinearLayout, index_layout: LinearLayout, seed: int = 0) -> bool:
    """Check a warp-local plan on random index values: each output element is found in its own warp,
    at a source register among the plan's candidates, in the lane the index names.  True or InputError."""
    if plan.path != "warp_local":
        return True
    rng = random.Random(seed)
    name = f"dim{plan.axis}"
    ai = src.out_dims.index(name)
    size = src.out_sizes[name]
    sh, scols = index_bits(src, "src")
    ih, icols = index_bits(index_layout.transpose_outs(list(src.out_dims)) if index_layout.out_dims != src.out_dims
                            else index_layout, "index")
    where: dict[int, list[tuple[int, int, int]]] = {}
    for x in range(1 << sh.bits):
        t = f2.apply(scols, x)
        where.setdefault(t, []).append((x & ((1 << sh.reg) - 1), (x >> sh.reg) & ((1 << sh.lane) - 1),
                                        x >> (sh.reg + sh.lane)))
    outs = src.out_dim_bits
    lo = sum(b for _, b in outs[:ai])
    nb = outs[ai][1]
    span = set(f2.subset_xors(list(plan.axis_registers)))
    for y in range(1 << ih.bits):
        rest = y >> (ih.reg + ih.lane)
        t = f2.apply(icols, y)
        regs = []
        for _ in range(2):
            a = rng.randrange(size)
            want = (t & ~(((1 << nb) - 1) << lo)) | (a << lo)
            holders = {h[0] for h in where.get(want, []) if h[2] == rest}
            if not holders:
                raise InputError(f"output slot {y}: element {want} is not held by its own warp")
            regs.append(holders)
        if not any((r1 ^ r2) in span for r1 in regs[0] for r2 in regs[1]):
            raise InputError(f"output slot {y}: the source registers of two index values are not among one candidate set")
    return True
