"""GPU verification kit: measure the wavefronts of conflicts queries with Nsight Compute and compare.

Concepts
========

A ``linlayout conflicts`` query describes shared-memory instructions: a
layout-level query (distributed layout and memory layout) expands to one warp's
instructions, each with 32 lane byte offsets
(:func:`linlayout.conflicts.lane_byte_offsets`); an address-level query gives
one instruction's offsets directly.  This module turns a batch of queries
into **one CUDA probe program**:

* one kernel per *distinct* instruction (same kind, width and offsets are
  measured once), named ``probe_00000``, ``probe_00001``, ... so that Nsight
  Compute's rows map back by name;
* each kernel is launched once (or ``repeat`` times) with **one warp**, and
  issues exactly one shared-memory instruction through inline PTX
  (``ld/st.volatile.shared.b8/b16/b32/v2.b32/v4.b32``,
  ``ldmatrix/stmatrix.sync.aligned.m8n8.x1/x2/x4[.trans].shared.b16``);
  ``asm volatile`` with a memory clobber keeps it, loaded values go to a
  global sink, and lane ``l`` reads its offset from a global table, so the
  only shared-memory traffic is the probed instruction (a test checks the
  SASS: one ``LDS``/``STS``/``LDSM``/``STSM`` per kernel);
* the shared buffer is dynamic, aligned to 1024 bytes at run time, and sized
  per kernel (up to 227 KiB);

then compiles it once with ``nvcc`` for the local GPU (``nvidia-smi
--query-gpu=compute_cap``; ``sm_90`` when that fails), runs it once under
``ncu --csv --metrics l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum``, parses the CSV and
puts the measured wavefronts next to the predictions: the closed form
(:func:`~linlayout.conflicts.wavefronts`, or
:func:`~linlayout.conflicts.access_wavefronts` for XOR-affine offsets) and
the simulator (:func:`~linlayout.simulate.simulate_access`, for every
instruction, padding and non-affine offsets included).  The other metric
(stores for a load kernel) must read 0.

Without ``nvcc``, ``ncu`` or a GPU, :func:`find_tools` raises
:class:`~linlayout.errors.GPUToolError` naming exactly what is missing (the
command prints it on one line and exits 2).  Everything except the run
itself works without a GPU: :func:`plan_query`, :func:`generate_cuda`,
:func:`parse_ncu_csv`.

Worked example: the address-level query of ``examples/float4_store_ld128_access.json``
(a float4 store into a transposed A tile) is one ``st.shared`` of 16 bytes;
the probe kernel is ::

    extern "C" __global__ void __launch_bounds__(32, 1) probe_00000(unsigned *sink) {
      extern __shared__ __align__(1024) unsigned char smem[];
      unsigned a = ((unsigned)__cvta_generic_to_shared(smem) + 1023u & ~1023u) + g_off[0][threadIdx.x];
      asm volatile("st.volatile.shared.v4.b32 [%0], {%1, %2, %3, %4};" :: "r"(a), ... : "memory");
    }

>>> q = {"instruction": "st.shared", "op": "store", "access_bytes": 16,
...      "lane_byte_offsets": [512 * (l % 8) + 16 * (l // 8) for l in range(32)]}
>>> p = plan_query(q, "float4")
>>> [(i.instruction, i.access_bytes, i.closed_form, i.simulated) for i in p.instructions]
[('st.shared', 16, 32, 32)]

Batch files: a JSON object ``{"queries": [{"id": "name", "query": QUERY}, ...]}``
(an entry may also be a bare QUERY; ids default to ``FILE#k``).  Output
(:meth:`VerifyResult.to_dict`): the device, driver, tools, timings and, per
query, every instruction's kind, width, lane byte offsets, closed-form and
simulated prediction and measurement.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import GPUToolError, LayoutJSONError, LinLayoutError, NotLinearError

__all__ = [
    "GPUToolError",
    "METRIC_LOAD",
    "METRIC_STORE",
    "ProbeInstruction",
    "QueryPlan",
    "Tools",
    "VerifyResult",
    "plan_query",
    "load_queries",
    "ptx_statement",
    "generate_cuda",
    "parse_ncu_csv",
    "find_tools",
    "verify",
    "verify_files",
]

METRIC_LOAD = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
METRIC_STORE = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
MAX_SHARED_BYTES = 227 * 1024  # opt-in dynamic shared memory per block on sm_90


# ---------------------------------------------------------------------------
# Queries -> instructions with predictions
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ProbeInstruction:
    """One shared-memory instruction of a query, with its predictions.

    ``closed_form`` is ``None`` where the closed form does not apply (padded
    memory, offsets that are not XOR-affine in the lane index).
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
        """What makes two instructions the same probe."""
        return (self.instruction, self.op, self.access_bytes, self.lane_byte_offsets)


