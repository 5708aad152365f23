"""Do the planner's per-thread instruction counts equal the emitted code's?  nvcc + ptxas + cuobjdump, on the CPU.

For each plan of a sample: ``to_cuda(plan, ..., trailing_barrier=False)``
(the conversion's own instructions, as ``plan.instructions`` counts them;
the optional trailing barrier is left out) is wrapped in a kernel that loads
each thread's source registers from global memory, converts and stores the
destination registers; a control kernel loads and stores the same registers
without converting.  All kernels go into one ``.cu`` file compiled once for
``sm_90a`` (``nvcc -ptx``, then ``ptxas``); the conversion's counts are the
kernel's minus the control's, per opcode family:

========================  ==========================================  ====================
plan                      PTX                                         SASS
========================  ==========================================  ====================
``shfl.sync``             ``shfl.sync``                               ``SHFL``
``st.shared``             ``st.shared``                               ``STS``
``ld.shared``             ``ld.shared``                               ``LDS``
``stmatrix``              ``stmatrix``                                ``STSM``
``ldmatrix``              ``ldmatrix``                                ``LDSM``
``bar.sync``              ``bar.sync``                                ``BAR.SYNC``
``bar.warp.sync``         ``bar.warp.sync``                           (none: ptxas drops it in converged code)
``selp``                  ``selp``                                    ``SEL``
``prmt`` + ``mov``        ``prmt`` + ``mov`` (PTX only)               ``PRMT`` (information)
========================  ==========================================  ====================

Loop-free code, so static counts are per-thread counts.  The memory and
barrier families must match exactly; ``selp`` and the packing moves are
what the emitted CUDA asks for, but the compiler may fold or split them
(a select of two constants becomes arithmetic, a packed pair a single
``mov.b32``), so those columns are reported, not required.

    python tools/convert_count_check.py --pairs 60 --seed 25 --out benchmarks/results/convert_count_check.txt
    python tools/convert_count_check.py --rows benchmarks/results/convert_vs_triton39.json --names A,B --out FILE

Needs ``nvcc`` (CUDA 12+) and ``cuobjdump`` (the PATH's, or the one Triton's NVIDIA backend ships).  ``check(...)`` is what the test runs on a few plans.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from linlayout.convert.plan import plan_conversion  # noqa: E402
from linlayout.convert.solve import aligned, index_bits  # noqa: E402
from linlayout.errors import InputError  # noqa: E402
from linlayout.io.convert_io import CUDA_TYPES, to_cuda  # noqa: E402

EXACT = ("shfl.sync", "st.shared", "ld.shared", "stmatrix", "ldmatrix", "bar.sync", "bar.warp.sync")
PTX_PATTERNS = {op: re.compile(r"^\s*(?:@!?%p\d+\s+)?" + re.escape(op) + r"[.\s]", re.M)
                for op in EXACT + ("selp", "prmt", "mov")}
SASS_PATTERNS = {"shfl.sync": r"SHFL\.", "st.shared": r"STS(?:\.|\s)", "ld.shared": r"LDS(?:\.|\s)",
                 "stmatrix": r"STSM", "ldmatrix": r"LDSM", "bar.sync": r"BAR\.SYNC", "selp": r"\bSEL\b",
                 "prmt": r"\bPRMT\b"}


def cuobjdump() -> str | None:
    """``cuobjdump`` on the PATH, else the one Triton's NVIDIA backend ships."""
    found = shutil.which("cuobjdump")
    if found:
        return found
    try:
        import triton.backends.nvidia as nv
    except ImportError:
        return None
    path = Path(nv.__file__).parent / "bin" / "cuobjdump"
    return str(path) if path.exists() else None


def tools_present() -> bool:
    return shutil.which("nvcc") is not None and shutil.which("ptxas") is not None and cuobjdump() is not None


