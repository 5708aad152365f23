"""Random valid TTGIR layout attributes, and Triton's own layouts of them.

Two halves:

* :func:`random_case` writes one attribute as text (no Triton needed): an
  encoding (``blocked``, ``slice``, ``linear``, ``nvidia_mma`` v2/v3,
  ``dot_op``, ``amd_mfma``, ``swizzled_shared``, ``nvmma_shared``,
  ``shared_linear``), a tensor shape of rank 1 to 4 (often smaller than the
  encoding's tile: Triton broadcasts), CGA layouts, and the module attributes
  (warps, CTAs) it sits in;
* :func:`triton_layout` (needs ``triton`` 3.9.0, CPU only) puts the text in a
  one-function module, lets MLIR parse and verify it, and returns the bases of
  Triton's ``to_linear_layout``.  Text Triton refuses returns ``None``.

``python tools/ttgir_attribute_cases.py [N] [SEED]`` writes
``tests/data/ttgir_attribute_cases.json`` (N accepted cases, default 2,400);
``tests/io/test_ttgir_encodings_triton.py`` replays it without Triton.  The
fuzz suite (``tests/fuzz/``, ``tools/fuzz.py``) draws fresh cases with
:func:`random_case` and asks Triton again.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "data" / "ttgir_attribute_cases.json"
ELEMENTS = {8: "i8", 16: "f16", 32: "f32"}


# ----------------------------------------------------------------------------- random attributes


def p2(rng: random.Random, lo: int, hi: int) -> int:
    return 1 << rng.randint(lo, hi)


def ints(values) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


def bases_text(bases) -> str:
    return "[" + ", ".join(ints(b) for b in bases) + "]"


def unit_vectors(shape: list[int]) -> list[list[int]]:
    """Every unit vector of a power-of-two ``shape``, dimension by dimension, lowest bit first."""
    out = []
    for d, s in enumerate(shape):
        for k in range(s.bit_length() - 1):
            v = [0] * len(shape)
            v[d] = 1 << k
            out.append(v)
    return out


def split_bits(rng: random.Random, rank: int, bits: int) -> list[int]:
    """Powers of two, one per dimension, multiplying to ``2**bits``."""
    out = [0] * rank
    for _ in range(bits):
        out[rng.randrange(rank)] += 1
    return [1 << b for b in out]


def random_shape(rng: random.Random, rank: int, hi: int = 6) -> list[int]:
    """Small shapes (often 1 or 2 along a dimension), at most 2**12 elements."""
    while True:
        shape = [p2(rng, 0, hi) if rng.random() < 0.8 else p2(rng, 0, 1) for _ in range(rank)]
        if sum(s.bit_length() - 1 for s in shape) <= 12:
            return shape


def random_cga(rng: random.Random, rank: int) -> tuple[list[list[int]], int]:
    """A ``CGALayout`` (block bases in CTA-tile units; zeros broadcast) and its CTA count."""
    if rng.random() < 0.6:
        return [], 1
    n = rng.randint(1, 3)
    used = [0] * rank
    out = []
    for _ in range(n):
        b = [0] * rank
        if rng.random() < 0.85:
            d = rng.randrange(rank)
            b[d] = 1 << used[d]
            used[d] += 1
        out.append(b)
    return out, 1 << n


def cga_field(cga: list[list[int]]) -> str:
    return f", CGALayout = {bases_text(cga)}" if cga else ""


def blocked_text(rng: random.Random, rank: int) -> tuple[str, int, int]:
    """A ``#ttg.blocked`` attribute, its warps and CTAs."""
    warp_bits = rng.randint(0, 3)
    cga, ctas = random_cga(rng, rank)
    text = (f"#ttg.blocked<{{sizePerThread = {ints(p2(rng, 0, 2) for _ in range(rank))}, "
            f"threadsPerWarp = {ints(split_bits(rng, rank, 5))}, warpsPerCTA = {ints(split_bits(rng, rank, warp_bits))}, "
            f"order = {ints(rng.sample(range(rank), rank))}{cga_field(cga)}}}>")
    return text, 1 << warp_bits, ctas


