"""How often does a two-step conversion beat the best one-step plan?  ``plan_conversion``'s two-step search (on by
default; ``multistep=False`` turns it off).

The search itself is :mod:`linlayout.convert.multistep` (intermediate layouts one mixed register/lane
swap or one lane transposition from src or dst, pruned by floors on each step's cost).  For each pair
this plans with and without it, runs every multi-step plan on the CPU executor, and reports the wins,
the gains in cost units and the planning time.

``--compare`` checks the floors change no answer: on the 520 stored Triton pairs
(``benchmarks/results/convert_vs_triton39.json``) and the speed corpus
(``benchmarks/convert_plan_speed.py``), every warp-local pair's search with floors
(:func:`~linlayout.convert.multistep.cheapest_path`) against the same search planning every
reachable step in order, without a work bound (:func:`~linlayout.convert.multistep.in_order_path`): the same
path, cost and steps, with the step plans and CPU milliseconds of each, and how many searches stopped at the
work bound (:data:`~linlayout.convert.multistep.MAX_STEP_PLANS`; the exit status counts only the others, whose
answers must be the reference's, but it prints how many of the stopped ones gave the same answer too).  A
second line says how many searches the whole-search floor (:func:`~linlayout.convert.multistep.search_floor`)
settles before listing an intermediate layout, of those that plan no step.

``--speed`` times the speed corpus (``benchmarks/convert_plan_speed.py``'s 120 pairs) with the search off
and on, in one process: each pair planned once untimed (the memos kept by shape, not by object, then serve
both settings alike), then once per setting on fresh layout objects (no memo of one setting serves the
other), the settings' order alternating from pair to pair; it prints the medians, 90th
percentiles and totals of both, the per-pair ratio, and what settled each warp-local search (its floors
alone, or how many steps it planned).  ``--speed --cold`` times it as ``benchmarks/convert_plan_speed.py``
does instead: one process per setting (off, on, off, on), each pair planned once, so the first plan of a
shape also pays for what is then remembered by shape; it prints each process's medians over all pairs and
over the warp-local ones (the only ones the search runs on).

    python tools/convert_multistep.py --pairs 80 --seed 3
    python tools/convert_multistep.py --compare
    python tools/convert_multistep.py --speed
    python tools/convert_multistep.py --speed --cold
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from linlayout.convert.execute import execute  # noqa: E402
from linlayout.convert.plan import plan_conversion  # noqa: E402
from tests.convert.samples import catalog_pairs, random_pair  # noqa: E402
from linlayout.errors import InputError  # noqa: E402


def stored_pairs():
    """The 520 Triton pairs and the 120-pair speed corpus: (name, src, dst, element bits)."""
    import json

    from linlayout.core.layout import LinearLayout
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from convert_plan_speed import corpus
    rows = json.loads((ROOT / "benchmarks/results/convert_vs_triton39.json").read_text())
    out = [(r["name"], LinearLayout.from_json(r["src"]), LinearLayout.from_json(r["dst"]), r["element_bits"]) for r in rows]
    return out + [("corpus " + n, s, d, b) for n, _, s, d, b, _ in corpus(120, 5)]


def compare() -> int:
    """``--compare``: the floored search against planning every reachable step in order (module doc)."""
    import statistics

    import linlayout.convert.plan as planner
    from linlayout.convert.multistep import MAX_STEP_PLANS, cheapest_path, in_order_path, search_floor
    from linlayout.convert.step_floors import Endpoint
    searches = []
    skipped = []  # per search: the whole-search floor reaches the direct cost

    def spy(src, dst, direct, plan, element_bits=None):  # what the planner hands the search; both searches run on it
        runs = []
        for search in (lambda p: in_order_path(src, dst, direct, p), lambda p: cheapest_path(src, dst, direct, p,
                                                                                              element_bits)):
            calls = []
            t0 = time.process_time()
            found = search(lambda *a: calls.append(a) or plan(*a))
            runs.append((found, len(calls), 1000 * (time.process_time() - t0)))
        (want, n_want, t_want), (result, n_got, t_got) = runs
        got = result.path
        same = (want is None and got is None) or (want is not None and got is not None and want[0] == got[0] and
                                                 all(a[0] == b[0] and a[1].to_dict() == b[1].to_dict()
                                                     for a, b in zip(want[1], got[1])))
        searches.append((same, want is not None, n_want, n_got, t_want, t_got, result.unsettled > 0))
        floor = search_floor(Endpoint.of(src), Endpoint.of(dst), element_bits)
        skipped.append(floor is not None and floor >= direct)
        return result

    planner.cheapest_path = spy
    for name, src, dst, bits in stored_pairs():
        try:
            plan_conversion(src, dst, bits, multistep=True)
        except InputError:
            continue
    n = len(searches)
    print(f"{n} warp-local searches: same answer on {sum(s[0] for s in searches)}, a two-step plan on "
          f"{sum(s[1] for s in searches)}, stopped at the bound of {MAX_STEP_PLANS} step plans on "
          f"{sum(s[6] for s in searches)} (same answer on {sum(s[0] and s[6] for s in searches)}); step plans {sum(s[2] for s in searches)} in order -> "
          f"{sum(s[3] for s in searches)} with floors (none on {sum(s[3] == 0 for s in searches)} searches); "
          f"search CPU ms median {statistics.median(s[4] for s in searches):.1f} -> "
          f"{statistics.median(s[5] for s in searches):.1f}, p90 {quantile([s[4] for s in searches], 0.9):.0f} -> "
          f"{quantile([s[5] for s in searches], 0.9):.1f}, max {max(s[4] for s in searches):.0f} -> "
          f"{max(s[5] for s in searches):.0f}")
    print(f"the whole-search floor settles {sum(skipped)} of the {sum(s[3] == 0 for s in searches)} searches that "
          f"plan no step, before listing an intermediate layout")
    return 0 if all(s[0] for s in searches if not s[6]) else 1


def quantile(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def speed(n: int = 120, seed: int = 5) -> int:
    """``--speed``: the search's cost on the speed corpus, off against on in one run (module doc)."""
    import statistics

    from linlayout.core.layout import LinearLayout
    import linlayout.convert.plan as planner
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from convert_plan_speed import corpus
    searches = []

    def counted(src, dst, direct, plan, element_bits):  # how many steps each search plans
        calls = []
        found = search(src, dst, direct, lambda *a: calls.append(a) or plan(*a), element_bits)
        searches.append(len(calls))
        return found

    search = planner.cheapest_path
    planner.cheapest_path = counted

    def timed(src, dst, bits, multistep):
        fresh = LinearLayout.from_json(src.to_json()), LinearLayout.from_json(dst.to_json())
        t0 = time.process_time()
        try:
            path = plan_conversion(*fresh, bits, multistep=multistep).path
        except InputError:
            path = "error"
        return 1000 * (time.process_time() - t0), path

    pairs = corpus(n, seed)
    for warm in corpus(4, seed + 1000):
        plan_conversion(*warm[2:5], multistep=True)
    searches.clear()
    off, on, wins = [], [], 0
    for i, (name, _, src, dst, bits, _) in enumerate(pairs):
        timed(src, dst, bits, False)  # what is remembered by shape (not by object) serves both settings alike
        order = (False, True) if i % 2 else (True, False)
        got = {m: timed(src, dst, bits, m) for m in order}
        off.append(got[False][0])
        on.append(got[True][0])
        wins += got[True][1] == "multistep"
    ratios = [b / a for a, b in zip(off, on) if a > 0]
    print(f"{len(pairs)} pairs, CPU ms, fresh objects per setting, alternating order; {len(searches)} warp-local "
          f"searches: {sum(s == 0 for s in searches)} settled by floors alone, the rest planned "
          f"{sorted(s for s in searches if s)} steps; two-step plans chosen: {wins}")
    for label, t in (("multistep=False", off), ("multistep=True", on)):
        print(f"{label}: median {statistics.median(t):.2f}, p90 {quantile(t, 0.9):.2f}, max {max(t):.1f}, "
              f"total {sum(t):.0f}")
    print(f"on / off: median {statistics.median(on) / statistics.median(off):.3f}, p90 "
          f"{quantile(on, 0.9) / quantile(off, 0.9):.3f}, total {sum(on) / sum(off):.2f}; per pair median "
          f"{statistics.median(ratios):.2f}, p90 {quantile(ratios, 0.9):.2f}")
    return 0


