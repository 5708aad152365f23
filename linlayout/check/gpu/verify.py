"""Verification on a GPU: queries planned into probe instructions, one compile and one profile, predictions against measurements.

Concepts
========

A ``linlayout conflicts`` query describes shared-memory instructions.  Here
it arrives **parsed** (the dict :func:`linlayout.io.jsonio.conflicts_query_from_json`
returns: ``{"kind": "layout" | "access", ...}`` plus the keyword arguments of
the counters); reading files and decoding JSON is the I/O layer's job
(:mod:`linlayout.io.gpu_queries`).

1. **Plan** (:func:`plan_probes`).  A layout-level query expands to every
   instruction of warp 0, planned once and counted by the library's counters
   (:func:`~linlayout.check.gpu.counts.count_layout_query`: closed form,
   simulator, lane offsets).  An address-level query is one instruction,
   counted by :func:`~linlayout.count.simulate.simulate_access` and, when its
   offsets are XOR-affine in the lane, by
   :func:`~linlayout.count.closed_form.access_wavefronts`.  The result is a
   :class:`QueryProbes` of :class:`~linlayout.check.gpu.codegen.ProbeInstruction`.
   A ``linlayout swizzle`` query stands for two conflicts queries on the
   memory it synthesizes (:func:`swizzle_side_queries`).
2. **Run** (:func:`verify`).  Distinct instructions become the kernels of one
   probe program (:mod:`~linlayout.check.gpu.codegen`), compiled once with
   ``nvcc`` for the local GPU and run once under ``ncu``
   (:mod:`~linlayout.check.gpu.ncu`); instructions this GPU cannot run are
   skipped with the reason.
3. **Compare** (:class:`VerifyResult`).  Each instruction's row says
   ``ok`` when the measurement equals the simulator and the closed form
   (where it applies), else ``MISMATCH``, ``unstable`` (launches disagree),
   ``other op counted``, ``not measured`` or ``skipped``.

Without ``nvcc``, ``ncu`` or a GPU, :func:`~linlayout.check.gpu.tools.find_tools`
raises :class:`~linlayout.errors.GPUToolError` naming what is missing;
planning and code generation work without a GPU.

Worked example: a float4 store into a transposed A tile, as an address-level
query, is one ``st.shared`` of 16 bytes: 4 passes of 8 lanes (a quarter
warp each), and inside a pass the 8 lanes hit the same banks 512 bytes
apart, so every pass costs 8 wavefronts: 32, by both counters

>>> from linlayout.count.query import AddressQuery
>>> q = AddressQuery("st.shared", "store", 16, [512 * (l % 8) + 16 * (l // 8) for l in range(32)])
>>> p = plan_probes(q, "float4")
>>> [(i.instruction, i.access_bytes, i.closed_form, i.simulated) for i in p.instructions]
[('st.shared', 16, 32, 32)]

API: :class:`QueryProbes`, :func:`plan_probes`, :func:`swizzle_side_queries`,
:class:`VerifyResult`, :func:`verify`.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...core.record import record
from ...count.closed_form import access_wavefronts
from ...count.query import AccessQuery, AddressQuery
from ...count.simulate import simulate_access
from ...errors import GPUToolError, InputError, NotLinearError
from .codegen import MAX_SHARED_BYTES, ProbeInstruction, generate_cuda, kernel_name, shared_bytes
from .counts import count_layout_query
from .ncu import METRIC_LOAD, METRIC_STORE, Measured, collect_measurements, parse_ncu_csv
from .tools import Tools, arch_number, find_tools

if TYPE_CHECKING:
    from ...synth.synthesis import SwizzleQuery

__all__ = ["plan_probes", "VerifyResult", "verify"]


# ---------------------------------------------------------------------------
# Queries -> instructions with predictions
# ---------------------------------------------------------------------------


@record(frozen=False)
class QueryProbes:
    """A query expanded into its instructions (warp 0), with predictions.

    ``kind`` is ``"layout"`` or ``"access"``, ``note`` says why a closed form
    is missing, ``source`` is the query as given (reported back verbatim).
    """

    id: str
    kind: str
    instructions: list[ProbeInstruction]
    note: str = ""
    source: dict[str, Any] = field(default_factory=dict)

    @property
    def closed_form_total(self) -> int | None:
        """The closed form's wavefronts per warp, or ``None`` where it does not apply."""
        vals = [i.closed_form for i in self.instructions]
        return None if any(v is None for v in vals) else sum(vals)  # type: ignore[arg-type]

    @property
    def simulated_total(self) -> int:
        """The simulator's wavefronts per warp."""
        return sum(i.simulated for i in self.instructions)


