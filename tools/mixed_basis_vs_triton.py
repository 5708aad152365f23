"""linlayout's synthesis against Triton 3.9.0's on random mixed-basis layout pairs (issue 12 §1).

Generates seeded random pairs of layouts (register, lane, warp) onto 2^d-element tiles whose bases may
XOR several tensor bits, repeat, depend on each other or be zero (lanes and warps; Triton asserts on
broadcast registers, so registers are non-zero), runs Triton's C++ ``optimalSwizzlingLdSt`` (reached
through ctypes by ``/work/shared/tools/triton_cpp_peer.py``, which this script imports and runs) and
``linlayout.optimal_swizzle``, and scores *both* memories with linlayout's exact count (sm90, ld/st.shared,
each side's widest vector) under the default objective: the worse side, then the sum.

    python tools/mixed_basis_vs_triton.py                  # 300 pairs -> tests/data/mixed_basis_vs_triton.json
    python tools/mixed_basis_vs_triton.py --exhaustive 60  # d = 4 models: proven-optimal rate vs brute force

The committed JSON is replayed without Triton by ``tests/synth/test_synthesis_results.py``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from linlayout import LinearLayout, wavefronts
from linlayout.core import f2
from linlayout.errors import LinLayoutError
from linlayout.hw import SharedMemory
from linlayout.synth.synthesis import objective_key, optimal_swizzle

DEFAULT_PEER = "/work/shared/tools/triton_cpp_peer.py"
OUT = ROOT / "tests" / "data" / "mixed_basis_vs_triton.json"


def mixed_bases(rng: random.Random, d: int, lane_bits: int = 5, nwarp_max: int = 2,
                reg_zero: bool = False) -> dict[str, list[int]]:
    """Flat bases (ints over d tensor bits) spanning F2^d: unit vectors, XORs of several bits, zeros, repeats."""
    while True:
        nreg = rng.randint(1, d)
        nwarp = rng.randint(0, nwarp_max)
        vecs = []
        for i in range(nreg + lane_bits + nwarp):
            t = rng.random()
            if t < 0.45:
                v = 1 << rng.randrange(d)
            elif t < 0.75:
                v = rng.randrange(1, 1 << d)
            elif t < 0.85 and vecs:
                v = rng.choice(vecs)  # a repeated basis
            else:
                v = 0
            if v == 0 and i < nreg and not reg_zero:
                v = 1 << rng.randrange(d)
            vecs.append(v)
        if f2.rank(vecs) == d:
            return {"register": vecs[:nreg], "lane": vecs[nreg:nreg + lane_bits], "warp": vecs[nreg + lane_bits:]}


def to_layout(flat: dict[str, list[int]], r0: int, d: int) -> LinearLayout:
    outs = {"dim0": 1 << r0, "dim1": 1 << (d - r0)}
    return LinearLayout({k: [[v & ((1 << r0) - 1), v >> r0] for v in vs] for k, vs in flat.items()}, outs)


def cost(W: LinearLayout, R: LinearLayout, M: LinearLayout, eb: int, hw="sm90") -> tuple[int, int]:
    return wavefronts(W, M, eb, "store", hardware=hw).wavefronts, wavefronts(R, M, eb, "load", hardware=hw).wavefronts


def load_peer(path: str):
    spec = importlib.util.spec_from_file_location("triton_cpp_peer", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def triton_memory(peer, W: LinearLayout, R: LinearLayout, eb: int) -> list[list[int]]:
    from triton.tools import LinearLayout as TL

    def tl(L):
        od = L.out_sizes
        return TL.from_bases([(d, [list(v) for v in L.bases.get(d, [])]) for d in ("register", "lane", "warp", "block")],
                             list(od), list(od.values()))

    sm = peer.Ldst(tl(W), tl(R), eb).swizzle()
    bases = dict(sm.bases)
    return [list(v) for dn in ("vector", "bank", "segment", "reps", "block") for v in bases.get(dn, [])]


def triton_memory_isolated(peer, W: LinearLayout, R: LinearLayout, eb: int) -> list[list[int]] | str:
    """:func:`triton_memory` in a forked child: Triton's C++ asserts abort the process on some inputs."""
    import os

    rd, wr = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        os.close(rd)
        try:
            out = json.dumps(triton_memory(peer, W, R, eb)).encode()
        except BaseException as e:  # noqa: BLE001 - reported to the parent as text
            out = json.dumps(f"error: {type(e).__name__}: {e}").encode()
        with os.fdopen(wr, "wb") as f:
            f.write(out)
        os._exit(0)
    os.close(wr)
    with os.fdopen(rd, "rb") as f:
        data = f.read()
    _, status = os.waitpid(pid, 0)
    if not data:
        return f"Triton aborted (status {status}: a C++ assertion)"
    return json.loads(data)


