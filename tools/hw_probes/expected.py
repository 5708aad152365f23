#!/usr/bin/env python3
"""Expected register-fragment tables, from the PTX ISA's formulas (pure Python, no GPU).

For each instruction probed by ``probes.cu`` this module writes, per operand, which
(thread, register, position) slot holds which matrix element, in the same JSON schema as the
measured file ``tests/data/hw_fragments_h100.json`` (see README.md beside this file).

Notation, as in the PTX ISA: ``groupID = lane >> 2``, ``threadID_in_group = lane % 4``
(written ``g`` and ``t`` below); ``reg`` is the index of the 32-bit register in the operand's
register list, ``pos`` the element inside it (element ``pos`` occupies bits
``[pos*bits, (pos+1)*bits)``).  Sources: PTX ISA "Matrix Fragments for mma.m16n8k16 with
floating point type", "... mma.m16n8k32", "... mma.m16n8k8" (``.tf32``), "Register
Fragments" of the asynchronous warpgroup-level matrix instructions (``wgmma``), "ldmatrix"
and "stmatrix".

Run ``python3 tools/hw_probes/expected.py`` for a summary and a self-check, or
``--out PATH`` to write the tables as JSON.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable, Iterable
from typing import Any

SCHEMA_VERSION = 1

# Keys of an entry, per instruction family, in output order.
WARP_KEYS = ("lane", "reg", "pos", "row", "col")
WARPGROUP_KEYS = ("thread", "warp", "lane", "reg", "pos", "row", "col")
MATRIX_KEYS = ("lane", "reg", "pos", "matrix", "row", "col")

Entry = dict[str, int]


# --------------------------------------------------------------------------------------------
# mma.sync (one warp)
# --------------------------------------------------------------------------------------------


def _warp_entries(regs: int, per_reg: int, where: Callable[[int, int, int, int], tuple[int, int]]) -> list[Entry]:
    out = []
    for lane in range(32):
        g, t = lane >> 2, lane & 3
        for reg in range(regs):
            for pos in range(per_reg):
                row, col = where(g, t, reg, pos)
                out.append({"lane": lane, "reg": reg, "pos": pos, "row": row, "col": col})
    return out


def mma_accumulator_16x8() -> list[Entry]:
    """C/D of m16n8k8/k16/k32 (f32 or s32): c0,c1 in row g, c2,c3 in row g+8; col 2t + (i & 1)."""
    return _warp_entries(4, 1, lambda g, t, r, p: (g + 8 * (r >> 1), 2 * t + (r & 1)))


def mma_m16n8k16_f16_a() -> list[Entry]:
    """A (16x16 f16): a_i (i = 2*reg + pos): row g for a0,a1,a4,a5 else g+8; col 2t + (i & 1) (+8 for i >= 4)."""
    return _warp_entries(4, 2, lambda g, t, r, p: (g + 8 * (r & 1), 2 * t + p + 8 * (r >> 1)))


def mma_m16n8k16_f16_b() -> list[Entry]:
    """B (16x8 f16): b_i (i = 2*reg + pos): row (k) 2t + (i & 1) (+8 for i >= 2); col (n) g."""
    return _warp_entries(2, 2, lambda g, t, r, p: (2 * t + p + 8 * r, g))


def mma_m16n8k32_s8_a() -> list[Entry]:
    """A (16x32 s8): a_i (i = 4*reg + pos): row g for a0..a3, a8..a11 else g+8; col 4t + (i & 3) (+16 for i >= 8)."""
    return _warp_entries(4, 4, lambda g, t, r, p: (g + 8 * (r & 1), 4 * t + p + 16 * (r >> 1)))


def mma_m16n8k32_s8_b() -> list[Entry]:
    """B (32x8 s8): b_i (i = 4*reg + pos): row (k) 4t + (i & 3) (+16 for i >= 4); col (n) g."""
    return _warp_entries(2, 4, lambda g, t, r, p: (4 * t + p + 16 * r, g))


def mma_m16n8k8_tf32_a() -> list[Entry]:
    """A (16x8 tf32): row g for a0,a2 else g+8; col t for a0,a1 else t+4."""
    return _warp_entries(4, 1, lambda g, t, r, p: (g + 8 * (r & 1), t + 4 * (r >> 1)))


def mma_m16n8k8_tf32_b() -> list[Entry]:
    """B (8x8 tf32): row (k) t for b0, t+4 for b1; col (n) g."""
    return _warp_entries(2, 1, lambda g, t, r, p: (t + 4 * r, g))


# --------------------------------------------------------------------------------------------
# wgmma (one warpgroup: 4 warps, 128 threads)
# --------------------------------------------------------------------------------------------


def _warpgroup_entries(regs: int, per_reg: int, where: Callable[[int, int, int, int, int], tuple[int, int]]) -> list[Entry]:
    out = []
    for thread in range(128):
        warp, lane = thread >> 5, thread & 31
        g, t = lane >> 2, lane & 3
        for reg in range(regs):
            for pos in range(per_reg):
                row, col = where(warp, g, t, reg, pos)
                out.append({"thread": thread, "warp": warp, "lane": lane, "reg": reg, "pos": pos, "row": row, "col": col})
    return out


def wgmma_a_k16_16bit() -> list[Entry]:
    """A of m64nNk16 (.f16/.bf16) from registers: warp w owns rows 16w..16w+15, laid out as mma.m16n8k16's A."""
    return _warpgroup_entries(4, 2, lambda w, g, t, r, p: (16 * w + g + 8 * (r & 1), 2 * t + p + 8 * (r >> 1)))


