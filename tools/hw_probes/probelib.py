"""Probe designs for probes.cu: input builders, output decoders and a CPU simulator.

``probes.cu`` only executes one instruction per experiment on register / shared-memory
images written here, and returns the raw 32-bit results.  This module decides what to feed it
and how to read the answers back into ownership tables (see README.md for the methods):

* mma.sync (no operand lives in memory, so labels are relative; see README "Gauge"): the
  inputs assume no layout at all.  One experiment per A register slot: that slot = 1, every
  other A slot 0, every B register slot = its own slot id + 1 (base-16 digits in two passes
  for s8), C = 0.  D = A*B is non-zero exactly in A's row, and D[row][j] = B[k][j] names the
  B slot holding (k, j): this is the complete incidence of A, B and D slots, from which the
  row, column and k classes follow; each class family is then labelled by the assignment
  that agrees with the PTX labels on the most slots.  C: one experiment per C register = 1,
  A = B = 0, so D = C shows the D slot (hence the label) of each C slot.
* wgmma: B always, and A in the SS form, come from shared memory through a matrix descriptor,
  so rows, columns and k are anchored to byte addresses (no-swizzle K-major canonical layout).
    - D (SS form): experiment i0 has row i0 of A = ones in memory, B[k][j] = j+1 (f16) or
      2^k * bit_k(j+1) for k < 6 (e4m3, where j+1 > 16 is not always representable); the
      value then names the column.
    - A (RS form): one experiment per A register slot; B[k][j] = k+1 (f16) or bit_j(k) for
      j < 5 and 1 for j >= 5 (e4m3): the non-zero row gives the row (through the measured D
      table of the same N) and the values give k.
* ldmatrix: 32 shared rows of 16 bytes; lane l gives the address of physical row
  PERM_ROWS[l] (a scrambled bijection), which holds 0xA000 | matrix<<6 | row<<3 | col with
  (matrix, row) = (l // 8, l % 8): each received 16-bit value names its (matrix, row, col).
* stmatrix: lane l's register j half p holds 0xB000 | l<<3 | j<<1 | p; the buffer read back
  names, for each (matrix, row, col), the slot that was stored there.
"""

from __future__ import annotations

import math
import struct
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import expected as X

MAGIC = 0x42505748
VERSION = 1
NPARAMS = 8
PERM_ROWS = [(13 * lane + 7) % 32 for lane in range(32)]  # lane -> physical 16-byte row
PERM_INV = [0] * 32
for _l, _r in enumerate(PERM_ROWS):
    PERM_INV[_r] = _l
POISON = 0xA5A5A5A5  # probes.cu pre-fills outputs with this

SMEM_A_WORDS = 2048
SMEM_B_WORDS = 512

# --------------------------------------------------------------------------------------------
# Scalar encodings
# --------------------------------------------------------------------------------------------


def f16_bits(v: float) -> int:
    b = struct.unpack("<H", struct.pack("<e", v))[0]
    if f16_val(b) != v:
        raise ValueError(f"{v} is not exact in f16")
    return b


def f16_val(b: int) -> float:
    return struct.unpack("<e", struct.pack("<H", b & 0xFFFF))[0]


def f32_bits(v: float) -> int:
    return struct.unpack("<I", struct.pack("<f", v))[0]


def f32_val(b: int) -> float:
    return struct.unpack("<f", struct.pack("<I", b & 0xFFFFFFFF))[0]


def tf32_bits(v: float) -> int:
    b = f32_bits(v)
    if b & 0x1FFF:
        raise ValueError(f"{v} is not exact in tf32")
    return b


def tf32_val(b: int) -> float:
    return f32_val(b & 0xFFFFE000)


def s8_bits(v: float) -> int:
    iv = int(v)
    if iv != v or not -128 <= iv <= 127:
        raise ValueError(f"{v} is not an s8")
    return iv & 0xFF


def s8_val(b: int) -> int:
    b &= 0xFF
    return b - 256 if b >= 128 else b


def e4m3_val(b: int) -> float:
    b &= 0xFF
    sign = -1.0 if b & 0x80 else 1.0
    e, m = (b >> 3) & 15, b & 7
    if e == 15 and m == 7:
        return math.nan
    if e == 0:
        return sign * (m / 8) * 2.0**-6
    return sign * (1 + m / 8) * 2.0 ** (e - 7)


def e4m3_bits(v: float) -> int:
    if v == 0:
        return 0
    sign = 0x80 if v < 0 else 0
    a = abs(v)
    e = math.floor(math.log2(a))
    m = (a / 2.0**e - 1) * 8
    if not (-6 <= e <= 8) or m != int(m):
        raise ValueError(f"{v} is not exact in e4m3")
    b = sign | ((e + 7) << 3) | int(m)
    if e4m3_val(b) != v:
        raise ValueError(f"{v} is not exact in e4m3")
    return b


# dtype -> (bits per element, encode, decode)
ELEM: dict[str, tuple[int, Callable[[float], int], Callable[[int], float]]] = {
    "f16": (16, f16_bits, f16_val),
    "tf32": (32, tf32_bits, tf32_val),
    "s8": (8, s8_bits, s8_val),
    "e4m3": (8, e4m3_bits, e4m3_val),
}
ACC_OF = {"f16": "f32", "tf32": "f32", "s8": "s32", "e4m3": "f32"}


