"""Fingerprint optimal_swizzle over a few thousand problems, to show a speed change leaves every result identical.

Usage (from the project root; run once per revision and compare the files byte for byte)::

    PYTHONPATH=. python tools/synthesis_fingerprint.py after.json [N]
    git stash; PYTHONPATH=. python tools/synthesis_fingerprint.py before.json [N]; git stash pop
    cmp before.json after.json

Problems (seeded, so every run asks the same): ``N`` random distributed pairs (5 to 13 tensor bits, 4- to
64-bit elements, every objective, instruction lists with ldmatrix/stmatrix, fixed vector widths, an 8-lane
toy model that merges broadcast loads), ``N / 5`` random mixed-basis pairs, the first ``N / 5`` pairs of
``tests/data/mixed_basis_vs_triton.json``, and the six benchmark problems under every objective, instruction
list and vector width.  Each result is written with its memory, costs, instructions, parts, proof fields
(optimal, lower bound, relaxed optimum, gap, frontier) and explanation; refusals with their message.
"""
import json, random, sys
from linlayout import LinearLayout, optimal_swizzle
from linlayout.errors import LinLayoutError
from linlayout.hw import SharedMemory

def dist_layout(rng, d, r0, lane_bits=5, zeros=True):
    outs = {"dim0": 1 << r0, "dim1": 1 << (d - r0)}
    nreg = rng.randint(0, max(0, d - 1))
    nwarp = rng.randint(0, 2)
    slots = [("register", i) for i in range(nreg + 2)] + [("lane", i) for i in range(lane_bits)] + [("warp", i) for i in range(nwarp)]
    bits = list(range(d)); rng.shuffle(bits)
    cand = list(slots); rng.shuffle(cand)
    flat = dict.fromkeys(slots, 0)
    for s, b in zip(cand, bits):
        flat[s] = 1 << b
    if len(cand) < d:
        return None
    bases = {"register": [], "lane": [], "warp": []}
    for dim, i in sorted(flat):
        v = flat[(dim, i)]
        bases[dim].append([v & ((1 << r0) - 1), v >> r0])
    if not bases["warp"]:
        del bases["warp"]
    return LinearLayout(bases, outs)

def fp(res):
    return dict(mem=list(res.memory.flat_bases("offset")),
                w=res.write_wavefronts, r=res.read_wavefronts, wi=res.write_instructions, ri=res.read_instructions,
                ins=[res.write_instruction, res.read_instruction], vb=res.vector_bits, cvb=res.common_vector_bits,
                ext=res.extended_side, parts=[res.vector, res.extension, res.word_fill, res.bank, res.segment],
                opt=res.optimal, lb=res.lower_bound, front=res.frontier, relaxed=res.relaxed_optimum, gap=res.gap,
                expl=res.explanation)

out = []
def run(tag, W, R, eb, **kw):
    try:
        res = optimal_swizzle(W, R, eb, **kw)
        out.append((tag, fp(res)))
    except LinLayoutError as e:
        out.append((tag, "ERR " + type(e).__name__ + ": " + str(e)))

rng = random.Random(1234)
insets = [None, ["st.shared", "ld.shared", "ldmatrix.x4"], ["st.shared", "stmatrix.x4", "ld.shared", "ldmatrix.x2", "ldmatrix.x4.trans"],
          ["st.shared", "stmatrix.x2.trans", "stmatrix.x4", "ld.shared", "ldmatrix.x4.trans"]]
toy = SharedMemory(name="toy", banks=4, bank_bytes=4, lanes=8, merge_broadcast_loads=True, matrix_rows=0)
N = int(sys.argv[2]) if len(sys.argv) > 2 else 1500
for n in range(N):
    d = rng.randint(5, 13); r0 = rng.randint(0, d)
    hwsel = rng.random() < 0.15
    lb = 3 if hwsel else 5
    W = dist_layout(rng, d, r0, lb); R = dist_layout(rng, d, r0, lb)
    if W is None or R is None:
        continue
    eb = rng.choice([4, 8, 16, 16, 32, 64])
    kw = dict(objective=rng.choice(["balanced", "read", "write", "sum"]))
    if hwsel:
        kw["hardware"] = toy
    else:
        ins = rng.choice(insets)
        if ins: kw["instructions"] = ins
    if rng.random() < 0.2:
        kw["vector_bits"] = rng.choice([8, 16, 32, 64, 128])
    run(f"dist{n}", W, R, eb, **kw)
from tests.synth.test_synthesis_results import mixed_layout
for n in range(N // 5):
    d = rng.randint(2, 10); r0 = rng.randint(0, d)
    W, R = mixed_layout(rng, d, r0), mixed_layout(rng, d, r0)
    run(f"mixed{n}", W, R, rng.choice([8, 16, 32, 64]), objective=rng.choice(["balanced", "read", "write", "sum"]),
        vector_bits=rng.choice([None, None, 32, 64]))
data = json.load(open("tests/data/mixed_basis_vs_triton.json"))
for i, case in enumerate(data["cases"][: N // 5]):
    run(f"replay{i}", LinearLayout.from_json(case["write"]), LinearLayout.from_json(case["read"]), case["element_bits"])
import pathlib
bench = []
cd = json.loads(pathlib.Path("tests/data/triton_swizzle_cases.json").read_text())
for c in cd["cases"] if isinstance(cd, dict) else cd:
    bench.append((c["write"], c["read"], c["element_bits"]))
q = json.loads(pathlib.Path("examples/gemm_fp16_operand_a.json").read_text())
bench.append((q["write"], q["read"], q["element_bits"]))
for bi, (w, r, eb) in enumerate(bench):
    for obj in ["balanced", "read", "write", "sum"]:
        for ins in insets:
            for vb in [None, 32, 64, 128]:
                kw = dict(objective=obj, vector_bits=vb)
                if ins: kw["instructions"] = ins
                run(f"bench{bi}", LinearLayout(w["bases"], w["out_dims"]), LinearLayout(r["bases"], r["out_dims"]), eb, **kw)
json.dump(out, open(sys.argv[1], "w"), default=list)
print(len(out), sum(1 for t, r in out if isinstance(r, str)))