def cold_speed(n: int = 120, seed: int = 5) -> int:
    """``--speed --cold``: each setting in its own processes, each pair planned once (module doc)."""
    import subprocess
    for setting in ("off", "on", "off", "on"):
        print(subprocess.run([sys.executable, __file__, "--cold-run", setting, "--pairs", str(n), "--seed", str(seed)],
                             check=True, capture_output=True, text=True).stdout.strip(), flush=True)
    return 0


def cold_run(setting: str, n: int, seed: int) -> int:
    """One process of ``--speed --cold``: every pair of the speed corpus planned once with the search ``setting``."""
    import statistics

    from linlayout.convert.solve import conversion_map
    from linlayout.core.layout import LinearLayout
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from convert_plan_speed import corpus
    for warm in corpus(4, seed + 1000):  # imports and module-level tables, as convert_plan_speed does
        plan_conversion(*warm[2:5])
    rows = []
    for _, _, src, dst, bits, _ in corpus(n, seed):
        warp_local = conversion_map(src, dst).level <= 1  # fills these objects' memos, not the timed plan's
        fresh = LinearLayout.from_json(src.to_json()), LinearLayout.from_json(dst.to_json())
        t0 = time.process_time()
        plan_conversion(*fresh, bits, multistep=setting == "on")
        rows.append((warp_local, 1000 * (time.process_time() - t0)))
    local = [t for w, t in rows if w]
    print(f"search {setting}: all {len(rows)} pairs median {statistics.median(t for _, t in rows):.2f} ms, total "
          f"{sum(t for _, t in rows):.0f} ms; {len(local)} warp-local: median {statistics.median(local):.2f} ms, total "
          f"{sum(local):.0f} ms")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=80)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--compare", action="store_true", help="the floored search against planning every step in order")
    ap.add_argument("--speed", action="store_true", help="the speed corpus with the search off and on, in one run")
    ap.add_argument("--cold", action="store_true", help="with --speed: one process per setting, each pair planned once")
    ap.add_argument("--cold-run", choices=["off", "on"], help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.compare:
        return compare()
    if args.cold_run:
        return cold_run(args.cold_run, 120, 5)
    if args.speed:
        return cold_speed() if args.cold else speed()
    rng = random.Random(args.seed)
    cases = [(n, s, d, eb) for n, s, d in catalog_pairs()[:24:3] for eb in (16, 32)]
    while len(cases) < args.pairs:
        s, d = random_pair(rng, rng.choice([1, 2, 4]), rng.choice(["warp", "any"]), mixed=False, max_regs_bits=2)
        cases.append(("random", s, d, rng.choice([8, 16, 32])))
    wins = tried = 0
    gains = []
    t_one = t_multi = 0.0
    for name, s, d, eb in cases[:args.pairs]:
        try:
            t0 = time.perf_counter()
            one = plan_conversion(s, d, eb, multistep=False)
            t1 = time.perf_counter()
        except InputError:
            continue
        p = plan_conversion(s, d, eb, multistep=True)
        t_multi += time.perf_counter() - t1
        t_one += t1 - t0
        tried += 1
        assert execute(p, s, d)
        if p.path == "multistep":
            wins += 1
            gains.append(one.cost - p.cost)
            print(f"multi-step wins: {name} {eb}-bit: {one.path} {one.cost} -> {' then '.join(st.path for _, st in p.steps)} "
                  f"{p.cost}")
    print(f"{tried} pairs, {wins} where a two-step plan beats every one-step plan (gains {sorted(gains)}); every "
          f"plan executed right; planning {1e3 * t_one / tried:.1f} ms one-step, {1e3 * t_multi / tried:.0f} ms with "
          f"multistep=True per pair")
    return 0


if __name__ == "__main__":
    sys.exit(main())