@dataclass
class QueryPlan:
    """A query expanded into its instructions (warp 0), with predictions and, after a run, measurements."""

    id: str
    kind: str  # "layout" or "access"
    instructions: list[ProbeInstruction]
    note: str = ""
    source: dict[str, Any] = field(default_factory=dict)

    @property
    def closed_form_total(self) -> int | None:
        vals = [i.closed_form for i in self.instructions]
        return None if any(v is None for v in vals) else sum(vals)  # type: ignore[arg-type]

    @property
    def simulated_total(self) -> int:
        return sum(i.simulated for i in self.instructions)


def plan_query(obj: Any, qid: str = "query") -> QueryPlan:
    """Expand one ``linlayout conflicts`` query (decoded JSON or text) into its instructions and predictions.

    A layout-level query gives every instruction of warp 0 (as
    :func:`linlayout.conflicts.lane_byte_offsets`), each predicted by the
    closed form (all instructions of a query cost the same) and by the
    simulator; a padded memory has the simulator only.  An address-level
    query is one instruction; the closed form applies when its offsets are
    XOR-affine in the lane index.

    Raises the errors of :func:`linlayout.jsonio.conflicts_query_from_json`
    and of the counting functions (``LoweringError``, ``AccessError``, ...).

    >>> q = {"instruction": "ld.shared", "op": "load", "access_bytes": 4, "lane_byte_offsets": [128 * l for l in range(32)]}
    >>> p = plan_query(q, "column")
    >>> p.kind, p.instructions[0].closed_form, p.instructions[0].simulated
    ('access', 32, 32)
    """
    from ..count.closed_form import access_wavefronts, wavefronts
    from ..count.by_simulation import lane_byte_offsets, simulate_wavefronts
    from ..io.jsonio import conflicts_query_from_json
    from ..count.simulate import simulate_access

    q = conflicts_query_from_json(obj)
    kind = q.pop("kind")
    raw = obj if isinstance(obj, Mapping) else json.loads(obj)
    if kind == "access":
        res = simulate_access(**q)
        try:
            closed: int | None = access_wavefronts(**q).wavefronts
            note = ""
        except NotLinearError:
            closed, note = None, "offsets not XOR-affine in the lane: simulator only"
        ins = ProbeInstruction(qid, 0, res.instruction, res.op, res.access_bytes, tuple(int(o) for o in q["lane_byte_offsets"]),
                               closed, res.wavefronts)
        return QueryPlan(qid, "access", [ins], note, dict(raw))
    try:
        per: int | None = wavefronts(**q).wavefronts_per_instruction
        note = ""
    except NotLinearError:
        per, note = None, "padded memory: simulator only"
    sim = simulate_wavefronts(**q)
    offs = lane_byte_offsets(**q)
    out = []
    for k, (o, s) in enumerate(zip(offs, sim.per_instruction or ())):
        out.append(ProbeInstruction(qid, k, sim.instruction, sim.op, sim.access_bytes, tuple(o), per, s))
    return QueryPlan(qid, "layout", out, note, dict(raw))


def swizzle_sides(obj: Any) -> list[tuple[str, dict[str, Any]]]:
    """Turn a ``linlayout swizzle`` query into the two conflicts queries that check its answer.

    Synthesizes the memory layout with :func:`linlayout.synthesis.optimal_swizzle`
    and returns ``[("write", store query), ("read", load query)]`` on that
    memory, each with the instruction (and vector width for ``ld/st.shared``)
    the synthesis chose, so that measuring them measures the synthesized
    swizzle as a kernel would use it.

    >>> import json
    >>> sides = swizzle_sides(json.load(open("examples/transpose_16x32.json")))
    >>> [(side, q["op"], q["instruction"]) for side, q in sides]
    [('write', 'store', 'st.shared'), ('read', 'load', 'ld.shared')]
    >>> [plan_query(q).simulated_total for _, q in sides]
    [16, 16]
    """
    from ..io.jsonio import swizzle_query_from_json
    from ..synth.synthesis import optimal_swizzle

    q = swizzle_query_from_json(obj)
    res = optimal_swizzle(**q)
    out: list[tuple[str, dict[str, Any]]] = []
    for side, layout, op, rep in (("write", q["write"], "store", res.write), ("read", q["read"], "load", res.read)):
        cq: dict[str, Any] = {"layout": layout.to_dict(), "memory": res.memory.to_dict(),
                              "element_bits": q["element_bits"], "op": op, "instruction": rep.instruction}
        if q["hardware"] != "sm90":
            cq["hardware"] = q["hardware"]
        if rep.instruction in ("ld.shared", "st.shared"):
            cq["vector_bits"] = rep.vector_bits
        out.append((side, cq))
    return out


