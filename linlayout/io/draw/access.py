"""Pictures of one shared-memory instruction: which lane touches which bank, pass by pass, and the conflicts.

A warp's shared-memory instruction is served in **passes** (groups of lanes
the hardware serves together, :mod:`linlayout.count.plan`); within a pass a
bank serves one 4-byte word per wavefront, so a bank asked for two or more
different words is a **bank conflict** and costs extra wavefronts.

The access picture has one row per lane, grouped by pass (thick lines
between passes), and one column per bank.  A cell is filled where the lane
touches the bank and names the word (byte address // 4): sky blue when the
bank serves one word in that pass, vermilion, with the bank outlined over
the pass, when it serves several.  Right of each pass: its lanes, its
wavefronts and its banks in conflict.  The title gives the wavefronts.

* :func:`draw_access_offsets` draws an address query of ``linlayout
  conflicts`` (every lane's byte offset, simulated by
  :func:`~linlayout.count.simulate.simulate_access`).
* :func:`draw_access` draws a layout query (a distributed layout read from
  or written to a memory layout): the first instruction warp 0 issues, and
  in the title the count per warp
  (:func:`~linlayout.count.closed_form.wavefronts`, or the simulator for a
  padded memory).

The pieces (:func:`access_content`, :func:`draw_access_panel`, ...) also
draw the write and read rows of a swizzle picture (:mod:`.swizzle`).

Worked example: 32 lanes loading 4 bytes each, 128 bytes apart, all hit
bank 0: one pass of 32 wavefronts, where a conflict-free load takes 1.

>>> from linlayout.count.simulate import simulate_access
>>> res = simulate_access(None, "load", 4, [128 * lane for lane in range(32)])
>>> result_line(res)
'ld.shared (load), 4 bytes per lane: 32 wavefronts in 1 pass; conflict-free would be 1'
>>> fig = draw_access_offsets(None, "load", 4, [128 * lane for lane in range(32)])
>>> [ax.get_label() for ax in fig.axes]
['access']
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ...core.layout import LinearLayout
from ...core.memory import PaddedLayout
from ...core.text import format_ranges
from ...count.by_simulation import lane_byte_offsets, simulate_wavefronts
from ...count.closed_form import wavefronts
from ...count.simulate import simulate_access
from ...hw import get_hardware
from .figure import Panel, begin_picture, cell_size, compose, counted, import_matplotlib, join_lines, rc_params, save
from .glyphs import SvgLabels, fit_font
from .grid import col_numbers, draw_grid, draw_lines, row_numbers
from .palette import CONFLICT, ONE_WORD

__all__ = [
    "draw_access_offsets",
    "draw_access",
    "access_content",
    "draw_access_panel",
    "access_legend",
    "access_caption",
    "result_line",
    "report_line",
    "first_instruction",
]


def access_content(result: Any, hw: Any):
    """Lanes (grouped by pass) x banks: faces, word labels, conflict outlines and row order.

    Parameters
    ----------
    result
        A simulated instruction (:class:`~linlayout.count.simulate.AccessResult`).
    hw
        The bank model.

    Returns
    -------
    tuple
        ``(lanes, faces, labels, outlines)``: the lanes in row order (pass
        by pass), a colour and a word label per cell (row-major, ``None``
        and ``""`` where the lane does not touch the bank), and per bank in
        conflict ``(bank, first row, rows)`` of its pass.

    >>> from linlayout.count.simulate import simulate_access
    >>> from linlayout.hw import get_hardware
    >>> res = simulate_access(None, "load", 4, [128 * (lane % 2) for lane in range(32)])
    >>> lanes, faces, labels, outlines = access_content(res, get_hardware())
    >>> lanes[:3], labels[:2], labels[32], faces[0] == CONFLICT, outlines
    ([0, 1, 2], ['0', ''], '32', True, [(0, 0, 32)])
    """
    lanes = [l for p in result.passes for l in p.lanes]
    row_of = {l: k for k, l in enumerate(lanes)}
    nb = hw.banks
    faces: list[Any] = [None] * (len(lanes) * nb)
    labels = [""] * (len(lanes) * nb)
    outlines = []
    for p in result.passes:
        first = row_of[p.lanes[0]]
        for b, words in p.words_per_bank.items():
            hit = len(words) > 1
            if hit:
                outlines.append((b, first, len(p.lanes)))
            for w in words:
                for l in p.lanes_per_word.get(w, ()):
                    k = row_of[l] * nb + b
                    faces[k] = CONFLICT if hit else ONE_WORD
                    labels[k] = str(w)
    return lanes, faces, labels, outlines


def draw_access_panel(panel: Panel, result: Any, hw: Any, cell: float) -> None:
    """Draw one instruction into a panel placed by :func:`~.figure.compose` (``len(lanes)`` x ``hw.banks`` cells).

    The cells of :func:`access_content`, a black outline around each bank
    in conflict, thick lines between passes, and right of each pass a note
    (its lanes, wavefronts and banks in conflict; bold vermilion when there
    are conflicts).
    """
    from matplotlib.patches import Rectangle

    lanes, faces, labels, outlines = access_content(result, hw)
    ax = panel.ax
    nb = hw.banks
    texts = draw_grid(panel, faces, labels, cell, cols=col_numbers(nb, cell, list(range(nb))), xlabel="bank",
                      ylabel="lane", font_cap=7.0)
    for b, r0, n in outlines:
        ax.add_artist(Rectangle((b, r0), 1, n, fill=False, edgecolor="black", linewidth=1.3, zorder=4))
    row_of = {l: k for k, l in enumerate(lanes)}
    u = texts.unit
    for p in result.passes:
        r0 = row_of[p.lanes[0]]
        if r0:
            draw_lines(ax, [((-6 * u, r0), (nb + 6 * u, r0))], "black", 1.6)
        nconf = len(p.conflicts())
        note = f"lanes {format_ranges(p.lanes)}\n{counted(p.wavefronts, 'wavefront')}"
        if nconf:
            note += f"\n{counted(nconf, 'bank')} in conflict"
        ax.text(nb + 6 * u, r0 + len(p.lanes) / 2, note, ha="left", va="center", fontsize=7.5, clip_on=False,
                linespacing=1.25, color=CONFLICT if nconf else "black", fontweight="bold" if nconf else "normal")
    texts.draw(ax)


def access_legend() -> list:
    """The legend of an access picture: what sky blue and vermilion cells mean (matplotlib handles).

    >>> [h.get_label()[:12] for h in access_legend()]
    ['the bank ser', 'bank conflic']
    """
    from matplotlib.patches import Patch

    return [
        Patch(facecolor=ONE_WORD, edgecolor="none", label="the bank serves one word in this pass"),
        Patch(facecolor=CONFLICT, edgecolor="black", label="bank conflict: the bank serves 2+ words (outlined)"),
    ]


def access_caption(cell: float, labels: Sequence[str], short: bool = False) -> str:
    """The caption line of an access panel: what a row and a cell are, and whether labels were left out.

    Parameters
    ----------
    cell
        Inches per cell.
    labels
        The panel's word labels (:func:`access_content`).
    short
        Leave out what a row is (the swizzle picture says it once).

    >>> access_caption(0.3, ["12"], short=True)
    'cell: the word the lane touches in that bank'
    >>> access_caption(0.05, ["12"], short=True)
    'a filled cell: the lane touches that bank (word labels omitted: cells too small)'
    """
    if fit_font(labels, cell, 7.0) is None:
        return ("" if short else "each row a lane, in pass order; ") + "a filled cell: the lane touches that bank " \
            "(word labels omitted: cells too small)"
    if short:
        return "cell: the word the lane touches in that bank"
    return "each row a lane, in pass order; cell: the word (byte address // 4) the lane reads or writes in that bank"


def result_line(res: Any) -> str:
    """One instruction in words: instruction, bytes per lane, wavefronts, passes (see the module example)."""
    return (f"{res.instruction} ({res.op}), {res.access_bytes} bytes per lane: {counted(res.wavefronts, 'wavefront')} "
            f"in {counted(len(res.passes), 'pass', 'passes')}{' (merged)' if res.merged else ''}; "
            f"conflict-free would be {len(res.passes)}")


def _access_figure(res: Any, hw: Any, head: str, path: Any):
    """The figure of one access panel under the heading ``head``, written to ``path`` unless ``None``."""
    matplotlib, _, _ = import_matplotlib()
    lanes, _, labels, _ = access_content(res, hw)
    cell = cell_size(hw.banks, len(lanes), budget=8.5, largest=0.3)
    panel = Panel("access", len(lanes), hw.banks, right=1.45, title=access_caption(cell, labels),
                  row_labels=row_numbers(len(lanes), cell, lanes))
    with matplotlib.rc_context(rc_params()), SvgLabels(path):
        fig = compose([[panel]], cell, head, legend=access_legend())
        draw_access_panel(panel, res, hw, cell)
    if path is not None:
        save(fig, path)
    return fig


def draw_access_offsets(
    instruction: str | None,
    op: str | None,
    access_bytes: int,
    lane_byte_offsets: Sequence[int],
    hardware: Any = None,
    path: str | Path | None = None,
):
    """Draw one shared-memory instruction given every lane's byte offset.

    Parameters
    ----------
    instruction, op, access_bytes, lane_byte_offsets, hardware
        As for :func:`~linlayout.count.simulate.simulate_access` (an address query
        of ``linlayout conflicts``).
    path
        ``.png`` or ``.svg`` file to write, or ``None``.

    Returns
    -------
    matplotlib.figure.Figure
        One axes ``"access"``: a row per lane (grouped by pass, thick lines
        between passes), a column per bank.  A cell is filled where the lane
        touches the bank and names the word; sky blue when the bank serves
        one word in that pass, vermilion (and the bank outlined over the
        pass) when it serves several: a conflict.  The title gives the
        wavefronts.

    Raises
    ------
    AccessError, InstructionError
        Offsets or instruction the simulator rejects.
    MissingDependencyError
        matplotlib is not installed.
    """
    begin_picture(path)
    hw = get_hardware(hardware)
    res = simulate_access(instruction, op, access_bytes, lane_byte_offsets, hw)
    return _access_figure(res, hw, "one instruction: " + result_line(res), path)


def first_instruction(report: Any, layout: LinearLayout, memory: Any, element_bits: int, hw: Any):
    """The simulated first instruction of a report's plan.

    Parameters
    ----------
    report
        A count (:class:`~linlayout.count.closed_form.WavefrontReport`) of
        ``layout`` accessing ``memory``.
    layout, memory, element_bits, hw
        What was counted.

    Returns
    -------
    AccessResult
        The first instruction warp 0 issues
        (:func:`~linlayout.count.by_simulation.lane_byte_offsets`), simulated.

    >>> from linlayout import LinearLayout, unswizzled
    >>> from linlayout.hw import get_hardware
    >>> layout, memory = LinearLayout.identity(32, "lane", "dim0"), unswizzled([32])
    >>> rep = wavefronts(layout, memory, 32, "load")
    >>> first_instruction(rep, layout, memory, 32, get_hardware()).wavefronts
    1
    """
    vb = None if report.instruction.startswith(("ldmatrix", "stmatrix")) else report.vector_bits
    first = lane_byte_offsets(layout, memory, element_bits, report.op, report.instruction, vb, hw)[0]
    return simulate_access(report.instruction, report.op, report.access_bytes, first, hw)


def report_line(rep: Any) -> str:
    """A tile access in words: wavefronts per warp, instructions, wavefronts each, the conflict-free count.

    >>> from linlayout import LinearLayout, unswizzled
    >>> layout = LinearLayout.identity(32, "lane", "dim0")
    >>> report_line(wavefronts(layout, unswizzled([32]), 32, "load"))
    '1 wavefront per warp = 1 x ld.shared (4 B per lane), 1 each; conflict-free would be 1'
    """
    uniform = rep.per_instruction is None or len(set(rep.per_instruction)) <= 1
    each = (f"{rep.wavefronts_per_instruction} each" if uniform
            else "per instruction " + ", ".join(map(str, rep.per_instruction)))
    return (f"{counted(rep.wavefronts, 'wavefront')} per warp = {rep.instructions} x {rep.instruction} "
            f"({rep.access_bytes} B per lane), {each}; conflict-free would be {rep.ideal_wavefronts}")


def draw_access(
    layout: LinearLayout,
    memory: Any,
    element_bits: int,
    op: str | None = None,
    instruction: str | None = None,
    vector_bits: int | None = None,
    hardware: Any = "sm90",
    path: str | Path | None = None,
):
    """Draw the first instruction of a tile access, with the wavefronts per warp.

    Parameters
    ----------
    layout, memory, element_bits, op, instruction, vector_bits, hardware
        As for :func:`~linlayout.count.closed_form.wavefronts` (a layout query of
        ``linlayout conflicts``); ``memory`` may be a padded layout
        (counted with the simulator).
    path
        ``.png`` or ``.svg`` file to write, or ``None``.

    Returns
    -------
    matplotlib.figure.Figure
        :func:`draw_access_offsets`' picture of the first instruction that
        warp 0 issues (:func:`~linlayout.count.by_simulation.lane_byte_offsets`); the
        title adds the count per warp.
    """
    begin_picture(path)
    hw = get_hardware(hardware)
    fn = simulate_wavefronts if isinstance(memory, PaddedLayout) else wavefronts
    rep = fn(layout, memory, element_bits, op, instruction, vector_bits, hw)
    res = first_instruction(rep, layout, memory, element_bits, hw)
    head = join_lines(f"{rep.op} of a tile of {element_bits}-bit elements: {report_line(rep)}",
                      f"first instruction: {result_line(res)}")
    return _access_figure(res, hw, head, path)