QueryPlan = QueryProbes
"""The previous name of :class:`QueryProbes` (kept for one release; not exported)."""


def plan_probes(query: AccessQuery | AddressQuery, qid: str = "query",
                source: Mapping[str, Any] | None = None) -> QueryProbes:
    """Expand one parsed ``linlayout conflicts`` query into its instructions and predictions.

    ``query`` is what :func:`linlayout.io.jsonio.conflicts_query_from_json`
    returns: an :class:`~linlayout.count.query.AccessQuery` (layout level) or
    an :class:`~linlayout.count.query.AddressQuery` (address level).
    ``source`` (the query as the user wrote it) is kept in the plan for the
    report.

    A layout-level query gives every instruction of warp 0, each predicted by
    the closed form (all instructions of a query cost the same) and by the
    simulator; a padded memory has the simulator only.  An address-level
    query is one instruction; the closed form applies when its offsets are
    XOR-affine in the lane index.  Raises the counters' errors
    (``LoweringError``, ``AccessError``, ...).

    >>> q = AddressQuery("ld.shared", "load", 4, [128 * l for l in range(32)])
    >>> p = plan_probes(q, "column")
    >>> p.kind, p.instructions[0].closed_form, p.instructions[0].simulated
    ('access', 32, 32)
    """
    src = dict(source) if source is not None else {}
    if isinstance(query, AddressQuery):
        res = simulate_access(query)
        try:
            closed: int | None = access_wavefronts(query).wavefronts
            note = ""
        except NotLinearError:
            closed, note = None, "offsets not XOR-affine in the lane: simulator only"
        ins = ProbeInstruction(qid, 0, res.instruction, res.op, res.access_bytes, query.lane_byte_offsets, closed,
                               res.wavefronts)
        return QueryProbes(qid, "access", [ins], note, src)
    c = count_layout_query(query)
    note = "" if c.closed_form is not None else "padded memory: simulator only"
    out = [ProbeInstruction(qid, k, c.instruction, c.op, c.access_bytes, o, c.closed_form, s)
           for k, (o, s) in enumerate(zip(c.lane_byte_offsets, c.simulated))]
    return QueryProbes(qid, "layout", out, note, src)


def swizzle_side_queries(query: SwizzleQuery) -> list[tuple[str, AccessQuery]]:
    """The two layout-level queries that check the answer of a parsed ``linlayout swizzle`` query.

    ``query`` is what :func:`linlayout.io.jsonio.swizzle_query_from_json`
    returns (a :class:`~linlayout.synth.synthesis.SwizzleQuery`).  Synthesizes the memory with
    :func:`~linlayout.synth.synthesis.optimal_swizzle` and returns
    ``[("write", store query), ("read", load query)]`` on that memory, each
    with the instruction (and, for ``ld/st.shared``, the vector width) the
    synthesis chose, so that measuring them measures the swizzle as a kernel
    would use it.  ``vector_bits`` is ``None`` for matrix instructions.
    """
    from ...synth.synthesis import optimal_swizzle

    res = optimal_swizzle(query)
    out: list[tuple[str, AccessQuery]] = []
    for side, layout, op, rep in (("write", query.write, "store", res.write),
                                  ("read", query.read, "load", res.read)):
        vector_bits = rep.vector_bits if rep.instruction in ("ld.shared", "st.shared") else None
        out.append((side, AccessQuery(layout, res.memory, query.element_bits, op, rep.instruction, vector_bits,
                                      query.hardware)))
    return out


