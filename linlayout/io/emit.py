"""Emitting memory layouts for code: Triton Gluon, CuTe, and a C offset function.

A memory layout maps ``offset`` (element offsets) to tensor coordinates.  A
kernel needs the other direction, coordinates to offset, which is the
inverse: a XOR of shifted, masked coordinate bits.  This module writes it in
the forms compilers and kernel authors use:

* :func:`to_triton`: Gluon's ``SharedLinearLayout(offset_bases=...)`` always,
  and ``SwizzledSharedLayout(vec, per_phase, max_phase, order)`` or
  ``NVMMASharedLayout(swizzle_byte_width, ...)`` when the layout equals one.
* :func:`to_cute`: ``composition(Swizzle<B,M,S>{}, Layout<Shape, Stride>{})``
  when the layout is a single CuTe swizzle of a row- or column-major tile,
  otherwise the reason it is not.
* :func:`to_c`: a C function ``offset(dim0, dim1, ...)`` using XORs, shifts
  and masks only, callable from CUDA host and device code (``__host__
  __device__`` under nvcc, through ``LINLAYOUT_HD``) and from plain C::

      static inline LINLAYOUT_HD unsigned offset(unsigned dim0, unsigned dim1) {
          return ((dim0 & 0xfu) << 1) ^ ((dim0 & 0xfu) << 5) ^ ((dim1 & 0x1fu) << 0);
      }

  is ``32 m + (n ^ 2 m)`` for ``(dim0, dim1) = (m, n)``.

>>> from linlayout.catalog.swizzles import mma_swizzle
>>> M = mma_swizzle(16, 32, vec=2, per_phase=1, max_phase=16)
>>> print(to_c(M).splitlines()[-2].strip())
return ((dim0 & 0xfu) << 1) ^ ((dim0 & 0xfu) << 5) ^ ((dim1 & 0x1fu) << 0);
"""

from __future__ import annotations

import re

from ..core.record import record
from ..errors import DimensionError, InputError, InputTypeError, LinLayoutError, SizeError
from ..core.layout import LinearLayout

__all__ = ["CuteForm", "TritonForm", "to_c", "to_cute", "to_triton", "offset_terms"]
# Also public by module path: CuteChain and cute_chain (the general CuTe form), check_c_identifier.


def _check_memory(memory: LinearLayout) -> LinearLayout:
    if not isinstance(memory, LinearLayout) or memory.in_dims != ("offset",):
        raise DimensionError("expected a memory layout with one input dimension 'offset'")
    return memory.invert()


def offset_terms(memory: LinearLayout) -> list[tuple[str, int, int]]:
    """The inverse map as ``(dim, mask, shift)`` terms: offset = XOR of ``(dim & mask) << shift``.

    A negative shift means a right shift.  Terms are sorted by dimension, then shift.

    >>> from linlayout.catalog.swizzles import mma_swizzle
    >>> offset_terms(mma_swizzle(4, 4, 1, 1, 4))
    [('dim0', 3, 0), ('dim0', 3, 2), ('dim1', 3, 0)]
    """
    inv = _check_memory(memory)
    terms: dict[tuple[str, int], int] = {}
    for dim in inv.in_dims:
        for t, col in enumerate(inv.flat_bases(dim)):
            p = 0
            while col:
                if col & 1:
                    terms[(dim, p - t)] = terms.get((dim, p - t), 0) | (1 << t)
                col >>= 1
                p += 1
    return sorted(((d, m, s) for (d, s), m in terms.items()), key=lambda x: (x[0], x[2]))


C_KEYWORDS = frozenset(
    "auto bool break case char const continue default do double else enum extern float for goto if inline int long "
    "register restrict return short signed sizeof static struct switch typedef union unsigned void volatile while "
    "alignas alignof asm catch class constexpr decltype delete explicit export false friend mutable namespace new "
    "noexcept nullptr operator private protected public template this throw true try typeid typename using virtual".split())