def _is_swizzle_query(obj: Any) -> bool:
    return isinstance(obj, Mapping) and "write" in obj and "read" in obj


def load_queries(paths: Sequence[str | Path]) -> list[QueryPlan]:
    """Read query files (a single query, or a batch ``{"queries": [...]}``) and plan every query.

    Ids are the entry's ``"id"``, else ``FILE`` for a single query and
    ``FILE#k`` in a batch; they must be unique.  Errors name the file and entry.
    A ``linlayout swizzle`` query (``"write"`` and ``"read"``) stands for the
    two sides of its synthesized memory (:func:`swizzle_sides`), with ids
    ``ID write`` and ``ID read``.

    >>> import json, tempfile, os
    >>> q = {"instruction": "ld.shared", "op": "load", "access_bytes": 4, "lane_byte_offsets": [4 * l for l in range(32)]}
    >>> with tempfile.TemporaryDirectory() as d:
    ...     path = os.path.join(d, "batch.json")
    ...     _ = open(path, "w").write(json.dumps({"queries": [{"id": "rows", "query": q}]}))
    ...     [(p.id, p.simulated_total) for p in load_queries([path])]
    [('rows', 1)]
    """
    from ..io.jsonio import load_file

    plans: list[QueryPlan] = []
    seen: set[str] = set()
    for path in paths:
        obj = load_file(path, "query file")
        entries: list[tuple[str, Any]]
        if isinstance(obj, Mapping) and "queries" in obj:
            if set(obj) - {"queries", "about"}:
                raise LayoutJSONError(f"{path}: a batch file has only \"queries\" (and optionally \"about\")")
            if not isinstance(obj["queries"], list) or not obj["queries"]:
                raise LayoutJSONError(f"{path}: \"queries\" must be a non-empty list")
            entries = []
            for k, e in enumerate(obj["queries"]):
                if isinstance(e, Mapping) and "query" in e:
                    if set(e) - {"id", "query"}:
                        raise LayoutJSONError(f"{path} entry {k}: an entry has only \"id\" and \"query\"")
                    qid = e.get("id", f"{path}#{k}")
                    if not isinstance(qid, str) or not qid:
                        raise LayoutJSONError(f"{path} entry {k}: \"id\" must be a non-empty string")
                    entries.append((qid, e["query"]))
                else:
                    entries.append((f"{path}#{k}", e))
        else:
            entries = [(str(path), obj)]
        expanded: list[tuple[str, Any]] = []
        for qid, q in entries:
            if _is_swizzle_query(q):
                try:
                    expanded.extend((f"{qid} {side}", cq) for side, cq in swizzle_sides(q))
                except LinLayoutError as e:
                    raise type(e)(f"query {qid}: {e}") from None
            else:
                expanded.append((qid, q))
        for qid, q in expanded:
            if qid in seen:
                raise LayoutJSONError(f"query id {qid!r} appears twice; ids must be unique")
            seen.add(qid)
            try:
                plans.append(plan_query(q, qid))
            except LinLayoutError as e:
                raise type(e)(f"query {qid}: {e}") from None
    return plans


# ---------------------------------------------------------------------------
# Code generation
# ---------------------------------------------------------------------------


_ST_TYPE = {1: "b8", 2: "b16", 4: "b32", 8: "v2.b32", 16: "v4.b32"}


