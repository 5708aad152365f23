"""Rendering layouts as text: bases listings and tensor grids.

The grid view follows the paper's figures: the tensor is drawn with ``dim0``
as rows and ``dim1`` as columns, and each cell names the hardware index that
owns the element, major dimension first (``w0:t9:r1``).  With broadcast (several owners) the cell shows the owner
whose broadcast bits are all 0.  Labels abbreviate the standard dimensions
(``register`` → ``r``, ``lane`` → ``t`` for thread, ``warp`` → ``w``,
``block`` → ``b``); a single ``offset`` dimension prints bare numbers.

>>> from linlayout import LinearLayout
>>> L = LinearLayout({"register": [[0, 1]], "lane": [[0, 2], [1, 0]]}, {"dim0": 2, "dim1": 4})
>>> print(grid_text(L))
dim0\\dim1     0     1     2     3
        0 t0:r0 t0:r1 t1:r0 t1:r1
        1 t2:r0 t2:r1 t3:r0 t3:r1
"""

from __future__ import annotations

from ..core.text import format_ranges, grid_text, layout_text, owner_labels, owners
from ..errors import SizeError

__all__ = ["layout_text", "grid_text", "owners", "owner_labels", "bank_grid_text", "pass_map_text"]
# Also public by module path: grid_choice and GRID_CELLS (when the CLI prints a grid).

def bank_grid_text(memory, element_bits: int, hardware=None, max_side: int = 64) -> str:
    """The tensor grid with each element's bank (the bank of its first word).

    ``memory`` is a memory layout (``offset`` → 1 or 2 tensor dims) or a
    padded layout.  Elements narrower than a word share its bank.

    >>> from linlayout.core.memory import unswizzled
    >>> print(bank_grid_text(unswizzled([2, 4]), 32))
    dim0\\dim1 0 1 2 3
            0 0 1 2 3
            1 4 5 6 7
    """
    from ..hw import get_hardware
    from ..core.memory import PaddedLayout

    hw = get_hardware(hardware)
    outs = list(memory.out_sizes.items())
    if len(outs) not in (1, 2):
        raise SizeError(f"a bank grid needs 1 or 2 tensor dimensions, the memory has {len(outs)}")
    if isinstance(memory, PaddedLayout):
        def offset(c):
            return memory.offset(c)
    else:
        inv = memory.invert()

        def offset(c):
            return inv.apply(c)["offset"]

    if len(outs) == 1:
        (cn, cs), (rn, rs) = outs[0], ("-", 1)
    else:
        (rn, rs), (cn, cs) = outs
    if max(rs, cs) > max_side:
        raise SizeError(f"the tensor is {rs}x{cs}; bank grids are drawn up to {max_side} per side")
    cells = {}
    for r in range(rs):
        for c in range(cs):
            coords = {cn: c} if len(outs) == 1 else {rn: r, cn: c}
            cells[r, c] = str(hw.bank_of((offset(coords) * element_bits) >> 3))
    w = max(len(v) for v in cells.values())
    w = max(w, len(str(cs - 1)))
    head = f"{rn}\\{cn}"
    lw = max(len(head), len(str(rs - 1)))
    lines = [head.rjust(lw) + " " + " ".join(str(c).rjust(w) for c in range(cs))]
    for r in range(rs):
        lines.append(str(r).rjust(lw) + " " + " ".join(cells[r, c].rjust(w) for c in range(cs)))
    return "\n".join(lines)


def pass_map_text(result, only_conflicts: bool = False) -> str:
    """Per pass of one simulated instruction: which lanes hit which bank, conflicts marked.

    ``result`` is a :class:`linlayout.count.simulate.AccessResult`.  Each line is
    one bank: its words (word = byte address // 4) and the lanes reading
    each word; ``<-- N words`` marks a bank that must serve N distinct words.

    >>> from linlayout.count.simulate import simulate_access
    >>> r = simulate_access("ld.shared", "load", 4, [0] * 16 + [128] * 16)
    >>> print(pass_map_text(r))
    pass 0 (lanes 0-31): 2 wavefronts
      bank  0: word 0 [lanes 0-15], word 32 [lanes 16-31]  <-- 2 words
    """
    lines = []
    for i, p in enumerate(result.passes):
        lines.append(f"pass {i} (lanes {format_ranges(p.lanes)}): {p.wavefronts} wavefront{'s' if p.wavefronts != 1 else ''}")
        for bank, words in p.words_per_bank.items():
            if only_conflicts and len(words) < 2:
                continue
            parts = [f"word {w} [lanes {format_ranges(p.lanes_per_word.get(w, ()))}]" for w in words]
            mark = f"  <-- {len(words)} words" if len(words) > 1 else ""
            lines.append(f"  bank {bank:2d}: " + ", ".join(parts) + mark)
    return "\n".join(lines)


GRID_CELLS = 1024
"""Without ``--grid``, a tensor grid is printed only up to this many elements (32 x 32, 16 x 64)."""


def grid_choice(sizes: dict[str, int], flag: str | None) -> str | None:
    """Whether to print a tensor grid: ``None`` to print it, else the one line that says why not and how to see it.

    ``""`` (print nothing) for ``--no-grid``.  ``flag`` is ``"no-grid"``, ``"grid"`` (print any 1-D or 2-D grid) or ``None`` (the default: print 1-D and
    2-D grids of at most :data:`GRID_CELLS` elements).

    >>> grid_choice({"dim0": 16, "dim1": 32}, None) is None
    True
    >>> grid_choice({"dim0": 64, "dim1": 64}, None)
    '(grid not printed: 64 x 64 elements, more than 1024; --grid prints it, --no-grid silences this line)'
    """
    dims = list(sizes.values())
    shape = " x ".join(str(s) for s in dims) or "no"
    if flag == "no-grid":
        return ""
    if not 1 <= len(dims) <= 2:
        return f"(no grid: the tensor has {len(dims)} dimensions; grids are drawn for 1 or 2)"
    cells = 1
    for s in dims:
        cells *= s
    if flag == "grid" or cells <= GRID_CELLS:
        return None
    return f"(grid not printed: {shape} elements, more than {GRID_CELLS}; --grid prints it, --no-grid silences this line)"