def acc_val(kind: str, b: int) -> float:
    if kind == "s32":
        b &= 0xFFFFFFFF
        return b - (1 << 32) if b >> 31 else b
    return f32_val(b)


def acc_bits(kind: str, v: float) -> int:
    if kind == "s32":
        return int(v) & 0xFFFFFFFF
    return f32_bits(v)


# --------------------------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------------------------

Slot = tuple[int, int, int]  # (thread, reg, pos)
Elem = tuple[int, int, int]  # (matrix, row, col)


def slot_to_elem(entries: list[dict[str, int]]) -> dict[Slot, Elem]:
    return {X.slot_key(e): X.elem_key(e) for e in entries}


def elem_to_slot(entries: list[dict[str, int]]) -> dict[Elem, Slot]:
    return {X.elem_key(e): X.slot_key(e) for e in entries}


def all_slots(op: dict[str, Any]) -> list[Slot]:
    return [(t, r, p) for t in range(op["threads"]) for r in range(op["regs_per_thread"]) for p in range(op["elems_per_reg"])]


def put(words: array, index: int, pos: int, bits: int, elem_bits: int) -> None:
    mask = ((1 << elem_bits) - 1) << (pos * elem_bits)
    words[index] = (words[index] & ~mask & 0xFFFFFFFF) | ((bits << (pos * elem_bits)) & mask)


def get(word: int, pos: int, elem_bits: int) -> int:
    return (word >> (pos * elem_bits)) & ((1 << elem_bits) - 1)


# --------------------------------------------------------------------------------------------
# Probe runs: what one invocation of probes.cu for one probe name needs and returns
# --------------------------------------------------------------------------------------------


@dataclass
class Section:
    words_per_exp: int
    broadcast: bool
    data: array  # len == words_per_exp (broadcast) or words_per_exp * n_exp


@dataclass
class ProbeRun:
    name: str  # probe name in probes.cu
    family: str  # mma | wgmma_ss | wgmma_rs | ldmatrix | stmatrix
    instruction: str  # catalogue key
    n_exp: int
    sections: list[Section]
    params: list[int]
    out_words: int  # per experiment
    experiments: list[tuple[str, Any]]  # (role, argument) per experiment
    info: dict[str, Any] = field(default_factory=dict)

    def to_bytes(self) -> bytes:
        head = array("I", [MAGIC, VERSION, self.n_exp, len(self.sections), NPARAMS])
        for s in self.sections:
            head.extend([s.words_per_exp, 1 if s.broadcast else 0])
        head.extend((self.params + [0] * NPARAMS)[:NPARAMS])
        out = head.tobytes()
        for s in self.sections:
            want = s.words_per_exp * (1 if s.broadcast else self.n_exp)
            if len(s.data) != want:
                raise AssertionError(f"{self.name}: section has {len(s.data)} words, expected {want}")
            out += s.data.tobytes()
        return out


# Probe name -> (section words per experiment..., output words per experiment); must match
# kProbes in probes.cu (run_probes.py checks this against `probes --list`).
def probe_registry() -> dict[str, tuple[tuple[int, ...], int]]:
    reg: dict[str, tuple[tuple[int, ...], int]] = {}
    for name in ("mma_m16n8k16_f16", "mma_m16n8k32_s8", "mma_m16n8k8_tf32"):
        reg[name] = ((320,), 128)
    for ab in ("f16", "e4m3"):
        for n in X.WGMMA_NS:
            reg[f"wgmma_ss_{ab}_n{n}"] = ((SMEM_A_WORDS, SMEM_B_WORDS), 64 * n)
            reg[f"wgmma_rs_{ab}_n{n}"] = ((512, SMEM_B_WORDS), 64 * n)
    for op in ("ldmatrix", "stmatrix"):
        for t in ("", "_trans"):
            for num in (1, 2, 4):
                reg[f"{op}_x{num}{t}"] = ((32, 128), 128)
    return reg


MMA_PROBE = {
    X.mma_name("m16n8k16", "f32.f16.f16.f32"): "mma_m16n8k16_f16",
    X.mma_name("m16n8k32", "s32.s8.s8.s32"): "mma_m16n8k32_s8",
    X.mma_name("m16n8k8", "f32.tf32.tf32.f32"): "mma_m16n8k8_tf32",
}


# ---- mma.sync ---------------------------------------------------------------------------------

MMA_WORDS = 10  # a0..a3, b0, b1, c0..c3 per lane
A_OFF, B_OFF, C_OFF = 0, 4, 6


def mma_passes(dtype: str, n_slots: int) -> tuple[int, int]:
    """(base, passes): B slot ids are sent as `passes` digits in `base`, each as digit+1."""
    base = 16 if dtype == "s8" else 1024  # values base+1 must be exact in the type
    passes = 1
    while base**passes < n_slots:
        passes += 1
    return base, passes


