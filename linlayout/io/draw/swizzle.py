"""The swizzle picture: a synthesized shared-memory layout beside the row-major one it replaces.

A swizzle query (``linlayout swizzle``) names a tile, the distributed layout
that writes it to shared memory and the one that reads it back;
:func:`~linlayout.synth.synthesis.optimal_swizzle` picks the memory layout
(and the instructions) that minimise the bank conflicts of both.  The
picture puts the answer next to the baseline: two columns, **before**
(row-major :func:`~linlayout.core.memory.unswizzled` with
``st.shared``/``ld.shared``, as
:func:`~linlayout.synth.compare.compare_swizzles` scores it) and **after**
(the synthesized memory and instructions), and three rows:

1. the physical view of shared memory (:mod:`.physical`): where each tensor
   element lives, at most 32 rows of 128 bytes;
2. the first write instruction, and
3. the first read instruction, each as in :mod:`.access` (lanes by pass x
   banks, conflicts in vermilion), titled with the wavefronts per warp.

The heading compares the totals: ``write + read`` wavefronts per warp,
row-major (left) and synthesized (right).  A side that cannot be used (an
instruction that does not fit the layout) says why in place of its panel.
The axes are labelled ``"memory before"``, ``"write before"``, ``"read
before"``, and the same with ``after``.

Worked example: an 8x8 fp32 tile written by rows and read by columns.
Row-major, the read takes 4 wavefronts per warp where 2 are conflict-free;
the synthesized swizzle needs 2.

>>> from linlayout import LinearLayout
>>> rows = LinearLayout({"register": [[4, 0]], "lane": [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0]]},
...                     {"dim0": 8, "dim1": 8})
>>> cols = LinearLayout({"register": [[0, 4]], "lane": [[1, 0], [2, 0], [4, 0], [0, 1], [0, 2]]},
...                     {"dim0": 8, "dim1": 8})
>>> fig = draw_swizzle(rows, cols, 32)
>>> print(fig.texts[-1].get_text())
swizzle for a dim0(8) x dim1(8) tile of 32-bit elements
wavefronts per warp: write 2 + read 4 row-major (left), write 2 + read 2 synthesized (right)
>>> [ax.get_label() for ax in fig.axes if not ax.get_label().endswith("colour bar")]
['memory before', 'memory after', 'write before', 'write after', 'read before', 'read after']
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ...core.layout import LinearLayout
from ...core.memory import unswizzled
from ...count.closed_form import wavefronts
from ...errors import LinLayoutError
from ...hw import get_hardware
from ...synth.synthesis import optimal_swizzle
from .access import access_caption, access_content, access_legend, draw_access_panel, first_instruction, report_line
from .figure import Panel, begin_picture, cell_size, compose, counted, join_lines, rc_params, save
from .glyphs import SvgLabels, fit_font
from .grid import row_numbers
from .physical import draw_physical_panel, physical_content, physical_view

__all__ = ["draw_swizzle"]


def draw_swizzle(
    write: LinearLayout,
    read: LinearLayout,
    element_bits: int,
    hardware: Any = "sm90",
    objective: str = "balanced",
    vector_bits: int | None = None,
    instructions: Sequence[str] | None = None,
    path: str | Path | None = None,
    *,
    max_side: int = 64,
):
    """Draw a synthesized swizzle beside the row-major layout: the memory, the first write, the first read.

    Parameters
    ----------
    write, read, element_bits, hardware, objective, vector_bits, instructions
        As for :func:`~linlayout.synth.synthesis.optimal_swizzle` (a
        ``linlayout swizzle`` query).
    path
        ``.png`` or ``.svg`` file to write, or ``None``.
    max_side
        At most ``min(max_side, 32)`` rows of shared memory are drawn.

    Returns
    -------
    matplotlib.figure.Figure
        Two columns, before (row-major :func:`~linlayout.core.memory.unswizzled`
        with ``st.shared``/``ld.shared``, as
        :func:`~linlayout.synth.compare.compare_swizzles` scores it) and after (the
        synthesized memory and instructions); three rows, the physical view
        (as in :func:`~.layouts.draw_memory`), the first write instruction and the
        first read instruction (as in :func:`~.access.draw_access_offsets`), each
        titled with its wavefronts per warp.  Axes labels ``"memory
        before"``, ``"write before"``, ``"read before"``, and the same with
        ``after``.
    """
    matplotlib = begin_picture(path, max_side)
    hw = get_hardware(hardware)
    res = optimal_swizzle(write, read, element_bits, hardware=hw, objective=objective, vector_bits=vector_bits,
                          instructions=instructions)
    shape = list(write.out_sizes.values())
    mems = {"before": LinearLayout({"offset": unswizzled(shape).bases["offset"]}, write.out_sizes),
            "after": res.memory}
    sides = side_reports(write, read, mems, res, element_bits, hw)
    phys = {n: physical_view(m, element_bits, hw, min(max_side, 32)) for n, m in mems.items()}
    cell = cell_size(2 * hw.banks, budget=13.0, largest=0.24)
    shown = memory_contents(mems, phys, cell)
    what = {"before": "row-major, no swizzle",
            "after": "synthesized swizzle" + (", proven optimal" if res.optimal else "")}
    rows: list[list[Panel]] = [[], [], []]
    for name in SIDES_OF_THE_PICTURE:
        p = phys[name]
        rows[0].append(Panel(f"memory {name}", p.nrows, p.banks, colorbar=True,
                             title=join_lines(f"{name.upper()}: {what[name]}", shown[name][2], p.note),
                             row_labels=row_numbers(p.nrows, cell, list(range(p.nrows)))))
        for i, side in ACCESS_ROWS:
            rows[i].append(access_panel(side, name, sides[side, name], hw, cell))
    with matplotlib.rc_context(rc_params()), SvgLabels(path):
        fig = compose(rows, cell, heading(write, element_bits, sides), legend=access_legend())
        for j, name in enumerate(SIDES_OF_THE_PICTURE):
            faces, labels, _ = shown[name]
            draw_physical_panel(fig, rows[0][j], mems[name], phys[name], element_bits, hw, cell, faces, labels)
            for i, side in ACCESS_ROWS:
                rep, first = sides[side, name]
                if rep is None:
                    rows[i][j].ax.set_axis_off()
                else:
                    draw_access_panel(rows[i][j], first, hw, cell)
    if path is not None:
        save(fig, path)
    return fig


SIDES_OF_THE_PICTURE = ("before", "after")
"""The two columns: the row-major baseline and the synthesized memory."""

ACCESS_ROWS = ((1, "write"), (2, "read"))
"""The picture's rows below the memory: (row index, side of the query)."""