def compare(n: int, seed: int, peer_path: str) -> dict:
    import triton

    peer = load_peer(peer_path)
    rng = random.Random(seed)
    rows = []
    t_ours = 0.0
    for i in range(n):
        d = rng.randint(5, 13)
        r0 = rng.randint(0, d)
        eb = rng.choice([8, 16, 32, 64])
        wf, rf = mixed_bases(rng, d), mixed_bases(rng, d)
        W, R = to_layout(wf, r0, d), to_layout(rf, r0, d)
        tmem = triton_memory_isolated(peer, W, R, eb)
        t1 = time.perf_counter()
        res = optimal_swizzle(W, R, eb)
        t2 = time.perf_counter()
        t_ours += t2 - t1
        if isinstance(tmem, str):
            rows.append({"write": W.to_dict(), "read": R.to_dict(), "element_bits": eb,
                         "triton_3_9_0": {"failed": tmem},
                         "linlayout": {"write_wavefronts": res.write_wavefronts, "read_wavefronts": res.read_wavefronts,
                                       "optimal": res.optimal, "relaxed_optimum": list(res.relaxed_optimum)},
                         "outcome": "triton failed"})
            continue
        TM = LinearLayout({"offset": tmem}, W.out_sizes)
        tw, tr = cost(W, R, TM, eb)
        ow, orr = res.write_wavefronts, res.read_wavefronts
        assert cost(W, R, res.memory, eb) == (ow, orr)
        a, b = objective_key("balanced", ow, orr), objective_key("balanced", tw, tr)
        rows.append({
            "write": W.to_dict(), "read": R.to_dict(), "element_bits": eb,
            "triton_3_9_0": {"memory": tmem, "write_wavefronts": tw, "read_wavefronts": tr},
            "linlayout": {"write_wavefronts": ow, "read_wavefronts": orr, "optimal": res.optimal,
                          "relaxed_optimum": list(res.relaxed_optimum)},
            "outcome": "win" if a < b else "tie" if a == b else "loss",
        })
    outcomes = [r["outcome"] for r in rows]
    summary = {
        "pairs": n, "seed": seed, "triton": triton.__version__, "objective": "balanced (worse side, then sum)",
        "hardware": "sm90, st.shared / ld.shared, widest vectors",
        "wins": outcomes.count("win"), "ties": outcomes.count("tie"), "losses": outcomes.count("loss"),
        "triton_failed": outcomes.count("triton failed"),
        "linlayout_proven_optimal": sum(r["linlayout"]["optimal"] for r in rows),
        "linlayout_seconds": round(t_ours, 3),
    }
    return {"summary": summary, "cases": rows}


def batch_totals(mb, L: LinearLayout, eb: int, hw, name: str):
    """Total wavefronts of one access on every memory of the batch (-1: not lowerable)."""
    import numpy as np

    from linlayout.count.batched import COUNTED, count_batch
    from linlayout.hw import parse_instruction

    b = count_batch(mb, {k: list(L.flat_bases(k)) for k in L.in_dims}, eb, parse_instruction(name), hw)
    return np.where(b.status == COUNTED, b.wavefronts * b.instructions, -1)


def exhaustive(n: int, seed: int) -> dict:
    """d = 4 on scaled-down models: the result against every invertible memory (20,160), proven rate."""
    models = [SharedMemory(name="mini-4x4", banks=4, lanes=4, merge_broadcast_loads=False, matrix_rows=0),
              SharedMemory(name="mini-4x8", banks=4, lanes=8, merge_broadcast_loads=False, matrix_rows=0)]
    d = 4

    def invertibles():
        def rec(prefix, span):
            if len(prefix) == d:
                yield list(prefix)
                return
            for v in range(1, 1 << d):
                if v not in span:
                    yield from rec(prefix + [v], span | {x ^ v for x in span})
        yield from rec([], {0})

    import numpy as np

    from linlayout.count.batched import memory_batch

    mb = memory_batch(np.array(list(invertibles()), dtype=np.int64))
    rng = random.Random(seed)
    stats = {"problems": 0, "results": 0, "proven": 0, "optimal_by_brute_force": 0, "beaten": 0, "wrong_proof": 0}
    for _ in range(n):
        hw = rng.choice(models)
        eb = rng.choice([16, 32])
        r0 = rng.randint(0, d)
        W = to_layout(mixed_bases(rng, d, hw.lane_bits, 1, True), r0, d)
        R = to_layout(mixed_bases(rng, d, hw.lane_bits, 1, True), r0, d)
        try:
            results = {o: optimal_swizzle(W, R, eb, hardware=hw, objective=o) for o in ("balanced", "read", "write", "sum")}
        except LinLayoutError:
            continue
        stats["problems"] += 1
        w, r = batch_totals(mb, W, eb, hw, "st.shared"), batch_totals(mb, R, eb, hw, "ld.shared")
        ok = (w >= 0) & (r >= 0)
        pairs = set(zip(w[ok].tolist(), r[ok].tolist()))
        best = {o: min(objective_key(o, a, b) for a, b in pairs) for o in results}
        for o, res in results.items():
            mine = objective_key(o, res.write_wavefronts, res.read_wavefronts)
            stats["results"] += 1
            stats["proven"] += res.optimal
            stats["optimal_by_brute_force"] += mine == best[o]
            stats["beaten"] += mine > best[o]
            stats["wrong_proof"] += res.optimal and mine != best[o]
    return stats


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=300)
    ap.add_argument("--seed", type=int, default=12)
    ap.add_argument("--peer", default=DEFAULT_PEER, help="triton_cpp_peer.py (ctypes access to Triton's C++)")
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--exhaustive", type=int, default=0, help="instead: this many d = 4 problems vs brute force")
    a = ap.parse_args()
    if a.exhaustive:
        print(json.dumps(exhaustive(a.exhaustive, a.seed), indent=1))
        return
    data = compare(a.pairs, a.seed, a.peer)
    Path(a.out).write_text(json.dumps(data, separators=(",", ":")) + "\n")
    print(json.dumps(data["summary"], indent=1))
    for r in data["cases"]:
        if r["outcome"] == "loss":
            print("loss:", r["linlayout"], r["triton_3_9_0"]["write_wavefronts"], r["triton_3_9_0"]["read_wavefronts"])


if __name__ == "__main__":
    main()
