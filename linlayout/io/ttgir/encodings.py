"""TTGIR encodings to layouts and back: ``#ttg.*`` attributes ↔ :class:`LinearLayout`.

:func:`layout_from_encoding` reads a parsed attribute (:class:`Attr`) on a
tensor shape and calls the catalogue's conversion
(:mod:`linlayout.catalog.triton_encodings`).  :func:`to_ttgir_linear` prints
any distributed layout as ``#ttg.linear<{...}>`` and :func:`to_ttgir_shared`
a memory layout as the most specific shared encoding that represents it
exactly (``swizzled_shared``, then ``nvmma_shared``, then ``shared_linear``;
a row-padded tile as ``padded_shared``).  Reading what is printed gives the
same layout back.

=========================  ===========================================================
Attribute                  Fields read
=========================  ===========================================================
``#ttg.blocked``           sizePerThread, threadsPerWarp, warpsPerCTA, order, CGALayout
``#ttg.slice``             dim, parent
``#ttg.linear``            register, lane, warp, block
``#ttg.nvidia_mma``        versionMajor (2, 3), warpsPerCTA, instrShape, CGALayout
``#ttg.dot_op``            opIdx, parent (nvidia_mma), kWidth
``#ttg.amd_mfma``          version, warpsPerCTA, instrShape, isTransposed (unmeasured)
``#ttg.swizzled_shared``   vec, perPhase, maxPhase, order, CGALayout
``#ttg.nvmma_shared``      swizzlingByteWidth, transposed, elementBitWidth, fp4Padded
``#ttg.shared_linear``     offset, block (alignment ignored)
``#ttg.padded_shared``     one ``[row:+pad]`` pair over a row-major tile (PaddedLayout)
=========================  ===========================================================

>>> from linlayout.io.ttgir.attributes import parse_attribute
>>> L = layout_from_encoding(parse_attribute("#ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [4, 8], "
...                          "warpsPerCTA = [1, 1], order = [1, 0]}>"), [4, 16])
>>> print(to_ttgir_linear(L))
#ttg.linear<{register = [[0, 1]], lane = [[0, 2], [0, 4], [0, 8], [1, 0], [2, 0]], warp = [], block = []}>
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import permutations

from ...catalog import triton_encodings as te
from ...core.layout import LinearLayout
from ...core.memory import PaddedLayout, padded
from ...core.validate import check_int, check_int_sequence, check_str
from ...errors import InputError
from .attributes import Attr, TTGIRError

__all__ = ["layout_from_encoding", "layout_from_ttgir", "to_ttgir_linear", "to_ttgir_shared"]

SUPPORTED_ENCODINGS = ("ttg.blocked", "ttg.slice", "ttg.linear", "ttg.nvidia_mma", "ttg.dot_op", "ttg.amd_mfma",
                       "ttg.swizzled_shared", "ttg.nvmma_shared", "ttg.shared_linear", "ttg.padded_shared")
_SHARED = ("ttg.swizzled_shared", "ttg.nvmma_shared", "ttg.shared_linear", "ttg.padded_shared")


def is_shared_encoding(enc: Attr) -> bool:
    """True for the shared-memory encodings."""
    return enc.kind in _SHARED


def _get(enc: Attr, key: str, default=None):
    if key in enc.fields:
        return enc.fields[key]
    if default is None:
        raise TTGIRError(f"#{enc.kind} has no field {key!r}: {enc.text[:160]}")
    return default


def _cga(enc: Attr) -> list:
    cga = enc.fields.get("CGALayout", enc.fields.get("CTALayout", []))
    if not isinstance(cga, list) or (cga and not isinstance(cga[0], list)):
        raise TTGIRError(f"#{enc.kind}: CTA layout {cga!r} is not read (expected CGALayout = [[...], ...])")
    return cga


def _mma_fields(parent: Attr) -> tuple[int, list[int], list[int], list]:
    if not isinstance(parent, Attr) or parent.kind != "ttg.nvidia_mma":
        kind = parent.kind if isinstance(parent, Attr) else parent
        raise TTGIRError(f"#ttg.dot_op with parent #{kind} is not read (only #ttg.nvidia_mma parents)")
    return (_get(parent, "versionMajor"), _get(parent, "warpsPerCTA"), _get(parent, "instrShape"), _cga(parent))


def layout_from_encoding(enc: Attr, shape: Sequence[int]) -> LinearLayout | PaddedLayout:
    """The layout of a tensor of ``shape`` with encoding ``enc``, as Triton's ``toLinearLayout``.

    Distributed encodings give ``register, lane, warp, block`` → ``dim*``,
    shared ones ``offset, block`` → ``dim*``.  Unknown encodings raise
    :class:`TTGIRError` naming them; nothing is guessed.
    """
    if not isinstance(enc, Attr):
        raise TTGIRError(f"expected an encoding attribute, got {enc!r}")
    shape = list(check_int_sequence(shape, "shape"))
    k = enc.kind
    try:
        if k == "ttg.blocked":
            return te.triton_blocked(shape, _get(enc, "sizePerThread"), _get(enc, "threadsPerWarp"),
                                     _get(enc, "warpsPerCTA"), _get(enc, "order"), _cga(enc))
        if k == "ttg.slice":
            dim = check_int(_get(enc, "dim"), "#ttg.slice dim", minimum=0)
            parent = _get(enc, "parent")
            parent_shape = shape[:dim] + [1] + shape[dim:]
            return te.triton_slice(layout_from_encoding(parent, parent_shape), dim)
        if k == "ttg.linear":
            return te.triton_linear(shape, _get(enc, "register", []), _get(enc, "lane", []), _get(enc, "warp", []),
                                    _get(enc, "block", []))
        if k == "ttg.nvidia_mma":
            return te.triton_nvidia_mma(shape, _get(enc, "versionMajor"), _get(enc, "warpsPerCTA"),
                                        _get(enc, "instrShape"), _cga(enc))
        if k == "ttg.dot_op":
            version, wpc, instr, cga = _mma_fields(_get(enc, "parent"))
            return te.triton_dot_operand(shape, _get(enc, "opIdx"), _get(enc, "kWidth"), version, wpc, instr, cga)
        if k == "ttg.amd_mfma":
            return te.triton_amd_mfma(shape, _get(enc, "version"), _get(enc, "warpsPerCTA"), _get(enc, "instrShape"),
                                      enc.fields.get("isTransposed", False), enc.fields.get("tilesPerWarp"),
                                      enc.fields.get("elementBitWidth", 32), _cga(enc))
        if k == "ttg.swizzled_shared":
            return te.triton_swizzled_shared(shape, _get(enc, "vec"), _get(enc, "perPhase"), _get(enc, "maxPhase"),
                                             _get(enc, "order"), _cga(enc))
        if k == "ttg.nvmma_shared":
            return te.triton_nvmma_shared(shape, _get(enc, "swizzlingByteWidth"), _get(enc, "elementBitWidth"),
                                          enc.fields.get("transposed", False),
                                          enc.fields.get("fp4Padded", False), _cga(enc))
        if k == "ttg.shared_linear":
            return te.triton_shared_linear(shape, _get(enc, "offset"), enc.fields.get("block", []))
        if k == "ttg.padded_shared":
            return _padded(enc, shape)
    except TTGIRError:
        raise
    except InputError as e:
        raise TTGIRError(f"#{k} on shape {shape}: {e}") from e
    raise TTGIRError(f"unknown encoding #{k} (read: {', '.join('#' + s for s in SUPPORTED_ENCODINGS)})")


def _padded(enc: Attr, shape: list[int]) -> PaddedLayout:
    pairs = [p for item in enc.items if isinstance(item, list) for p in item]
    order = check_int_sequence(enc.fields.get("order", list(range(len(shape) - 1, -1, -1))),
                               "#ttg.padded_shared order")
    if not all(isinstance(p, tuple) and len(p) == 2 and all(type(x) is int for x in p) for p in pairs):
        raise TTGIRError(f"#ttg.padded_shared intervals are [interval:+pad] integer pairs: {enc.text[:160]}")
    if "offset" in enc.fields or len(pairs) != 1 or list(order) != list(range(len(shape) - 1, -1, -1)):
        raise TTGIRError(f"#ttg.padded_shared is read only as one [row:+pad] pair over a row-major tile: {enc.text}")
    interval, pad = pairs[0]
    if interval != shape[-1]:
        raise TTGIRError(f"#ttg.padded_shared interval {interval} is not the row length {shape[-1]}: {enc.text}")
    return padded(shape, pad)


# ----------------------------------------------------------------------------- printing


def _bases_text(bases: Sequence[Sequence[int]]) -> str:
    return "[" + ", ".join("[" + ", ".join(str(int(x)) for x in b) + "]" for b in bases) + "]"


def _check_outs(L: LinearLayout) -> list[str]:
    outs = list(L.out_dims)
    want = [f"dim{i}" for i in range(len(outs))]
    if sorted(outs) != sorted(want):
        raise InputError(f"a TTGIR layout has outputs dim0..dim{len(outs) - 1}, got {outs}")
    return want


def to_ttgir_linear(layout: LinearLayout) -> str:
    """``#ttg.linear<{register = ..., lane = ..., warp = ..., block = ...}>`` of a distributed layout.

    >>> print(to_ttgir_linear(LinearLayout({"register": [[1]], "lane": [[2]]}, {"dim0": 4})))
    #ttg.linear<{register = [[1]], lane = [[2]], warp = [], block = []}>
    """
    extra = [d for d in layout.in_dims if d not in ("register", "lane", "warp", "block")]
    if extra:
        raise InputError(f"#ttg.linear has inputs register, lane, warp, block; the layout also has {extra}")
    L = layout.transpose_outs(_check_outs(layout))
    b = L.bases
    parts = [f"{d} = {_bases_text(b.get(d, []))}" for d in ("register", "lane", "warp", "block")]
    return "#ttg.linear<{" + ", ".join(parts) + "}>"


def _shape_of(L: LinearLayout) -> list[int]:
    return [L.out_sizes[f"dim{i}"] for i in range(len(L.out_dims))]


def swizzled_candidates(shape: list[int]) -> Iterator[tuple[int, int, int, list[int]]]:
    """Every ``#ttg.swizzled_shared`` parameter set ``(vec, perPhase, maxPhase, order)`` worth trying for a
    tensor of ``shape``, the ones :func:`to_ttgir_shared` searches for a memory layout's printed form."""
    rank = len(shape)
    orders = [list(p) for p in permutations(range(rank))] if rank <= 3 else [list(range(rank - 1, -1, -1))]
    for order in orders:
        ncols = shape[order[0]] if rank > 1 else 1
        for vec in [1 << k for k in range(max(1, ncols.bit_length()))]:
            for per_phase in (1, 2, 4, 8):
                for max_phase in [1 << k for k in range(max(1, ncols.bit_length()))]:
                    if (max_phase == 1) != (vec == 1 and per_phase == 1):
                        continue
                    yield vec, per_phase, max_phase, order