def wgmma_a_k32_8bit() -> list[Entry]:
    """A of m64nNk32 (.e4m3/.e5m2/.s8) from registers: warp w owns rows 16w.., laid out as mma.m16n8k32's A."""
    return _warpgroup_entries(4, 4, lambda w, g, t, r, p: (16 * w + g + 8 * (r & 1), 4 * t + p + 16 * (r >> 1)))


def wgmma_d(n: int) -> list[Entry]:
    """D of m64nN (f32/s32): d_i: row 16w + g + 8*((i >> 1) & 1); col 8*(i >> 2) + 2t + (i & 1)."""
    return _warpgroup_entries(
        n // 2, 1, lambda w, g, t, r, p: (16 * w + g + 8 * ((r >> 1) & 1), 8 * (r >> 2) + 2 * t + (r & 1))
    )


# --------------------------------------------------------------------------------------------
# ldmatrix / stmatrix (m8n8, .b16): matrix j's eight rows are the 16-byte rows whose addresses
# lanes 8j..8j+7 give; "row" below is that row (the addressing lane is 8*matrix + row) and
# "col" the 16-bit element inside it.  The same slot-to-element map holds for both directions.
# --------------------------------------------------------------------------------------------


def matrix_m8n8_b16(num: int, trans: bool) -> list[Entry]:
    """Register j of lane l holds matrix j: row l/4, cols 2(l%4)+pos; with .trans row 2(l%4)+pos, col l/4."""
    out = []
    for lane in range(32):
        for reg in range(num):
            for pos in range(2):
                if trans:
                    row, col = 2 * (lane & 3) + pos, lane >> 2
                else:
                    row, col = lane >> 2, 2 * (lane & 3) + pos
                out.append({"lane": lane, "reg": reg, "pos": pos, "matrix": reg, "row": row, "col": col})
    return out


# --------------------------------------------------------------------------------------------
# Instruction catalogue (shared with run_probes.py)
# --------------------------------------------------------------------------------------------


def _operand(
    keys: tuple[str, ...], rows: int, cols: int, elem_bits: int, regs: int, threads: int, entries: list[Entry], *,
    matrices: int = 1, note: str = "",
) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "keys": list(keys),
        "rows": rows,
        "cols": cols,
        "elem_bits": elem_bits,
        "regs_per_thread": regs,
        "elems_per_reg": 32 // elem_bits,
        "threads": threads,
    }
    if matrices != 1 or "matrix" in keys:
        meta["matrices"] = matrices
    if note:
        meta["note"] = note
    meta["entries"] = entries
    return meta


def mma_name(shape: str, types: str) -> str:
    return f"mma.sync.aligned.{shape}.row.col.{types}"


def wgmma_name(n: int, k: int, ab: str) -> str:
    return f"wgmma.mma_async.sync.aligned.m64n{n}k{k}.f32.{ab}.{ab}"


