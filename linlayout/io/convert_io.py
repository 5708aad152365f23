"""The ``linlayout convert`` query and the CUDA device function of a conversion plan.

Query: ``{"src": LAYOUT, "dst": LAYOUT, "element_bits": 16, "hardware":
"sm90", "scratch_bytes": null, "paths": ["shuffles", "shared_memory"],
"multistep": true}`` (``hardware``, ``scratch_bytes``, ``paths`` and
``multistep`` optional; ``paths`` restricts the choice as
:func:`~linlayout.convert.plan.plan_conversion`'s argument does; ``multistep``,
true by default as there, searches two-step plans, ``false`` plans one step); :func:`convert_query_from_json` returns the
:class:`~linlayout.convert.query.ConversionQuery` that
:func:`~linlayout.convert.plan.plan_conversion` takes.

:func:`to_cuda` writes the plan as a CUDA device function over one thread's
registers::

    __device__ void NAME(const T (&src)[NS], T (&dst)[ND] [, T* smem])

with ``T`` the unsigned integer type of ``element_bits`` (the conversion
moves bits).  It reads ``lane = threadIdx.x % LANES``, ``warp = threadIdx.x /
LANES`` and ``blockIdx.x``, with ``LANES`` the hardware model's lanes per warp
(32 on ``sm90``; every number the code depends on comes from the model).  Thread-dependent choices are written as
conditional expressions on the thread's own index, so every register index
is a compile-time constant (no local memory).  The shared-memory path writes
and reads aligned vectors of the width the plan's access rule found, and
``stmatrix``/``ldmatrix`` as inline PTX where the plan uses them (in one
rep; with several reps they are written as vectors); defining
``LINLAYOUT_EMULATE_MATRIX`` makes them calls to ``ll_stmatrix``/``ll_ldmatrix``
for an emulation.  The function runs exactly the plan's barriers (``2 reps -
1``): none after its last read, so, as after Triton's ``convert_layout``, the
caller synchronizes before it writes the scratch again (a loop calling the
function needs a ``__syncthreads()`` between calls; two shared-memory steps
of a multistep plan get one between them).

>>> from linlayout.core.layout import LinearLayout
>>> from linlayout.convert.plan import plan_conversion
>>> rows = LinearLayout({"register": [[0, 1]], "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]}, {"dim0": 32, "dim1": 2})
>>> cols = LinearLayout({"register": [[1, 0]], "lane": [[0, 1], [2, 0], [4, 0], [8, 0], [16, 0]]}, {"dim0": 32, "dim1": 2})
>>> code = to_cuda(plan_conversion(rows, cols, 32, paths=["shuffles"]), rows, cols, "transpose")
>>> code.count("__shfl_sync")
1
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..convert.plan import ConversionPlan
from ..convert.query import ConversionQuery
from ..convert.solve import aligned, index_bits
from ..core import f2
from ..core.layout import LinearLayout
from ..count.plan import plan_access
from ..errors import DimensionError, LayoutJSONError
from ..hw import SharedMemory, get_hardware
from .emit import check_c_identifier
from .jsonio import decode, layout_from_json, reject_unknown_keys

__all__ = ["convert_query_from_json", "to_cuda"]

CUDA_TYPES = {8: "unsigned char", 16: "unsigned short", 32: "unsigned int", 64: "unsigned long long"}

_QUERY = {"src", "dst", "element_bits", "hardware", "scratch_bytes", "paths", "multistep"}


def convert_query_from_json(source: Any) -> ConversionQuery:
    """Parse a ``linlayout convert`` query (see the module doc) into a checked :class:`ConversionQuery`.

    >>> q = convert_query_from_json('{"src": {"bases": {"lane": [[1]]}}, "dst": {"bases": {"lane": [[1]]}}, "element_bits": 16}')
    >>> q.element_bits, q.hardware, q.scratch_bytes, q.multistep
    (16, 'sm90', None, True)
    """
    obj = decode(source, "query")
    if not isinstance(obj, Mapping):
        raise LayoutJSONError(f"a convert query must be a JSON object, got {type(obj).__name__}")
    reject_unknown_keys(obj, _QUERY, "a convert query")
    for k in ("src", "dst", "element_bits"):
        if k not in obj:
            raise LayoutJSONError(f"a convert query needs \"{k}\"")
    eb = obj["element_bits"]
    if not isinstance(eb, int) or isinstance(eb, bool):
        raise LayoutJSONError(f"\"element_bits\" must be an integer, got {eb!r}")
    hw = obj.get("hardware") or "sm90"
    if not isinstance(hw, str):
        raise LayoutJSONError(f"\"hardware\" must be a string, got {hw!r}")
    sb = obj.get("scratch_bytes")
    if sb is not None and (not isinstance(sb, int) or isinstance(sb, bool)):
        raise LayoutJSONError(f"\"scratch_bytes\" must be an integer or null, got {sb!r}")
    paths = obj.get("paths")  # optional: the paths allowed (ConversionQuery checks the names)
    if paths is not None and not (isinstance(paths, list) and all(isinstance(p, str) for p in paths)):
        raise LayoutJSONError(f"\"paths\" must be a list of path names such as [\"shuffles\", \"shared_memory\"], "
                              f"got {paths!r}")
    multistep = obj.get("multistep", True)  # optional: also search two-step plans (false: one step only)
    if not isinstance(multistep, bool):
        raise LayoutJSONError(f"\"multistep\" must be true or false, got {multistep!r}")
    return ConversionQuery(src=layout_from_json(obj["src"], "src layout"), dst=layout_from_json(obj["dst"], "dst layout"),
                           element_bits=eb, hardware=hw, scratch_bytes=sb, paths=paths, multistep=multistep)


# ---------------------------------------------------------------------------
# CUDA
# ---------------------------------------------------------------------------


def _lin(cols: Sequence[int], var: str) -> str:
    """A C expression for the F2-linear map ``cols`` applied to the bits of ``var``."""
    terms = [f"((({var} >> {j}) & 1u) ? {c}u : 0u)" for j, c in enumerate(cols) if c]
    return " ^ ".join(terms) if terms else "0u"


def _select(var: str, options: Sequence[tuple[int, str]]) -> str:
    """``var == k1 ? e1 : var == k2 ? e2 : e0`` over ``(k, expr)`` options (the first is the default)."""
    if len(options) == 1:
        return options[0][1]
    expr = options[0][1]
    for k, e in options[1:]:
        expr = f"({var} == {k}u ? {e} : {expr})"
    return expr


def _header(name: str, T: str, ns: int, nd: int, smem: bool, model: SharedMemory) -> list[str]:
    extra = f", {T}* smem" if smem else ""
    return [f"__device__ __forceinline__ void {name}(const {T} (&src)[{ns}], {T} (&dst)[{nd}]{extra}) {{",
            f"  const unsigned lane = threadIdx.x % {model.lanes}u;",
            f"  const unsigned warp = threadIdx.x / {model.lanes}u;",
            "  (void)lane; (void)warp;"]


def _warp_mask(model: SharedMemory) -> str:
    """The ``__shfl_sync`` mask of a full warp of the model's lanes."""
    return f"0x{(1 << model.lanes) - 1:x}u"


