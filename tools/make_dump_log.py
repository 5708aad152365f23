"""Build a large ``MLIR_ENABLE_DUMP`` log from the TTGIR corpus, to time ``linlayout lint`` on a real-sized input.

Usage (from the project root; the log is written, never committed)::

    python tools/make_dump_log.py /tmp/dump25.log [MEGABYTES]      # default 25
    time python -m linlayout lint /tmp/dump25.log

Triton with ``MLIR_ENABLE_DUMP=1`` prints the module before every pass; a compile of a large kernel runs
dozens of passes, and a log of several kernels reaches tens of megabytes (the issue's 25 MB log took 47 s to
lint).  This generator writes the same shape: for each kernel of ``tests/data/ttgir39`` in turn (sorted by
name, then again until the size is reached), one dump per pass of :data:`TTGIR_PASSES` holding the kernel's
TTGIR module, then the LLVM-level dumps of ``tests/data/mlir_dump_colsum_39.log`` (from
``ConvertTritonGPUToLLVM`` on, which lint must skip).  The last kernel is the largest tutorial kernel
(``tut_attention_causal``), so the module lint picks by default is the biggest of the corpus.  The output
is deterministic: the same arguments write the same bytes.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "data" / "ttgir39"
COLSUM_LOG = ROOT / "tests" / "data" / "mlir_dump_colsum_39.log"
LARGEST = "tut_attention_causal.ttgir"

# Names of Triton 3.9's TTGIR-level passes on cuda:90 (a dump header names the pass about to run).
TTGIR_PASSES = (
    "TritonGPUCoalesce: tritongpu-coalesce",
    "TritonGPUF32DotTC: tritongpu-F32DotTC",
    "TritonGPURemoveLayoutConversions: tritongpu-remove-layout-conversions",
    "TritonGPUOptimizeThreadLocality: tritongpu-optimize-thread-locality",
    "TritonGPUAccelerateMatmul: tritongpu-accelerate-matmul",
    "TritonGPUOptimizeDotOperands: tritongpu-optimize-dot-operands{hoist-layout-conversion=true}",
    "TritonGPUFuseNestedLoops: tritongpu-fuse-nested-loops",
    "TritonGPUAssignLatencies: tritongpu-assign-latencies{num-stages=3}",
    "TritonGPUScheduleLoops: tritongpu-schedule-loops",
    "TritonGPUPipeline: tritongpu-pipeline{dump-intermediate-steps=false num-stages=3}",
    "TritonGPUPrefetch: tritongpu-prefetch",
    "TritonGPUReorderInstructions: tritongpu-reorder-instructions",
    "TritonGPUReduceDataDuplication: tritongpu-reduce-data-duplication",
    "TritonGPUCombineTensorSelectAndIf: tritongpu-combine-tensor-select-and-if",
    "Canonicalizer: canonicalize{  max-iterations=10 max-num-rewrites=-1 region-simplify=normal}",
    "CSE: cse",
    "SymbolDCE: symbol-dce",
    "TritonGPUAllocateWarpGroups: tritongpu-allocate-warp-groups",
    "AllocateSharedMemory: allocate-shared-memory",
    "ConvertTritonGPUToLLVM: convert-triton-gpu-to-llvm{compute-capability=90 ptx-version=94}",
)


def header(pass_name: str) -> str:
    return f"// -----// IR Dump Before {pass_name} ('builtin.module' operation) //----- //\n"


def kernel_dumps(module_text: str) -> str:
    """One compile's TTGIR-level dumps of a module: the module before each pass of :data:`TTGIR_PASSES`."""
    body = module_text.rstrip("\n") + "\n"
    return "".join(header(p) + body for p in TTGIR_PASSES)


def llvm_tail() -> str:
    """The colsum log's dumps from the first LLVM-level one on (after ConvertTritonGPUToLLVM ran)."""
    text = COLSUM_LOG.read_text()
    return text[text.index("// -----// IR Dump Before LLVMDIScope"):].rstrip("\n") + "\n"


def dump_log(megabytes: float = 25.0) -> str:
    """The log's text: compiles of the corpus kernels until ``megabytes`` (10^6 bytes), the largest last."""
    kernels = sorted(p for p in CORPUS.glob("*.ttgir") if p.name != LARGEST)
    tail, last = llvm_tail(), kernel_dumps((CORPUS / LARGEST).read_text()) + llvm_tail()
    target = int(megabytes * 1e6)
    parts, size = [], 0
    while size + len(last) < target:
        for path in kernels:
            chunk = kernel_dumps(path.read_text()) + tail
            parts.append(chunk)
            size += len(chunk)
            if size + len(last) >= target:
                break
    parts.append(last)
    return "".join(parts)


def main(argv: list[str]) -> int:
    if not argv or len(argv) > 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    megabytes = float(argv[1]) if len(argv) > 1 else 25.0
    text = dump_log(megabytes)
    Path(argv[0]).write_text(text)
    print(f"wrote {argv[0]}: {len(text) / 1e6:.1f} MB, {text.count('// -----// IR Dump')} module dumps")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
