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

**Budget.**  The search plans at most :data:`MAX_STEP_PLANS` steps (a
deterministic bound, not a clock: the same query always gets the same
plan).  Intermediate layouts next to ``src`` come first, then those next to
``dst``, each side in :func:`neighbours` order.  The planner searches only
warp-local conversions (a register/lane swap keeps the warps, so both steps
stay inside the warp and are planned with the registers and shuffle paths
only, no shared-memory synthesis); a conversion across warps keeps its
one-step plan.  On the realistic
corpus of ``benchmarks/convert_plan_speed.py`` this bounds the search to
a few times one plan's time (``benchmarks/results/convert_plan_speed.txt``);
a 2x2048 pair is timed there too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.layout import LinearLayout
from ..errors import InputError

__all__ = ["neighbours", "cheapest_path", "MAX_STEP_PLANS"]

MAX_STEP_PLANS = 24
"""At most this many one-step plans per multi-step search (see the module doc)."""


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
                  plan: Callable[..., Any]) -> tuple[int, list[tuple[LinearLayout, Any]]] | None:
    """The cheapest two-step conversion ``src → mid → dst`` if it beats ``direct_cost``, else ``None``.

    ``plan(a, b, warp_local, ceiling)`` plans one step (a
    :class:`~linlayout.convert.plan.ConversionPlan`; with ``warp_local`` only
    the registers and shuffle paths; it may raise
    :class:`~linlayout.errors.InputError` when no step exists); only a step
    cheaper than ``ceiling`` can make a cheaper path (the direct cost, less
    the first step's), so the planner need not look for the cheapest step
    beyond it (any step costing at least ``ceiling`` serves).  At most
    :data:`MAX_STEP_PLANS` steps are planned.  Returns ``(cost, [(mid, plan
    src→mid), (dst, plan mid→dst)])``.
    """
    import networkx as nx

    mids: list[tuple[LinearLayout, bool]] = []  # (mid, next to src)
    seen = {src, dst}
    for side, near_src in ((src, True), (dst, False)):
        for m in neighbours(side):
            if m not in seen:
                seen.add(m)
                mids.append((m, near_src))
    G = nx.DiGraph()
    G.add_edge("src", "dst", weight=direct_cost)
    plans: dict[tuple[Any, Any], Any] = {}
    budget = MAX_STEP_PLANS
    for i, (m, near_src) in enumerate(mids):
        if budget <= 0:
            break
        try:
            budget -= 1
            p1 = plan(src, m, near_src, direct_cost)
            if p1.cost >= direct_cost:
                continue  # the second step costs at least 0: this path cannot win
            budget -= 1
            p2 = plan(m, dst, not near_src, direct_cost - p1.cost)
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
    return int(cost), [(mids[mid][0], plans[("src", mid)]), (dst, plans[(mid, "dst")])]
