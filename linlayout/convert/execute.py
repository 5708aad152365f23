"""A CPU executor: run a conversion program on every thread and check every destination slot.

The executor is deliberately literal.  Each thread starts with the elements
``src`` gives it (an element is its flat tensor index); it then runs the
plan's program -- a register renaming/select, shuffle rounds (every thread
offers the word of its round, reads the word of the lane the round names and
unpacks it into the registers the round fills), or a shared-memory round trip
(write every element at the offset the memory layout gives it, barrier, read)
-- and the result is compared with ``dst`` slot by slot.  It uses only the
program's published formulas, never the conversion map that produced them.

>>> from linlayout.core.layout import LinearLayout
>>> from linlayout.convert.plan import plan_conversion
>>> src = LinearLayout({"register": [[1]], "lane": [[2], [4], [8], [16], [32]]}, {"dim0": 64})
>>> dst = LinearLayout({"register": [[2]], "lane": [[1], [4], [8], [16], [32]]}, {"dim0": 64})
>>> p = plan_conversion(src, dst, 32)
>>> execute(p, src, dst)
True
"""

from __future__ import annotations

from ..core import f2
from ..core.layout import LinearLayout
from ..errors import ExecutionError, InputError
from .solve import aligned, index_bits

__all__ = ["run", "execute", "ExecutionError"]


def _threads(hw):
    nl = hw.lane
    no = hw.warp + hw.block
    return [(lane, om) for om in range(1 << no) for lane in range(1 << nl)]


def run(plan, src: LinearLayout, dst: LinearLayout,
        start: dict[tuple[int, int], list[int]] | None = None) -> dict[tuple[int, int], list[int]]:
    """Run ``plan`` on ``src``'s data (or on ``start``, each thread's registers); return each thread's destination registers.

    A multi-step plan runs its steps one after the other, each on the registers the previous one left.
    """
    dst = aligned(src, dst)
    sh, scols = index_bits(src, "src")
    dh, _ = index_bits(dst, "dst")
    regs = {}
    for lane, om in _threads(sh):
        hi = (lane << sh.reg) | (om << (sh.reg + sh.lane))
        regs[(lane, om)] = [f2.apply(scols, q | hi) for q in range(1 << sh.reg)]
    if start is not None:
        regs = {k: list(v) for k, v in start.items()}
    if plan.path == "multistep":
        cur, layout = regs, src
        for target, step in plan.steps:
            cur = run(step, layout, target, cur)
            layout = target
        return cur
    out: dict[tuple[int, int], list[int]] = {}
    if plan.path == "none":
        return regs
    if plan.path == "registers":
        prog = plan.registers
        for (lane, om), r in regs.items():
            out[(lane, om)] = [r[prog.source_register(reg, lane, om)] for reg in range(1 << dh.reg)]
        return out
    if plan.path == "shuffles":
        prog = plan.shuffles
        nl = 1 << sh.lane
        for om in range(1 << (sh.warp + sh.block)):
            received: dict[int, dict[int, tuple[int, ...]]] = {lane: {} for lane in range(nl)}
            for k in range(1 << prog.round_bits):
                offered = {s: tuple(regs[(s, om)][q] for q in prog.word_registers(prog.send_word(k, s, om)))
                           for s in range(nl)}
                for lane in range(nl):
                    src_lane = prog.source_lane(k, lane, om)
                    if k in prog.self_rounds and src_lane != lane:
                        raise ExecutionError(f"round {k} is marked local but lane {lane} reads lane {src_lane}")
                    received[lane][k] = offered[src_lane]
            for lane in range(nl):
                vals = []
                for reg in range(1 << dh.reg):
                    k, j = prog.dst_round(reg, lane)
                    vals.append(received[lane][k][j])
                out[(lane, om)] = vals
        return out
    if plan.path == "shared_memory":
        sm = plan.shared_memory
        src_regs = [[q for q in range(1 << sh.reg) if sm.src_rep(q) == rep] for rep in range(sm.reps)]
        dst_regs = [[r for r in range(1 << dh.reg) if sm.dst_rep(r) == rep] for rep in range(sm.reps)]
        _, dcols = index_bits(dst, "dst")
        for rep in range(sm.reps):
            memory: dict[int, int] = {}
            for (lane, om), r in regs.items():
                for q in src_regs[rep]:
                    off = sm.offset(r[q])
                    if off in memory and memory[off] != r[q]:
                        raise ExecutionError(f"two different elements written to offset {off}")
                    memory[off] = r[q]
            for lane, om in _threads(dh):
                vals = out.setdefault((lane, om), [None] * (1 << dh.reg))
                hi = (lane << dh.reg) | (om << (dh.reg + dh.lane))
                for reg in dst_regs[rep]:
                    vals[reg] = memory.get(sm.offset(f2.apply(dcols, reg | hi)))
        return out
    raise InputError(f"cannot execute a plan with path {plan.path!r}")


def execute(plan, src: LinearLayout, dst: LinearLayout) -> bool:
    """Run ``plan`` and check every destination slot; True, or :class:`ExecutionError` naming the first wrong slot."""
    dsta = aligned(src, dst)
    dh, dcols = index_bits(dsta, "dst")
    got = run(plan, src, dsta)
    for lane, om in _threads(dh):
        hi = (lane << dh.reg) | (om << (dh.reg + dh.lane))
        vals = got[(lane, om)]
        for reg in range(1 << dh.reg):
            want = f2.apply(dcols, reg | hi)
            if vals[reg] != want:
                raise ExecutionError(
                    f"path {plan.path}: lane {lane}, warp/block {om}, register {reg} holds {vals[reg]} instead of {want}")
    return True