def kernel_source(index: int, plan, src, dst) -> str:
    """The plan's device function and its kernel ``k{index}`` and control ``c{index}``."""
    dsta = aligned(src, dst)
    sh, _ = index_bits(src, "src")
    dh, _ = index_bits(dsta, "dst")
    T = CUDA_TYPES[plan.element_bits]
    ns, nd = 1 << sh.reg, 1 << dh.reg
    fn = f"conv{index}"
    smem = plan.path == "shared_memory" or (plan.path == "multistep" and any(p.path == "shared_memory" for _, p in plan.steps))
    call_smem = ", (T*)smem_raw" if smem else ""
    body = to_cuda(plan, src, dsta, fn, trailing_barrier=False)
    load = (f"  {T} src[{ns}];\n#pragma unroll\n  for (int r = 0; r < {ns}; ++r) src[r] = in[threadIdx.x * {ns} + r];\n"
            f"  {T} dst[{nd}];\n")
    store = f"#pragma unroll\n  for (int r = 0; r < {nd}; ++r) out[threadIdx.x * {nd} + r] = dst[r];\n"
    shared = "  extern __shared__ __align__(16) unsigned char smem_raw[];\n" if smem else ""
    return (body.replace("T*", f"{T}*") + f"typedef {T} T{index};\n"
            f'extern "C" __global__ void k{index}(const {T}* __restrict__ in, {T}* __restrict__ out) {{\n'
            f"{shared}{load}  {fn}(src, dst{call_smem.replace('(T*)', f'({T}*)')});\n{store}}}\n"
            f'extern "C" __global__ void c{index}(const {T}* __restrict__ in, {T}* __restrict__ out) {{\n'
            f"{load}#pragma unroll\n  for (int r = 0; r < {nd}; ++r) dst[r] = src[r % {ns}];\n{store}}}\n")


def _split_ptx(ptx: str) -> dict[str, str]:
    parts = re.split(r"^\.visible \.entry (\w+)\(", ptx, flags=re.M)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts) - 1, 2)}


def _split_sass(sass: str) -> dict[str, str]:
    parts = re.split(r"Function : (\w+)", sass)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts) - 1, 2)}


def compile_counts(source: str, workdir: Path) -> tuple[dict[str, Counter], dict[str, Counter]]:
    """PTX and SASS opcode counts per kernel of ``source``."""
    cu = workdir / "counts.cu"
    cu.write_text(source)
    arch = ["-arch=sm_90a", "-O3", "-std=c++17"]
    subprocess.run(["nvcc", *arch, "-ptx", str(cu), "-o", str(workdir / "counts.ptx")], check=True, capture_output=True)
    subprocess.run(["ptxas", "-arch=sm_90a", "-O3", str(workdir / "counts.ptx"), "-o", str(workdir / "counts.cubin")],
                   check=True, capture_output=True)
    sass = subprocess.run([cuobjdump(), "-sass", str(workdir / "counts.cubin")], check=True, capture_output=True,
                          text=True).stdout
    ptx_counts = {name: Counter({op: len(p.findall(text)) for op, p in PTX_PATTERNS.items()})
                  for name, text in _split_ptx((workdir / "counts.ptx").read_text()).items()}
    sass_counts = {name: Counter({op: len(re.findall(p, text)) for op, p in SASS_PATTERNS.items()})
                   for name, text in _split_sass(sass).items()}
    return ptx_counts, sass_counts


def check(cases: list[tuple[str, object, object, object]], workdir: Path | None = None) -> list[dict]:
    """Rows (name, path, plan counts, PTX and SASS counts of the conversion) for ``(name, plan, src, dst)`` cases."""
    source = "#include <cuda_runtime.h>\n" + "".join(kernel_source(i, plan, src, dst)
                                                     for i, (_, plan, src, dst) in enumerate(cases))
    with tempfile.TemporaryDirectory() as tmp:
        ptx, sass = compile_counts(source, Path(workdir or tmp))
    rows = []
    for i, (name, plan, _, _) in enumerate(cases):
        p = {op: ptx[f"k{i}"][op] - ptx[f"c{i}"][op] for op in PTX_PATTERNS}
        s = {op: sass[f"k{i}"][op] - sass[f"c{i}"][op] for op in SASS_PATTERNS}
        ins = {op: plan.instructions.get(op, 0) for op in EXACT + ("selp", "prmt", "mov")}
        exact_ptx = all(p[op] == ins[op] for op in EXACT)
        exact_sass = all(s[op] == ins[op] for op in EXACT if op != "bar.warp.sync")
        rows.append({"name": name, "path": plan.path, "plan": ins, "ptx": p, "sass": s,
                     "exact_ptx": exact_ptx, "exact_sass": exact_sass})
    return rows