def linear_text(rng: random.Random, shape: list[int], *, span: list[int] | None = None) -> tuple[str, int, int]:
    """A ``#ttg.linear`` attribute whose bases cover ``span`` (default ``shape``): every unit vector once, zeros added.

    Triton requires a permutation once the zeros are removed, and broadcasts
    what the tensor ``shape`` does not hold.
    """
    span = span or shape
    rank = len(shape)
    units = unit_vectors(span)
    mixed = list(units)
    warps = rng.randint(0, 2)
    blocks = rng.randint(0, 1) if rng.random() < 0.3 else 0
    need = 5 + warps + blocks
    mixed += [[0] * rank for _ in range(max(0, need - len(mixed)) + rng.randint(0, 2))]
    rng.shuffle(mixed)
    lane, warp, block, reg = mixed[:5], mixed[5:5 + warps], mixed[5 + warps:need], mixed[need:]
    text = (f"#ttg.linear<{{register = {bases_text(reg)}, lane = {bases_text(lane)}, "
            f"warp = {bases_text(warp)}, block = {bases_text(block)}}}>")
    return text, 1 << warps, 1 << blocks


def mma_text(rng: random.Random, rank: int, version: int) -> tuple[str, int, int, list[int]]:
    """A ``#ttg.nvidia_mma`` attribute (v2 at rank 2-3, v3 at rank 2), warps, CTAs and its instruction tile."""
    if version == 2:
        warp_bits = rng.randint(0, 3)
        instr = [1] * (rank - 2) + [16, 8]
    else:
        warp_bits = rng.randint(2, 3)
        instr = [16, 8 << rng.randint(0, 5), rng.choice([8, 16, 32])]
    wpc = split_bits(rng, rank, warp_bits)
    if version == 3 and wpc[0] < 4:  # a warpgroup is 4 warps along M
        wpc = [4, 1 << (warp_bits - 2)]
    cga, ctas = random_cga(rng, rank)
    text = (f"#ttg.nvidia_mma<{{versionMajor = {version}, versionMinor = 0, warpsPerCTA = {ints(wpc)}, "
            f"instrShape = {ints(instr)}{cga_field(cga)}}}>")
    return text, 1 << warp_bits, ctas, instr


def mfma_text(rng: random.Random) -> tuple[str, int, int]:
    warp_bits = rng.randint(0, 3)
    instr = rng.choice([[32, 32, 8], [16, 16, 16]])
    cga, ctas = random_cga(rng, 2)
    text = (f"#ttg.amd_mfma<{{version = {rng.choice([2, 3])}, warpsPerCTA = {ints(split_bits(rng, 2, warp_bits))}, "
            f"instrShape = {ints(instr)}, isTransposed = {str(rng.random() < 0.5).lower()}{cga_field(cga)}}}>")
    return text, 1 << warp_bits, ctas