def _omega(hw) -> str:
    return f"(warp | (blockIdx.x << {hw.warp}))" if hw.block else "warp"


def _registers(plan, dh) -> list[str]:
    prog = plan.registers
    lines = [f"  const unsigned om = {_omega(dh)}; (void)om;",
             f"  const unsigned t = {_lin(prog.Ql, 'lane')} ^ {_lin(prog.Qo, 'om')}; (void)t;"]
    threads = [(lane, om) for om in range(1 << len(prog.Qo)) for lane in range(1 << len(prog.Ql))]
    for r in range(1 << dh.reg):
        base = f2.apply(prog.Qr, r)
        cands = sorted({prog.source_register(r, lane, om) for lane, om in threads})
        lines.append(f"  dst[{r}] = {_select(f'({base}u ^ t)', [(q, f'src[{q}]') for q in cands])};")
    return lines


def _shuffles(plan, dh, T, eb, model: SharedMemory) -> list[str]:
    prog = plan.shuffles
    W = "unsigned long long" if eb == 64 else "unsigned int"
    n = 1 << prog.pack_bits
    lines = [f"  const unsigned om = {_omega(dh)}; (void)om;",
             f"  const unsigned sw = {_lin(prog.H, 'lane')} ^ {_lin(prog.Ho, 'om')}; (void)sw;",
             f"  const unsigned ml = {_lin(prog.M, 'lane')}; (void)ml;",
             f"  const unsigned sl = {_lin(prog.J, 'lane')} ^ {_lin(prog.Os, 'om')}; (void)sl;"]

    def word(w: int) -> str:
        regs = prog.word_registers(w)
        if n == 1:
            return f"({W})src[{regs[0]}]"
        return "(" + " | ".join(f"((unsigned)src[{q}] << {j * eb})" for j, q in enumerate(regs)) + ")"

    if prog.strategy == "layers":
        return lines + _shuffle_layers(prog, dh, T, eb, W, word, model)
    send, recv = prog.selections
    for k in prog.used_rounds:  # every shuffled round, unless extra rounds leave some unused
        a = f2.apply(prog.A, k)
        lines.append(f"  const {W} s{k} = {_select(f'({a}u ^ sw)', [(w, word(w)) for w in send[k]])};")
        lines.append(f"  const {W} r{k} = __shfl_sync({_warp_mask(model)}, s{k}, {f2.apply(prog.As, k)}u ^ sl);")
    for r in range(prog.kept):
        opts = []
        for kind, v in recv[r]:
            if kind == "recv":
                opts.append((v, f"r{v}"))
        self_opts = [(w, word(w)) for kind, w in recv[r] if kind == "src"]
        # kk: the round this thread fills into word r; local rounds pick a source word instead
        expr_recv = _select(f"({r}u ^ ml)", opts) if opts else None
        if self_opts:
            selfk = sorted(prog.self_rounds)
            is_self = " || ".join(f"({r}u ^ ml) == {k}u" for k in selfk) or "false"
            a_of = _select(f"({r}u ^ ml)", [(k, f"{f2.apply(prog.A, k)}u") for k in selfk])
            expr_self = _select(f"(({a_of}) ^ sw)", self_opts)
            expr = expr_self if expr_recv is None else f"(({is_self}) ? ({W})({expr_self}) : ({W})({expr_recv}))"
        else:
            expr = expr_recv
        lines.append(f"  const {W} w{r} = {expr};")
    return lines + _dst_assign(prog, dh, T, eb)