def sample(n: int, seed: int) -> list[tuple[str, object, object, object]]:
    """Plans of generated Triton-style pairs: the default plan, and each other possible path of every third pair."""
    from convert_triton39_check import pairs

    cases = []
    for i, (name, _, src, dst, bits, _) in enumerate(pairs(n, seed)):
        try:
            plan = plan_conversion(src, dst, bits)
        except InputError:
            continue
        cases.append((name, plan, src, dst))
        if i % 3 == 0:
            for alt in plan.alternatives:
                if alt.path not in (plan.path, "none", "multistep"):
                    cases.append((f"{name}:{alt.path}", plan_conversion(src, dst, bits, paths=[alt.path]), src, dst))
    return cases


def rows_sample(path: str, names: list[str]) -> list[tuple[str, object, object, object]]:
    """The default plans of named pairs of a rows file (``convert_triton39_check.py``'s), up to 48 KB of scratch."""
    import json

    from linlayout.core.layout import LinearLayout

    by_name = {r["name"]: r for r in json.loads(Path(path).read_text())}
    cases = []
    for name in names or list(by_name):
        r = by_name[name]
        src, dst = LinearLayout.from_json(r["src"]), LinearLayout.from_json(r["dst"])
        plan = plan_conversion(src, dst, r["element_bits"])
        if plan.scratch_bytes <= 48 * 1024:  # static shared memory of one kernel
            cases.append((name, plan, src, dst))
    return cases


def summarize(rows: list[dict]) -> str:
    lines = [f"{len(rows)} emitted plans compiled with nvcc -arch=sm_90a: paths "
             + ", ".join(f"{k} {v}" for k, v in sorted(Counter(r["path"] for r in rows).items()))]
    lines.append(f"memory, shuffle and barrier instructions equal to the plan: PTX {sum(r['exact_ptx'] for r in rows)}, "
                 f"SASS {sum(r['exact_sass'] for r in rows)} of {len(rows)}")
    for op in EXACT:
        lines.append(f"  {op}: plan = PTX on {sum(r['plan'][op] == r['ptx'][op] for r in rows)}, "
                     f"plan = SASS on {sum(r['plan'][op] == r['sass'].get(op, r['plan'][op]) for r in rows)}")
    for op in ("selp", "prmt", "mov"):
        eq = sum(r["plan"][op] == r["ptx"][op] for r in rows)
        lines.append(f"  {op} (reported): plan = PTX on {eq}, plan > PTX on "
                     f"{sum(r['plan'][op] > r['ptx'][op] for r in rows)}, plan < PTX on "
                     f"{sum(r['plan'][op] < r['ptx'][op] for r in rows)}")
    bad = [r["name"] for r in rows if not (r["exact_ptx"] and r["exact_sass"])]
    if bad:
        lines.append("not equal: " + ", ".join(bad))
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=60)
    ap.add_argument("--seed", type=int, default=25)
    ap.add_argument("--out", default="benchmarks/results/convert_count_check.txt")
    ap.add_argument("--rows", help="check the plans of a rows file's pairs instead of a generated sample")
    ap.add_argument("--names", default="", help="comma-separated names of --rows' pairs (default: all)")
    args = ap.parse_args()
    if not tools_present():
        print("nvcc/cuobjdump not found")
        return 2
    cases = rows_sample(args.rows, [n for n in args.names.split(",") if n]) if args.rows else sample(args.pairs, args.seed)
    rows = check(cases)
    text = summarize(rows)
    print(text)
    detail = "\n".join(f"{r['name']} {r['path']}: plan {{{', '.join(f'{k} {v}' for k, v in r['plan'].items() if v)}}} "
                       f"ptx {{{', '.join(f'{k} {v}' for k, v in r['ptx'].items() if v)}}} "
                       f"sass {{{', '.join(f'{k} {v}' for k, v in r['sass'].items() if v)}}}" for r in rows)
    Path(args.out).write_text(text + "\n\n" + detail + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
