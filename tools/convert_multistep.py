"""Does a multi-step conversion ever beat the best one-step plan?  A networkx shortest-path experiment.

For each pair (src, dst) the graph's nodes are src, dst and intermediate
layouts one step from either: dst or src with one register basis and one
lane basis exchanged (a single mixed swap), or with two lane bases exchanged
(a lane permutation).  Edges are src → intermediate → dst (and src → dst),
each a planned conversion weighted by the plan's cost (the cost model of
:mod:`linlayout.convert.cost`); the shortest src → dst path (two steps at
most) is compared with the direct plan.

    python tools/convert_multistep.py --pairs 200 --seed 3

networkx is used only here (it is not a dependency of the library).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from linlayout.convert.plan import plan_conversion  # noqa: E402
from linlayout.convert.samples import catalog_pairs, random_pair  # noqa: E402
from linlayout.core.layout import LinearLayout  # noqa: E402
from linlayout.errors import InputError  # noqa: E402


def neighbours(L: LinearLayout) -> list[LinearLayout]:
    b = L.bases
    regs, lanes = list(b.get("register", [])), list(b.get("lane", []))
    out = []
    for i in range(len(regs)):
        for j in range(len(lanes)):
            r2, l2 = regs[:], lanes[:]
            r2[i], l2[j] = lanes[j], regs[i]
            out.append(LinearLayout({**b, "register": r2, "lane": l2}, L.out_sizes))
    for i in range(len(lanes)):
        for j in range(i + 1, len(lanes)):
            l2 = lanes[:]
            l2[i], l2[j] = l2[j], l2[i]
            out.append(LinearLayout({**b, "lane": l2}, L.out_sizes))
    return out


def main() -> int:
    import networkx as nx

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=200)
    ap.add_argument("--seed", type=int, default=3)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    cases = [(n, s, d, eb) for n, s, d in catalog_pairs()[:24:3] for eb in (16, 32)]
    while len(cases) < args.pairs:
        s, d = random_pair(rng, rng.choice([1, 2, 4]), rng.choice(["warp", "any"]), mixed=False, max_regs_bits=2)
        cases.append(("random", s, d, rng.choice([8, 16, 32])))
    better = tried = 0
    best_gain = 0
    t0 = time.time()
    for name, s, d, eb in cases[:args.pairs]:
        try:
            direct = plan_conversion(s, d, eb).cost
        except InputError:
            continue
        tried += 1
        nodes = [s, d] + neighbours(s) + neighbours(d)
        G = nx.DiGraph()
        G.add_edge(0, 1, weight=direct)
        for a in range(2, len(nodes)):  # src -> intermediate -> dst (every edge a planned conversion)
            for u, v in ((0, a), (a, 1)):
                try:
                    G.add_edge(u, v, weight=plan_conversion(nodes[u], nodes[v], eb).cost)
                except InputError:
                    pass
        cost = nx.shortest_path_length(G, 0, 1, weight="weight")
        if cost < direct:
            better += 1
            best_gain = max(best_gain, direct - cost)
            print(f"multi-step wins: {name} {eb}-bit: {direct} -> {cost} via {nx.shortest_path(G, 0, 1, weight='weight')}")
    print(f"{tried} pairs, {better} where a multi-step path beats the direct plan (largest gain {best_gain}); "
          f"{time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
