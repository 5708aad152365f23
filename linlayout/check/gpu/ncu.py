"""Nsight Compute's side: the metrics that count shared-memory wavefronts, its CSV output, and the measurements in it.

Concepts
========

Nsight Compute (``ncu``) counts the wavefronts the L1/shared-memory pipe
serves for shared-memory loads and stores in two metrics,
:data:`METRIC_LOAD` (``ld.shared`` and ``ldmatrix``) and
:data:`METRIC_STORE` (``st.shared`` and ``stmatrix``).  Profiled with
``ncu --csv --metrics LOAD,STORE``, every launch of a probe kernel becomes
one record: its launch index, its kernel name and both metrics.  A probe
measures its own op's metric; the other one must read 0 (else something
else touched shared memory).

ncu prints its CSV in two shapes, both parsed by :func:`parse_ncu_csv`:

* ``--page raw``: one row per launch, one column per metric, and a units
  row under the header;
* ``--page details``: one row per launch and metric, with ``Metric Name``
  and ``Metric Value`` columns.

Numbers may carry thousands separators (``"1,024"``); ``n/a`` reads as
``None``; lines that are not CSV (``==PROF==`` messages, the program's
output) are skipped.

Worked example: two launches of ``probe_00000`` (a load), read back as its
measurement (:func:`collect_measurements`)

>>> head = '"ID","Kernel Name","' + METRIC_LOAD + '","' + METRIC_STORE + '"'
>>> text = "\\n".join(["==PROF== Connected to process 7", head, '"","","wavefront","wavefront"',
...                   '"0","probe_00000","1,024","0"', '"1","probe_00000","1,024","0"'])
>>> recs = parse_ncu_csv(text)
>>> [(r["id"], r["kernel"], r[METRIC_LOAD]) for r in recs]
[(0, 'probe_00000', 1024.0), (1, 'probe_00000', 1024.0)]
>>> m = collect_measurements(recs, ["load"])[0]
>>> m.values, m.other, m.value, m.stable
([1024, 1024], [0, 0], 1024, True)

API: :data:`METRIC_LOAD`, :data:`METRIC_STORE`, :func:`parse_ncu_csv`,
:class:`Measured`, :func:`collect_measurements`.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from typing import Any

from ...core.record import record
from ...errors import GPUToolError
from .codegen import kernel_index

__all__ = ["parse_ncu_csv"]

METRIC_LOAD = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
"""Wavefronts of shared-memory loads (``ld.shared``, ``ldmatrix``)."""
METRIC_STORE = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
"""Wavefronts of shared-memory stores (``st.shared``, ``stmatrix``)."""


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
    Raises :class:`~linlayout.errors.GPUToolError` when no kernel row is found.

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


@record(frozen=False)
class Measured:
    """One probe kernel's measurement: ``values`` its own op's metric per launch, ``other`` the other op's."""

    values: list[int | None]
    other: list[int | None]

    @property
    def value(self) -> int | None:
        """The measurement when every launch read the same, else ``None``."""
        vs = set(self.values)
        return self.values[0] if len(vs) == 1 and self.values else None

    @property
    def stable(self) -> bool:
        """True when every launch read the same number."""
        return len(set(self.values)) == 1 and self.values[0] is not None


def collect_measurements(records: Sequence[dict[str, Any]], ops: Sequence[str]) -> dict[int, Measured]:
    """Group the records of :func:`parse_ncu_csv` by probe kernel: ``{probe index: Measured}``.

    ``ops[i]`` is the op (``"load"`` or ``"store"``) of kernel ``probe_{i:05d}``;
    it picks the metric that measures the probe.  Records of other kernels
    (names without ``probe_N``, or ``N`` past ``ops``) are ignored; launches
    appear in record order.
    """
    by: dict[int, Measured] = {}
    for rec in records:
        k = kernel_index(rec["kernel"])
        if k is None or k >= len(ops):
            continue
        mine, other = (METRIC_LOAD, METRIC_STORE) if ops[k] == "load" else (METRIC_STORE, METRIC_LOAD)
        val, oth = rec[mine], rec[other]
        slot = by.setdefault(k, Measured([], []))
        slot.values.append(None if val is None else int(round(val)))
        slot.other.append(None if oth is None else int(round(oth)))
    return by
