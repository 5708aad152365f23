"""``linlayout lint``'s input and output: TTGIR text in, the lint report out as text or JSON.

The analysis is the lowering model's (:mod:`linlayout.lower.lint`: every
shared-memory op of a kernel counted as a Triton version lowers it, buffers
optimised, totals over a grid).  This module reads the text
(:func:`lint_text`: :func:`~linlayout.io.ttgir.module.parse_module`, each
tensor type's encoding resolved by :func:`tensor_layout`) and prints the
immutable report it gets back: :func:`render_lint` (text) and
:func:`lint_json` (the JSON document of ``linlayout lint --json``).  Memory
layouts of the report are printed as TTGIR (:func:`~linlayout.io.ttgir.encodings.to_ttgir_shared`)
and as Gluon (:func:`gluon_text`).

>>> text = open("tests/data/ttgir/gluon_smem_transpose.ttgir").read()
>>> report = lint_text(text, grid=(16, 16, 1))
>>> [(o.op, o.access.wavefronts) for o in report.ops]
[('ttg.local_alloc', 32), ('ttg.local_load', 128)]
>>> lint_json(report)["total"]["load_wavefronts"]
131072
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ...core.layout import LinearLayout
from ...core.memory import PaddedLayout
from ...count.closed_form import WavefrontReport
from ...lower.ir import TensorType
from ...lower.lint import lint_module
from ...lower.records import (
    BufferLint,
    ConversionSuggestion,
    ConvertPlanner,
    KernelTotal,
    LintReport,
    LoweredConversion,
    OpLint,
)
from ...lower.registry import DEFAULT_TRITON
from ...lower.triton_3_6 import conversion_scope, count_local_access, planned_conversion, shared_round_trip
from .attributes import TTGIRError, parse_attribute
from .dump import is_dump, select_module
from .encodings import layout_from_encoding, to_ttgir_shared
from .module import parse_module

__all__ = ["lint_json", "lint_text", "render_lint"]


def tensor_layout(t: TensorType) -> LinearLayout | PaddedLayout:
    """The layout of a tensor or memdesc type, from its encoding (:func:`~linlayout.io.ttgir.encodings.layout_from_encoding`)."""
    if t.encoding is None:
        raise TTGIRError(f"{t.text} has no encoding")
    return layout_from_encoding(t.encoding, list(t.shape))


def lint_text(text: str, num_warps: int | None = None, grid: Sequence[int] | None = None,
              trip_counts: Mapping[str, int] | None = None, convert_planner: ConvertPlanner | None = None,
              triton: str = DEFAULT_TRITON, strict_trip_counts: bool = False,
              pass_name: str | None = None, remedies: bool = False,
              progress: Callable[[str], None] | None = None,
              loop_totals: Mapping[str, int] | None = None) -> LintReport:
    """Lint TTGIR text (a module): the report printed by ``linlayout lint``.

    ``num_warps`` overrides the module's ``ttg.num-warps``; ``grid`` (X, Y, Z)
    and ``trip_counts`` (loop location → iterations; a location matches the
    loop's ``file:line:col``, ``file:line`` or ``line``) let it multiply
    out the kernel's totals.  ``triton`` names the compiler version whose
    lowering is modelled (:data:`~linlayout.lower.registry.LOWERINGS`).
    ``strict_trip_counts`` (the command line's) makes a ``trip_counts``
    location that matches no loop an error that lists the loops.  ``loop_totals``
    (loop location → its body's executions per program in all, e.g. a
    persistent kernel's tiles per program) replaces the trip counts of that
    loop and the loops around it (:mod:`linlayout.lower.loops`).  An
    ``MLIR_ENABLE_DUMP`` log is read as its last TTGIR-level module, or the
    one dumped before the pass ``pass_name`` names (:mod:`.dump`).  ``remedies`` adds the report's remedies
    (:mod:`linlayout.lower.remedies`).  ``progress``
    is told each stage as it begins (the command line passes a
    :class:`~linlayout.io.ttgir.progress.Progress`, which shows them on
    stderr once the lint has taken a second).
    """
    report = progress or _quiet
    if isinstance(text, str) and is_dump(text):
        report(f"finding the module in an MLIR_ENABLE_DUMP log of {len(text) / 1e6:.1f} MB")
        header, text = select_module(text, pass_name)
        report(f"reading the module dumped before {header.split(':')[0].split(' (')[0]}")
    else:
        report("reading the module")
    module = parse_module(text)  # checks that ``text`` is a str
    if not re.search(r'^\s*(module\b|"builtin\.module")', text, re.M):
        raise TTGIRError("not a TTGIR module: expected Triton's printout (module attributes {...} { tt.func ... })")
    report(f"counting {len(module.ops)} ops")
    lint = lint_module(module, _layouts_once(), num_warps, grid, trip_counts, convert_planner, triton,
                       strict_trip_counts=strict_trip_counts, remedies=remedies,
                       loop_totals=loop_totals)
    report("done")
    return lint


def _layouts_once() -> Callable[[TensorType], LinearLayout | PaddedLayout]:
    """:func:`tensor_layout` for one module, each type's layout built once: the reader shares one value per
    distinct type text, and a kernel names a few types on most of its ops (the layout is immutable, so the
    ops share it, and with it what the counters and the synthesizer cache on it)."""
    built: dict[int, tuple[TensorType, LinearLayout | PaddedLayout]] = {}

    def layout_of(t: TensorType) -> LinearLayout | PaddedLayout:
        hit = built.get(id(t))
        if hit is None or hit[0] is not t:
            hit = built[id(t)] = (t, tensor_layout(t))  # the type is kept, so its id stays its own
        return hit[1]

    return layout_of


def _quiet(stage: str) -> None:
    """The default progress: none."""


def gluon_text(ttgir: str) -> str:
    """The Gluon constructor of a printed shared encoding.

    >>> gluon_text("#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>")
    'ttgl.SwizzledSharedLayout(vec=8, per_phase=1, max_phase=8, order=[1, 0])'
    """
    a = parse_attribute(ttgir)
    f = a.fields
    if a.kind == "ttg.swizzled_shared":
        return (f"ttgl.SwizzledSharedLayout(vec={f['vec']}, per_phase={f['perPhase']}, max_phase={f['maxPhase']}, "
                f"order={f['order']})")
    if a.kind == "ttg.nvmma_shared":
        return (f"ttgl.NVMMASharedLayout(swizzle_byte_width={f['swizzlingByteWidth']}, "
                f"element_bitwidth={f['elementBitWidth']}, rank={f.get('rank', 2)}, transposed={bool(f['transposed'])})")
    if a.kind == "ttg.shared_linear":
        return f"ttgl.SharedLinearLayout(offset_bases={f['offset']})"
    if a.kind == "ttg.padded_shared":
        (interval, pad), = a.items[0]
        return f"ttgl.PaddedSharedLayout.with_identity_for([[{interval}, {pad}]], {f['shape']}, {f['order']})"
    raise TTGIRError(f"no Gluon form for #{a.kind}")


# ----------------------------------------------------------------------------- JSON


def _report_json(r: WavefrontReport) -> dict[str, Any]:
    return {"instruction": r.instruction, "wavefronts_per_warp": r.wavefronts, "instructions_per_warp": r.instructions,
            "ideal_wavefronts_per_warp": r.ideal_wavefronts, "conflict_ways": r.conflict_ways,
            "vector_bits": r.vector_bits}


def _suggestion_json(s: ConversionSuggestion) -> dict[str, Any]:
    if s.error is not None:
        return {"error": s.error}
    d: dict[str, Any] = {"path": s.path, "instructions": dict(s.instructions), "cost": s.cost}
    if s.wavefronts is not None:
        d.update({"wavefronts": dict(s.wavefronts), "reps": s.reps, "scratch_bytes": s.scratch_bytes})
    if s.counted_cost is not None:
        d["counted_cost"] = s.counted_cost
    return d


def conversion_query(o: OpLint) -> dict[str, Any]:
    """A conversion's ready ``linlayout convert`` query: its source and destination layouts and element bits."""
    assert o.layouts is not None
    return {"src": o.layouts[0].to_dict(), "dst": o.layouts[1].to_dict(), "element_bits": o.element_bits}


def _memory_text(o: OpLint) -> str:
    """The op's shared encoding as printed in the module, or the memory its counted round trip goes through."""
    if o.memory_text or not o.counted or o.conversion is None or o.conversion.memory is None:
        return o.memory_text
    return to_ttgir_shared(o.conversion.memory, o.element_bits)


def _op_json(o: OpLint) -> dict[str, Any]:
    e: dict[str, Any] = {"op": o.op, "location": o.location, "line": o.line, "element_bits": o.element_bits,
                         "shape": list(o.shape), "layout": o.layout_text, "memory": _memory_text(o),
                         "counted": o.counted, "reason": o.reason, "buffer": o.buffer, "loops": list(o.loops),
                         "executions_per_warp": o.executions_per_warp}
    if o.conversion is not None and o.conversion.suggestion is not None:
        e["linlayout_plan"] = _suggestion_json(o.conversion.suggestion)
    if o.layouts is not None:
        e["query"] = conversion_query(o)
    if o.counted and o.accesses:
        e.update({"plan": o.method, "instruction": " + ".join(r.instruction for _, r in o.accesses),
                  "wavefronts_per_warp": sum(r.wavefronts for _, r in o.accesses),
                  "instructions_per_warp": sum(r.instructions for _, r in o.accesses),
                  "ideal_wavefronts_per_warp": sum(r.ideal_wavefronts for _, r in o.accesses),
                  "conflict_ways": max(r.conflict_ways for _, r in o.accesses),
                  "accesses": [{"kind": k, **_report_json(r)} for k, r in o.accesses]})
    elif o.counted and o.access is not None:
        e.update(_report_json(o.access))
    elif o.counted and o.conversion is not None and o.conversion.uses_shared_memory:
        st, ld = o.conversion.store, o.conversion.load
        assert st is not None and ld is not None
        e.update({"plan": o.conversion.method, "instruction": f"{st.instruction} + {ld.instruction}",
                  "wavefronts_per_warp": st.wavefronts + ld.wavefronts,
                  "instructions_per_warp": st.instructions + ld.instructions,
                  "ideal_wavefronts_per_warp": st.ideal_wavefronts + ld.ideal_wavefronts,
                  "conflict_ways": max(st.conflict_ways, ld.conflict_ways),
                  "store": _report_json(st), "load": _report_json(ld)})
    else:
        e.update({"wavefronts_per_warp": None, "instructions_per_warp": None, "ideal_wavefronts_per_warp": None})
        if o.method:
            e["plan"] = o.method
    e["instructions"] = None if o.instructions is None else dict(o.instructions)
    if o.instructions_note:
        e["instructions_note"] = o.instructions_note
    if o.uncounted:
        e["uncounted"] = o.uncounted
    return e


def _buffer_json(b: BufferLint) -> dict[str, Any]:
    d: dict[str, Any] = {"name": b.name, "allocated_at": b.allocated_at,
                         "current": {"encoding": b.encoding_text, "write_wavefronts_per_warp": b.write_wavefronts,
                                     "read_wavefronts_per_warp": b.read_wavefronts},
                         "optimal": None, "saving": b.saving}
    if b.optimal is not None:
        text = to_ttgir_shared(b.optimal.memory, b.optimal.element_bits)
        d["optimal"] = {"encoding": text, "gluon": gluon_text(text),
                        "write_wavefronts_per_warp": b.optimal.write_wavefronts,
                        "read_wavefronts_per_warp": b.optimal.read_wavefronts}
    if b.reason is not None:
        d["reason"] = b.reason
    return d


def _total_json(t: KernelTotal) -> dict[str, Any]:
    if t.missing_trip_counts:
        d: dict[str, Any] = {"load_wavefronts": None, "store_wavefronts": None,
                             "missing_trip_counts": list(t.missing_trip_counts), "grid": list(t.grid)}
    else:
        d = {"load_wavefronts": t.load_wavefronts, "store_wavefronts": t.store_wavefronts, **dict(t.by_instruction),
             "grid": list(t.grid), "ctas": t.ctas, "warps_per_cta": t.warps_per_cta}
    d["not_counted"] = list(t.not_counted)
    d["async_copy_wavefronts"] = t.async_copy_wavefronts
    if t.per_iteration:
        d["data_dependent_loops"] = [{"location": loc, "load_wavefronts_per_iteration": ld,
                                      "store_wavefronts_per_iteration": st} for loc, ld, st in t.per_iteration]
    return d


def lint_json(report: LintReport) -> dict[str, Any]:
    """The JSON document of a lint report (``linlayout lint --json``): ``triton``, ``num_warps``, ``ops``, ``buffers``,
    ``total``, ``loops``."""
    d: dict[str, Any] = {"triton": report.lowering, "num_warps": report.num_warps, "ops": [_op_json(o) for o in report.ops],
                         "buffers": [_buffer_json(b) for b in report.buffers]}
    if report.total is not None:
        d["total"] = _total_json(report.total)
    d["loops"] = [{"location": lp.location, "trip_count": lp.trip_count, "kind": lp.kind,
                   "trip_count_from": lp.source or None} for lp in report.loops]
    if report.remedies:
        from .remedy_text import remedies_json  # only a lint with remedies reads them (lower/remedies.py)

        d["remedies"] = remedies_json(report.remedies)
    return d


# ----------------------------------------------------------------------------- text


def _suggestion_text(s: ConversionSuggestion) -> str:
    if s.error is not None:
        return f"linlayout plan: none ({s.error})"
    ins = ", ".join(f"{k} {v}" for k, v in s.instructions) or "no instructions"
    wf = ""
    if s.wavefronts:
        w = dict(s.wavefronts)
        wf = f"; wavefronts/warp {w['write']}+{w['read']}"
    vs = ""
    if s.counted_cost is not None:
        d = s.counted_cost - (s.cost or 0)
        vs = f" vs {s.counted_cost} for the counted round trip" + (f" (saves {d})" if d > 0 else "")
    return f"linlayout plan: {s.path}, cost {s.cost}{vs} ({ins}{wf})"


def _instructions_text(o: OpLint) -> str:
    if o.instructions is None:
        return "instructions: not known" + (f" ({o.instructions_note})" if o.instructions_note else "")
    ins = ", ".join(f"{k} {v}" for k, v in o.instructions) or "none"
    return f"instructions/thread: {ins}" + (f" ({o.instructions_note})" if o.instructions_note else "")


def _scratch_text(o: OpLint, head: str) -> list[str]:
    """A reduction, scan, histogram, atomic or cp.async: what Triton emits, each access, the instructions."""
    what = f"{o.element_bits}-bit {list(o.shape)}" if o.shape else "scalar"
    lines = [f"{head}\n    {what}  {o.method}"]
    for kind, r in o.accesses:
        per = "CTA" if kind.endswith("@cta") else "warp"
        lines.append(f"    {kind.split('@')[0]:<10} {r.instruction}: {r.wavefronts} wavefronts/{per} in {r.instructions} "
                     f"instructions (ideal {r.ideal_wavefronts}, {r.conflict_ways}-way)")
    lines.append(f"    {_instructions_text(o)}" + (f", x{o.executions_per_warp or '? (give --trip-count)'} executions"
                                                    if o.loops else ""))
    lines += [f"    not counted: {o.uncounted}"] if o.uncounted else []
    return lines + ([f"    layout {o.layout_text}"] if o.layout_text else [])


def _op_text(o: OpLint) -> list[str]:
    head = f"{o.op:<28} {o.location}"
    plan = o.conversion.suggestion if o.conversion is not None else None
    if o.counted and o.kind == "scratch":
        return _scratch_text(o, head)
    if not o.counted:
        return [f"{head}\n    not counted: {o.reason}"] + ([f"    {_suggestion_text(plan)}"] if plan else [])
    e = _op_json(o)
    lines = [f"{head}\n    {o.element_bits}-bit {list(o.shape)}  {e['instruction']}: "
             f"{e['wavefronts_per_warp']} wavefronts/warp in {e['instructions_per_warp']} instructions "
             f"(ideal {e['ideal_wavefronts_per_warp']}, {e['conflict_ways']}-way)"
             + (f", x{o.executions_per_warp or '? (give --trip-count)'} executions" if o.loops else "")]
    if o.access is None and o.conversion is not None and o.conversion.method:
        lines.append(f"    plan: {o.conversion.method}")
    if o.conversion is not None and o.accesses and o.instructions_note:  # a conversion counted otherwise than per warp
        lines.append(f"    note: {o.instructions_note}")
    if plan:
        lines.append(f"    {_suggestion_text(plan)}")
    if o.layout_text:
        lines.append(f"    layout {o.layout_text}")
    if e["memory"]:
        lines.append(f"    memory {e['memory']}")
    return lines


def _buffer_text(b: BufferLint) -> list[str]:
    lines = [f"buffer {b.name} ({b.allocated_at}): current {b.encoding_text} write {b.write_wavefronts} + read "
             f"{b.read_wavefronts} wavefronts/warp"]
    if b.optimal is None:
        return lines + [f"    optimal: not computed ({b.reason or ''})"]
    o = _buffer_json(b)["optimal"]
    return lines + [f"    optimal {o['encoding']}: write {o['write_wavefronts_per_warp']} + read "
                    f"{o['read_wavefronts_per_warp']}, saving {b.saving}",
                    f"    gluon   {o['gluon']}"]


def _total_text(t: KernelTotal) -> list[str]:
    by = dict(t.by_instruction)
    counts = "" if t.load_wavefronts is None else f" (ld {by['ld']}, ldsm {by['ldsm']}, st {by['st']}, stsm {by['stsm']})"
    lines = [f"total over grid {list(t.grid)}: load {t.load_wavefronts} store {t.store_wavefronts} wavefronts{counts}"]
    if t.async_copy_wavefronts:
        lines.append(f"    async copies (cp.async, LDGSTS): {t.async_copy_wavefronts} wavefronts")
    if t.missing_trip_counts:
        lines.append(f"    give --trip-count for the loops at {', '.join(t.missing_trip_counts)}")
    for loc, ld, st in t.per_iteration:
        lines.append(f"    data-dependent loop (scf.while) at {loc}: load {ld} store {st} wavefronts per iteration, "
                     f"not in the total")
    return lines + [f"    not counted: {n}" for n in t.not_counted]


def render_lint(report: LintReport) -> str:
    """The text form of a lint report (``linlayout lint`` without ``--json``)."""
    lines = [f"num_warps {report.num_warps}"]
    for o in report.ops:
        lines.extend(_op_text(o))
    for b in report.buffers:
        lines.extend(_buffer_text(b))
    if report.remedies:
        from .remedy_text import render_remedies  # only a lint with remedies reads them (lower/remedies.py)

        lines.extend(render_remedies(report.remedies))
    if report.total is not None:
        lines.extend(_total_text(report.total))
    return "\n".join(lines)
