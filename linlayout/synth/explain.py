"""The human explanation of a synthesized swizzle (which directions were protected, paired, and why)."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["explain", "unflat"]


def unflat(v: int, outs: Sequence[tuple[str, int]]) -> tuple[int, ...]:
    out = []
    for _, bits in outs:
        out.append(v & ((1 << bits) - 1))
        v >>= bits
    return tuple(out)


def explain(best, sides, geo, lb, optimal, relaxed, objective, outs) -> str:
    def fmt(vs):
        return "[" + ", ".join(str(unflat(v, outs)) for v in vs) + "]" if vs else "none"

    lines = []
    if best.write_instruction.is_matrix or best.read_instruction.is_matrix:
        lines.append(f"instructions: {best.write_instruction.name} (write), {best.read_instruction.name} (read); the matrix tile "
                     f"fixes the low offsets {fmt(best.low_block)}")
    if best.vector:
        lines.append(f"vector: {1 << len(best.vector)} elements along the common register directions {fmt(best.vector)} "
                     f"({geo.element_bits << len(best.vector)}-bit accesses on both sides before any extension)")
    else:
        lines.append(f"vector: none (no register direction is common to both sides); {geo.element_bits}-bit accesses")
    if best.extension:
        lines.append(f"extension: {best.extended} registers {fmt(best.extension)} follow the vector, so the "
                     f"{best.extended} side moves {geo.element_bits << (len(best.vector) + len(best.extension))} bits per access")
    if best.word_fill:
        lines.append(f"word fill: {fmt(best.word_fill)} (lanes that differ only there read the same 32-bit word)")
    # Pass lanes outside the low block, per side, as masks (every direction of a distributed side is a unit vector).
    tw, tr = best.pass_lanes.get("write", 0), best.pass_lanes.get("read", 0)
    if best.mixed:  # mixed bases: columns by role, no unit-vector classification
        if best.bank:
            lines.append(f"bank: {fmt(best.bank)}")
        if best.segment:
            lines.append(f"segment: {fmt(best.segment)} (mixed bases: built from the pass-lane subspaces, then "
                         f"improved by exact column moves)")
        tw = tr = 0
    both = [x for x in best.bank if x & tw and x & tr]
    if both:
        lines.append(f"protected: lanes active in one pass on both sides {fmt(both)} stay in bank bits")
    pairs = [x for x in best.segment if x.bit_count() == 2] if not best.mixed else []
    if pairs:
        lines.append(f"paired in the segment bits (write lane ^ read lane, a conflict on neither side): {fmt(pairs)}")
    free = [x for x in best.segment if x.bit_count() == 1 and not x & (tw | tr) and not best.mixed]
    if free:
        lines.append(f"segment directions that vary within no pass (registers, warps, pass-selecting lanes): {fmt(free)}")
    forced = [x for x in best.segment if x.bit_count() == 1 and x & (tw | tr)]
    if forced:
        lines.append(f"lanes forced into segment bits (more lanes per pass than bank bits): {fmt(forced)}")
    wc, rc = best.write_cost, best.read_cost
    lines.append(
        f"write: {wc.total} wavefronts ({wc.instructions} x {best.write_instruction.name}, {wc.per_instruction} each); "
        f"read: {rc.total} ({rc.instructions} x {best.read_instruction.name}, {rc.per_instruction} each)"
    )
    lines.append(
        f"lower bounds (each side alone, any memory layout): write {lb.get('write')}, read {lb.get('read')}; "
        + ("proven optimal for the '" + objective + "' objective" if optimal else
           f"not proven optimal (best bound pair {relaxed}"
           + (f", gap {best.write_cost.total - relaxed[0]} + {best.read_cost.total - relaxed[1]} wavefronts)"
              if relaxed else ")"))
    )
    return "\n".join(lines)



