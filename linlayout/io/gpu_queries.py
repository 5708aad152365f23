"""Query files for GPU verification: JSON queries and batch files in, parsed queries out.

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

This module reads and decodes (:func:`read_queries`, :func:`read_query`):
each entry becomes a :class:`~linlayout.check.gpu.batch.ParsedQuery`.  What
runs and what is compared is the check layer's command
(:mod:`linlayout.check.gpu.batch`: expanding swizzle queries, planning,
measuring).  The front doors :func:`plan_query`, :func:`swizzle_sides`,
:func:`load_queries` and :func:`verify_files` read and hand what they read to
that command, one call each.

Worked example: a batch of one address-level query, read and then planned

>>> import json, tempfile, os
>>> q = {"instruction": "ld.shared", "op": "load", "access_bytes": 4, "lane_byte_offsets": [4 * l for l in range(32)]}
>>> with tempfile.TemporaryDirectory() as d:
...     path = os.path.join(d, "batch.json")
...     _ = open(path, "w").write(json.dumps({"queries": [{"id": "rows", "query": q}]}))
...     [(e.id, e.kind) for e in read_queries([path])], [(p.id, p.simulated_total) for p in load_queries([path])]
([('rows', 'conflicts')], [('rows', 1)])

API: :func:`read_queries`, :func:`read_query`, and the front doors
:func:`plan_query`, :func:`swizzle_sides`, :func:`load_queries`,
:func:`verify_files`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..check.gpu.batch import ParsedQuery, expand_swizzle, plan_batch, verify_batch
from ..check.gpu.verify import QueryProbes, plan_probes
from ..errors import LayoutJSONError, LinLayoutError
from .jsonio import conflicts_query_from_json, load_file, swizzle_query_from_json

__all__ = ["plan_query", "load_queries", "verify_files"]


def _is_swizzle_query(obj: Any) -> bool:
    return isinstance(obj, Mapping) and "write" in obj and "read" in obj


def read_query(obj: Any, qid: str = "query") -> ParsedQuery:
    """Decode one query (decoded JSON or text): a ``linlayout swizzle`` query (``"write"`` and ``"read"``) or a conflicts query.

    >>> e = read_query({"instruction": "ld.shared", "op": "load", "access_bytes": 4,
    ...                 "lane_byte_offsets": [128 * l for l in range(32)]}, "column")
    >>> e.id, e.kind, e.query.kind
    ('column', 'conflicts', 'access')
    """
    if _is_swizzle_query(obj):
        return ParsedQuery(qid, swizzle_query_from_json(obj), dict(obj), "swizzle")
    query = conflicts_query_from_json(obj)
    raw = obj if isinstance(obj, Mapping) else json.loads(obj)
    return ParsedQuery(qid, query, dict(raw), "conflicts")


def plan_query(obj: Any, qid: str = "query") -> QueryProbes:
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


def swizzle_sides(obj: Any) -> list[tuple[str, dict[str, Any]]]:
    """Turn a ``linlayout swizzle`` query into the two conflicts queries (JSON) that check its answer.

    Synthesizes the memory layout with :func:`linlayout.synth.synthesis.optimal_swizzle`
    and returns ``[("write", store query), ("read", load query)]`` on that
    memory, each with the instruction (and vector width for ``ld/st.shared``)
    the synthesis chose (:func:`~linlayout.check.gpu.batch.expand_swizzle`).

    >>> import json
    >>> sides = swizzle_sides(json.load(open("examples/transpose_16x32.json")))
    >>> [(side, q["op"], q["instruction"]) for side, q in sides]
    [('write', 'store', 'st.shared'), ('read', 'load', 'ldmatrix.x4')]
    >>> [plan_query(q).simulated_total for _, q in sides]
    [16, 16]
    """
    entry = ParsedQuery("", swizzle_query_from_json(obj), {}, "swizzle")
    return [(side.id.split(" ")[-1], dict(side.source)) for side in expand_swizzle(entry)]


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


def read_queries(paths: Sequence[str | Path]) -> list[ParsedQuery]:
    """Read query files (a single query, or a batch ``{"queries": [...]}``) and decode every query.

    Ids are the entry's ``"id"``, else ``FILE`` for a single query and
    ``FILE#k`` in a batch.  Errors name the file and entry, or the query.
    A swizzle query stays one entry here; planning expands it into its two
    sides (:func:`~linlayout.check.gpu.batch.plan_batch`), which also checks
    that ids are unique.
    """
    out: list[ParsedQuery] = []
    for path in paths:
        for qid, q in _entries(path, load_file(path, "query file")):
            try:
                out.append(read_query(q, qid))
            except LinLayoutError as e:
                raise type(e)(f"query {qid}: {e}") from None
    return out


def load_queries(paths: Sequence[str | Path]) -> list[QueryProbes]:
    """Read query files and plan every query (:func:`read_queries`, then :func:`~linlayout.check.gpu.batch.plan_batch`).

    A ``linlayout swizzle`` query (``"write"`` and ``"read"``) stands for the
    two sides of its synthesized memory (:func:`swizzle_sides`), with ids
    ``ID write`` and ``ID read``; ids must be unique.  See the module example.
    """
    return plan_batch(read_queries(paths))


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
    """The ``linlayout verify-gpu`` command: read, then :func:`~linlayout.check.gpu.batch.verify_batch`, then print.

    Writes the text report, or the JSON report with ``as_json``, to ``out``
    (standard output by default) and returns 0 when everything matches, 1
    otherwise (the result's ``ok``).
    """
    import sys

    out = out or sys.stdout
    res = verify_batch(read_queries(paths), keep=keep, timeout=timeout, arch=arch, repeat=repeat, nvcc=nvcc, ncu=ncu,
                       command="linlayout verify-gpu " + " ".join(paths))
    out.write((json.dumps(res.to_dict()) if as_json else res.text()) + "\n")
    return 0 if res.ok else 1