SideReport = tuple[Any, Any]
"""(wavefront report, first instruction) of one side, or (None, why it cannot be used)."""


def side_reports(write: LinearLayout, read: LinearLayout, mems: dict[str, LinearLayout], res: Any,
                 element_bits: int, hw: Any) -> dict[tuple[str, str], SideReport]:
    """The write and the read counted on each memory, keyed by (side, column).

    The synthesized column shows the synthesis result's own reports.  The
    row-major column counts the same instruction as the synthesized one, so
    that only the memory layout changes; where that instruction needs the
    swizzle (``ldmatrix``'s matrix rows, say), the default instruction.
    """
    sides: dict[tuple[str, str], SideReport] = {}
    for name, mem in mems.items():
        for k, (side, lay, op) in enumerate((("write", write, "store"), ("read", read, "load"))):
            synthesized = (res.write, res.read)[k]
            try:
                if name == "after":
                    rep = synthesized
                else:
                    try:
                        rep = wavefronts(lay, mem, element_bits, op, synthesized.instruction, hardware=hw)
                    except LinLayoutError:
                        rep = wavefronts(lay, mem, element_bits, op, hardware=hw)
                sides[side, name] = (rep, first_instruction(rep, lay, mem, element_bits, hw))
            except LinLayoutError as e:
                sides[side, name] = (None, " ".join(str(e).split()))
    return sides


def memory_contents(mems: dict[str, LinearLayout], phys: dict[str, Any], cell: float) -> dict[str, tuple]:
    """(faces, labels, caption) of each memory panel; labels on neither side if one side's do not fit,
    so that the two memories read alike."""
    shown = {name: physical_content(mems[name], phys[name], cell) for name in SIDES_OF_THE_PICTURE}
    bare = [shown[n] for n in shown if fit_font(shown[n][1], cell, width=phys[n].width) is None]
    if bare:
        shown = {name: (f, [""] * len(lab), bare[0][2]) for name, (f, lab, _) in shown.items()}
    return shown


def access_panel(side: str, name: str, report: SideReport, hw: Any, cell: float) -> Panel:
    """The panel of one side's first instruction in one column, or a titled blank saying why it cannot be used."""
    rep, first = report
    if rep is None:
        return Panel(f"{side} {name}", 1, hw.banks, title=f"{side}, {name}: cannot be used: {first}")
    lanes, _, alabels, _ = access_content(first, hw)
    return Panel(
        f"{side} {name}", len(lanes), hw.banks, right=1.45,
        title=join_lines(f"{side.upper()}, {name}: {report_line(rep)}",
                         f"first instruction: {counted(first.wavefronts, 'wavefront')} in "
                         f"{counted(len(first.passes), 'pass', 'passes')}; "
                         + access_caption(cell, alabels, True)),
        row_labels=row_numbers(len(lanes), cell, lanes))


def heading(write: LinearLayout, element_bits: int, sides: dict[tuple[str, str], SideReport]) -> str:
    """The picture's title: the tile, and write + read wavefronts per warp in each column."""
    def total(name: str) -> str:
        w, r = sides["write", name][0], sides["read", name][0]
        return f"write {w.wavefronts if w else '-'} + read {r.wavefronts if r else '-'}"

    outs = " x ".join(f"{n}({s})" for n, s in write.out_sizes.items())
    return join_lines(f"swizzle for a {outs} tile of {element_bits}-bit elements",
                      f"wavefronts per warp: {total('before')} row-major (left), {total('after')} synthesized (right)")