def distributed(rng: random.Random, kind: str, rank: int) -> tuple[str, int, int, list[int], int]:
    """A distributed encoding of ``kind`` for a tensor of ``rank``: text, warps, CTAs, shape, element bits."""
    shape = random_shape(rng, rank)
    bits = rng.choice([8, 16, 32])
    if kind == "blocked":
        text, warps, ctas = blocked_text(rng, rank)
    elif kind == "linear":
        span = [min(64, s * p2(rng, 0, 2)) if rng.random() < 0.3 else s for s in shape]
        if rng.random() < 0.2:  # a layout smaller than the tensor: Triton repeats it by registers
            span = [max(1, s // p2(rng, 0, 1)) for s in span]
        text, warps, ctas = linear_text(rng, shape, span=span)
    elif kind in ("nvidia_mma_v2", "nvidia_mma_v3"):
        text, warps, ctas, _ = mma_text(rng, rank, 3 if kind.endswith("3") else 2)
        bits = 32
    elif kind == "dot_op":
        version = 3 if rank == 2 and rng.random() < 0.3 else 2
        parent, warps, ctas, _ = mma_text(rng, rank, version)
        op = 0 if version == 3 else rng.randint(0, 1)
        bits = rng.choice([8, 16]) if version == 3 else bits
        k_width = 32 // bits if version == 3 else (32 // bits) * rng.choice([1, 1, 2])
        text = f"#ttg.dot_op<{{opIdx = {op}, parent = {parent}, kWidth = {k_width}}}>"
    elif kind == "amd_mfma":
        text, warps, ctas = mfma_text(rng)
        bits = 32
    else:
        raise ValueError(kind)
    return text, warps, ctas, shape, bits


def slice_case(rng: random.Random) -> tuple[str, int, int, list[int], int]:
    """A ``#ttg.slice`` of a random parent; a linear parent's bases may span the sliced dimension."""
    kind = rng.choice(["blocked", "blocked", "linear", "linear", "nvidia_mma_v2", "nvidia_mma_v3", "dot_op", "amd_mfma"])
    rank = 2 if kind in ("nvidia_mma_v3", "amd_mfma") else rng.randint(2, 3 if kind != "blocked" else 4)
    if kind == "dot_op" and rng.random() < 0.5:
        rank = 2
    text, warps, ctas, shape, bits = distributed(rng, kind, rank)
    dim = rng.randrange(rank)
    if kind == "linear" and rng.random() < 0.5:  # bases along the sliced dim, as a reduction leaves them
        parent_shape = list(shape)
        parent_shape[dim] = p2(rng, 1, 3)
        text, warps, ctas = linear_text(rng, parent_shape)
    return f"#ttg.slice<{{dim = {dim}, parent = {text}}}>", warps, ctas, shape[:dim] + shape[dim + 1:], bits


def swizzled_case(rng: random.Random) -> tuple[str, int, list[int], int]:
    rank = rng.randint(1, 4)
    shape = random_shape(rng, rank, 7)
    vec, per_phase, max_phase = p2(rng, 0, 3), p2(rng, 0, 2), p2(rng, 0, 3)
    cga, ctas = random_cga(rng, rank)
    text = (f"#ttg.swizzled_shared<{{vec = {vec}, perPhase = {per_phase}, maxPhase = {max_phase}, "
            f"order = {ints(rng.sample(range(rank), rank))}{cga_field(cga)}}}>")
    return text, ctas, shape, rng.choice([8, 16, 32])


def nvmma_case(rng: random.Random) -> tuple[str, int, list[int], int]:
    bits = rng.choice([8, 16, 32])
    fp4 = bits == 8 and rng.random() < 0.15
    sw = 128 if fp4 else rng.choice([0, 0, 32, 64, 128])
    transposed = rng.random() < 0.4
    rank = rng.randint(1, 4) if sw == 0 else rng.randint(2, 4)
    tile_cols = max(1, sw * 8 // bits // (2 if fp4 else 1))
    while True:  # a swizzled box needs 8 rows and one swizzle width of columns
        shape = random_shape(rng, rank, 7)
        if sw:
            contig = 0 if transposed else rank - 1
            shape[contig] = tile_cols * p2(rng, 0, 1)
            others = 1
            for d in range(rank):
                if d != contig:
                    others *= shape[d]
            rows = shape[rank - 1] if transposed else others  # Triton's box: rows x swizzle width
            if rows < 8:
                shape[rank - 1 if transposed else rank - 2] *= 8
        if sum(s.bit_length() - 1 for s in shape) <= 13:
            break
    cga, ctas = random_cga(rng, rank) if rng.random() < 0.5 else ([], 1)
    text = (f"#ttg.nvmma_shared<{{swizzlingByteWidth = {sw}, transposed = {str(transposed).lower()}, "
            f"elementBitWidth = {bits}{', fp4Padded = true' if fp4 else ''}"
            f"{f', rank = {rank}' if rank != 2 else ''}{cga_field(cga)}}}>")
    return text, ctas, shape, bits


def shared_linear_case(rng: random.Random) -> tuple[str, int, list[int], int]:
    """An invertible offset layout: every unit vector, each XORed with some earlier bases."""
    rank = rng.randint(1, 3)
    shape = random_shape(rng, rank, 5)
    units = unit_vectors(shape)
    rng.shuffle(units)
    mixed = []
    for v in units:
        for w in mixed:
            if rng.random() < 0.25:
                v = [a ^ b for a, b in zip(v, w)]
        mixed.append(v)
    if rng.random() < 0.1:  # a buffer that is not the tile: Triton refuses it, and so must the reader
        shape[rng.randrange(rank)] *= 2
    return f"#ttg.shared_linear<{{offset = {bases_text(mixed)}}}, alignment = 16>", 1, shape, rng.choice([8, 16, 32])


KINDS = ("blocked", "slice", "linear", "nvidia_mma_v2", "nvidia_mma_v3", "dot_op", "amd_mfma",
         "swizzled_shared", "nvmma_shared", "shared_linear")


def random_case(rng: random.Random, kind: str | None = None) -> dict:
    """One random valid attribute on a tensor: ``kind, attribute, shape, element, memdesc, num_warps, num_ctas``."""
    kind = kind or rng.choice(KINDS)
    memdesc = kind in ("swizzled_shared", "nvmma_shared", "shared_linear")
    if kind == "slice":
        text, warps, ctas, shape, bits = slice_case(rng)
    elif memdesc:
        text, ctas, shape, bits = {"swizzled_shared": swizzled_case, "nvmma_shared": nvmma_case,
                                   "shared_linear": shared_linear_case}[kind](rng)
        warps = 4
    else:
        rank = {"blocked": rng.randint(1, 4), "linear": rng.randint(1, 4), "nvidia_mma_v2": rng.randint(2, 3),
                "nvidia_mma_v3": 2, "dot_op": rng.randint(2, 3), "amd_mfma": 2}[kind]
        text, warps, ctas, shape, bits = distributed(rng, kind, rank)
    return {"kind": kind, "attribute": text, "shape": shape, "element": ELEMENTS[bits], "memdesc": memdesc,
            "num_warps": warps, "num_ctas": ctas}


def type_text(case: dict) -> str:
    """The case's ``tensor<...>`` or ``!ttg.memdesc<...>`` type."""
    dims = "x".join(str(s) for s in case["shape"])
    if case["memdesc"]:
        return f"!ttg.memdesc<{dims}x{case['element']}, {case['attribute']}, #ttg.shared_memory, mutable>"
    return f"tensor<{dims}x{case['element']}, {case['attribute']}>"


# ----------------------------------------------------------------------------- Triton's answer


def _allow_one_element_buffers() -> None:
    """Let Gluon's ``SharedLinearLayout`` hold no offset bases: the layout Triton returns for a one-element tile.

    ``to_linear_layout`` wraps its C++ answer in that Python class, whose
    checks refuse an empty ``offset_bases`` (an assertion); the C++ layout is
    fine, so the wrapper's check alone is relaxed, in this process only.
    """
    from triton.experimental.gluon.language import _layouts

    cls = _layouts.SharedLinearLayout
    if getattr(cls, "_linlayout_lenient", False):
        return
    strict = cls.__post_init__

    def lenient(self) -> None:
        try:
            strict(self)
        except AssertionError:
            if self.offset_bases:
                raise

    cls.__post_init__ = lenient
    cls._linlayout_lenient = True


class TritonOracle:
    """Triton 3.9.0's ``to_linear_layout`` of attribute text, through MLIR's parser and verifier."""

    def __init__(self) -> None:
        from triton._C.libtriton import gluon_ir, ir

        self.ir = ir
        self.ctx = ir.context()
        ir.load_dialects(self.ctx)
        self.builder = gluon_ir.GluonOpBuilder(self.ctx)
        self.path = os.path.join(tempfile.mkdtemp(prefix="ttgir_oracle"), "case.mlir")
        _allow_one_element_buffers()


    def layout(self, case: dict) -> dict | None:
        """The bases Triton gives the case's attribute on its shape, or ``None`` where Triton refuses the text."""
        lanes = 64 if "amd_mfma" in case["attribute"] else 32
        target = "hip:gfx942" if lanes == 64 else "cuda:90"
        text = (f'module attributes {{"ttg.num-warps" = {case["num_warps"]} : i32, '
                f'"ttg.num-ctas" = {case["num_ctas"]} : i32, "ttg.threads-per-warp" = {lanes} : i32, '
                f'ttg.target = "{target}"}} {{\n  tt.func public @f(%a: {type_text(case)}) {{\n'
                f'    tt.return\n  }}\n}}\n')
        with open(self.path, "w") as f:
            f.write(text)
        try:
            module = self.ir.parse_mlir_module(self.path, self.ctx)
            value = module.get_function("f").args(0)
            b = self.builder
            gluon = b.get_gluon_layout_from_memdesc(value) if case["memdesc"] else b.get_gluon_layout_from_tensor(value)
            ll = b.to_linear_layout(gluon._to_ir(b), list(case["shape"]))
        except Exception:  # MLIR's parser or verifier refused the text
            return None
        if hasattr(ll, "reg_bases"):
            return {"register": ll.reg_bases, "lane": ll.lane_bases, "warp": ll.warp_bases, "block": ll.block_bases}
        return {"offset": ll.offset_bases, "block": ll.block_bases}


def triton_layouts(cases: list[dict]) -> list[dict | None]:
    """Triton's layout of each case (``None``: refused), asked in a worker process.

    Some texts the verifier passes make Triton abort (``LLVM ERROR``) inside
    ``to_linear_layout``; the worker dies there, that case counts as refused
    and a new worker takes the rest.
    """
    out: list[dict | None] = []
    while len(out) < len(cases):
        todo = cases[len(out):]
        proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--worker"], capture_output=True,
                              text=True, input="".join(json.dumps(c) + "\n" for c in todo))
        answers = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
        if not answers and "Traceback" in proc.stderr:  # the worker itself is broken: say so, do not loop
            raise RuntimeError(f"the Triton worker failed: {proc.stderr[-800:]}")
        out += answers
        if len(out) < len(cases):
            out.append(None)  # the worker aborted on this one
    return out


def worker() -> int:
    """Answer one JSON case per line of stdin with Triton's layout (or ``null``), one line each."""
    oracle = TritonOracle()
    for line in sys.stdin:
        print(json.dumps(oracle.layout(json.loads(line))), flush=True)
    return 0


def build(n: int, seed: int) -> dict:
    """``n`` random attributes Triton accepts, each with Triton's layout (refused ones are counted, not kept)."""
    import triton

    rng = random.Random(seed)
    cases: list[dict] = []
    refused = 0
    while len(cases) < n:
        batch = [random_case(rng, KINDS[(len(cases) + i) % len(KINDS)]) for i in range(n - len(cases))]
        for case, layout in zip(batch, triton_layouts(batch)):
            if layout is None:
                refused += 1
            else:
                cases.append({**case, "triton": layout})
    return {"generator": "tools/ttgir_attribute_cases.py", "triton": triton.__version__, "seed": seed,
            "refused": refused, "cases": cases[:n]}


def main(argv: list[str]) -> int:
    if argv[:1] == ["--worker"]:
        return worker()
    n = int(argv[0]) if argv else 2400
    seed = int(argv[1]) if len(argv) > 1 else 26
    data = build(n, seed)
    OUT.write_text(json.dumps(data, separators=(",", ":")) + "\n")
    print(f"{len(data['cases'])} cases ({data['refused']} refused by Triton) -> {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