def _parity(mask: int, var: str) -> str:
    return f"(__popc({var} & {mask}u) & 1u)" if mask else "0u"


def _dst_assign(prog, dh, T, eb) -> list[str]:
    n = 1 << prog.pack_bits
    inv = f2.inverse(list(prog.rounds_basis) + list(prog.pack) + list(prog.copies))
    out = []
    nr = len(prog.rounds_basis)  # the kept words' round bits (extra round bits are zero there)
    for reg in range(1 << dh.reg):
        c = f2.apply(inv, reg)
        rr = c & ((1 << nr) - 1)
        j = (c >> nr) & ((1 << prog.pack_bits) - 1)
        val = f"w{rr}" if n == 1 else f"(w{rr} >> {j * eb})"
        out.append(f"  dst[{reg}] = ({T})({val});")
    return out


def _shuffle_layers(prog, dh, T, eb, W, word, model: SharedMemory) -> list[str]:
    """The ``layers`` strategy: XOR-permute the source words, shuffle, XOR-permute the received words."""
    send_layers, recv_layers = prog.layers
    nwords = 1 << (prog.src_reg_bits - prog.pack_bits)
    # (void): a word of the last send layer that no shuffle reads must not warn (nvcc -Wall, issue 26)
    lines = [f"  const {W} a0_{j} = {word(j)}; (void)a0_{j};" for j in range(nwords)]
    for i, (h, lm, om) in enumerate(send_layers):
        lines.append(f"  const bool ps{i} = ({_parity(lm, 'lane')} ^ {_parity(om, 'om')}) != 0u;")
        lines += [f"  const {W} a{i + 1}_{j} = ps{i} ? a{i}_{j ^ h} : a{i}_{j}; (void)a{i + 1}_{j};"
                  for j in range(nwords)]
    top = len(send_layers)
    needs = prog.layer_needs  # the received words each layer must compute (all of them without extra rounds)
    for k in needs[0]:
        a = f2.apply(prog.A, k)
        if k in prog.self_rounds:
            lines.append(f"  const {W} b0_{k} = a{top}_{a};")
        else:
            lines.append(f"  const {W} b0_{k} = __shfl_sync({_warp_mask(model)}, a{top}_{a}, "
                         f"{f2.apply(prog.As, k)}u ^ sl);")
    for i, (b, lm) in enumerate(recv_layers):
        lines.append(f"  const bool pr{i} = {_parity(lm, 'lane')} != 0u;")
        lines += [f"  const {W} b{i + 1}_{k} = pr{i} ? b{i}_{k ^ b} : b{i}_{k};" for k in needs[i + 1]]
    top = len(recv_layers)
    lines += [f"  const {W} w{r} = b{top}_{r};" for r in range(prog.kept)]
    return lines + _dst_assign(prog, dh, T, eb)