def ptx_statement(instruction: str, op: str, access_bytes: int) -> str:
    """The C++ statement (inline PTX) that issues one instruction at shared address ``a``.

    Loads write ``r0..r3`` (``unsigned``; ``unsigned short`` for 1 and 2
    bytes), stores read the values ``v0..v3``; the caller declares them.

    >>> print(ptx_statement("ld.shared", "load", 8))
    asm volatile("ld.volatile.shared.v2.b32 {%0, %1}, [%2];" : "=r"(r0), "=r"(r1) : "r"(a) : "memory");
    >>> print(ptx_statement("stmatrix.x2.trans", "store", 16))
    asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};" :: "r"(a), "r"(v0), "r"(v1) : "memory");
    """
    from ..hw import parse_instruction

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
        raise GPUToolError(f"ld/st.shared moves 1, 2, 4, 8 or 16 bytes per lane, not {access_bytes}")
    t = _ST_TYPE[access_bytes]
    n = max(1, access_bytes // 4)
    c = "h" if access_bytes < 4 else "r"
    if ins.op == "load":
        dst = f"%0" if n == 1 else "{" + ", ".join(f"%{i}" for i in range(n)) + "}"
        outs = ", ".join(f'"={c}"(r{i})' for i in range(n))
        return f'asm volatile("ld.volatile.shared.{t} {dst}, [%{n}];" : {outs} : "r"(a) : "memory");'
    src = "%1" if n == 1 else "{" + ", ".join(f"%{i + 1}" for i in range(n)) + "}"
    vals = ", ".join(f'"{c}"(v{i})' for i in range(n))
    return f'asm volatile("st.volatile.shared.{t} [%0], {src};" :: "r"(a), {vals} : "memory");'


def _shared_bytes(p: ProbeInstruction) -> int:
    need = max(p.lane_byte_offsets) + max(p.access_bytes, 16) + 1024  # + alignment slack
    return -(-need // 1024) * 1024


def _kernel(i: int, p: ProbeInstruction) -> str:
    from ..hw import parse_instruction

    ins = parse_instruction(p.instruction, p.op)
    n = ins.matrices if ins.is_matrix else max(1, p.access_bytes // 4)
    ty = "unsigned short" if not ins.is_matrix and p.access_bytes < 4 else "unsigned"
    lines = [
        f'extern "C" __global__ void __launch_bounds__(32, 1) probe_{i:05d}(unsigned *sink) {{',
        "  extern __shared__ __align__(1024) unsigned char smem[];",
        f"  unsigned a = (((unsigned)__cvta_generic_to_shared(smem) + 1023u) & ~1023u) + g_off[{i}][threadIdx.x];",
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
    kernel's name on the first CUDA error.

    >>> src = generate_cuda([ProbeInstruction("q", 0, "ld.shared", "load", 4, tuple(range(0, 128, 4)), 1, 1)])
    >>> "probe_00000" in src and "ld.volatile.shared.b32" in src
    True
    """
    if not probes:
        raise GPUToolError("no instructions to probe")
    rows = ",\n".join("  {" + ", ".join(str(o) for o in p.lane_byte_offsets) + "}" for p in probes)
    out = [
        "// Generated by linlayout.verify_gpu: one kernel per shared-memory instruction, one warp per launch.",
        "#include <cstdio>",
        "#include <cstdlib>",
        "#include <cuda_runtime.h>",
        "",
        f"__device__ const unsigned g_off[{len(probes)}][32] = {{\n{rows}\n}};",
        "",
    ]
    out += [_kernel(i, p) for i, p in enumerate(probes)]
    names = ", ".join(f"probe_{i:05d}" for i in range(len(probes)))
    sizes = ", ".join(str(_shared_bytes(p)) for p in probes)
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


# ---------------------------------------------------------------------------
# Nsight Compute CSV
# ---------------------------------------------------------------------------


def _number(s: str) -> float | None:
    t = s.strip().replace(",", "").replace(" ", "")
    if not t or t.lower() in ("n/a", "nan", "-"):
        return None
    try:
        return float(t)
    except ValueError:
        return None


def parse_ncu_csv(text: str, metrics: Sequence[str] = (METRIC_LOAD, METRIC_STORE)) -> list[dict[str, Any]]:
    """Parse ``ncu --csv`` output (``--page raw`` or ``details``) into one record per profiled launch.

    Each record has ``id`` (ncu's launch index), ``kernel`` (the kernel
    name) and one entry per metric (a number, or ``None`` when ncu printed
    ``n/a``), in launch order.  Lines that are not CSV (``==PROF==``
    messages, program output) are ignored; thousands separators are removed.
    Raises :class:`GPUToolError` when no kernel row is found.

    >>> text = '''==PROF== Connected to process 7
    ... "ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum","l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
    ... "","","","","","","","","","","","wavefront","wavefront"
    ... "0","7","probe","h","probe_00000","1","7","(32, 1, 1)","(1, 1, 1)","0","9.0","32","0"'''
    >>> parse_ncu_csv(text)[0]["kernel"], parse_ncu_csv(text)[0][METRIC_LOAD]
    ('probe_00000', 32.0)
    """
    lines = [ln for ln in text.splitlines() if ln.startswith('"')]
    records: dict[str, dict[str, Any]] = {}
    order: list[str] = []
    header: list[str] | None = None
    for row in csv.reader(io.StringIO("\n".join(lines))):
        if "Kernel Name" in row and "ID" in row:
            header = row
            continue
        if header is None or len(row) != len(header):
            continue
        d = dict(zip(header, row))
        rid = d.get("ID", "").strip()
        if not rid.isdigit():
            continue  # units row
        rec = records.get(rid)
        if rec is None:
            rec = records[rid] = {"id": int(rid), "kernel": d.get("Kernel Name", "").strip()}
            for m in metrics:
                rec[m] = None
            order.append(rid)
        if "Metric Name" in d:
            name = d["Metric Name"].strip()
            if name in metrics:
                rec[name] = _number(d.get("Metric Value", ""))
        else:
            for m in metrics:
                if m in d:
                    rec[m] = _number(d[m])
    if not records:
        raise GPUToolError(
            "Nsight Compute printed no kernel rows (no CSV header with \"Kernel Name\"); "
            "see the ncu log for its messages"
        )
    return [records[r] for r in sorted(order, key=int)]


# ---------------------------------------------------------------------------
# Tools and the run
# ---------------------------------------------------------------------------


@dataclass
class Tools:
    """Paths and facts about the local CUDA set-up."""

    nvcc: str
    ncu: str
    gpu_name: str
    compute_cap: str | None
    driver: str
    arch: str
    nvcc_version: str = ""
    ncu_version: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "gpu": self.gpu_name,
            "compute_capability": self.compute_cap,
            "driver": self.driver,
            "arch": self.arch,
            "nvcc": self.nvcc,
            "nvcc_version": self.nvcc_version,
            "ncu": self.ncu,
            "ncu_version": self.ncu_version,
        }


def _which(name: str, explicit: str | None, env: str) -> str | None:
    for cand in (explicit, os.environ.get(env)):
        if cand:
            return cand if (os.path.isfile(cand) and os.access(cand, os.X_OK)) else None
    found = shutil.which(name)
    if found:
        return found
    homes = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"]
    for h in homes:
        if h and os.access(os.path.join(h, "bin", name), os.X_OK):
            return os.path.join(h, "bin", name)
    if name == "ncu":
        for base in ("/opt/nvidia/nsight-compute", "/usr/local/NVIDIA-Nsight-Compute"):
            hits = sorted(Path(base).glob("*/ncu")) + [Path(base) / "ncu"]
            for h in reversed(hits):
                if os.access(h, os.X_OK):
                    return str(h)
        for h in sorted(Path("/usr/local").glob("cuda-*/bin/ncu"), reverse=True):
            if os.access(h, os.X_OK):
                return str(h)
    return None


def _version(exe: str) -> str:
    try:
        out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=60)
        lines = [ln.strip() for ln in (out.stdout + out.stderr).splitlines() if ln.strip()]
        return lines[-1] if lines else ""
    except (OSError, subprocess.SubprocessError):
        return ""


def find_tools(nvcc: str | None = None, ncu: str | None = None, arch: str | None = None) -> Tools:
    """Locate ``nvcc``, ``ncu`` and a GPU; raise :class:`GPUToolError` naming everything that is missing.

    ``nvcc``/``ncu`` may be given (or set ``NVCC``/``NCU``); otherwise
    ``PATH``, ``$CUDA_HOME/bin``, ``/usr/local/cuda/bin`` and the usual Nsight
    Compute folders are searched.  The GPU is the first one ``nvidia-smi``
    lists; the architecture is ``sm_<compute capability>`` (``sm_90`` when
    ``nvidia-smi`` cannot tell), or ``arch``.

    >>> find_tools(nvcc="/nonexistent/nvcc")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    linlayout.errors.GPUToolError: verify-gpu needs nvcc, ncu and an NVIDIA GPU; missing: nvcc (...
    """
    missing = []
    nv = _which("nvcc", nvcc, "NVCC")
    if nv is None:
        missing.append("nvcc (not on PATH, $CUDA_HOME/bin or /usr/local/cuda/bin; set NVCC or --nvcc)")
    nc = _which("ncu", ncu, "NCU")
    if nc is None:
        missing.append("ncu, Nsight Compute (not on PATH, $CUDA_HOME/bin, /usr/local/cuda/bin or "
                       "/opt/nvidia/nsight-compute; set NCU or --ncu)")
    smi = shutil.which("nvidia-smi")
    name = driver = ""
    cap = None
    if smi is None:
        missing.append("an NVIDIA GPU (nvidia-smi not found)")
    else:
        try:
            out = subprocess.run([smi, "--query-gpu=name,driver_version,compute_cap", "--format=csv,noheader"],
                                 capture_output=True, text=True, timeout=60)
            if out.returncode != 0:
                out = subprocess.run([smi, "--query-gpu=name,driver_version", "--format=csv,noheader"],
                                     capture_output=True, text=True, timeout=60)
            first = out.stdout.strip().splitlines()[0] if out.returncode == 0 and out.stdout.strip() else ""
        except (OSError, subprocess.SubprocessError) as e:
            first = ""
            missing.append(f"an NVIDIA GPU (nvidia-smi failed: {e})")
        if first:
            parts = [p.strip() for p in first.split(",")]
            name, driver = parts[0], parts[1] if len(parts) > 1 else ""
            cap = parts[2] if len(parts) > 2 and re.fullmatch(r"\d+\.\d+", parts[2]) else None
        elif not any(m.startswith("an NVIDIA GPU") for m in missing):
            missing.append("an NVIDIA GPU (nvidia-smi lists none)")
    if missing:
        raise GPUToolError("verify-gpu needs nvcc, ncu and an NVIDIA GPU; missing: " + "; ".join(missing))
    if arch is None:
        arch = "sm_" + cap.replace(".", "") if cap else "sm_90"
    return Tools(nv, nc, name, cap, driver, arch, _version(nv), _version(nc))


def _arch_number(arch: str) -> int:
    m = re.search(r"(\d+)", arch)
    return int(m.group(1)) if m else 90


@dataclass
class Measured:
    """One probe kernel's measurement (``values``: one per launch) and its other-op metric."""

    values: list[int | None]
    other: list[int | None]

    @property
    def value(self) -> int | None:
        vs = set(self.values)
        return self.values[0] if len(vs) == 1 and self.values else None

    @property
    def stable(self) -> bool:
        return len(set(self.values)) == 1 and self.values[0] is not None


@dataclass
class VerifyResult:
    """Predictions and measurements of a batch of queries.

    ``kernels`` lists the distinct probes (``probe_{i:05d}`` is ``kernels[i]``),
    ``measured[i]`` their measurements, ``index`` maps a probe key to its
    kernel, ``skipped`` names the instructions this GPU cannot run and why.
    """

    plans: list[QueryPlan]
    kernels: list[ProbeInstruction]
    measured: dict[int, Measured]
    index: dict[tuple, int]
    tools: Tools
    skipped: dict[tuple, str] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    command: str = ""

    def row(self, p: ProbeInstruction) -> dict[str, Any]:
        k = self.index.get(p.key)
        m = self.measured.get(k) if k is not None else None
        meas = m.value if m is not None else None
        other = m.other if m is not None else []
        status = "skipped" if p.key in self.skipped else (
            "not measured" if m is None or meas is None else (
                "unstable" if not m.stable else (
                    "other op counted" if any(o not in (0, None) for o in other) else (
                        "ok" if meas == p.simulated and p.closed_form in (None, meas) else "MISMATCH"))))
        return {
            "index": p.index,
            "kernel": f"probe_{k:05d}" if k is not None else None,
            "instruction": p.instruction,
            "op": p.op,
            "access_bytes": p.access_bytes,
            "lane_byte_offsets": list(p.lane_byte_offsets),
            "closed_form": p.closed_form,
            "simulated": p.simulated,
            "measured": meas,
            "measured_launches": m.values if m is not None else [],
            "other_op_measured": other,
            "status": status,
            **({"skip_reason": self.skipped[p.key]} if p.key in self.skipped else {}),
        }

    @property
    def rows(self) -> list[tuple[QueryPlan, dict[str, Any]]]:
        return [(pl, self.row(p)) for pl in self.plans for p in pl.instructions]

    @property
    def ok(self) -> bool:
        return all(r["status"] in ("ok", "skipped") for _, r in self.rows)

    def summary(self) -> dict[str, int]:
        st: dict[str, int] = {}
        for _, r in self.rows:
            st[r["status"]] = st.get(r["status"], 0) + 1
        return st

    def to_dict(self) -> dict[str, Any]:
        queries = []
        for pl in self.plans:
            rows = [self.row(p) for p in pl.instructions]
            meas = [r["measured"] for r in rows]
            queries.append({
                "id": pl.id,
                "kind": pl.kind,
                "note": pl.note,
                "query": pl.source,
                "closed_form_total": pl.closed_form_total,
                "simulated_total": pl.simulated_total,
                "measured_total": None if any(v is None for v in meas) else sum(meas),
                "instructions": rows,
            })
        return {
            "about": ("Shared-memory wavefronts of one warp per instruction, measured with Nsight Compute "
                      f"({METRIC_LOAD} for loads and ldmatrix, {METRIC_STORE} for stores and stmatrix), one kernel "
                      "launch per distinct instruction, against linlayout's closed form and simulator."),
            "command": self.command,
            "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "device": self.tools.to_dict(),
            "seconds": {k: round(v, 2) for k, v in self.seconds.items()},
            "kernels": len(self.kernels),
            "instructions": sum(len(p.instructions) for p in self.plans),
            "summary": self.summary(),
            "ok": self.ok,
            "queries": queries,
        }

    def text(self) -> str:
        t = self.tools
        L = [f"device: {t.gpu_name} ({t.arch}, driver {t.driver}); {len(self.kernels)} probe kernels for "
             f"{sum(len(p.instructions) for p in self.plans)} instructions of {len(self.plans)} queries; "
             + ", ".join(f"{k} {v:.1f} s" for k, v in self.seconds.items())]
        L.append("")
        L.append(f"{'query':40s} {'#':>3s} {'instruction':18s} {'bytes':>5s} {'closed':>6s} {'sim':>5s} {'measured':>8s}  status")
        for pl, r in self.rows:
            cf = "-" if r["closed_form"] is None else str(r["closed_form"])
            me = "-" if r["measured"] is None else str(r["measured"])
            qid = pl.id if len(pl.id) <= 40 else "..." + pl.id[-37:]
            L.append(f"{qid:40s} {r['index']:>3d} {r['instruction']:18s} {r['access_bytes']:>5d} {cf:>6s} "
                     f"{r['simulated']:>5d} {me:>8s}  {r['status']}" + (f" ({r['skip_reason']})" if "skip_reason" in r else ""))
        L.append("")
        L.append("per query (wavefronts per warp): closed form / simulator / measured")
        for pl in self.plans:
            rows = [self.row(p) for p in pl.instructions]
            meas = [r["measured"] for r in rows]
            mt = "-" if any(v is None for v in meas) else str(sum(meas))
            cf = "-" if pl.closed_form_total is None else str(pl.closed_form_total)
            L.append(f"  {pl.id}: {cf} / {pl.simulated_total} / {mt}" + (f"  ({pl.note})" if pl.note else ""))
        s = self.summary()
        n = sum(s.values())
        L.append("")
        if self.ok:
            L.append(f"all {s.get('ok', 0)} measured instructions equal the prediction (the simulator everywhere, the "
                     f"closed form where it applies)" + (f"; {s['skipped']} skipped" if s.get("skipped") else ""))
        else:
            L.append(f"{n - s.get('ok', 0) - s.get('skipped', 0)} of {n} instructions do NOT match: "
                     + ", ".join(f"{k} {v}" for k, v in sorted(s.items())))
        return "\n".join(L)


def _run(cmd: list[str], what: str, timeout: float, cwd: str | None = None) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=cwd)
    except subprocess.TimeoutExpired:
        raise GPUToolError(f"{what} did not finish within {timeout:g} s; raise --timeout or split the batch") from None
    except OSError as e:
        raise GPUToolError(f"cannot run {what} ({cmd[0]}): {e.strerror or e}") from None


def _tail(text: str, n: int = 3) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return " | ".join(lines[-n:]) if lines else "(no output)"


def verify(
    plans: Sequence[QueryPlan],
    keep: str | Path | None = None,
    timeout: float = 600,
    arch: str | None = None,
    repeat: int = 1,
    tools: Tools | None = None,
    nvcc: str | None = None,
    ncu: str | None = None,
    command: str = "",
) -> VerifyResult:
    """Compile one probe program for all ``plans``, run it once under Nsight Compute, and match the results.

    Distinct instructions become kernels ``probe_00000, ...``; instructions
    that this GPU cannot run (``stmatrix`` below sm_90, ``ldmatrix`` below
    sm_75, more than 227 KiB of shared memory) are skipped with the reason.
    ``keep`` keeps ``probe.cu``, ``probe_manifest.json`` (kernel -> queries
    and predictions), the binary and ``ncu.csv`` in that folder.  Raises
    :class:`GPUToolError` for missing tools and failing runs (with the tools'
    last messages).
    """
    if isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 1:
        raise GPUToolError(f"repeat must be a positive integer, got {repeat!r}")
    tools = tools or find_tools(nvcc, ncu, arch)
    sm = _arch_number(tools.arch)
    kernels: list[ProbeInstruction] = []
    index: dict[tuple, int] = {}
    skipped: dict[tuple, str] = {}
    for pl in plans:
        for p in pl.instructions:
            if p.key in index or p.key in skipped:
                continue
            if p.instruction.startswith("stmatrix") and sm < 90:
                skipped[p.key] = f"stmatrix needs sm_90, this GPU is {tools.arch}"
            elif p.instruction.startswith("ldmatrix") and sm < 75:
                skipped[p.key] = f"ldmatrix needs sm_75, this GPU is {tools.arch}"
            elif _shared_bytes(p) > MAX_SHARED_BYTES:
                skipped[p.key] = f"needs {_shared_bytes(p)} bytes of shared memory (at most {MAX_SHARED_BYTES})"
            else:
                index[p.key] = len(kernels)
                kernels.append(p)
    if not kernels:
        raise GPUToolError("nothing to measure: every instruction was skipped (" + "; ".join(sorted(set(skipped.values()))) + ")")
    tmp = None
    if keep is None:
        tmp = tempfile.TemporaryDirectory(prefix="linlayout-verify-gpu-")
        work = Path(tmp.name)
    else:
        work = Path(keep)
        work.mkdir(parents=True, exist_ok=True)
    seconds: dict[str, float] = {}
    try:
        (work / "probe.cu").write_text(generate_cuda(kernels, repeat))
        manifest = [
            {"kernel": f"probe_{i:05d}", "instruction": p.instruction, "op": p.op, "access_bytes": p.access_bytes,
             "lane_byte_offsets": list(p.lane_byte_offsets), "closed_form": p.closed_form, "simulated": p.simulated,
             "queries": sorted({f"{q.id}[{x.index}]" for q in plans for x in q.instructions if x.key == p.key})}
            for i, p in enumerate(kernels)
        ]
        (work / "probe_manifest.json").write_text(json.dumps({"repeat": repeat, "kernels": manifest}, indent=1))
        exe = work / "probe"
        t0 = time.perf_counter()
        r = _run([tools.nvcc, "-O3", f"-arch={tools.arch}", "-o", str(exe), str(work / "probe.cu")], "nvcc", timeout)
        seconds["nvcc"] = time.perf_counter() - t0
        if r.returncode != 0:
            raise GPUToolError(f"nvcc failed (exit {r.returncode}, -arch={tools.arch}): {_tail(r.stderr + r.stdout)}")
        log = work / "ncu.csv"
        cmd = [tools.ncu, "--csv", "--page", "raw", "--metrics", f"{METRIC_LOAD},{METRIC_STORE}",
               "--cache-control", "none", "--clock-control", "none", "--log-file", str(log), "-f", str(exe)]
        t0 = time.perf_counter()
        r = _run(cmd, "ncu", timeout, cwd=str(work))
        seconds["ncu"] = time.perf_counter() - t0
        text = log.read_text(errors="replace") if log.exists() else ""
        (work / "probe_stdout.txt").write_text(r.stdout + r.stderr)
        both = text + "\n" + r.stdout + "\n" + r.stderr
        if "ERR_NVGPUCTRPERM" in both:
            raise GPUToolError(
                "ncu may not read the GPU performance counters (ERR_NVGPUCTRPERM): run as root, or load the driver "
                "with NVreg_RestrictProfilingToAdminUsers=0"
            )
        if r.returncode != 0:
            errs = [ln for ln in both.splitlines() if "ERROR" in ln or "error" in ln]
            raise GPUToolError(f"ncu failed (exit {r.returncode}): {_tail(chr(10).join(errs) or both)}")
        recs = parse_ncu_csv(text if '"Kernel Name"' in text else both)
    finally:
        if tmp is not None:
            tmp.cleanup()
    by: dict[int, Measured] = {}
    for rec in recs:
        m = re.search(r"probe_(\d+)", rec["kernel"])
        if not m:
            continue
        k = int(m.group(1))
        if k >= len(kernels):
            continue
        p = kernels[k]
        mine, other = (METRIC_LOAD, METRIC_STORE) if p.op == "load" else (METRIC_STORE, METRIC_LOAD)
        val = rec[mine]
        oth = rec[other]
        slot = by.setdefault(k, Measured([], []))
        slot.values.append(None if val is None else int(round(val)))
        slot.other.append(None if oth is None else int(round(oth)))
    lost = [f"probe_{k:05d}" for k in range(len(kernels)) if len(by.get(k, Measured([], [])).values) != repeat]
    if len(lost) == len(kernels):
        raise GPUToolError(f"ncu reported none of the {len(kernels)} probe kernels; see its log (--keep DIR keeps it)")
    res = VerifyResult(list(plans), kernels, by, index, tools, skipped, seconds, command)
    return res


def verify_files(
    paths: Sequence[str],
    as_json: bool = False,
    keep: str | None = None,
    timeout: float = 600,
    arch: str | None = None,
    repeat: int = 1,
    nvcc: str | None = None,
    ncu: str | None = None,
    out=None,
) -> int:
    """The ``linlayout verify-gpu`` command: plan, measure, print; return 0 when everything matches, 1 otherwise."""
    import sys

    out = out or sys.stdout
    plans = load_queries(paths)
    tools = find_tools(nvcc, ncu, arch)
    res = verify(plans, keep=keep, timeout=timeout, repeat=repeat, tools=tools,
                 command="linlayout verify-gpu " + " ".join(paths))
    if as_json:
        out.write(json.dumps(res.to_dict()) + "\n")
    else:
        out.write(res.text() + "\n")
    return 0 if res.ok else 1
