"""Compare linlayout's plans with Triton 3.9's PTX on the stored set, fairly: wavefronts on both sides.

    python tools/convert_triton_summary.py [FILE] [--rows OUT.json]

Input: ``benchmarks/results/convert_vs_triton.json`` (written by convert_vs_triton.py: per pair the
layouts and Triton's PTX opcode counts, conversion kernel minus control kernel).  linlayout's side is
re-planned with the current code.  Both sides are scored with the planner's cost model
(:func:`linlayout.convert.cost.cost_of`):

* **Triton's round trip wavefronts.**  PTX shows no wavefronts, so they are counted: Triton's swizzle is
  what its C++ ``optimalSwizzlingLdSt`` returns for the pair (register broadcasts removed first, as
  Triton's ``transferWithinBlockSwizzling`` does), called through ctypes by
  ``/work/shared/tools/triton_cpp_peer.py`` (imported, not copied; x86-64 triton==3.9.0 only).  Its
  ``vector, bank, segment, block, reps`` bases, flattened in that order, are the memory layout, and
  linlayout's exact counter scores each side with ``ld.shared``/``st.shared`` at the widest vector.
  The counted instructions are checked against the PTX's (the pairs where they differ are listed).  A
  round trip in which Triton uses ``ldmatrix``/``stmatrix`` is given its *ideal* wavefronts on both sides
  (bytes per warp / 128, at least one per instruction: a lower bound, in Triton's favour), because that
  swizzle depends on Triton's instruction tiles, which the ctypes call with empty tiles does not
  reproduce.
* **The consumer.**  The test kernel stores the converted tensor with packed global stores, so Triton's
  PTX has no 16-bit unpacking after its shared-memory loads (its PTX ``mov.b32 {lo, hi}`` would be one
  SASS ``PRMT`` for the high half: checked with Triton's ptxas).  linlayout's plan counts that unpacking
  (one ``mov`` per word; three ``prmt`` per word of bytes), because its emitted device function returns
  separate elements; the comparison leaves it out (the ``mov`` of 16-bit plans, the unpacking ``prmt`` of
  8-bit round trips), so that both sides deliver the same words.
* Barriers: ``bar.sync`` and ``bar.warp.sync`` on both sides (Triton 3.9 emits ``bar.warp.sync`` for
  warp-private round trips, and so does the planner).
* **Opaque data for selects and shuffles.**  Triton's ``shfl.sync`` and ``selp`` are those of the kernels whose
  source is loaded from memory (``row["triton"]["opaque"]``, see convert_vs_triton.py): with ``arange`` data LLVM
  folds a select between two source values into the index arithmetic, which real data does not allow.  The
  other opcodes stay those of the ``arange`` kernels (the loads add their own unpacking).  The pairs where the
  two differ are listed.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from linlayout.convert.cost import cost_of, packing  # noqa: E402
from linlayout.convert.plan import plan_conversion  # noqa: E402
from linlayout.core import f2  # noqa: E402
from linlayout.core.layout import LinearLayout  # noqa: E402
from linlayout.count.closed_form import wavefronts  # noqa: E402

PEER = Path("/work/shared/tools")


def _no_broadcast_regs(side: dict) -> dict:
    b = {k: [list(v) for v in vs] for k, vs in side["bases"].items()}
    b["register"] = [v for v in b.get("register", []) if any(v)]
    return {"bases": b, "out_dims": side["out_dims"]}


def triton_wavefronts(row: dict, peer) -> dict:
    """Triton's round trip per warp: its swizzle, scored by linlayout's counter (see the module doc)."""
    from triton.tools import LinearLayout as TL

    eb = row["element_bits"]
    s, d = _no_broadcast_regs(row["src"]), _no_broadcast_regs(row["dst"])

    def tl(side):
        od = side["out_dims"]
        return TL.from_bases([(k, side["bases"].get(k, [])) for k in ("register", "lane", "warp", "block")],
                             list(od), list(od.values()))

    sm = peer.Ldst(tl(s), tl(d), eb).swizzle()
    smb = dict(sm.bases)
    flat = [list(v) for k in ("vector", "bank", "segment", "block", "reps") for v in smb.get(k, [])]
    mem = LinearLayout({"offset": flat}, s["out_dims"])
    S, D = LinearLayout.from_json(s), LinearLayout.from_json(d)
    ins = row["triton"]["raw"]
    out = {"memory": flat, "exact": True}
    if ins["stmatrix"] or ins["ldmatrix"]:
        # Triton chose its swizzle for its ld/stmatrix tiles, which the call above does not reproduce: both sides
        # get their ideal (bytes per warp / 128, at least one wavefront per instruction; a lower bound).
        out["exact"] = False
        for side, L, keys in (("write", S, ("st.shared", "stmatrix")), ("read", D, ("ld.shared", "ldmatrix"))):
            bytes_per_thread = (1 << f2.rank(list(L.flat_bases("register")))) * eb // 8
            n = max(1, sum(ins[k] for k in keys))
            out[side] = n * max(1, 32 * bytes_per_thread // n // 128)
        return out
    for side, L, op in (("write", S, "store"), ("read", D, "load")):
        r = wavefronts(L, mem, eb, op)
        out[side] = r.wavefronts
        out[side + "_instructions"] = r.instructions
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", nargs="?", default=str(ROOT / "benchmarks/results/convert_vs_triton.json"))
    ap.add_argument("--rows", help="write the per-pair comparison here (JSON)")
    args = ap.parse_args()
    sys.path.insert(0, str(PEER))
    import triton_cpp_peer as peer  # noqa: E402  (ctypes into Triton's C++; see the module doc)

    rows = json.loads(Path(args.file).read_text())
    both = [r for r in rows if "path" in r["triton"] and "path" in r["linlayout"]]
    print(f"{len(rows)} pairs, {len(both)} planned by both "
          f"({len(rows) - len(both)} not compiled by Triton's 2-D test kernel: 1-D slices)")
    by: collections.Counter = collections.Counter()
    cls: collections.Counter = collections.Counter()
    out_rows = []
    mismatch = []
    folded = []
    for r in both:
        src, dst = LinearLayout.from_json(r["src"]), LinearLayout.from_json(r["dst"])
        eb = r["element_bits"]
        plan = plan_conversion(src, dst, eb)
        o = {k: v for k, v in plan.instructions.items() if v}
        if eb == 16:
            o.pop("mov", None)  # 16-bit unpacking: the packed consumer does not need it (module doc)
        rt = plan.shared_memory
        if eb == 8 and rt is not None and rt.swizzle.read_word_access:  # 8-bit unpacking after word reads
            words = (1 << f2.rank(list(dst.flat_bases("register")))) // 4
            o["prmt"] = o.get("prmt", 0) - packing(words, 8, "unpack").get("prmt", 0)
            if o["prmt"] <= 0:
                o.pop("prmt")
        t = {k: max(0, v) for k, v in r["triton"]["instructions"].items() if v > 0}
        opaque = r["triton"].get("opaque")
        if opaque is not None:
            for op, v in opaque["instructions"].items():
                if max(0, v) != t.get(op, 0):
                    folded.append((r["name"], op, t.get(op, 0), max(0, v)))
                t.pop(op, None)
                if v > 0:
                    t[op] = v
        twf = None
        if r["triton"]["path"] == "shared_memory":
            tw = triton_wavefronts(r, peer)
            twf = {"write": tw["write"], "read": tw["read"]}
            for side, key in (("write", ("st.shared",)), ("read", ("ld.shared",))):
                if side + "_instructions" in tw and tw[side + "_instructions"] != sum(t.get(k, 0) for k in key):
                    mismatch.append((r["name"], side, tw[side + "_instructions"], sum(t.get(k, 0) for k in key)))
        co, ct = cost_of(o, plan.wavefronts), cost_of(t, twf)
        rel = "lower" if co < ct else "higher" if co > ct else "equal"
        by[(plan.path, r["triton"]["path"], rel)] += 1
        out_rows.append({"name": r["name"], "element_bits": eb, "warps": r["warps"], "ours_path": plan.path,
                         "ours": o, "ours_wavefronts": plan.wavefronts, "ours_cost": co,
                         "triton_path": r["triton"]["path"], "triton": t, "triton_wavefronts": twf,
                         "triton_cost": ct, "relation": rel,
                         "alternatives": {a.path: a.cost for a in plan.alternatives}})
        if plan.path == r["triton"]["path"] == "shuffles":
            for op in ("shfl.sync", "selp"):
                a, b = o.get(op, 0), t.get(op, 0)
                cls[(op, "fewer" if a < b else "more" if a > b else "same")] += 1
        if plan.path == r["triton"]["path"] == "shared_memory":
            a = o.get("bar.sync", 0) * 8 + o.get("bar.warp.sync", 0)
            b = t.get("bar.sync", 0) * 8 + t.get("bar.warp.sync", 0)
            cls[("barriers (bar.sync weighted 8x)", "fewer" if a < b else "more" if a > b else "same")] += 1
            a = sum(o.get(k, 0) for k in ("st.shared", "ld.shared", "stmatrix", "ldmatrix"))
            b = sum(t.get(k, 0) for k in ("st.shared", "ld.shared", "stmatrix", "ldmatrix"))
            cls[("shared instructions", "fewer" if a < b else "more" if a > b else "same")] += 1
            a, b = plan.wavefronts["write"] + plan.wavefronts["read"], twf["write"] + twf["read"]
            cls[("wavefronts", "fewer" if a < b else "more" if a > b else "same")] += 1
    print("cost under linlayout's model, wavefronts included on both sides, by paths (ours, Triton's):")
    for k, v in sorted(by.items()):
        print(f"  {k[0]:>13} vs {k[1]:<17} {k[2]:>6}: {v}")
    tot = collections.Counter()
    for k, v in by.items():
        tot[k[2]] += v
    print("total: " + ", ".join(f"{k} {tot[k]}" for k in ("lower", "equal", "higher")))
    print("same path, opcode by opcode:")
    for k, v in sorted(cls.items()):
        print(f"  {k[0]}: {k[1]} {v}")
    print(f"Triton round trips whose counted ld/st.shared instructions differ from its PTX: {len(mismatch)}")
    for m in mismatch[:20]:
        print(f"  {m[0]} {m[1]}: counted {m[2]}, PTX {m[3]}")
    print(f"Triton shfl.sync/selp with source data loaded from memory that differ from the arange kernel's: {len(folded)}")
    for f in folded:
        print(f"  {f[0]} {f[1]}: arange {f[2]}, loaded {f[3]}")
    print("higher:")
    for r in out_rows:
        if r["relation"] == "higher":
            print(f"  {r['name']}: ours {r['ours_path']} {r['ours_cost']} {r['ours']} wf {r['ours_wavefronts']} | "
                  f"Triton {r['triton_path']} {r['triton_cost']} {r['triton']} wf {r['triton_wavefronts']}")
    if args.rows:
        Path(args.rows).write_text(json.dumps(out_rows, indent=0))
    sys.stdout.flush()
    import os
    os._exit(0)  # skip nanobind's leak report at exit


if __name__ == "__main__":
    main()
