"""The remedies of a lint report (:mod:`linlayout.lower.remedies`) as text and JSON.

It prints; it computes nothing.  :func:`render_remedies` gives the text lines ``linlayout lint --remedies``
prints after the buffers (one line per remedy, then its details indented); :func:`remedies_json` the
``"remedies"`` list of ``--json``.  Memory layouts print as TTGIR and Gluon, register layouts as
``#ttg.linear``.  A report without remedies prints nothing and has no ``"remedies"`` key.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...lower.remedies import BufferRemedy, ExchangeRemedy, NvmmaChoice
from .encodings import to_ttgir_linear, to_ttgir_shared

__all__ = ["nvmma_text", "remedies_json", "render_remedies"]


def nvmma_text(c: NvmmaChoice) -> str:
    """The TTGIR of an NVMMA encoding.

    >>> nvmma_text(NvmmaChoice(64, True, 8))
    '#ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = true, elementBitWidth = 8}>'
    """
    return (f"#ttg.nvmma_shared<{{swizzlingByteWidth = {c.swizzle_bytes}, transposed = {str(c.transposed).lower()}, "
            f"elementBitWidth = {c.element_bits}}}>")


def _gluon_nvmma(c: NvmmaChoice) -> str:
    return (f"ttgl.NVMMASharedLayout(swizzle_byte_width={c.swizzle_bytes}, element_bitwidth={c.element_bits}, "
            f"rank=2, transposed={c.transposed})")


def _ins(pairs: Sequence[tuple[str, int]]) -> str:
    return ", ".join(f"{k} {v}" for k, v in pairs) or "none"


def _total(pairs: Sequence[tuple[str, int]]) -> int:
    return sum(n for _, n in pairs)


# ----------------------------------------------------------------------------- JSON


def _buffer_json(r: BufferRemedy) -> dict[str, Any]:
    conversion = None
    if r.converted_layout is not None:
        conversion = {"op": r.converted_at, "access": r.converted_kind, "layout": to_ttgir_linear(r.converted_layout),
                      "path": r.conversion_path, "instructions": dict(r.conversion_instructions),
                      "wavefronts_per_warp": r.conversion_wavefronts}
    return {"kind": "buffer", "buffer": r.buffer, "users": list(r.users),
            "current": {"encoding": nvmma_text(r.current), "wavefronts_per_warp": r.current_wavefronts,
                        "instructions": dict(r.current_instructions), "cost": r.current_cost},
            "remedy": {"encoding": nvmma_text(r.memory), "gluon": _gluon_nvmma(r.memory), "conversion": conversion,
                       "wavefronts_per_warp": r.wavefronts, "instructions": dict(r.instructions), "cost": r.cost},
            "saving": {"wavefronts_per_warp": r.saving_wavefronts, "instructions_per_thread": r.saving_instructions,
                       "cost": r.current_cost - r.cost},
            "rejected": list(r.rejected)}


def _exchange_json(r: ExchangeRemedy) -> dict[str, Any]:
    return {"kind": "reduction", "op": r.op, "location": r.location, "axis": r.axis, "element_bits": r.element_bits,
            "operands": r.operands,
            "current": {"wavefronts_per_cta": r.current_wavefronts, "instructions": dict(r.current_instructions)},
            "remedy": {"memory": to_ttgir_shared(r.memory, r.element_bits),
                       "write_layout": to_ttgir_linear(r.write_layout), "read_layout": to_ttgir_linear(r.read_layout),
                       "write_wavefronts_per_warp": r.write_wavefronts, "read_wavefronts_per_warp": r.read_wavefronts,
                       "wavefronts_per_cta": r.wavefronts, "instructions": dict(r.instructions),
                       "lower_bound_per_warp": dict(r.lower_bound), "proven_optimal": r.proven_optimal},
            "saving": {"wavefronts_per_cta": r.saving_wavefronts},
            "gluon": r.gluon or None, "gluon_note": r.gluon_note or None}


def remedies_json(remedies: Sequence[BufferRemedy | ExchangeRemedy]) -> list[dict[str, Any]]:
    """The ``"remedies"`` list of ``linlayout lint --json --remedies``."""
    return [_buffer_json(r) if isinstance(r, BufferRemedy) else _exchange_json(r) for r in remedies]


# ----------------------------------------------------------------------------- text


def _buffer_text(r: BufferRemedy) -> list[str]:
    conversion = f"({r.conversion_path}: {_ins(r.conversion_instructions)}; {r.conversion_wavefronts} wavefronts)"
    if r.converted_layout is None:
        how = f"use {nvmma_text(r.memory)}"
    elif r.converted_kind == "store":
        how = f"convert the registers of {r.converted_at} first {conversion}, then store into the same {nvmma_text(r.memory)}"
    else:
        how = f"load from the same {nvmma_text(r.memory)}, then convert to the registers of {r.converted_at} {conversion}"
    lines = [f"remedy for buffer {r.buffer} (layout fixed by {', '.join(r.users)}): {how}: {r.current_wavefronts} -> "
             f"{r.wavefronts} wavefronts/warp (saves {r.saving_wavefronts}), instructions/thread "
             f"{_total(r.current_instructions)} -> {_total(r.instructions)}, cost {r.current_cost} -> {r.cost}"]
    if r.converted_layout is not None:
        lines.append(f"    {'store' if r.converted_kind == 'store' else 'load'} with {to_ttgir_linear(r.converted_layout)}")
    else:
        lines.append(f"    gluon   {_gluon_nvmma(r.memory)}")
    lines += [f"    not legal: {why}" for why in r.rejected]
    return lines


def _exchange_text(r: ExchangeRemedy) -> list[str]:
    bound = dict(r.lower_bound)
    proof = "proven optimal" if r.proven_optimal else "not proven optimal"
    lines = [f"remedy for {r.op} at {r.location} (axis {r.axis}): its exchange {r.current_wavefronts} -> "
             f"{r.wavefronts} wavefronts/CTA (saves {r.saving_wavefronts}) through "
             f"{to_ttgir_shared(r.memory, r.element_bits)}: write {r.write_wavefronts} + read {r.read_wavefronts} "
             f"per warp (lower bound {bound['write']} + {bound['read']}, {proof}); instructions/thread "
             f"{_ins(r.current_instructions)} -> {_ins(r.instructions)}",
             f"    read layout {to_ttgir_linear(r.read_layout)}"]
    if r.gluon:
        lines.append("    gluon:")
        lines += ["        " + line for line in r.gluon.splitlines()]
    elif r.gluon_note:
        lines.append(f"    gluon: none ({r.gluon_note})")
    return lines


def render_remedies(remedies: Sequence[BufferRemedy | ExchangeRemedy]) -> list[str]:
    """The text lines of the remedies (none for none)."""
    lines: list[str] = []
    for r in remedies:
        lines += _buffer_text(r) if isinstance(r, BufferRemedy) else _exchange_text(r)
    return lines