def matrix_name(op: str, num: int, trans: bool) -> str:
    return f"{op}.sync.aligned.m8n8.x{num}{'.trans' if trans else ''}.shared.b16"


WGMMA_NS = (8, 16, 32)
WGMMA_TYPES = (("f16", 16), ("e4m3", 32))  # (A/B type, K)


def catalogue() -> dict[str, dict[str, Any]]:
    """Every probed instruction: its probe family, shape and the expected operand tables."""
    cat: dict[str, dict[str, Any]] = {}
    acc_note = "C and D share one layout (PTX ISA)."
    for shape, types, m, n, k, dtype, a_fn, b_fn, abits in (
        ("m16n8k16", "f32.f16.f16.f32", 16, 8, 16, "f16", mma_m16n8k16_f16_a, mma_m16n8k16_f16_b, 16),
        ("m16n8k32", "s32.s8.s8.s32", 16, 8, 32, "s8", mma_m16n8k32_s8_a, mma_m16n8k32_s8_b, 8),
        ("m16n8k8", "f32.tf32.tf32.f32", 16, 8, 8, "tf32", mma_m16n8k8_tf32_a, mma_m16n8k8_tf32_b, 32),
    ):
        cat[mma_name(shape, types)] = {
            "family": "mma",
            "dtype": dtype,
            "shape": {"m": m, "n": n, "k": k},
            "threads": 32,
            "operands": {
                "A": _operand(WARP_KEYS, m, k, abits, 4, 32, a_fn()),
                "B": _operand(WARP_KEYS, k, n, abits, 2, 32, b_fn()),
                "C": _operand(WARP_KEYS, m, n, 32, 4, 32, mma_accumulator_16x8(), note=acc_note),
                "D": _operand(WARP_KEYS, m, n, 32, 4, 32, mma_accumulator_16x8(), note=acc_note),
            },
        }
    for ab, k in WGMMA_TYPES:
        for n in WGMMA_NS:
            a = wgmma_a_k16_16bit() if k == 16 else wgmma_a_k32_8bit()
            cat[wgmma_name(n, k, ab)] = {
                "family": "wgmma",
                "dtype": ab,
                "shape": {"m": 64, "n": n, "k": k},
                "threads": 128,
                "operands": {
                    "A": _operand(WARPGROUP_KEYS, 64, k, 16 if k == 16 else 8, 4, 128, a,
                                  note="A from registers (the RS form of wgmma)."),
                    "D": _operand(WARPGROUP_KEYS, 64, n, 32, n // 2, 128, wgmma_d(n)),
                },
            }
    for op, operand in (("ldmatrix", "dst"), ("stmatrix", "src")):
        for trans in (False, True):
            for num in (1, 2, 4):
                cat[matrix_name(op, num, trans)] = {
                    "family": op,
                    "num": num,
                    "trans": trans,
                    "threads": 32,
                    "operands": {
                        operand: _operand(MATRIX_KEYS, 8, 8, 16, num, 32, matrix_m8n8_b16(num, trans), matrices=num,
                                          note="row = the 16-byte row addressed by lane 8*matrix+row; col = 16-bit element in it."),
                    },
                }
    return cat


# --------------------------------------------------------------------------------------------
# Validation and comparison (also used on measured tables)
# --------------------------------------------------------------------------------------------


def slot_key(e: Entry) -> tuple[int, ...]:
    """(thread, reg, pos) of an entry; warp-level tables use the lane as the thread."""
    return (e.get("thread", e.get("lane", -1)), e["reg"], e["pos"])


def elem_key(e: Entry) -> tuple[int, ...]:
    """(matrix, row, col) of an entry (matrix 0 for the mma operands)."""
    return (e.get("matrix", 0), e["row"], e["col"])


def validate_operand(op: dict[str, Any]) -> list[str]:
    """Problems with one operand table: count, ranges, every slot once, every element once."""
    problems: list[str] = []
    entries = op.get("entries") or []
    matrices = op.get("matrices", 1)
    n_elems = op["rows"] * op["cols"] * matrices
    n_slots = op["threads"] * op["regs_per_thread"] * op["elems_per_reg"]
    if n_slots != n_elems:
        problems.append(f"metadata: {n_slots} slots but {n_elems} elements")
    if len(entries) != n_elems:
        problems.append(f"{len(entries)} entries, expected {n_elems}")
    slots: dict[tuple[int, ...], int] = {}
    elems: dict[tuple[int, ...], int] = {}
    for e in entries:
        s, x = slot_key(e), elem_key(e)
        slots[s] = slots.get(s, 0) + 1
        elems[x] = elems.get(x, 0) + 1
        thread = s[0]
        if not (0 <= thread < op["threads"] and 0 <= e["reg"] < op["regs_per_thread"] and 0 <= e["pos"] < op["elems_per_reg"]):
            problems.append(f"slot out of range: {e}")
        if not (0 <= x[0] < matrices and 0 <= x[1] < op["rows"] and 0 <= x[2] < op["cols"]):
            problems.append(f"element out of range: {e}")
        if "thread" in e and (e["warp"] != thread >> 5 or e["lane"] != thread & 31):
            problems.append(f"thread/warp/lane disagree: {e}")
    dup_s = [s for s, c in slots.items() if c > 1]
    dup_e = [x for x, c in elems.items() if c > 1]
    if dup_s:
        problems.append(f"{len(dup_s)} slots appear more than once, e.g. {dup_s[:3]}")
    if dup_e:
        problems.append(f"{len(dup_e)} elements appear more than once, e.g. {dup_e[:3]}")
    missing = n_elems - len(elems)
    if missing > 0:
        problems.append(f"{missing} elements never appear")
    return problems


def compare_operand(measured: Iterable[Entry], expected: Iterable[Entry], limit: int = 8) -> list[str]:
    """Differences between two tables, keyed by slot: a list of human-readable lines (empty: equal)."""
    m = {slot_key(e): elem_key(e) for e in measured}
    x = {slot_key(e): elem_key(e) for e in expected}
    lines: list[str] = []
    wrong = sorted(s for s in m.keys() & x.keys() if m[s] != x[s])
    only_m = sorted(m.keys() - x.keys())
    only_x = sorted(x.keys() - m.keys())

    def fmt(el: tuple[int, ...]) -> str:
        return f"(matrix {el[0]}, row {el[1]}, col {el[2]})" if el[0] else f"(row {el[1]}, col {el[2]})"

    for s in wrong[:limit]:
        lines.append(f"slot (thread {s[0]}, reg {s[1]}, pos {s[2]}): measured {fmt(m[s])}, expected {fmt(x[s])}")
    if len(wrong) > limit:
        lines.append(f"... {len(wrong) - limit} more differing slots ({len(wrong)} in all)")
    if only_m:
        lines.append(f"{len(only_m)} slots measured but not expected, e.g. {only_m[:3]}")
    if only_x:
        lines.append(f"{len(only_x)} expected slots not measured, e.g. {only_x[:3]}")
    return lines


def expected_document() -> dict[str, Any]:
    return {
        "schema_version": SCHEMA_VERSION,
        "source": "PTX ISA fragment formulas (tools/hw_probes/expected.py)",
        "instructions": catalogue(),
    }


def dump_json(doc: dict[str, Any], path: str | None) -> str:
    """JSON text with one entry per line (compact yet diffable)."""
    text = json.dumps(doc, indent=1, sort_keys=False)
    # Collapse each entry object onto one line.
    text = re.sub(r"\{\n\s+(\"(?:thread|lane)\"[^{}\[\]]*?)\n\s*\}", lambda m: "{" + " ".join(m.group(1).split()) + "}", text)
    if path:
        with open(path, "w") as f:
            f.write(text + "\n")
    return text


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="write the expected tables as JSON to this path")
    args = ap.parse_args(argv)
    doc = expected_document()
    bad = 0
    for name, ins in doc["instructions"].items():
        for opname, op in ins["operands"].items():
            probs = validate_operand(op)
            status = "ok" if not probs else "BAD: " + "; ".join(probs)
            bad += bool(probs)
            print(f"{name:58s} {opname:3s} {len(op['entries']):5d} entries  {status}")
    if args.out:
        dump_json(doc, args.out)
        print(f"wrote {args.out}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
