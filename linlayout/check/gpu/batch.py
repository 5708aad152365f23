"""The ``verify-gpu`` command: a batch of parsed queries planned, measured on the GPU and compared.

``linlayout verify-gpu`` reads query files (:mod:`linlayout.io.gpu_queries`
turns each entry into a :class:`ParsedQuery`) and hands them here:

1. :func:`plan_batch` expands every ``linlayout swizzle`` query into the two
   conflicts queries on the memory the synthesis builds
   (:func:`expand_swizzle`: ids ``ID write`` and ``ID read``), checks that
   ids are unique, and plans each query into its probe instructions with
   predictions (:func:`~linlayout.check.gpu.verify.plan_probes`).  Errors
   name the query.
2. :func:`verify_batch` plans first, so that a bad query is reported even
   without a GPU, then compiles and profiles the probes once
   (:func:`~linlayout.check.gpu.verify.verify`) and returns the
   :class:`~linlayout.check.gpu.verify.VerifyResult`: its ``ok`` is the
   command's verdict, its ``text()`` and ``to_dict()`` the report.

>>> from linlayout.count.query import AddressQuery
>>> q = AddressQuery("ld.shared", "load", 4, [4 * l for l in range(32)])
>>> [(p.id, p.simulated_total) for p in plan_batch([ParsedQuery("rows", q)])]
[('rows', 1)]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import Any

from ...core.record import record
from ...errors import LayoutJSONError, LinLayoutError
from ...count.query import AccessQuery
from .verify import QueryProbes, VerifyResult, plan_probes, swizzle_side_queries, verify

__all__ = ["ParsedQuery", "expand_swizzle", "plan_batch", "side_source", "verify_batch"]


@record
class ParsedQuery:
    """One query of a batch, parsed: its ``id``, the decoded ``query``, the JSON ``source`` as written.

    ``kind`` is ``"conflicts"`` (``query`` is what
    :func:`linlayout.io.jsonio.conflicts_query_from_json` returns) or
    ``"swizzle"`` (what :func:`linlayout.io.jsonio.swizzle_query_from_json`
    returns).
    """

    id: str
    query: Mapping[str, Any]
    source: Mapping[str, Any] = field(default_factory=dict)
    kind: str = "conflicts"


def side_source(query: AccessQuery) -> dict[str, Any]:
    """A layout-level conflicts query (one side of :func:`swizzle_side_queries`) written as its JSON query."""
    out: dict[str, Any] = {"layout": query.layout.to_dict(), "memory": query.memory.to_dict(),
                           "element_bits": query.element_bits, "op": query.op, "instruction": query.instruction}
    if query.hardware != "sm90":
        out["hardware"] = query.hardware
    if query.vector_bits is not None:
        out["vector_bits"] = query.vector_bits
    return out


def expand_swizzle(entry: ParsedQuery) -> list[ParsedQuery]:
    """A swizzle query as the two conflicts queries that check its answer: ``ID write`` and ``ID read``."""
    return [ParsedQuery(f"{entry.id} {side}", q, side_source(q))
            for side, q in swizzle_side_queries(entry.query)]


def plan_batch(queries: Sequence[ParsedQuery]) -> list[QueryProbes]:
    """Plan every query of a batch (swizzle queries expanded); ids must be unique; errors name the query."""
    plans: list[QueryProbes] = []
    seen: set[str] = set()
    for entry in queries:
        try:
            expanded = expand_swizzle(entry) if entry.kind == "swizzle" else [entry]
        except LinLayoutError as e:
            raise type(e)(f"query {entry.id}: {e}") from None
        for q in expanded:
            if q.id in seen:
                raise LayoutJSONError(f"query id {q.id!r} appears twice; ids must be unique")
            seen.add(q.id)
            try:
                plans.append(plan_probes(q.query, q.id, q.source))
            except LinLayoutError as e:
                raise type(e)(f"query {q.id}: {e}") from None
    return plans


def verify_batch(queries: Sequence[ParsedQuery], keep: str | Path | None = None, timeout: float = 600,
                 arch: str | None = None, repeat: int = 1, nvcc: str | None = None, ncu: str | None = None,
                 command: str = "") -> VerifyResult:
    """Plan the batch (before looking for the tools), measure it once under Nsight Compute, compare.

    ``keep``, ``timeout``, ``arch``, ``repeat``, ``nvcc`` and ``ncu`` are
    :func:`~linlayout.check.gpu.verify.verify`'s; ``command`` is recorded in
    the report.  Raises :class:`~linlayout.errors.GPUToolError` without the
    tools or a GPU.
    """
    plans = plan_batch(queries)
    return verify(plans, keep=keep, timeout=timeout, arch=arch, repeat=repeat, nvcc=nvcc, ncu=ncu, command=command)