def _vector_groups(offsets: list[int], regs: list[int], width: int) -> list[tuple[int, list[int]]]:
    """Group registers whose offsets fill aligned runs of ``width`` elements (offsets are thread-free parts)."""
    by_base: dict[int, dict[int, int]] = {}
    for q, o in zip(regs, offsets):
        by_base.setdefault(o & ~(width - 1), {})[o & (width - 1)] = q
    groups = []
    for base, slots in sorted(by_base.items()):
        if width > 1 and len(slots) == width:
            groups.append((base, [slots[i] for i in range(width)]))
        else:
            for i, q in sorted(slots.items()):
                groups.append((base | i, [q]))
    return groups


def _matrix(rt, layout, hw, regoff, throff, T, eb, op, ins, names, tag) -> list[str]:
    """``ldmatrix``/``stmatrix`` as the access rule plans them: each lane's row address, each thread's words.

    The rows and registers come from :func:`linlayout.count.plan.plan_access` (``lane_inputs``: the slot
    whose element starts the row a lane addresses); word ``j`` of an instruction packs the thread's
    elements of registers ``mreg | v`` over the vector registers ``v``, lowest first.  ``layout`` is
    the slice's (:meth:`~linlayout.convert.smem.RoundTrip.slice_layout`), ``regoff`` its registers'
    offsets and ``names[r]`` the thread's register that slice register ``r`` stands for.  Under
    ``LINLAYOUT_EMULATE_MATRIX`` the instruction is a call to ``ll_ldmatrix``/``ll_stmatrix`` (the CPU
    emulation provides them), otherwise inline PTX.
    """
    ap = plan_access(layout, rt.swizzle.memory, eb, op, ins)
    nmat = ap.instruction.matrices
    trans = ap.instruction.trans
    vregs = ap.shape.hardware.register_bytes * 8 // eb
    lane_off = throff[:hw.lane]
    warp_off = throff[hw.lane:]
    used = ap.hardware.matrix_rows * nmat

    def off(slot):
        r, ll = slot
        return regoff[r] ^ f2.apply(lane_off, ll)

    out = [] if tag else [f"  const unsigned wo_{op} = {_lin(warp_off, f'tid >> {hw.lane}')}; (void)wo_{op};"]
    loaded: dict[int, int] = {}
    name = "ldmatrix" if op == "load" else "stmatrix"
    ptx = f"{name}.sync.aligned.m8n8.x{nmat}{'.trans' if trans else ''}.shared.b16"
    for x, lanes in enumerate(ap.lane_inputs()):
        base = off(lanes[0])
        coef = [off(lanes[1 << b]) ^ base if (1 << b) < used else 0 for b in range(hw.lane)]
        for t in range(used):  # the row addresses are linear in the lane
            assert off(lanes[t]) == base ^ f2.apply(coef, t)
        issue = lanes[0][0]
        # register of matrix j, vector element v: the issue register with those registers' bits set
        mcols = [1 << r for r in ap.matrix_registers]
        vcols = [1 << r for r in ap.vector_registers]
        words = [[issue | f2.apply(mcols, j) | f2.apply(vcols, v) for v in range(vregs)] for j in range(nmat)]
        addr = f"&smem[({base}u ^ {_lin(coef, 'lane')}) ^ wo_{op}]"
        w = f"w{op[0]}{tag}_{x}" if tag else f"w{op[0]}{x}"
        lines = [f"  {{ unsigned {w}[{nmat}];"]
        if op == "store":
            for j, regs_j in enumerate(words):
                expr = " | ".join(f"((unsigned)src[{names[r]}] << {eb * i}u)" if i else f"(unsigned)src[{names[r]}]"
                                  for i, r in enumerate(regs_j))
                lines.append(f"    {w}[{j}] = {expr};")
        regs_list = ", ".join(f"%{i}" for i in range(nmat))
        lines.append("#ifdef LINLAYOUT_EMULATE_MATRIX")
        lines.append(f"    ll_{name}<{nmat}, {'true' if trans else 'false'}>({addr}, {w});")
        lines.append("#else")
        if op == "load":
            outs = ", ".join(f'"=r"({w}[{j}])' for j in range(nmat))
            lines.append(f'    asm volatile("{ptx} {{{regs_list}}}, [%{nmat}];" : {outs} : '
                         f'"r"((unsigned)__cvta_generic_to_shared({addr})) : "memory");')
        else:
            ins_regs = ", ".join(f"%{i + 1}" for i in range(nmat))
            ins_ops = ", ".join(f'"r"({w}[{j}])' for j in range(nmat))
            lines.append(f'    asm volatile("{ptx} [%0], {{{ins_regs}}};" :: '
                         f'"r"((unsigned)__cvta_generic_to_shared({addr})), {ins_ops} : "memory");')
        lines.append("#endif")
        if op == "load":
            mask = f" & {(1 << eb) - 1}u" if eb < ap.hardware.register_bytes * 8 else ""
            for j, regs_j in enumerate(words):
                for i, r in enumerate(regs_j):
                    sh_ = f" >> {eb * i}u" if i else ""
                    lines.append(f"    dst[{names[r]}] = ({T})(({w}[{j}]{sh_}){mask});")
                    loaded[regoff[r]] = names[r]
        lines.append("  }")
        out += lines
    if op == "load":  # broadcast registers: copies of a loaded one
        for r in range(1 << hw.reg):
            if loaded.get(regoff[r], names[r]) != names[r]:
                out.append(f"  dst[{names[r]}] = dst[{loaded[regoff[r]]}];")
    return out