"""Words of C and C++ that cannot name an emitted function or argument."""


def check_c_identifier(name: object, what: str = "name") -> str:
    """``name`` when it can name a C/C++/CUDA function or variable, else :class:`InputError` saying how to fix it.

    >>> check_c_identifier("swizzled_offset")
    'swizzled_offset'
    >>> check_c_identifier("1 bad name")
    Traceback (most recent call last):
    ...
    linlayout.errors.InputError: name '1 bad name' is not a C identifier: use letters, digits and '_', not starting with a digit (e.g. 'offset')
    """
    if not isinstance(name, str):
        raise InputTypeError(f"{what} must be a string (a C identifier), got {name!r} ({type(name).__name__})")
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise InputError(f"{what} {name!r} is not a C identifier: use letters, digits and '_', not starting with a "
                         f"digit (e.g. 'offset')")
    if name in C_KEYWORDS or name.startswith("__"):
        raise InputError(f"{what} {name!r} is reserved in C/C++ (a keyword, or a leading '__'); choose another name")
    return name


def _c_ident(name: str) -> str:
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) or name in C_KEYWORDS:
        raise DimensionError(f"dimension name {name!r} is not a C identifier; rename it first")
    return name


C_PRELUDE = (
    "#ifndef LINLAYOUT_HD\n"
    "#ifdef __CUDACC__\n"
    "#define LINLAYOUT_HD __host__ __device__\n"
    "#else\n"
    "#define LINLAYOUT_HD\n"
    "#endif\n"
    "#endif\n"
)
"""What :func:`to_c` puts before the function: ``LINLAYOUT_HD`` is ``__host__ __device__`` under nvcc, empty in C."""


def to_c(memory: LinearLayout, name: str = "offset") -> str:
    """A C function from tensor coordinates to the element offset (XORs, shifts and masks only).

    The function is ``static inline LINLAYOUT_HD unsigned name(unsigned dim0, ...)``:
    ``LINLAYOUT_HD`` (defined by the emitted code unless already defined) is
    ``__host__ __device__`` when nvcc compiles it, so a CUDA kernel can call
    it, and empty for a C or C++ compiler.  Offsets must fit in 32 bits.

    >>> from linlayout.catalog.swizzles import mma_swizzle
    >>> print(to_c(mma_swizzle(4, 4, 1, 1, 4)).splitlines()[-3])
    static inline LINLAYOUT_HD unsigned offset(unsigned dim0, unsigned dim1) {
    """
    _check_memory(memory)
    check_c_identifier(name, "the function name")
    if memory.in_bits > 32:
        raise SizeError(f"the layout has {memory.in_bits} offset bits; the C function computes 32-bit offsets")
    terms = offset_terms(memory)
    inv = memory.invert()
    args = ", ".join(f"unsigned {_c_ident(d)}" for d in inv.in_dims)
    parts = []
    for d, m, s in terms:
        if s >= 0:
            parts.append(f"(({d} & {m:#x}u) << {s})")
        else:
            parts.append(f"(({d} & {m:#x}u) >> {-s})")
    body = " ^ ".join(parts) if parts else "0u"
    bases = [list(b) for b in memory.bases["offset"]]
    dims = ", ".join(f"{n} < {s}" for n, s in memory.out_sizes.items())
    return (
        f"/* Element offset in shared memory of tensor element ({', '.join(inv.in_dims)}), {dims}.\n"
        f"   Generated by linlayout from the memory layout with offset bases {bases}. */\n"
        f"{C_PRELUDE}"
        f"static inline LINLAYOUT_HD unsigned {name}({args}) {{\n"
        f"    return {body};\n"
        f"}}\n"
    )


# ---------------------------------------------------------------------------
# Triton
# ---------------------------------------------------------------------------


