"""Multi-step conversions: a weighted graph of intermediate layouts, searched with networkx.

A conversion ``src → dst`` can also go through an intermediate layout ``mid``
(``src → mid → dst``), each step a planned one-step conversion.  The graph's
nodes are ``src``, ``dst`` and the layouts one elementary step away from either:
one register basis exchanged with one lane basis (a single mixed
register/lane swap), or two lane bases exchanged (a lane permutation).  Edges
``src → mid``, ``mid → dst`` and ``src → dst`` are weighted by the cost of the
planned step (:func:`~linlayout.convert.cost.cost_of`), and networkx's
Dijkstra gives the cheapest path.  The one-step plan is kept unless a path
through an intermediate layout is strictly cheaper.

Why it can win: one shuffle program that does several mixed swaps at once may
need more selects than doing them one at a time (measured on random pairs:
``paper_notes/convert.md`` §8).

networkx is imported only when a multi-step search is asked for
(``plan_conversion(..., multistep=True)``).

**The budget.**  Each intermediate layout costs two planned steps, and a
step's time grows with the tile, so the search tries at most
:func:`intermediate_budget` intermediate layouts: ``MULTISTEP_ELEMENT_BUDGET
// elements`` (the tile's elements), at least ``MULTISTEP_MIN_INTERMEDIATES``,
taken in a fixed order (the neighbours of ``src`` and of ``dst``
alternately), so the answer does not depend on the machine's speed.  Small
tiles (64 elements: 1,024 intermediates) are searched completely; a 2 x 2048
tile tries 16 of its 90 (about 1.5 s instead of 9 s on one core).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.layout import LinearLayout
from ..errors import InputError

__all__ = ["neighbours", "cheapest_path", "intermediate_budget", "MULTISTEP_ELEMENT_BUDGET",
           "MULTISTEP_MIN_INTERMEDIATES"]

MULTISTEP_ELEMENT_BUDGET = 1 << 16
"""Intermediate layouts tried x tile elements, at most (see the module doc)."""

MULTISTEP_MIN_INTERMEDIATES = 8
"""The budget never tries fewer intermediate layouts than this."""


def intermediate_budget(layout: LinearLayout) -> int:
    """How many intermediate layouts the two-step search tries for a tile of ``layout``'s size.

    >>> intermediate_budget(LinearLayout({"register": [[1]], "lane": [[2], [4], [8], [16], [32]]}, {"dim0": 64}))
    1024
    >>> intermediate_budget(LinearLayout({"register": [[0, 1]]}, {"dim0": 2, "dim1": 2048}))
    16
    """
    return max(MULTISTEP_MIN_INTERMEDIATES, MULTISTEP_ELEMENT_BUDGET >> layout.out_bits)


def neighbours(layout: LinearLayout) -> list[LinearLayout]:
    """The layouts one mixed register/lane swap or one lane transposition away from ``layout``.

    >>> L = LinearLayout({"register": [[1]], "lane": [[2], [4]]}, {"dim0": 8})
    >>> [n.bases["register"] + n.bases["lane"] for n in neighbours(L)]
    [[(2,), (1,), (4,)], [(4,), (2,), (1,)], [(1,), (4,), (2,)]]
    """
    b = layout.bases
    regs, lanes = list(b.get("register", [])), list(b.get("lane", []))
    out = []
    for i in range(len(regs)):
        for j in range(len(lanes)):
            r2, l2 = regs[:], lanes[:]
            r2[i], l2[j] = lanes[j], regs[i]
            out.append(LinearLayout({**b, "register": r2, "lane": l2}, layout.out_sizes))
    for i in range(len(lanes)):
        for j in range(i + 1, len(lanes)):
            l2 = lanes[:]
            l2[i], l2[j] = l2[j], l2[i]
            out.append(LinearLayout({**b, "lane": l2}, layout.out_sizes))
    return out


def cheapest_path(src: LinearLayout, dst: LinearLayout, direct_cost: int,
                  plan: Callable[[LinearLayout, LinearLayout], Any]) -> tuple[int, list[tuple[LinearLayout, Any]]] | None:
    """The cheapest two-step conversion ``src → mid → dst`` if it beats ``direct_cost``, else ``None``.

    At most :func:`intermediate_budget` intermediate layouts are tried (the module doc's budget).

    ``plan(a, b)`` plans one step (a :class:`~linlayout.convert.plan.ConversionPlan`; it may raise
    :class:`~linlayout.errors.InputError` when no step exists).  Returns ``(cost, [(mid, plan src→mid),
    (dst, plan mid→dst)])``.
    """
    import networkx as nx

    mids = []
    seen = {src, dst}
    ns, nd = neighbours(src), neighbours(dst)
    alternate = [m for pair in zip(ns, nd) for m in pair] + ns[len(nd):] + nd[len(ns):]
    budget = intermediate_budget(src)
    for m in alternate:
        if m not in seen and len(mids) < budget:
            seen.add(m)
            mids.append(m)
    G = nx.DiGraph()
    G.add_edge("src", "dst", weight=direct_cost)
    plans: dict[tuple[str, str], Any] = {}
    for i, m in enumerate(mids):
        try:
            p1 = plan(src, m)
        except InputError:
            continue
        if p1.cost >= direct_cost:
            continue  # the second step costs at least 0: this path cannot win
        try:
            p2 = plan(m, dst)
        except InputError:
            continue
        G.add_edge("src", i, weight=p1.cost)
        G.add_edge(i, "dst", weight=p2.cost)
        plans[("src", i)] = p1
        plans[(i, "dst")] = p2
    cost, path = nx.single_source_dijkstra(G, "src", "dst", weight="weight")
    if len(path) == 2 or cost >= direct_cost:
        return None
    mid = path[1]
    return int(cost), [(mids[mid], plans[("src", mid)]), (dst, plans[(mid, "dst")])]