# ---------------------------------------------------------------------------
# The result
# ---------------------------------------------------------------------------


@record(frozen=False)
class VerifyResult:
    """Predictions and measurements of a batch of queries.

    ``kernels`` lists the distinct probes (``probe_{i:05d}`` is ``kernels[i]``),
    ``measured[i]`` their measurements, ``index`` maps a probe key to its
    kernel, ``skipped`` names the instructions this GPU cannot run and why.
    """

    plans: list[QueryProbes]
    kernels: list[ProbeInstruction]
    measured: dict[int, Measured]
    index: dict[tuple, int]
    tools: Tools
    skipped: dict[tuple, str] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    command: str = ""

    def row(self, p: ProbeInstruction) -> dict[str, Any]:
        """One instruction's report: its predictions, its measurement and its status."""
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
            "kernel": kernel_name(k) if k is not None else None,
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
    def rows(self) -> list[tuple[QueryProbes, dict[str, Any]]]:
        """Every instruction's row, with its query."""
        return [(pl, self.row(p)) for pl in self.plans for p in pl.instructions]

    @property
    def ok(self) -> bool:
        """True when every instruction is ``ok`` or ``skipped``."""
        return all(r["status"] in ("ok", "skipped") for _, r in self.rows)

    def summary(self) -> dict[str, int]:
        """Instructions per status."""
        st: dict[str, int] = {}
        for _, r in self.rows:
            st[r["status"]] = st.get(r["status"], 0) + 1
        return st

    def to_dict(self) -> dict[str, Any]:
        """The JSON report: device, tools, timings and, per query, every instruction's row."""
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
        """The text report: one line per instruction, one per query, and the verdict."""
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


# ---------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------


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


def _select_kernels(plans: Sequence[QueryProbes], tools: Tools):
    """Distinct runnable probes, their index by key, and the skipped keys with the reason."""
    sm = arch_number(tools.arch)
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
            elif shared_bytes(p) > MAX_SHARED_BYTES:
                skipped[p.key] = f"needs {shared_bytes(p)} bytes of shared memory (at most {MAX_SHARED_BYTES})"
            else:
                index[p.key] = len(kernels)
                kernels.append(p)
    return kernels, index, skipped


def _compile_and_profile(plans, kernels, tools: Tools, work: Path, timeout: float, repeat: int,
                         seconds: dict[str, float]) -> list[dict[str, Any]]:
    """Write the program and its manifest to ``work``, compile it, profile it; return ncu's records."""
    (work / "probe.cu").write_text(generate_cuda(kernels, repeat))
    manifest = [
        {"kernel": kernel_name(i), "instruction": p.instruction, "op": p.op, "access_bytes": p.access_bytes,
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
    return parse_ncu_csv(text if '"Kernel Name"' in text else both)


def verify(
    plans: Sequence[QueryProbes],
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
    and predictions), the binary and ``ncu.csv`` in that folder.  ``tools``
    defaults to :func:`~linlayout.check.gpu.tools.find_tools` ``(nvcc, ncu,
    arch)``.  Raises :class:`~linlayout.errors.GPUToolError` for missing tools
    and failing runs (with the tools' last messages).
    """
    if isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 1:
        raise InputError(f"repeat must be a positive integer, got {repeat!r}")
    tools = tools or find_tools(nvcc, ncu, arch)
    kernels, index, skipped = _select_kernels(plans, tools)
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
        recs = _compile_and_profile(plans, kernels, tools, work, timeout, repeat, seconds)
    finally:
        if tmp is not None:
            tmp.cleanup()
    by = collect_measurements(recs, [p.op for p in kernels])
    lost = [kernel_name(k) for k in range(len(kernels)) if len(by.get(k, Measured([], [])).values) != repeat]
    if len(lost) == len(kernels):
        raise GPUToolError(f"ncu reported none of the {len(kernels)} probe kernels; see its log (--keep DIR keeps it)")
    return VerifyResult(list(plans), kernels, by, index, tools, skipped, seconds, command)