def _shared(plan, src, dst, sh, dh, T, eb, model: SharedMemory, trailing_barrier: bool = False) -> list[str]:
    rt = plan.shared_memory
    _, scols = index_bits(src, "src")
    _, dcols = index_bits(dst, "dst")

    def offs(cols, hw):  # the offset is linear in the element: split it into register and thread parts
        reg = [rt.offset(f2.apply(cols, q)) for q in range(1 << hw.reg)]
        thr = [rt.offset(c) for c in cols[hw.reg:hw.reg + hw.lane + hw.warp]]
        return reg, thr

    sreg, sthr = offs(scols, sh)
    dreg, dthr = offs(dcols, dh)
    lines = [f"  const unsigned tid = lane | (warp << {model.lane_bits});",
             f"  const unsigned so = {_lin(sthr, 'tid')}; (void)so;",  # unused when a matrix instruction
             f"  const unsigned doff = {_lin(dthr, 'tid')}; (void)doff;"]  # addresses the side (nvcc -Wall)

    def width(cols_thr):
        lowmask = 0
        for c in cols_thr:
            lowmask |= c
        w = 1
        maxw = max(1, model.max_access_bytes * 8 // eb)
        while w < maxw and not (lowmask & (2 * w - 1)):
            w *= 2
        return w

    ws, wd = width(sthr), width(dthr)
    matrix_w = rt.swizzle.write_instruction if "matrix" in rt.swizzle.write_instruction else None
    matrix_r = rt.swizzle.read_instruction if "matrix" in rt.swizzle.read_instruction else None

    def matrix(side, cols, thr, op, ins, rep):  # one slice's matrix instructions
        layout = rt.slice_layout(side)
        hw, _ = index_bits(layout, side)
        names = rt.slice_registers(side, rep)
        regoff = [rt.offset(f2.apply(cols, q)) for q in names]
        return _matrix(rt, layout, hw, regoff, thr, T, eb, op, ins, names, rep)

    sync = "__syncthreads();" if rt.barrier_instruction == "bar.sync" else "__syncwarp();"
    for rep in range(rt.reps):
        if rep:
            lines.append(f"  {sync}")
        regs = [q for q in range(1 << sh.reg) if rt.src_rep(q) == rep]
        if matrix_w:
            lines += matrix("src", scols, sthr, "store", matrix_w, rep)
            regs = []
        for base, group in _vector_groups([sreg[q] for q in regs], regs, ws):
            if len(group) == 1:
                lines.append(f"  smem[{base}u ^ so] = src[{group[0]}];")
            else:
                lines.append(f"  {{ struct alignas({len(group) * eb // 8}) V {{ {T} v[{len(group)}]; }}; "
                             f"V x = {{{{{', '.join(f'src[{q}]' for q in group)}}}}}; *(V*)&smem[{base}u ^ so] = x; }}")
        lines.append(f"  {sync}")
        regs = [r for r in range(1 << dh.reg) if rt.dst_rep(r) == rep]
        if matrix_r:
            lines += matrix("dst", dcols, dthr, "load", matrix_r, rep)
            regs = []
        seen = {}
        for r in regs:  # duplicates (broadcast registers) read once
            seen.setdefault(dreg[r], []).append(r)
        uniq = [v[0] for v in seen.values()]
        for base, group in _vector_groups([dreg[r] for r in uniq], uniq, wd):
            if len(group) == 1:
                lines.append(f"  dst[{group[0]}] = smem[{base}u ^ doff];")
            else:
                lines.append(f"  {{ struct alignas({len(group) * eb // 8}) V {{ {T} v[{len(group)}]; }}; "
                             f"V x = *(const V*)&smem[{base}u ^ doff]; "
                             + " ".join(f"dst[{r}] = x.v[{i}];" for i, r in enumerate(group)) + " }")
        for regs_same in seen.values():
            for r in regs_same[1:]:
                lines.append(f"  dst[{r}] = dst[{regs_same[0]}];")
    if trailing_barrier:
        lines.append(f"  {sync}")
    return lines


def to_cuda(plan: ConversionPlan, src: LinearLayout, dst: LinearLayout, name: str = "convert_layout",
            hardware: str | SharedMemory | None = None, trailing_barrier: bool = False) -> str:
    """The plan as a CUDA device function (see the module doc).

    ``hardware`` is the model whose warp the code runs on (default: the
    plan's); the layouts must give all its lanes.  A shared-memory plan's
    instructions are the conversion's own (``2 reps - 1`` barriers, as
    Triton emits them), so the code runs exactly the plan's counts and the
    caller synchronizes before the scratch is written again, as Triton's
    membar pass does only where it is.  ``trailing_barrier=True`` adds that
    barrier after the last read, so that the function may be called again on
    the same scratch at once; the first line of the code then says so.
    """
    check_c_identifier(name, "the function name")
    model = get_hardware(plan.hardware if hardware is None else hardware)
    dst = aligned(src, dst)
    sh, _ = index_bits(src, "src")
    dh, _ = index_bits(dst, "dst")
    if sh.lane != model.lane_bits:
        raise DimensionError(f"CUDA code needs layouts of {model.lanes} lanes (a full {model.name} warp), "
                             f"got {1 << sh.lane}")
    T = CUDA_TYPES[plan.element_bits]
    if plan.path == "multistep":  # one device function per step, chained through the intermediate registers
        parts, layout, calls, regs = [], src, [], 1 << sh.reg
        smem = any(p.path == "shared_memory" for _, p in plan.steps)
        for k, (target, step) in enumerate(plan.steps):
            later_smem = any(p.path == "shared_memory" for _, p in plan.steps[k + 1:])  # it rewrites the scratch
            last = k == len(plan.steps) - 1
            parts.append(to_cuda(step, layout, target, f"{name}_step{k}", model, trailing_barrier if last else later_smem))
            th, _ = index_bits(aligned(layout, target), "dst")
            out = "dst" if k == len(plan.steps) - 1 else f"t{k}"
            if out != "dst":
                calls.append(f"  {T} {out}[{1 << th.reg}];")
            if step.path == "shared_memory" and any(p.path == "shared_memory" for _, p in plan.steps[:k]):
                calls.append("  __syncthreads();  // the scratch is written again")
            calls.append(f"  {name}_step{k}({'src' if k == 0 else f't{k - 1}'}, {out}"
                         f"{', smem' if step.path == 'shared_memory' else ''});")
            layout, regs = target, 1 << th.reg
        head = [f"// linlayout convert: path multistep ({' then '.join(p.path for _, p in plan.steps)}), "
                f"per thread {dict(plan.instructions)}"]
        if smem:
            head.append(f"// scratch: {plan.scratch_bytes} bytes; smem must be 16-byte aligned")
        body = head + _header(name, T, 1 << sh.reg, 1 << dh.reg, smem, model) + calls + ["}"]
        return "".join(parts) + "\n".join(body) + "\n"
    smem = plan.path == "shared_memory"
    fence = " + 1 trailing barrier (scratch reuse)" if smem and trailing_barrier else ""
    lines = [f"// linlayout convert: path {plan.path}, per thread {dict(plan.instructions)}{fence}"]
    if smem:
        lines.append(f"// scratch: {plan.scratch_bytes} bytes ({plan.reps} rep(s)); smem must be 16-byte aligned; "
                     "synchronize before writing it again")
    lines += _header(name, T, 1 << sh.reg, 1 << dh.reg, smem, model)
    if plan.path == "none":
        lines += [f"  dst[{r}] = src[{r}];" for r in range(1 << dh.reg)]
    elif plan.path == "registers":
        lines += _registers(plan, dh)
    elif plan.path == "shuffles":
        lines += _shuffles(plan, dh, T, plan.element_bits, model)
    else:
        lines += _shared(plan, src, dst, sh, dh, T, plan.element_bits, model, trailing_barrier)
    lines.append("}")
    return "\n".join(lines) + "\n"