def swizzled_offsets(shape: Sequence[int], vec: int, per_phase: int, max_phase: int,
                     order: Sequence[int]) -> tuple[tuple[int, ...], ...]:
    """The offset bases of :func:`~linlayout.catalog.triton_encodings.triton_swizzled_shared` on ``shape`` (rank 2
    or more, no CGA), written down directly: the columns of ``order[0]``, then each row of ``order[1]`` XORed
    with ``vec * ((row / perPhase) % maxPhase)`` on the columns, then the other dimensions in order.

    :func:`to_ttgir_shared` compares a memory with hundreds of candidate encodings; this is the comparison
    without building each candidate's layout (a test checks it equals the catalogue's on every candidate).

    >>> swizzled_offsets([4, 8], 2, 1, 4, [1, 0])
    ((0, 1), (0, 2), (0, 4), (1, 2), (2, 4))
    """
    rank = len(shape)
    col, row = order[0], order[1]
    ncols = shape[col]

    def unit(d: int, v: int, c: int = 0) -> tuple[int, ...]:
        t = [0] * rank
        t[d] = v
        if c:
            t[col] = c
        return tuple(t)

    out = [unit(col, 1 << k) for k in range(ncols.bit_length() - 1)]
    out += [unit(row, r, (vec * ((r // per_phase) % max_phase)) % ncols)
            for r in (1 << k for k in range(shape[row].bit_length() - 1))]
    for d in order[2:]:
        out += [unit(d, 1 << k) for k in range(shape[d].bit_length() - 1)]
    return tuple(out)


def _nvmma_match(L: LinearLayout, shape: list[int], element_bits: int | None, widths) -> str | None:
    if not element_bits:
        return None
    for sw in widths:
        for tr in (False, True):
            try:
                cand = te.triton_nvmma_shared(shape, sw, element_bits, tr)
            except InputError:
                continue
            if LinearLayout({"offset": cand.bases["offset"]}, cand.out_sizes) == L:
                rank = f", rank = {len(shape)}" if len(shape) != 2 else ""
                return (f"#ttg.nvmma_shared<{{swizzlingByteWidth = {sw}, transposed = {str(tr).lower()}, "
                        f"elementBitWidth = {element_bits}{rank}}}>")
    return None


def _swizzled_match(L: LinearLayout, shape: list[int]) -> str | None:
    """The ``#ttg.swizzled_shared`` (identity first) whose layout is ``L``, or ``None``.

    Every candidate of an order begins its offsets with the columns of its fastest dimension
    (:func:`swizzled_offsets`), whatever its vec, perPhase and maxPhase, so an order whose columns ``L``
    does not begin with is passed over whole: most memories printed are no swizzled_shared at all, and
    a tensor of rank 2 has hundreds of candidates."""
    offsets = tuple(L.bases["offset"])
    begins_with_columns: dict[tuple[int, ...], bool] = {}  # order -> whether offsets begin with its columns
    for vec, pp, mp, order in sorted(swizzled_candidates(shape), key=lambda c: (c[2] > 1, c)):
        key = tuple(order)
        if key not in begins_with_columns:
            n = shape[order[0]].bit_length() - 1
            begins_with_columns[key] = offsets[:n] == swizzled_offsets(shape, 1, 1, 1, order)[:n]
        if not begins_with_columns[key] or swizzled_offsets(shape, vec, pp, mp, order) != offsets:
            continue
        try:
            cand = te.triton_swizzled_shared(shape, vec, pp, mp, order)  # the catalogue confirms the match
        except InputError:
            continue
        if LinearLayout({"offset": cand.bases["offset"]}, cand.out_sizes) == L:
            return (f"#ttg.swizzled_shared<{{vec = {vec}, perPhase = {pp}, maxPhase = {mp}, "
                    f"order = [{', '.join(map(str, order))}]}}>")
    return None


def to_ttgir_shared(memory: LinearLayout | PaddedLayout, element_bits: int | None = None) -> str:
    """The most specific shared encoding whose layout equals ``memory`` (``offset`` → ``dim*``).

    Tried in order: a swizzled ``#ttg.nvmma_shared`` (needs ``element_bits``;
    TMA and wgmma can use it), ``#ttg.swizzled_shared`` (an identity is one
    with ``vec = perPhase = maxPhase = 1``), an unswizzled ``nvmma_shared``,
    then ``#ttg.shared_linear``, which represents any invertible layout.  A :class:`PaddedLayout` prints as ``#ttg.padded_shared``.

    >>> print(to_ttgir_shared(te.triton_swizzled_shared([16, 64], 4, 2, 4, [1, 0]), 16))
    #ttg.swizzled_shared<{vec = 4, perPhase = 2, maxPhase = 4, order = [1, 0]}>
    >>> print(to_ttgir_shared(te.triton_nvmma_shared([64, 64], 128, 16), 16))
    #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
    """
    if isinstance(memory, PaddedLayout):
        rank = len(memory.shape)
        order = ", ".join(str(i) for i in range(rank - 1, -1, -1))
        return (f"#ttg.padded_shared<[{memory.shape[-1]}:+{memory.pad}] {{order = [{order}], "
                f"shape = [{', '.join(str(s) for s in memory.shape)}]}}>")
    if not isinstance(memory, LinearLayout) or list(memory.in_dims) not in (["offset"], ["offset", "block"]):
        raise InputError("a shared encoding prints a memory layout (inputs offset[, block])")
    L = memory.transpose_outs(_check_outs(memory))
    shape = _shape_of(L)
    block = L.bases.get("block", [])
    if not block:
        L = LinearLayout({"offset": L.bases["offset"]}, L.out_sizes)
        if len(shape) >= 2:
            # nvmma_shared (a swizzled one says more: TMA and wgmma can use it), then swizzled_shared
            # (the identity first), then the unswizzled nvmma_shared
            nvmma = _nvmma_match(L, shape, element_bits, (128, 64, 32))
            if nvmma:
                return nvmma
            swizzled = _swizzled_match(L, shape)
            if swizzled:
                return swizzled
            nvmma = _nvmma_match(L, shape, element_bits, (0,))
            if nvmma:
                return nvmma
        elif not L.bases["offset"]:  # one element: Triton refuses an empty shared_linear
            return "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>"
    if block and not L.bases.get("offset"):  # one element per CTA: Triton refuses an empty shared_linear
        order = ", ".join(str(i) for i in range(len(shape) - 1, -1, -1))
        return (f"#ttg.swizzled_shared<{{vec = 1, perPhase = 1, maxPhase = 1, order = [{order}], "
                f"CGALayout = {_bases_text(block)}}}>")
    body = f"offset = {_bases_text(L.bases['offset'])}"
    if block:
        body += f", block = {_bases_text(block)}"
    return "#ttg.shared_linear<{" + body + "}, alignment = 16>"


def layout_from_ttgir(text: str, shape: Sequence[int] | None = None,
                      value: str | None = None) -> LinearLayout | PaddedLayout:
    """The layout named by TTGIR text: a type, an attribute (with ``shape``), or a module's value or alias.

    ``text`` may start with ``#name = ...`` alias lines.  A ``tensor<...>`` or
    ``!ttg.memdesc<...>`` type carries its shape; a bare attribute needs
    ``shape``.  In a whole module, ``value`` names an SSA value (``%x``, its
    result type) or an alias (``#blocked``, with ``shape``).

    >>> layout_from_ttgir("tensor<16x8xf32, #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, "
    ...                   "warpsPerCTA = [1, 1], instrShape = [16, 8]}>>").bases["register"]
    [(0, 1), (8, 0)]
    """
    from .attributes import parse_attribute, parse_type
    from .module import parse_module

    lines = [ln for ln in check_str(text, "TTGIR text").strip().splitlines() if ln.strip()]
    is_module = any(ln.lstrip().startswith(("module", '"builtin.module"')) for ln in lines)
    if is_module or value is not None:
        m = parse_module(text)
        if value is None:
            raise TTGIRError("a TTGIR module holds many layouts: name a value (%x) or an alias (#blocked)")
        if value.startswith("#"):
            if value not in m.aliases:
                raise TTGIRError(f"the module has no alias {value}")
            if shape is None:
                raise TTGIRError(f"{value} is an attribute: give the tensor shape")
            return layout_from_encoding(m.aliases[value], shape)
        for op in m.ops:
            if value in op.results:
                t = op.result_types[op.results.index(value)] if len(op.result_types) > op.results.index(value) else None
                if t is None or isinstance(t, str) or not hasattr(t, "encoding"):
                    raise TTGIRError(f"{value} is not a tensor or memdesc value")
                return layout_from_encoding(t.encoding, t.shape)
        raise TTGIRError(f"the module defines no value {value}")
    from .module import parse_module as _pm

    aliases = _pm("\n".join(ln for ln in lines if ln.lstrip().startswith("#") and "=" in ln.split("<")[0])).aliases
    body = [ln for ln in lines if not (ln.lstrip().startswith("#") and "=" in ln.split("<")[0])]
    if len(body) != 1:
        raise TTGIRError("expected one TTGIR type or attribute (after any #alias lines)")
    item = body[0].strip()
    if item.startswith(("tensor<", "!ttg.memdesc<")):
        t = parse_type(item, aliases)
        return layout_from_encoding(t.encoding, t.shape)
    enc = parse_attribute(item, aliases)
    if shape is None:
        raise TTGIRError(f"{item[:60]}... is an attribute: give the tensor shape (or write tensor<SHAPExTYPE, #...>)")
    return layout_from_encoding(enc, shape)