@record
class TritonForm:
    """Gluon spellings of a memory layout.  ``swizzled`` and ``nvmma`` are None when it is not one."""

    shared_linear: str
    swizzled: str | None
    nvmma: str | None

    def text(self) -> str:
        lines = [self.shared_linear]
        lines.append(self.swizzled or "# not a SwizzledSharedLayout (vec, per_phase, max_phase, order)")
        lines.append(self.nvmma or "# not an NVMMASharedLayout (swizzle 0/32/64/128 bytes)")
        return "\n".join(lines)


def _pow2s(limit: int) -> list[int]:
    out = []
    v = 1
    while v <= limit:
        out.append(v)
        v *= 2
    return out


def to_triton(memory: LinearLayout, element_bits: int | None = None) -> TritonForm:
    """Triton Gluon forms of a memory layout (``element_bits`` is needed for NVMMASharedLayout).

    >>> from linlayout.catalog.swizzles import mma_swizzle
    >>> print(to_triton(mma_swizzle(16, 32, 2, 1, 16)).swizzled)
    SwizzledSharedLayout(vec=2, per_phase=1, max_phase=16, order=[1, 0])
    """
    from ..catalog.swizzles import mma_swizzle, nvmma_layout

    _check_memory(memory)
    bases = [list(b) for b in memory.bases["offset"]]
    shared = f"SharedLinearLayout(offset_bases={bases})"
    sizes = list(memory.out_sizes.values())
    swizzled = nvmma = None
    if len(sizes) == 2:
        rows, cols = sizes
        for order, (r, c) in (([1, 0], (rows, cols)), ([0, 1], (cols, rows))):
            found = None
            for vec in _pow2s(c):
                for mp in _pow2s(c // vec):
                    for pp in _pow2s(r):
                        cand = mma_swizzle(r, c, vec, pp, mp)
                        if order == [0, 1]:
                            cand = LinearLayout({"offset": [[b[1], b[0]] for b in cand.bases["offset"]]},
                                                {"dim0": rows, "dim1": cols})
                        if cand == memory:
                            found = (vec, pp, mp)
                            break
                    if found:
                        break
                if found:
                    break
            if found:
                swizzled = f"SwizzledSharedLayout(vec={found[0]}, per_phase={found[1]}, max_phase={found[2]}, order={order})"
                break
        if element_bits is not None:
            for transposed in (False, True):
                for sw in (0, 32, 64, 128):
                    try:
                        cand = nvmma_layout(sizes, element_bits, sw, transposed)
                    except LinLayoutError:
                        continue
                    if cand == memory:
                        nvmma = (f"NVMMASharedLayout(swizzle_byte_width={sw}, element_bitwidth={element_bits}, "
                                 f"rank=2, transposed={transposed})")
                        break
                if nvmma:
                    break
    return TritonForm(shared, swizzled, nvmma)


# ---------------------------------------------------------------------------
# CuTe
# ---------------------------------------------------------------------------


@record
class CuteForm:
    """CuTe spellings of a memory layout (offsets in elements).

    ``text`` is ``composition(Swizzle<B,M,S>{}, Layout<Shape, Stride>{})`` when one swizzle of a row- or
    column-major tile spells the layout, else None and ``reason`` says why.  ``general`` is exact for every
    memory layout (:func:`cute_general`): a layout whose hierarchical shape places each coordinate bit at its
    offset bit, composed with a chain of ``Swizzle`` functors; ``exact`` is ``text`` when there is one, else
    ``general``.
    """

    text: str | None
    reason: str | None = None
    general: str | None = None

    @property
    def exact(self) -> str | None:
        """The shortest exact CuTe expression: the single swizzle when there is one, else the general form."""
        return self.text or self.general


@record
class CuteChain:
    """The general CuTe form of a memory layout as data: ``modes`` of the base layout (per tensor dimension, a
    list of ``(size, stride)``, lowest coordinate bits first) and ``swizzles`` ``(B, M, S)``, outermost first."""

    modes: tuple[tuple[tuple[int, int], ...], ...]
    swizzles: tuple[tuple[int, int, int], ...]

    def offset(self, coords: tuple[int, ...]) -> int:
        """The element offset CuTe computes for ``coords`` (the expression's semantics, evaluated in Python)."""
        x = 0
        for c, modes in zip(coords, self.modes):
            for size, stride in modes:
                x += (c % size) * stride
                c //= size
        for b, m, sh in reversed(self.swizzles):  # the innermost swizzle is applied first
            yyy = ((1 << b) - 1) << (m + max(0, sh))
            x ^= (x & yyy) >> sh if sh > 0 else (x & yyy) << -sh
        return x

    def text(self) -> str:
        def cute_int(v: int) -> str:
            return f"_{v}"

        def mode_text(modes: tuple[tuple[int, int], ...], k: int) -> str:
            if len(modes) == 1:
                return cute_int(modes[0][k])
            return ("Shape<" if k == 0 else "Stride<") + ",".join(cute_int(m[k]) for m in modes) + ">"

        shape = ",".join(mode_text(m, 0) for m in self.modes)
        stride = ",".join(mode_text(m, 1) for m in self.modes)
        expr = f"Layout<Shape<{shape}>, Stride<{stride}>>{{}}"
        if len(self.swizzles) == 1:
            b, m, sh = self.swizzles[0]
            return f"composition(Swizzle<{b},{m},{sh}>{{}}, {expr})"
        for b, m, sh in reversed(self.swizzles):
            expr = f"composition(Swizzle<{b},{m},{sh}>{{}}, Int<0>{{}}, {expr})"
        return expr


def cute_chain(memory: LinearLayout) -> CuteChain:
    """The general CuTe form of any memory layout (see :class:`CuteChain`), exact on every offset.

    The coordinate -> offset map ``A`` (the memory's inverse) is row-reduced to a permutation ``P``: each
    column's pivot is its highest offset bit not yet taken, and every other offset bit set in that column is
    cleared by ``bit a ^= bit r``, one ``Swizzle<1, ., .>`` (``S > 0`` moves a higher bit down, ``S < 0`` a lower
    bit up).  Then ``A = E_1 ... E_k P``: ``P`` becomes the base layout's strides (consecutive bits merged into
    one mode) and the ``E`` the swizzles, runs of the same shift merged into one ``Swizzle<B,M,S>``.

    >>> from linlayout.catalog.swizzles import mma_swizzle
    >>> cute_chain(mma_swizzle(16, 32, 2, 1, 16)).text()
    'composition(Swizzle<4,1,4>{}, Layout<Shape<_16,_32>, Stride<_32,_1>>{})'
    """
    inv = _check_memory(memory)
    dims = list(inv.in_dims)
    cols = [c for d in dims for c in inv.flat_bases(d)]  # offset of each coordinate bit, dim0's lowest first
    n = len(cols)
    rows = [sum(((cols[j] >> r) & 1) << j for j in range(n)) for r in range(n)]  # row r: coordinate bits of bit r
    taken: set[int] = set()
    pivot = [0] * n
    ops: list[tuple[int, int]] = []  # (target bit a, source bit r): bit a ^= bit r, in elimination order
    for j in range(n):
        r = max(i for i in range(n) if i not in taken and rows[i] >> j & 1)
        taken.add(r)
        pivot[j] = r
        for a in range(n):
            if a != r and rows[a] >> j & 1:
                rows[a] ^= rows[r]
                ops.append((a, r))
    modes: list[tuple[tuple[int, int], ...]] = []
    j = 0
    for d in dims:
        bits = [pivot[j + k] for k in range(len(inv.flat_bases(d)))]
        j += len(bits)
        run: list[list[int]] = []
        for p in bits:
            if run and p == run[-1][1] + run[-1][0]:
                run[-1][0] += 1
            else:
                run.append([1, p])
        modes.append(tuple((1 << k, 1 << p) for k, p in run) or ((1, 0),))
    return CuteChain(tuple(modes), _merge_swizzles(ops))


def _merge_swizzles(ops: list[tuple[int, int]]) -> tuple[tuple[int, int, int], ...]:
    """``bit a ^= bit r`` steps as ``Swizzle<B,M,S>`` (outermost first); neighbours with the same shift and the next
    target merge while ``B <= |S|`` (then sources and targets are disjoint, so the steps commute)."""
    out: list[list[int]] = []
    for a, r in ops:
        sh = r - a
        m = a if sh > 0 else r  # S > 0: bits M+S.. into M..; S < 0: bits M.. into M-S..
        if out and out[-1][2] == sh and out[-1][1] + out[-1][0] == m and out[-1][0] + 1 <= abs(sh):
            out[-1][0] += 1
        else:
            out.append([1, m, sh])
    return tuple((b, m, sh) for b, m, sh in out)


def to_cute(memory: LinearLayout) -> CuteForm:
    """``composition(Swizzle<B,M,S>{}, Layout<...>{})`` when the layout is one (offsets in elements).

    Tries the row-major and column-major tiles of the tensor's shape.

    >>> from linlayout.catalog.swizzles import mma_swizzle
    >>> to_cute(mma_swizzle(16, 32, 2, 1, 16)).text
    'composition(Swizzle<4,1,4>{}, Layout<Shape<_16,_32>, Stride<_32,_1>>{})'
    """
    from ..catalog.swizzles import cute_layout

    _check_memory(memory)
    shape = list(memory.out_sizes.values())
    n = memory.in_bits
    reasons = []
    orders = [("row-major", list(range(len(shape) - 1, -1, -1))), ("column-major", list(range(len(shape))))]
    for label, order in orders:
        stride = [0] * len(shape)
        st = 1
        for dim in order:
            stride[dim] = st
            st *= shape[dim]
        base = cute_layout(shape, stride)
        # X = base o memory : offset -> offset; the swizzle is X's inverse.
        X = memory.rename(None, {f"dim{i}": f"dim{i}" for i in range(len(shape))}).compose(base)
        cols = list(X.flat_bases("offset"))
        try:
            inv = X.invert().flat_bases("offset")
        except LinLayoutError:  # pragma: no cover - memory is invertible
            continue
        form = _single_swizzle(list(inv), n)
        shp = ",".join(f"_{s}" for s in shape)
        std = ",".join(f"_{s}" for s in stride)
        if form is not None:
            b, m, s = form
            sw = f"Swizzle<{b},{m},{s}>{{}}" if b else "Swizzle<0,0,0>{}"
            text = f"composition({sw}, Layout<Shape<{shp}>, Stride<{std}>>{{}})"
            return CuteForm(text, None, text)
        moved = [i for i, c in enumerate(cols) if c != 1 << i]
        reasons.append(f"over the {label} tile the offset bits {moved} are not one XOR of a bit range into another")
    return CuteForm(None, "not a single CuTe Swizzle<B,M,S>: " + "; ".join(reasons), cute_chain(memory).text())


def _single_swizzle(cols: list[int], n: int) -> tuple[int, int, int] | None:
    """(B, M, S) when ``cols`` (offset -> offset) is x ^ ((x >> S) & mask) << M, else None."""
    moved = [i for i in range(n) if cols[i] != 1 << i]
    if not moved:
        return (0, 0, 1)
    srcs = moved
    extra = [cols[i] ^ (1 << i) for i in srcs]
    if any(e & (e - 1) for e in extra):
        return None
    shifts = {i - (e.bit_length() - 1) for i, e in zip(srcs, extra)}
    if len(shifts) != 1:
        return None
    s = shifts.pop()
    if s <= 0:
        return None
    lo, hi = srcs[0], srcs[-1]
    if srcs != list(range(lo, hi + 1)):
        return None
    b = hi - lo + 1
    m = lo - s
    return (b, m, s)
