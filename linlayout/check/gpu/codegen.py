"""The CUDA probe program: one kernel per shared-memory instruction, one warp per launch.

Concepts
========

A **probe instruction** (:class:`ProbeInstruction`) is one shared-memory
instruction of one warp: its kind (``ld.shared``, ``st.shared``,
``ldmatrix.x1/.x2/.x4[.trans]``, ``stmatrix...``), op, bytes per lane and
the 32 lane byte offsets, with linlayout's predictions of its wavefronts.
Instructions with the same kind, width and offsets are the same probe
(:attr:`ProbeInstruction.key`) and are measured once.

The probe program (:func:`generate_cuda`) holds one kernel per probe, named
``probe_00000``, ``probe_00001``, ... (:func:`kernel_name`), so that Nsight
Compute's rows map back to the probes by name.  Each kernel

* reads lane ``l``'s byte offset from a global table ``g_off[i][l]``, so the
  only shared-memory traffic is the probed instruction;
* adds it to the dynamic shared buffer, aligned to 1024 bytes at run time and
  sized per kernel (:func:`shared_bytes`, at most :data:`MAX_SHARED_BYTES`);
* issues exactly one instruction through inline PTX (:func:`ptx_statement`):
  ``ld/st.volatile.shared.b8/b16/b32/v2.b32/v4.b32`` or
  ``ldmatrix/stmatrix.sync.aligned.m8n8.x1/x2/x4[.trans].shared.b16``, in an
  ``asm volatile`` with a memory clobber; loaded values go to a global sink
  (the SASS holds one ``LDS``/``STS``/``LDSM``/``STSM`` per kernel).

``main`` launches every kernel ``repeat`` times with one warp.

Worked example: a float4 store into a transposed A tile (lane ``l`` writes
16 bytes at ``512 * (l % 8) + 16 * (l // 8)``) is one ``st.shared`` of 16
bytes, and its kernel is

>>> p = ProbeInstruction("float4", 0, "st.shared", "store", 16,
...                      tuple(512 * (l % 8) + 16 * (l // 8) for l in range(32)), 32, 32)
>>> print(kernel_source(0, p))
extern "C" __global__ void __launch_bounds__(32, 1) probe_00000(unsigned *sink) {
  extern __shared__ __align__(1024) unsigned char smem[];
  unsigned a = (((unsigned)__cvta_generic_to_shared(smem) + 1023u) & ~1023u) + g_off[0][threadIdx.x];
  unsigned v0 = (unsigned)(threadIdx.x * 4 + 0), v1 = (unsigned)(threadIdx.x * 4 + 1), v2 = (unsigned)(threadIdx.x * 4 + 2), v3 = (unsigned)(threadIdx.x * 4 + 3);
  asm volatile("st.volatile.shared.v4.b32 [%0], {%1, %2, %3, %4};" :: "r"(a), "r"(v0), "r"(v1), "r"(v2), "r"(v3) : "memory");
}
>>> shared_bytes(p)     # the highest offset, 16 bytes, 1024 bytes of alignment slack, in KiB
5120

API: :class:`ProbeInstruction`, :func:`ptx_statement`, :func:`kernel_source`,
:func:`generate_cuda`, :func:`kernel_name`, :func:`kernel_index`,
:func:`shared_bytes`, :data:`MAX_SHARED_BYTES`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ...core.record import record
from ...errors import InputError, LoweringError
from ...hw import parse_instruction

__all__ = ["ptx_statement", "generate_cuda"]

MAX_SHARED_BYTES = 227 * 1024
"""Opt-in dynamic shared memory per block on sm_90: a probe needing more is skipped."""


@record
class ProbeInstruction:
    """One shared-memory instruction of a query, with its predictions.

    ``query`` and ``index`` name the query and the instruction's position in
    it (warp 0).  ``closed_form`` is ``None`` where the closed form does not
    apply (padded memory, offsets that are not XOR-affine in the lane);
    ``simulated`` is the simulator's count.
    """

    query: str
    index: int
    instruction: str
    op: str
    access_bytes: int
    lane_byte_offsets: tuple[int, ...]
    closed_form: int | None
    simulated: int

    @property
    def key(self) -> tuple:
        """What makes two instructions the same probe: kind, op, width and offsets."""
        return (self.instruction, self.op, self.access_bytes, self.lane_byte_offsets)


def kernel_name(index: int) -> str:
    """The name of the kernel that probes instruction ``index`` of a program.

    >>> kernel_name(7)
    'probe_00007'
    """
    return f"probe_{index:05d}"


def kernel_index(name: str) -> int | None:
    """The probe index in a kernel name as a profiler reports it (``None`` for other kernels).

    >>> kernel_index("probe_00007"), kernel_index("void probe_00012(unsigned *)"), kernel_index("gemm")
    (7, 12, None)
    """
    m = re.search(r"probe_(\d+)", name)
    return int(m.group(1)) if m else None


def shared_bytes(p: ProbeInstruction) -> int:
    """Dynamic shared memory the kernel of ``p`` asks for: its highest byte plus 1024 bytes of alignment slack, in KiB."""
    need = max(p.lane_byte_offsets) + max(p.access_bytes, 16) + 1024
    return -(-need // 1024) * 1024


_ST_TYPE = {1: "b8", 2: "b16", 4: "b32", 8: "v2.b32", 16: "v4.b32"}


def ptx_statement(instruction: str, op: str, access_bytes: int) -> str:
    """The C++ statement (inline PTX) that issues one instruction at shared address ``a``.

    Loads write ``r0..r3`` (``unsigned``; ``unsigned short`` for 1 and 2
    bytes), stores read the values ``v0..v3``; the caller declares them.
    Raises :class:`~linlayout.errors.LoweringError` for a width
    ``ld/st.shared`` cannot move.

    >>> print(ptx_statement("ld.shared", "load", 8))
    asm volatile("ld.volatile.shared.v2.b32 {%0, %1}, [%2];" : "=r"(r0), "=r"(r1) : "r"(a) : "memory");
    >>> print(ptx_statement("stmatrix.x2.trans", "store", 16))
    asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};" :: "r"(a), "r"(v0), "r"(v1) : "memory");
    """
    ins = parse_instruction(instruction, op)
    if ins.is_matrix:
        n = ins.matrices
        regs = ", ".join(f"%{i}" for i in range(n))
        name = f"m8n8.x{n}" + (".trans" if ins.trans else "") + ".shared.b16"
        if ins.op == "load":
            outs = ", ".join(f'"=r"(r{i})' for i in range(n))
            return f'asm volatile("ldmatrix.sync.aligned.{name} {{{regs}}}, [%{n}];" : {outs} : "r"(a) : "memory");'
        ins_regs = ", ".join(f"%{i + 1}" for i in range(n))
        vals = ", ".join(f'"r"(v{i})' for i in range(n))
        return f'asm volatile("stmatrix.sync.aligned.{name} [%0], {{{ins_regs}}};" :: "r"(a), {vals} : "memory");'
    if access_bytes not in _ST_TYPE:
        raise LoweringError(f"ld/st.shared moves 1, 2, 4, 8 or 16 bytes per lane, not {access_bytes}")
    t = _ST_TYPE[access_bytes]
    n = max(1, access_bytes // 4)
    c = "h" if access_bytes < 4 else "r"
    if ins.op == "load":
        dst = "%0" if n == 1 else "{" + ", ".join(f"%{i}" for i in range(n)) + "}"
        outs = ", ".join(f'"={c}"(r{i})' for i in range(n))
        return f'asm volatile("ld.volatile.shared.{t} {dst}, [%{n}];" : {outs} : "r"(a) : "memory");'
    src = "%1" if n == 1 else "{" + ", ".join(f"%{i + 1}" for i in range(n)) + "}"
    vals = ", ".join(f'"{c}"(v{i})' for i in range(n))
    return f'asm volatile("st.volatile.shared.{t} [%0], {src};" :: "r"(a), {vals} : "memory");'


def kernel_source(index: int, p: ProbeInstruction) -> str:
    """The kernel ``probe_{index:05d}``: lane ``l`` issues ``p`` at offset ``g_off[index][l]`` (see the module example)."""
    ins = parse_instruction(p.instruction, p.op)
    n = ins.matrices if ins.is_matrix else max(1, p.access_bytes // 4)
    ty = "unsigned short" if not ins.is_matrix and p.access_bytes < 4 else "unsigned"
    lines = [
        f'extern "C" __global__ void __launch_bounds__(32, 1) {kernel_name(index)}(unsigned *sink) {{',
        "  extern __shared__ __align__(1024) unsigned char smem[];",
        f"  unsigned a = (((unsigned)__cvta_generic_to_shared(smem) + 1023u) & ~1023u) + g_off[{index}][threadIdx.x];",
    ]
    if ins.op == "load":
        lines.append(f"  {ty} " + ", ".join(f"r{k} = 0" for k in range(n)) + ";")
        lines.append("  " + ptx_statement(p.instruction, p.op, p.access_bytes))
        lines.append("  sink[threadIdx.x] = " + " ^ ".join(f"(unsigned)r{k}" for k in range(n)) + ";")
    else:
        lines.append(f"  {ty} " + ", ".join(f"v{k} = ({ty})(threadIdx.x * {n} + {k})" for k in range(n)) + ";")
        lines.append("  " + ptx_statement(p.instruction, p.op, p.access_bytes))
    lines.append("}")
    return "\n".join(lines)


def generate_cuda(probes: Sequence[ProbeInstruction], repeat: int = 1) -> str:
    """CUDA source of the probe program: kernel ``probe_{i:05d}`` issues ``probes[i]``; ``main`` launches each.

    ``main`` launches every kernel ``repeat`` times in index order, one warp
    each, with its own dynamic shared-memory size (raising the per-kernel
    limit above 48 KiB), synchronises after each launch and exits 1 with the
    kernel's name on the first CUDA error.  Raises
    :class:`~linlayout.errors.InputError` when ``probes`` is empty.

    >>> src = generate_cuda([ProbeInstruction("q", 0, "ld.shared", "load", 4, tuple(range(0, 128, 4)), 1, 1)])
    >>> "probe_00000" in src and "ld.volatile.shared.b32" in src
    True
    """
    if not probes:
        raise InputError("no instructions to probe: pass at least one ProbeInstruction")
    rows = ",\n".join("  {" + ", ".join(str(o) for o in p.lane_byte_offsets) + "}" for p in probes)
    out = [
        "// Generated by linlayout.check.gpu: one kernel per shared-memory instruction, one warp per launch.",
        "#include <cstdio>",
        "#include <cstdlib>",
        "#include <cuda_runtime.h>",
        "",
        f"__device__ const unsigned g_off[{len(probes)}][32] = {{\n{rows}\n}};",
        "",
    ]
    out += [kernel_source(i, p) for i, p in enumerate(probes)]
    names = ", ".join(kernel_name(i) for i in range(len(probes)))
    sizes = ", ".join(str(shared_bytes(p)) for p in probes)
    out += [
        "",
        "typedef void (*probe_fn)(unsigned *);",
        f"static probe_fn kernels[{len(probes)}] = {{{names}}};",
        f"static const int shared_bytes[{len(probes)}] = {{{sizes}}};",
        "",
        "#define CHECK(call, what, i) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \\",
        '    fprintf(stderr, "linlayout probe: %s failed for probe_%05d: %s\\n", what, i, cudaGetErrorString(e_)); \\',
        "    return 1; } } while (0)",
        "",
        "int main() {",
        "  unsigned *sink = 0;",
        "  CHECK(cudaMalloc(&sink, 32 * sizeof(unsigned)), \"cudaMalloc\", 0);",
        f"  for (int i = 0; i < {len(probes)}; ++i) {{",
        "    if (shared_bytes[i] > 48 * 1024)",
        "      CHECK(cudaFuncSetAttribute((const void *)kernels[i], cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes[i]),",
        '            "cudaFuncSetAttribute", i);',
        f"    for (int r = 0; r < {int(repeat)}; ++r) {{",
        "      kernels[i]<<<1, 32, shared_bytes[i]>>>(sink);",
        '      CHECK(cudaGetLastError(), "launch", i);',
        '      CHECK(cudaDeviceSynchronize(), "kernel", i);',
        "    }",
        "  }",
        f'  printf("linlayout probe: launched %d kernels x %d\\n", {len(probes)}, {int(repeat)});',
        "  return 0;",
        "}",
        "",
    ]
    return "\n".join(out)
