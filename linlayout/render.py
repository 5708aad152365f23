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

from . import f2
from .errors import SizeError
from .layout import LinearLayout, _offsets

__all__ = ["layout_text", "grid_text", "owners", "owner_labels", "bank_grid_text", "pass_map_text"]

_ABBR = {"register": "r", "lane": "t", "warp": "w", "block": "b", "offset": "o"}


def layout_text(layout: LinearLayout) -> str:
    """A readable listing: one line per input dimension with its bases.

    >>> from linlayout import LinearLayout
    >>> print(layout_text(LinearLayout({"register": [[0, 1], [8, 0]], "warp": []}, {"dim0": 16, "dim1": 2})))
    LinearLayout register(4) x warp(1) -> dim0(16) x dim1(2)
      register: [(0, 1), (8, 0)]
      warp:     []
    """
    ins = " x ".join(f"{n}({s})" for n, s in layout.in_sizes.items()) or "()"
    outs = " x ".join(f"{n}({s})" for n, s in layout.out_sizes.items()) or "()"
    lines = [f"LinearLayout {ins} -> {outs}"]
    bases = layout.bases
    w = max((len(n) for n in bases), default=0) + 1
    for n, bl in bases.items():
        body = "[" + ", ".join("(" + ", ".join(str(x) for x in b) + ")" for b in bl) + "]"
        lines.append(f"  {(n + ':').ljust(w)} {body}")
    return "\n".join(lines)


def _abbreviations(names: tuple[str, ...]) -> list[str]:
    abbr = [_ABBR.get(n, n[0]) for n in names]
    if len(set(abbr)) != len(abbr):
        abbr = list(names)
    return abbr


def owners(layout: LinearLayout) -> dict[int, int]:
    """For each reachable flat output value, the flat input of its canonical owner.

    The owner is the solution with broadcast (free) bits set to 0 (only the
    earliest independent input bits are used).  Flat values put the first
    dimension in the lowest bits; unreached outputs are absent.

    >>> from linlayout import LinearLayout
    >>> owners(LinearLayout({"register": [[0]], "lane": [[1], [2]]}, {"dim0": 4}))   # register broadcasts
    {0: 0, 1: 2, 2: 4, 3: 6}
    """
    ech = f2._echelon_of(layout.flat_columns())[0]
    out = {}
    for y in range(layout.total_out_size):
        r, m = ech.reduce(y)
        if not r:
            out[y] = m
    return out


def owner_labels(layout: LinearLayout) -> dict[int, str]:
    """For each reachable flat output value, a label of its canonical owner.

    The owner is the solution with broadcast (free) bits set to 0.
    """
    sizes = [(n, b) for n, b in layout._ins if b]
    if len(sizes) == 1 and len(layout._ins) >= 1 and sizes[0][0] == "offset":
        def label(x: int) -> str:
            return str(x)
    else:
        abbr = dict(zip(layout.in_dims, _abbreviations(layout.in_dims)))

        def label(x: int) -> str:
            parts = []
            for n, b in sizes:
                parts.append(f"{abbr[n]}{x & ((1 << b) - 1)}")
                x >>= b
            return ":".join(reversed(parts)) if parts else "*"

    return {y: label(m) for y, m in owners(layout).items()}


def grid_text(layout: LinearLayout, max_side: int = 64) -> str:
    """The tensor as a text grid (``dim0`` rows, ``dim1`` columns), each cell its owner.

    Works for layouts with one or two output dimensions of at most
    ``max_side`` elements per side; unreached elements print ``.``.
    Raises :class:`SizeError` for larger tensors (use :meth:`LinearLayout.sublayout`
    or a smaller tile).
    """
    outs = layout._outs
    if len(outs) not in (1, 2):
        raise SizeError(
            f"a grid needs 1 or 2 output dimensions, the layout has {len(outs)}; "
            f"reshape_outs or sublayout it first"
        )
    if len(outs) == 1:
        rows_name, rbits = "-", 0
        cols_name, cbits = outs[0]
    else:
        (rows_name, rbits), (cols_name, cbits) = outs
    if max(rbits, cbits) > max_side.bit_length() - 1:
        raise SizeError(
            f"the tensor is {1 << rbits}x{1 << cbits}; grids are drawn up to {max_side} per side "
            f"(pass max_side or draw a sublayout)"
        )
    labels = owner_labels(layout)
    offs = _offsets(outs)
    w = max([len(s) for s in labels.values()] + [len(str((1 << cbits) - 1)), 1])
    head = f"{rows_name}\\{cols_name}"
    lw = max(len(head), len(str((1 << rbits) - 1)))
    lines = [head.rjust(lw) + " " + " ".join(str(c).rjust(w) for c in range(1 << cbits))]
    for r in range(1 << rbits):
        cells = []
        for c in range(1 << cbits):
            if len(outs) == 2:
                y = (r << offs[0]) | (c << offs[1])
            else:
                y = c
            cells.append(labels.get(y, ".").rjust(w))
        lines.append(str(r).rjust(lw) + " " + " ".join(cells))
    return "\n".join(lines)


def bank_grid_text(memory, element_bits: int, hardware=None, max_side: int = 64) -> str:
    """The tensor grid with each element's bank (the bank of its first word).

    ``memory`` is a memory layout (``offset`` → 1 or 2 tensor dims) or a
    padded layout.  Elements narrower than a word share its bank.

    >>> from linlayout.swizzles import unswizzled
    >>> print(bank_grid_text(unswizzled([2, 4]), 32))
    dim0\\dim1 0 1 2 3
            0 0 1 2 3
            1 4 5 6 7
    """
    from .hardware import get_hardware
    from .swizzles import PaddedLayout

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


def _ranges(xs) -> str:
    xs = sorted(xs)
    out = []
    i = 0
    while i < len(xs):
        j = i
        while j + 1 < len(xs) and xs[j + 1] == xs[j] + 1:
            j += 1
        out.append(str(xs[i]) if i == j else f"{xs[i]}-{xs[j]}")
        i = j + 1
    return ",".join(out)


def pass_map_text(result, only_conflicts: bool = False) -> str:
    """Per pass of one simulated instruction: which lanes hit which bank, conflicts marked.

    ``result`` is a :class:`linlayout.simulate.AccessResult`.  Each line is
    one bank: its words (word = byte address // 4) and the lanes reading
    each word; ``<-- N words`` marks a bank that must serve N distinct words.

    >>> from linlayout.simulate import simulate_access
    >>> r = simulate_access("ld.shared", "load", 4, [0] * 16 + [128] * 16)
    >>> print(pass_map_text(r))
    pass 0 (lanes 0-31): 2 wavefronts
      bank  0: word 0 [lanes 0-15], word 32 [lanes 16-31]  <-- 2 words
    """
    lines = []
    for i, p in enumerate(result.passes):
        lines.append(f"pass {i} (lanes {_ranges(p.lanes)}): {p.wavefronts} wavefront{'s' if p.wavefronts != 1 else ''}")
        for bank, words in p.words_per_bank.items():
            if only_conflicts and len(words) < 2:
                continue
            parts = [f"word {w} [lanes {_ranges(p.lanes_per_word.get(w, ()))}]" for w in words]
            mark = f"  <-- {len(words)} words" if len(words) > 1 else ""
            lines.append(f"  bank {bank:2d}: " + ", ".join(parts) + mark)
    return "\n".join(lines)
