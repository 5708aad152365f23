"""Query files for GPU verification: JSON queries and batch files in, plans and the ``verify-gpu`` report out.

Concepts
========

``linlayout verify-gpu`` measures the queries of one or more files.  A file
holds either a single query or a **batch**::

    {"about": "optional text",
     "queries": [{"id": "float4", "query": QUERY}, QUERY, ...]}

where ``QUERY`` is

* a ``linlayout conflicts`` query, layout-level (``"layout"`` and
  ``"memory"``) or address-level (``"lane_byte_offsets"``), decoded by
  :func:`~linlayout.io.jsonio.conflicts_query_from_json`; or
* a ``linlayout swizzle`` query (``"write"`` and ``"read"``), which stands
  for the two sides of the memory the synthesis builds: a store of the write
  layout and a load of the read layout, with the instructions the synthesis
  chose (:func:`swizzle_sides`), ids ``ID write`` and ``ID read``.

Ids are the entry's ``"id"``, else ``FILE`` for a single query and
``FILE#k`` for entry ``k`` of a batch; they must be unique.  Errors name
the file, the entry or the query.

This module only reads and decodes; the planning and the run are the check
layer's (:mod:`linlayout.check.gpu.verify`), which works on parsed queries.

Worked example: a batch of one address-level query, planned

>>> import json, tempfile, os
>>> q = {"instruction": "ld.shared", "op": "load", "access_bytes": 4, "lane_byte_offsets": [4 * l for l in range(32)]}
>>> with tempfile.TemporaryDirectory() as d:
...     path = os.path.join(d, "batch.json")
...     _ = open(path, "w").write(json.dumps({"queries": [{"id": "rows", "query": q}]}))
...     [(p.id, p.simulated_total) for p in load_queries([path])]
[('rows', 1)]

API: :func:`plan_query`, :func:`swizzle_sides`, :func:`load_queries`,
:func:`verify_files`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..check.gpu.tools import find_tools
from ..check.gpu.verify import QueryPlan, plan_probes, swizzle_side_queries, verify
from ..errors import LayoutJSONError, LinLayoutError
from .jsonio import conflicts_query_from_json, load_file, swizzle_query_from_json

__all__ = ["plan_query", "load_queries", "verify_files"]


def plan_query(obj: Any, qid: str = "query") -> QueryPlan:
    """Expand one ``linlayout conflicts`` query (decoded JSON or text) into its instructions and predictions.

    Decodes with :func:`~linlayout.io.jsonio.conflicts_query_from_json` and
    plans with :func:`~linlayout.check.gpu.verify.plan_probes`; the plan's
    ``source`` is the query as given.  A layout-level query gives every
    instruction of warp 0, predicted by the closed form and the simulator (a
    padded memory: the simulator only); an address-level query is one
    instruction, with the closed form when its offsets are XOR-affine in the
    lane.  Raises the decoder's errors and the counters' (``LoweringError``,
    ``AccessError``, ...).

    >>> q = {"instruction": "ld.shared", "op": "load", "access_bytes": 4, "lane_byte_offsets": [128 * l for l in range(32)]}
    >>> p = plan_query(q, "column")
    >>> p.kind, p.instructions[0].closed_form, p.instructions[0].simulated
    ('access', 32, 32)
    """
    q = conflicts_query_from_json(obj)
    raw = obj if isinstance(obj, Mapping) else json.loads(obj)
    return plan_probes(q, qid, dict(raw))


def _side_to_json(q: Mapping[str, Any]) -> dict[str, Any]:
    """A parsed layout-level conflicts query of :func:`swizzle_side_queries` as its JSON query."""
    cq: dict[str, Any] = {"layout": q["layout"].to_dict(), "memory": q["memory"].to_dict(),
                          "element_bits": q["element_bits"], "op": q["op"], "instruction": q["instruction"]}
    if q["hardware"] != "sm90":
        cq["hardware"] = q["hardware"]
    if q["vector_bits"] is not None:
        cq["vector_bits"] = q["vector_bits"]
    return cq


def swizzle_sides(obj: Any) -> list[tuple[str, dict[str, Any]]]:
    """Turn a ``linlayout swizzle`` query into the two conflicts queries (JSON) that check its answer.

    Synthesizes the memory layout with :func:`linlayout.synth.synthesis.optimal_swizzle`
    and returns ``[("write", store query), ("read", load query)]`` on that
    memory, each with the instruction (and vector width for ``ld/st.shared``)
    the synthesis chose (:func:`~linlayout.check.gpu.verify.swizzle_side_queries`).

    >>> import json
    >>> sides = swizzle_sides(json.load(open("examples/transpose_16x32.json")))
    >>> [(side, q["op"], q["instruction"]) for side, q in sides]
    [('write', 'store', 'st.shared'), ('read', 'load', 'ld.shared')]
    >>> [plan_query(q).simulated_total for _, q in sides]
    [16, 16]
    """
    return [(side, _side_to_json(q)) for side, q in swizzle_side_queries(swizzle_query_from_json(obj))]


def _is_swizzle_query(obj: Any) -> bool:
    return isinstance(obj, Mapping) and "write" in obj and "read" in obj


def _entries(path: str | Path, obj: Any) -> list[tuple[str, Any]]:
    """The (id, query) entries of a decoded query file."""
    if not (isinstance(obj, Mapping) and "queries" in obj):
        return [(str(path), obj)]
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
    return entries


def load_queries(paths: Sequence[str | Path]) -> list[QueryPlan]:
    """Read query files (a single query, or a batch ``{"queries": [...]}``) and plan every query.

    Ids are the entry's ``"id"``, else ``FILE`` for a single query and
    ``FILE#k`` in a batch; they must be unique.  Errors name the file and entry.
    A ``linlayout swizzle`` query (``"write"`` and ``"read"``) stands for the
    two sides of its synthesized memory (:func:`swizzle_sides`), with ids
    ``ID write`` and ``ID read``.  See the module example.
    """
    plans: list[QueryPlan] = []
    seen: set[str] = set()
    for path in paths:
        expanded: list[tuple[str, Any]] = []
        for qid, q in _entries(path, load_file(path, "query file")):
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
    """The ``linlayout verify-gpu`` command: plan, measure, print; return 0 when everything matches, 1 otherwise.

    Plans every query of ``paths`` (:func:`load_queries`) before looking for
    the tools, so that a bad query is reported even without a GPU; then
    measures them (:func:`~linlayout.check.gpu.verify.verify`) and writes the
    text report, or the JSON report with ``as_json``, to ``out`` (standard
    output by default).
    """
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