def build_mma(instruction: str, ins: dict[str, Any]) -> ProbeRun:
    """Layout-free inputs (no expected table is used to place any value):

    * ("A", slot, p): A = that one register slot = 1, every other A slot 0; every B register
      slot holds digit p of its own slot id, plus 1; C = 0.  D = A*B is then non-zero exactly
      in A's row, and D[row][j] = B[k][j] names the B slot that holds (k, j).
    * ("C", slot): that C register = 1, A = B = 0: D = C shows where C's element lands.
    """
    dtype = ins["dtype"]
    bits, enc, _ = ELEM[dtype]
    acc = ACC_OF[dtype]
    m, n, k = ins["shape"]["m"], ins["shape"]["n"], ins["shape"]["k"]
    ops = ins["operands"]
    b_slots = all_slots(ops["B"])
    base, passes = mma_passes(dtype, len(b_slots))
    zero = array("I", [0]) * (32 * MMA_WORDS)
    b_imgs = []
    for p in range(passes):
        w = array("I", zero)
        for sid, (lane, reg, pos) in enumerate(b_slots):
            put(w, lane * MMA_WORDS + B_OFF + reg, pos, enc(float((sid // base**p) % base + 1)), bits)
        b_imgs.append(w)
    data = array("I")
    exps: list[tuple[str, Any]] = []
    one = enc(1.0)
    for slot in all_slots(ops["A"]):
        lane, reg, pos = slot
        for p in range(passes):
            w = array("I", b_imgs[p])
            put(w, lane * MMA_WORDS + A_OFF + reg, pos, one, bits)
            data.extend(w)
            exps.append(("A", (slot, p)))
    for slot in all_slots(ops["C"]):
        w = array("I", zero)
        lane, reg, _ = slot
        w[lane * MMA_WORDS + C_OFF + reg] = acc_bits(acc, 1)
        data.extend(w)
        exps.append(("C", slot))
    return ProbeRun(
        name=MMA_PROBE[instruction], family="mma", instruction=instruction, n_exp=len(exps),
        sections=[Section(32 * MMA_WORDS, False, data)], params=[], out_words=128, experiments=exps,
        info={"dtype": dtype, "acc": acc, "m": m, "n": n, "k": k, "base": base, "passes": passes},
    )


# ---- wgmma ------------------------------------------------------------------------------------


def smem_offset(row: int, kk: int, esize: int, lbo: int, sbo: int, hypothesis: str) -> int:
    """Byte offset of (row, k) in the no-swizzle K-major canonical layout.

    PTX ISA ("Canonical layouts", K-major, no swizzle): ((8,m),(T,2k)):((1T,SBO),(1,LBO)) in
    units of T = 16 bytes / element size: rows of a core matrix are 16 bytes apart, core
    matrices 8 rows apart are SBO bytes apart, the two 16-byte halves of K are LBO apart.
    ``hypothesis="swapped"`` reads the two fields the other way round (a diagnostic only).
    """
    t = 16 // esize
    row_group, k_chunk = (sbo, lbo) if hypothesis == "ptx" else (lbo, sbo)
    return (row % 8) * 16 + (row // 8) * row_group + (kk // t) * k_chunk + (kk % t) * esize


def wgmma_params(n: int) -> list[int]:
    # A (64 rows): row groups packed 128 B apart, second K half after all of them (1024 B).
    # B (N rows): likewise, LBO = N/8 * 128.  Both fit the buffers under either reading.
    return [1024, 128, n * 16, 128]


def smem_image(rows: int, k: int, dtype: str, value: Callable[[int, int], float], lbo: int, sbo: int,
               hypothesis: str, words: int) -> array:
    bits, enc, _ = ELEM[dtype]
    esize = bits // 8
    buf = bytearray(words * 4)
    for r in range(rows):
        for kk in range(k):
            v = value(r, kk)
            if v:
                off = smem_offset(r, kk, esize, lbo, sbo, hypothesis)
                buf[off:off + esize] = enc(v).to_bytes(esize, "little")
    return array("I", bytes(buf))


def wgmma_info(instruction: str, ins: dict[str, Any]) -> dict[str, Any]:
    return {"dtype": ins["dtype"], "n": ins["shape"]["n"], "k": ins["shape"]["k"],
            "mode": "bits" if ins["dtype"] == "e4m3" else "uniform"}


def build_wgmma_ss(instruction: str, ins: dict[str, Any], hypothesis: str = "ptx") -> ProbeRun:
    info = wgmma_info(instruction, ins)
    dtype, n, k = info["dtype"], info["n"], info["k"]
    lbo_a, sbo_a, lbo_b, sbo_b = wgmma_params(n)
    if info["mode"] == "uniform":
        bval = lambda j, kk: float(j + 1)  # noqa: E731  (B image rows are N-indexed: (j, k))
    else:
        bval = lambda j, kk: float(2**kk) if kk < 6 and (j + 1) >> kk & 1 else 0.0  # noqa: E731
    b_img = smem_image(n, k, dtype, bval, lbo_b, sbo_b, hypothesis, SMEM_B_WORDS)
    data = array("I")
    exps = []
    for i0 in range(64):
        data.extend(smem_image(64, k, dtype, lambda r, kk: 1.0 if r == i0 else 0.0, lbo_a, sbo_a, hypothesis, SMEM_A_WORDS))
        exps.append(("D", i0))
    info["hypothesis"] = hypothesis
    return ProbeRun(
        name=f"wgmma_ss_{dtype}_n{n}", family="wgmma_ss", instruction=instruction, n_exp=len(exps),
        sections=[Section(SMEM_A_WORDS, False, data), Section(SMEM_B_WORDS, True, b_img)],
        params=[lbo_a, sbo_a, lbo_b, sbo_b], out_words=64 * n, experiments=exps, info=info,
    )


def build_wgmma_rs(instruction: str, ins: dict[str, Any], hypothesis: str = "ptx") -> ProbeRun:
    info = wgmma_info(instruction, ins)
    dtype, n, k = info["dtype"], info["n"], info["k"]
    bits, enc, _ = ELEM[dtype]
    lbo_a, sbo_a, lbo_b, sbo_b = wgmma_params(n)
    if info["mode"] == "uniform":
        bval = lambda j, kk: float(kk + 1)  # noqa: E731
    else:
        bval = lambda j, kk: (1.0 if j >= 5 else float(kk >> j & 1))  # noqa: E731
    b_img = smem_image(n, k, dtype, bval, lbo_b, sbo_b, hypothesis, SMEM_B_WORDS)
    op = ins["operands"]["A"]
    zero = array("I", [0]) * 512
    data = array("I")
    exps = []
    one = enc(1.0)
    for slot in all_slots(op):
        w = array("I", zero)
        t, reg, pos = slot
        put(w, t * 4 + reg, pos, one, bits)
        data.extend(w)
        exps.append(("A", slot))
    info["hypothesis"] = hypothesis
    return ProbeRun(
        name=f"wgmma_rs_{dtype}_n{n}", family="wgmma_rs", instruction=instruction, n_exp=len(exps),
        sections=[Section(512, False, data), Section(SMEM_B_WORDS, True, b_img)],
        params=[lbo_a, sbo_a, lbo_b, sbo_b], out_words=64 * n, experiments=exps, info=info,
    )


# ---- ldmatrix / stmatrix ----------------------------------------------------------------------


def ld_value(matrix: int, row: int, col: int) -> int:
    return 0xA000 | matrix << 6 | row << 3 | col


def st_value(lane: int, reg: int, pos: int) -> int:
    return 0xB000 | lane << 3 | reg << 1 | pos


def build_matrix(instruction: str, ins: dict[str, Any]) -> ProbeRun:
    fam, num, trans = ins["family"], ins["num"], ins["trans"]
    rowidx = array("I", PERM_ROWS)
    if fam == "ldmatrix":
        img = array("I", [0]) * 128
        for lane in range(32):
            phys = PERM_ROWS[lane]
            for c in range(8):
                put(img, phys * 4 + c // 2, c % 2, ld_value(lane // 8, lane % 8, c), 16)
        second = img
    else:
        regs = array("I", [0]) * 128
        for lane in range(32):
            for reg in range(4):
                for pos in range(2):
                    put(regs, lane * 4 + reg, pos, st_value(lane, reg, pos), 16)
        second = regs
    name = f"{fam}_x{num}{'_trans' if trans else ''}"
    return ProbeRun(
        name=name, family=fam, instruction=instruction, n_exp=1,
        sections=[Section(32, False, rowidx), Section(128, False, second)], params=[], out_words=128,
        experiments=[("X", None)], info={"num": num, "trans": trans},
    )


def build_all(catalogue: dict[str, dict[str, Any]], hypothesis: str = "ptx") -> list[ProbeRun]:
    runs: list[ProbeRun] = []
    for name, ins in catalogue.items():
        fam = ins["family"]
        if fam == "mma":
            runs.append(build_mma(name, ins))
        elif fam == "wgmma":
            runs.append(build_wgmma_ss(name, ins, hypothesis))
            runs.append(build_wgmma_rs(name, ins, hypothesis))
        else:
            runs.append(build_matrix(name, ins))
    return runs


# --------------------------------------------------------------------------------------------
# CPU simulator: what the hardware would return if its layouts were those of ``model`` (a
# catalogue, normally expected.catalogue(), possibly altered to test the decoders).
# --------------------------------------------------------------------------------------------


def simulate(run: ProbeRun, model: dict[str, dict[str, Any]], reading: str = "ptx") -> array:
    """``reading``: how the modelled hardware interprets the descriptor's LBO/SBO fields."""
    ins = model[run.instruction]
    out = array("I", [POISON]) * (run.n_exp * run.out_words)
    if run.family == "mma":
        _sim_mma(run, ins, out)
    elif run.family in ("wgmma_ss", "wgmma_rs"):
        _sim_wgmma(run, ins, out, reading)
    else:
        _sim_matrix(run, ins, out)
    return out


def _decode_regs(words: array, base: int, stride: int, off: int, s2e: dict[Slot, Elem], bits: int,
                 dec: Callable[[int], float]) -> dict[tuple[int, int], float]:
    vals: dict[tuple[int, int], float] = {}
    for (t, reg, pos), (_, row, col) in s2e.items():
        w = words[base + t * stride + off + reg]
        if w:
            v = dec(get(w, pos, bits))
            if v:
                vals[(row, col)] = v
    return vals


def _sim_mma(run: ProbeRun, ins: dict[str, Any], out: array) -> None:
    bits, _, dec = ELEM[run.info["dtype"]]
    acc = run.info["acc"]
    ops = ins["operands"]
    a_s2e, b_s2e, c_s2e = (slot_to_elem(ops[x]["entries"]) for x in "ABC")
    d_e2s = elem_to_slot(ops["D"]["entries"])
    data = run.sections[0].data
    for e in range(run.n_exp):
        base = e * 32 * MMA_WORDS
        a = _decode_regs(data, base, MMA_WORDS, A_OFF, a_s2e, bits, dec)
        b = _decode_regs(data, base, MMA_WORDS, B_OFF, b_s2e, bits, dec)
        c = _decode_regs(data, base, MMA_WORDS, C_OFF, c_s2e, 32, lambda w: acc_val(acc, w))
        d: dict[tuple[int, int], float] = dict(c)
        bcol: dict[int, list[tuple[int, float]]] = {}
        for (kk, j), v in b.items():
            bcol.setdefault(kk, []).append((j, v))
        for (i, kk), va in a.items():
            for j, vb in bcol.get(kk, ()):
                d[(i, j)] = d.get((i, j), 0) + va * vb
        for (_, row, col), (lane, reg, _) in d_e2s.items():
            out[e * 128 + lane * 4 + reg] = acc_bits(acc, d.get((row, col), 0))


def _smem_matrix(img: array, base_word: int, rows: int, k: int, dtype: str, lbo: int, sbo: int,
                 reading: str) -> dict[tuple[int, int], float]:
    bits, _, dec = ELEM[dtype]
    esize = bits // 8
    raw = img[base_word:base_word + (SMEM_A_WORDS if rows == 64 else SMEM_B_WORDS)].tobytes()
    vals = {}
    for r in range(rows):
        for kk in range(k):
            off = smem_offset(r, kk, esize, lbo, sbo, reading)
            v = dec(int.from_bytes(raw[off:off + esize], "little"))
            if v:
                vals[(r, kk)] = v
    return vals


def _sim_wgmma(run: ProbeRun, ins: dict[str, Any], out: array, reading: str) -> None:
    dtype, n, k = run.info["dtype"], run.info["n"], run.info["k"]
    bits, _, dec = ELEM[dtype]
    lbo_a, sbo_a, lbo_b, sbo_b = run.params[:4]
    b = _smem_matrix(run.sections[1].data, 0, n, k, dtype, lbo_b, sbo_b, reading)  # keyed (j, k)
    bk: dict[int, list[tuple[int, float]]] = {}
    for (j, kk), v in b.items():
        bk.setdefault(kk, []).append((j, v))
    d_e2s = elem_to_slot(ins["operands"]["D"]["entries"])
    a_s2e = slot_to_elem(ins["operands"]["A"]["entries"])
    regs = n // 2
    sec0 = run.sections[0].data
    for e in range(run.n_exp):
        if run.family == "wgmma_ss":
            a = _smem_matrix(sec0, e * SMEM_A_WORDS, 64, k, dtype, lbo_a, sbo_a, reading)
        else:
            a = {}
            base = e * 512
            per = 32 // bits
            for t in range(128):
                for reg in range(4):
                    w = sec0[base + t * 4 + reg]
                    if w:
                        for pos in range(per):
                            v = dec(get(w, pos, bits))
                            if v:
                                _, row, col = a_s2e[(t, reg, pos)]
                                a[(row, col)] = v
        d: dict[tuple[int, int], float] = {}
        for (i, kk), va in a.items():
            for j, vb in bk.get(kk, ()):
                d[(i, j)] = d.get((i, j), 0) + va * vb
        base = e * 128 * regs
        for t in range(128):
            for reg in range(regs):
                out[base + t * regs + reg] = 0
        for (_, row, col), (t, reg, _) in d_e2s.items():
            if (row, col) in d:
                out[base + t * regs + reg] = f32_bits(d[(row, col)])


def _sim_matrix(run: ProbeRun, ins: dict[str, Any], out: array) -> None:
    rowidx = run.sections[0].data
    src = run.sections[1].data
    (op,) = ins["operands"].values()
    if run.family == "ldmatrix":
        for i in range(128):
            out[i] = 0
        for e in op["entries"]:
            phys = rowidx[8 * e["matrix"] + e["row"]] & 31
            half = get(src[phys * 4 + e["col"] // 2], e["col"] % 2, 16)
            put(out, e["lane"] * 4 + e["reg"], e["pos"], half, 16)
    else:
        for i in range(128):
            out[i] = 0xFFFFFFFF
        for e in op["entries"]:
            phys = rowidx[8 * e["matrix"] + e["row"]] & 31
            half = get(src[e["lane"] * 4 + e["reg"]], e["pos"], 16)
            put(out, phys * 4 + e["col"] // 2, e["col"] % 2, half, 16)


# --------------------------------------------------------------------------------------------
# Decoders: raw outputs -> ownership tables
# --------------------------------------------------------------------------------------------


@dataclass
class OperandResult:
    entries: list[dict[str, int]]
    problems: list[str]
    method: str
    decoded_with: str = ""

    def status(self, op_meta: dict[str, Any]) -> tuple[str, list[str]]:
        full = list(self.problems)
        meta = dict(op_meta)
        meta["entries"] = self.entries
        full += X.validate_operand(meta)
        if not self.entries:
            return "failed", full
        return ("ok" if not full else "inconsistent"), full


def _nonzero(out: array, base: int, count: int, decode: Callable[[int], float]) -> list[tuple[int, float]]:
    res = []
    for i in range(count):
        w = out[base + i]
        if w:
            v = decode(w)
            if v != 0:
                res.append((i, v))
    return res


def _entry_warp(slot: Slot, row: int, col: int) -> dict[str, int]:
    return {"lane": slot[0], "reg": slot[1], "pos": slot[2], "row": row, "col": col}


def _entry_wg(slot: Slot, row: int, col: int) -> dict[str, int]:
    t = slot[0]
    return {"thread": t, "warp": t >> 5, "lane": t & 31, "reg": slot[1], "pos": slot[2], "row": row, "col": col}


def _note(problems: list[str], msg: str, cap: int = 40) -> None:
    if len(problems) < cap:
        problems.append(msg)
    elif len(problems) == cap:
        problems.append("... further problems omitted")


def _fmt(v: float) -> str:
    return f"{v:g}"


def hungarian_max(score: list[list[int]]) -> list[int]:
    """Assignment row -> column maximising the total score (square matrix; O(n^3))."""
    n = len(score)
    big = max((max(r) for r in score), default=0)
    cost = [[big - s for s in row] for row in score]
    inf = float("inf")
    u, v, p, way = [0.0] * (n + 1), [0.0] * (n + 1), [0] * (n + 1), [0] * (n + 1)
    for i in range(1, n + 1):
        p[0], j0 = i, 0
        minv, used = [inf] * (n + 1), [False] * (n + 1)
        while True:
            used[j0] = True
            i0, delta, j1 = p[j0], inf, 0
            for j in range(1, n + 1):
                if not used[j]:
                    cur = cost[i0 - 1][j - 1] - u[i0] - v[j]
                    if cur < minv[j]:
                        minv[j], way[j] = cur, j0
                    if minv[j] < delta:
                        delta, j1 = minv[j], j
            for j in range(n + 1):
                if used[j]:
                    u[p[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while True:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
            if j0 == 0:
                break
    ans = [0] * n
    for j in range(1, n + 1):
        ans[p[j] - 1] = j - 1
    return ans


def label_classes(classes: list[list[int]], n_labels: int) -> tuple[list[int], int, int]:
    """classes[c] = the expected labels of the class's members; returns (label per class, agreeing, total)."""
    score = [[0] * n_labels for _ in range(n_labels)]
    for c, labels in enumerate(classes):
        for lab in labels:
            score[c][lab] += 1
    perm = hungarian_max(score)
    agree = sum(score[c][perm[c]] for c in range(len(classes)))
    return perm[: len(classes)], agree, sum(len(c) for c in classes)


MMA_GAUGE_NOTE = (
    "mma.sync keeps no operand in memory, so the hardware fixes the labels only up to one permutation of "
    "the rows (shared by A, C and D), one of the columns (B, C, D) and one of k (A, B): relabelling all "
    "operands together gives the same products.  The probe measures the label-free incidence of A, B and D "
    "register slots, then picks each permutation as the assignment that agrees with the PTX ISA labels on "
    "the most slots (Hungarian algorithm); 'agreement' counts those slots.  A difference from expected.py "
    "is therefore one that no relabelling can remove."
)


def decode_mma(run: ProbeRun, out: array, expected_ins: dict[str, Any]) -> tuple[dict[str, OperandResult], dict[str, Any]]:
    acc, m, n, k = run.info["acc"], run.info["m"], run.info["n"], run.info["k"]
    base, passes = run.info["base"], run.info["passes"]
    dec = lambda w: acc_val(acc, w)  # noqa: E731
    ops = expected_ins["operands"]
    a_slots, b_slots = all_slots(ops["A"]), all_slots(ops["B"])
    exp_a, exp_b = slot_to_elem(ops["A"]["entries"]), slot_to_elem(ops["B"]["entries"])
    exp_d = {(s[0], s[1]): el for s, el in slot_to_elem(ops["D"]["entries"]).items()}
    d_idx = lambda idx: (idx // 4, idx % 4)  # noqa: E731
    probs: list[str] = []

    # 1. Per A slot: {D slot index: B slot id} from the digit passes.
    seen: dict[Slot, dict[int, int]] = {}
    bad: set[Slot] = set()
    for e, (role, arg) in enumerate(run.experiments):
        if role != "A":
            continue
        slot, p = arg
        nz = _nonzero(out, e * 128, 128, dec)
        cur = seen.setdefault(slot, {})
        if p > 0 and {i for i, _ in nz} != set(cur):
            _note(probs, f"A slot {slot}: digit pass {p} lit other D slots than pass 0")
            bad.add(slot)
        for idx, v in nz:
            digit = v - 1
            if digit != int(digit) or not 0 <= digit < base:
                _note(probs, f"A slot {slot}: D slot (lane {idx // 4}, reg {idx % 4}) holds {_fmt(v)}, not a B slot id digit")
                bad.add(slot)
                continue
            cur[idx] = cur.get(idx, 0) + int(digit) * base**p
    for slot, cur in seen.items():
        if slot in bad:
            continue
        ids = list(cur.values())
        if len(cur) != n or len(set(ids)) != n or any(i >= len(b_slots) for i in ids):
            _note(probs, f"A slot {slot}: {len(cur)} non-zero D slots naming {len(set(ids))} distinct B slots, expected {n}")
            bad.add(slot)
    good = [s for s in a_slots if s in seen and s not in bad]

    # 2. Classes.  Row: A slots lighting the same D slots.  k: A slots naming the same B slots.
    #    Column: D slots at which the same B slots appear.
    rows_by_key: dict[frozenset, list[Slot]] = {}
    ks_by_key: dict[frozenset, list[Slot]] = {}
    at_d: dict[int, set[int]] = {}
    for s in good:
        rows_by_key.setdefault(frozenset(seen[s]), []).append(s)
        ks_by_key.setdefault(frozenset(seen[s].values()), []).append(s)
        for idx, b in seen[s].items():
            at_d.setdefault(idx, set()).add(b)
    cols_by_key: dict[frozenset, list[int]] = {}
    for idx, bs in at_d.items():
        cols_by_key.setdefault(frozenset(bs), []).append(idx)
    row_keys, k_keys, col_keys = list(rows_by_key), list(ks_by_key), list(cols_by_key)
    d_row = {idx: r for r, key in enumerate(row_keys) for idx in key}
    b_k = {b: c for c, key in enumerate(k_keys) for b in key}
    b_col = {b: c for c, key in enumerate(col_keys) for b in key}
    d_col = {idx: c for c, key in enumerate(col_keys) for idx in cols_by_key[key]}
    structure_ok = True
    for what, keys, count, size, universe, members in (
        ("row", row_keys, m, n, 128, lambda key: len(key)),
        ("k", k_keys, k, n, len(b_slots), lambda key: len(key)),
        ("column", col_keys, n, k, len(b_slots), lambda key: len(key)),
    ):
        covered = set().union(*keys) if keys else set()
        if len(keys) != count or any(members(key) != size for key in keys) or len(covered) != universe or sum(map(len, keys)) != universe:
            _note(probs, f"{what} classes do not partition as a {m}x{n}x{k} product should: {len(keys)} classes "
                         f"(expected {count}), sizes {sorted({len(key) for key in keys})} (expected {size})")
            structure_ok = False

    # 3. Labels (the gauge): best agreement with the PTX labels.
    gauge: dict[str, Any] = {"note": MMA_GAUGE_NOTE}
    results: dict[str, OperandResult] = {}
    method_a = (f"Layout-free inputs: one experiment per A register slot (that slot = 1, the other A slots 0), "
                f"every B register slot holding its own slot id + 1 ({passes} digit pass{'es' if passes > 1 else ''}, base {base}), "
                f"C = 0; the D slots that turn non-zero are the slot's row, their values name the B slots of its k.  "
                f"This gives the full A/B/D incidence; labels are then fixed as described under 'gauge'.")
    method_bd = "From the A experiments (see A): B and D slots are classed by the incidence they show, then labelled (see 'gauge')."
    if not structure_ok:
        for op in ("A", "B", "D"):
            results[op] = OperandResult([], list(probs), method_a if op == "A" else method_bd)
    else:
        row_lab, ra, rt = label_classes(
            [[exp_a[s][1] for s in rows_by_key[key]] + [exp_d[d_idx(i)][1] for i in key] for key in row_keys], m)
        k_lab, ka, kt = label_classes(
            [[exp_a[s][2] for s in ks_by_key[key]] + [exp_b[b_slots[b]][1] for b in key] for key in k_keys], k)
        col_lab, ca, ct = label_classes(
            [[exp_b[b_slots[b]][2] for b in key] + [exp_d[d_idx(i)][2] for i in cols_by_key[key]] for key in col_keys], n)
        gauge["agreement"] = {"rows": f"{ra} of {rt} slots", "columns": f"{ca} of {ct} slots", "k": f"{ka} of {kt} slots"}
        a_row = {s: r for r, key in enumerate(row_keys) for s in rows_by_key[key]}
        a_k = {s: c for c, key in enumerate(k_keys) for s in ks_by_key[key]}
        results["A"] = OperandResult(
            [_entry_warp(s, row_lab[a_row[s]], k_lab[a_k[s]]) for s in good], list(probs), method_a)
        results["B"] = OperandResult(
            [_entry_warp(b_slots[b], k_lab[b_k[b]], col_lab[b_col[b]]) for b in range(len(b_slots)) if b in b_k and b in b_col],
            [], method_bd)
        results["D"] = OperandResult(
            [_entry_warp((idx // 4, idx % 4, 0), row_lab[d_row[idx]], col_lab[d_col[idx]]) for idx in range(128)
             if idx in d_row and idx in d_col], [], method_bd)

    # 4. C: where a one-hot C lands in D.
    d_lab = {(e["lane"], e["reg"]): (e["row"], e["col"]) for e in (results["D"].entries if "D" in results else [])}
    entries, cprobs = [], []
    for e, (role, slot) in enumerate(run.experiments):
        if role != "C":
            continue
        nz = _nonzero(out, e * 128, 128, dec)
        if len(nz) != 1 or nz[0][1] != 1:
            _note(cprobs, f"C slot (lane {slot[0]}, reg {slot[1]}): D has {len(nz)} non-zero slots {nz[:3]}, expected one 1")
            continue
        lab = d_lab.get(d_idx(nz[0][0]))
        if lab is None:
            _note(cprobs, f"C slot (lane {slot[0]}, reg {slot[1]}): landed in an unlabelled D slot")
            continue
        entries.append(_entry_warp(slot, *lab))
    results["C"] = OperandResult(entries, cprobs, "one experiment per C register = 1, A = B = 0 (D = C); labelled as the D slot it lands in.")
    return results, gauge


def decode_wgmma_ss(run: ProbeRun, out: array) -> OperandResult:
    n, k, mode = run.info["n"], run.info["k"], run.info["mode"]
    regs = n // 2
    entries, probs = [], []
    for e, (_, i0) in enumerate(run.experiments):
        nz = _nonzero(out, e * 128 * regs, 128 * regs, f32_val)
        if len(nz) != n:
            _note(probs, f"D experiment row {i0}: {len(nz)} non-zero accumulator slots, expected {n}")
        for idx, v in nz:
            j = (v / k - 1) if mode == "uniform" else v - 1
            if j != int(j) or not 0 <= j < n:
                _note(probs, f"D experiment row {i0}: thread {idx // regs} reg {idx % regs} holds {_fmt(v)}")
                continue
            entries.append(_entry_wg((idx // regs, idx % regs, 0), i0, int(j)))
    bdesc = "B[k][j] = j+1" if mode == "uniform" else "B[k][j] = 2^k * bit k of (j+1), k < 6"
    return OperandResult(
        entries, probs,
        f"SS form, both operands in shared memory (no-swizzle K-major canonical layout, "
        f"LBO/SBO = {run.params[0]}/{run.params[1]} bytes for A, {run.params[2]}/{run.params[3]} for B, "
        f"read as '{run.info['hypothesis']}'): experiment i0 has A row i0 = ones, {bdesc}; the value names the column.",
    )


def decode_wgmma_rs(run: ProbeRun, out: array, d_table: list[dict[str, int]], decoded_with: str) -> OperandResult:
    n, k, mode = run.info["n"], run.info["k"], run.info["mode"]
    regs = n // 2
    s2e = {(s[0], s[1]): (el[1], el[2]) for s, el in slot_to_elem(d_table).items()}
    e2i = {v: t * regs + r for (t, r), v in s2e.items()}
    entries, probs = [], []
    for e, (_, slot) in enumerate(run.experiments):
        base = e * 128 * regs
        nz = _nonzero(out, base, 128 * regs, f32_val)
        rows = {s2e[(idx // regs, idx % regs)][0] for idx, _ in nz}
        desc = f"A slot (thread {slot[0]}, reg {slot[1]}, pos {slot[2]})"
        if len(rows) != 1:
            _note(probs, f"{desc}: non-zero D slots in {len(rows)} rows, expected 1")
            continue
        row = rows.pop()
        if mode == "uniform":
            vals = {v for _, v in nz}
            if len(nz) != n or len(vals) != 1:
                _note(probs, f"{desc}: {len(nz)} non-zero D slots with values {sorted(vals)[:4]}, expected {n} equal")
                if len(vals) != 1:
                    continue
            kk = vals.pop() - 1
        else:
            rowvals = [f32_val(out[base + e2i[(row, j)]]) for j in range(n)]
            if any(rowvals[j] != 1 for j in range(5, n)) or any(v not in (0, 1) for v in rowvals[:5]):
                _note(probs, f"{desc}: row {row} holds {rowvals[:8]}, expected bits of k then ones")
                continue
            kk = sum(int(rowvals[j]) << j for j in range(5))
        if kk != int(kk) or not 0 <= kk < k:
            _note(probs, f"{desc}: decoded k {kk} out of range")
            continue
        entries.append(_entry_wg(slot, row, int(kk)))
    bdesc = "B[k][j] = k+1" if mode == "uniform" else "B[k][j] = bit j of k for j < 5, 1 for j >= 5"
    return OperandResult(
        entries, probs,
        f"RS form (A from registers, B in shared memory, '{run.info['hypothesis']}' descriptor reading): one "
        f"experiment per A register slot = 1, {bdesc}; the non-zero D row (through the D table) is the row, the values give k.",
        decoded_with,
    )


def decode_matrix(run: ProbeRun, out: array) -> OperandResult:
    num = run.info["num"]
    entries, probs = [], []
    if run.family == "ldmatrix":
        for lane in range(32):
            for reg in range(num):
                for pos in range(2):
                    h = get(out[lane * 4 + reg], pos, 16)
                    if h & 0xFF00 != 0xA000:
                        _note(probs, f"lane {lane} reg {reg} pos {pos}: received 0x{h:04x}, not a tagged element")
                        continue
                    entries.append({"lane": lane, "reg": reg, "pos": pos, "matrix": h >> 6 & 3, "row": h >> 3 & 7, "col": h & 7})
        method = ("shared memory = 32 rows of 16 bytes holding tagged (matrix, row, col) values; lane l passes the "
                  "address of a scrambled physical row that holds matrix l//8, row l%8; registers read back.")
    else:
        for phys in range(32):
            owner = PERM_INV[phys]
            mtx, row = owner // 8, owner % 8
            for col in range(8):
                h = get(out[phys * 4 + col // 2], col % 2, 16)
                if h == 0xFFFF:
                    if mtx < num:
                        _note(probs, f"matrix {mtx} row {row} col {col}: not written")
                    continue
                if h & 0xFF00 != 0xB000:
                    _note(probs, f"matrix {mtx} row {row} col {col}: holds 0x{h:04x}, not a tagged slot")
                    continue
                if mtx >= num:
                    _note(probs, f"row addressed by lane {owner} (unused by .x{num}) was written: 0x{h:04x}")
                    continue
                entries.append({"lane": h >> 3 & 31, "reg": h >> 1 & 3, "pos": h & 1, "matrix": mtx, "row": row, "col": col})
        method = ("each lane's registers hold tagged (lane, reg, pos) values; lane l passes the address of a scrambled "
                  "physical row standing for matrix l//8, row l%8; the buffer (pre-filled 0xFFFF) read back.")
    entries.sort(key=lambda e: (e["lane"], e["reg"], e["pos"]))
    return OperandResult(entries, probs, method)
