"""Comparing standard swizzles with the synthesized optimum, side by side.

A kernel author who must pick a TMA swizzle mode, a CuTe ``Swizzle<B,M,S>``
or Triton's default shared layout wants to know what each one costs for the
actual write and read layouts.  :func:`compare_swizzles` scores every
standard candidate that fits the tile with the exact counter (padding with
the simulator) and puts :func:`~linlayout.synth.synthesis.optimal_swizzle`'s
result next to them.

>>> from linlayout import LinearLayout
>>> SH = {"dim0": 16, "dim1": 32}
>>> store = LinearLayout({"register": [[1, 0], [2, 0], [4, 0], [8, 0]],
...                       "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]]}, SH)
>>> read = LinearLayout({"register": [[0, 2], [0, 4], [0, 8], [0, 16]],
...                      "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1]]}, SH)
>>> rows = {r.name: (r.write_wavefronts, r.read_wavefronts) for r in compare_swizzles(store, read, 32)}
>>> rows["optimal (linlayout)"], rows["row-major"], rows["TMA / NVMMA 128B swizzle"]
((16, 16), (16, 256), (16, 32))
"""

from __future__ import annotations

from typing import Any

from ..core.record import record
from ..errors import LinLayoutError
from ..core.layout import LinearLayout

__all__ = ["SwizzleScore", "compare_swizzles", "standard_candidates"]


@record
class SwizzleScore:
    """One candidate's cost: per-warp wavefronts and instructions of both sides (None if it cannot be used)."""

    name: str
    memory: Any  # LinearLayout or PaddedLayout
    write_wavefronts: int | None
    read_wavefronts: int | None
    write_instructions: int | None
    read_instructions: int | None
    method: str
    note: str = ""
    write_instruction: str | None = None  # the instruction each side uses on this memory (None: it cannot)
    read_instruction: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "write_wavefronts": self.write_wavefronts,
            "read_wavefronts": self.read_wavefronts,
            "write_instructions": self.write_instructions,
            "read_instructions": self.read_instructions,
            "write_instruction": self.write_instruction,
            "read_instruction": self.read_instruction,
            "method": self.method,
            "note": self.note,
        }


def standard_candidates(shape: list[int], element_bits: int) -> list[tuple[str, Any, str]]:
    """(name, memory layout, note) for the standard swizzles that fit a tile of this shape."""
    from ..catalog.swizzles import cute_layout, cute_swizzle, mma_swizzle, nvmma_layout, tma_swizzle
    from ..core.memory import padded, unswizzled

    out: list[tuple[str, Any, str]] = [("row-major", unswizzled(shape), "no swizzle")]
    if len(shape) == 2:
        out.append(("column-major", unswizzled(shape, order=[0, 1]), "no swizzle, dim0 contiguous"))
    eb = element_bits
    word = max(1, 32 // eb)
    out.append((f"padded +{word} (one 32-bit word per row)", padded(shape, word), "not linear: simulator"))
    vec16 = max(1, 128 // eb)
    if vec16 != word:
        out.append((f"padded +{vec16} (16 bytes per row)", padded(shape, vec16), "not linear: simulator"))
    if len(shape) != 2:
        return out
    rows, cols = shape
    for transposed in (False, True):
        for sw in (32, 64, 128):
            try:
                m = nvmma_layout(shape, eb, sw, transposed)
            except LinLayoutError:
                continue
            tag = " (dim0 contiguous)" if transposed else ""
            out.append((f"TMA / NVMMA {sw}B swizzle{tag}", m, "PTX swizzle mode, 16-byte atomicity"))
    row_bytes = cols * eb // 8
    if row_bytes == 128:
        for atom in (32, 64):
            try:
                out.append((f"TMA 128B swizzle, {atom}B atomicity", tma_swizzle(128, shape, eb, atom), "PTX sub-mode"))
            except LinLayoutError:
                pass
    # CUTLASS's SW32/SW64/SW128 atoms are byte-level CuTe swizzles (Swizzle<1..3,4,3> on byte addresses) of the
    # whole K-major (row-major) tile; in element units they are Swizzle<B, 4 - log2(bytes per element), 3>.
    for b, sw in ((3, 128), (2, 64), (1, 32)):
        try:
            m = cute_swizzle(b, 4, 3, cute_layout(shape, [cols, 1]), units="bytes", element_bits=eb)
        except LinLayoutError:
            continue
        z = eb.bit_length() - 4
        out.append((f"CuTe SW{sw} (Swizzle<{b},4,3> bytes = <{b},{4 - z},3> elements)", m,
                    "byte-level swizzle of the whole row-major tile"))
    # Triton's legacy swizzled layout (Def. 4.11) with the usual 128-byte-line parameters.
    vec = min(cols, vec16)
    per_phase = max(1, 128 // max(1, row_bytes))
    max_phase = max(1, min(cols // vec, 8 // per_phase))
    try:
        out.append(
            (f"mma swizzle vec={vec} per_phase={per_phase} max_phase={max_phase}",
             mma_swizzle(rows, cols, vec, per_phase, max_phase), "paper Def. 4.11 / Triton SwizzledSharedLayout")
        )
    except LinLayoutError:
        pass
    return out


def compare_swizzles(
    write: LinearLayout,
    read: LinearLayout,
    element_bits: int,
    hardware: Any = "sm90",
    objective: str = "balanced",
    vector_bits: int | None = None,
    instructions: Any = None,
) -> list[SwizzleScore]:
    """Score the optimum and every standard swizzle that fits the tile, best first by the objective.

    Each row gives per-warp wavefronts and instructions of both sides (closed
    form for linear layouts, the simulator for padding).  Every candidate is
    scored with the instructions the synthesis considers (``instructions``:
    the same list as for :func:`~linlayout.synth.synthesis.optimal_swizzle`,
    by default the policy's, :func:`linlayout.synth.policy.default_instructions`):
    each side uses its cheapest instruction on that memory (fewest wavefronts,
    then fewest instructions; the optimum's own instruction first among
    equals), with ``vector_bits`` for ld/st.  A candidate that one side cannot
    use with any of them (a misaligned padded row, say) has ``None`` costs and
    a note.
    """
    from ..core.memory import PaddedLayout
    from ..hw import get_hardware
    from ..synth.synthesis import instruction_options, objective_key, optimal_swizzle

    res = optimal_swizzle(write, read, element_bits, hardware=hardware, objective=objective, vector_bits=vector_bits,
                          instructions=instructions)
    hw = get_hardware(hardware)
    w_opts, r_opts = instruction_options(instructions, element_bits, hw)
    rows = [
        SwizzleScore("optimal (linlayout)", res.memory, res.write_wavefronts, res.read_wavefronts,
                     res.write_instructions, res.read_instructions, "closed form",
                     "proven optimal" if res.optimal else "best found", res.write_instruction, res.read_instruction)
    ]
    shape = list(write.out_sizes.values())
    for name, mem, note in standard_candidates(shape, element_bits):
        method = "simulation" if isinstance(mem, PaddedLayout) else "closed form"
        try:
            w = cheapest_access(write, mem, element_bits, "store", (res.write_instruction,) + w_opts, vector_bits, hw)
            r = cheapest_access(read, mem, element_bits, "load", (res.read_instruction,) + r_opts, vector_bits, hw)
        except LinLayoutError as e:
            rows.append(SwizzleScore(name, mem, None, None, None, None, "-", f"{note}; cannot be used: {e}"))
            continue
        rows.append(SwizzleScore(name, mem, w.wavefronts, r.wavefronts, w.instructions, r.instructions, method, note,
                                 w.instruction, r.instruction))

    def key(s: SwizzleScore):
        if s.write_wavefronts is None:
            return (1, 0, 0)
        return (0,) + objective_key(objective, s.write_wavefronts, s.read_wavefronts)

    first, rest = rows[0], sorted(rows[1:], key=key)
    return [first] + rest


def cheapest_access(layout: LinearLayout, memory: Any, element_bits: int, op: str, options, vector_bits: int | None,
                    hw: Any):
    """The report of the cheapest of ``options`` (instruction names or :class:`~linlayout.hw.Instruction`) for one
    side on ``memory``: fewest wavefronts, then fewest instructions, the first among equals; ``vector_bits`` applies
    to ld/st.  Raises the first option's error when none can access it."""
    from ..count.by_simulation import simulate_wavefronts
    from ..count.closed_form import wavefronts
    from ..core.memory import PaddedLayout
    from ..hw import parse_instruction

    count = simulate_wavefronts if isinstance(memory, PaddedLayout) else wavefronts
    best, first_error = None, None
    for option in dict.fromkeys(getattr(o, "name", o) for o in options):
        matrix = parse_instruction(option).is_matrix
        try:
            rep = count(layout, memory, element_bits, op, option, None if matrix else vector_bits, hardware=hw)
        except LinLayoutError as e:
            first_error = first_error or e
            continue
        if best is None or (rep.wavefronts, rep.instructions) < (best.wavefronts, best.instructions):
            best = rep
    if best is None:
        raise first_error
    return best


def comparison_text(rows: list[SwizzleScore]) -> str:
    """A table of :func:`compare_swizzles` rows."""
    w = max(len(r.name) for r in rows)
    lines = [f"{'layout'.ljust(w)}  write  read  (wavefronts per warp; instructions)  note"]
    for r in rows:
        if r.write_wavefronts is None:
            lines.append(f"{r.name.ljust(w)}      -     -  {r.note}")
            continue
        lines.append(
            f"{r.name.ljust(w)}  {r.write_wavefronts:5d} {r.read_wavefronts:5d}  "
            f"({r.write_instructions} {r.write_instruction} + {r.read_instructions} {r.read_instruction}, {r.method})  "
            f"{r.note}"
        )
    return "\n".join(lines)
