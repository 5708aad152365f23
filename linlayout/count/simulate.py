"""Address-level simulator of shared-memory instructions.

Given an instruction, the access size and every lane's byte offset, the
simulator groups lanes into passes by the rules of a
:class:`~linlayout.hw.SharedMemory` model and counts, per pass, the
largest number of distinct words any bank must deliver.  It accepts any
pattern (padding such as ``tile[32][33]`` included), and it reproduces all
626 instructions measured on an H100 (``tests/data/h100_smem_wavefronts.json``).

Worked example: a 32x32 fp32 tile read by columns (lane ``l`` reads row
``l``) puts every lane in bank 0; padding the row to 33 words spreads them::

    lane     0    1    2  ...      bank of lane l
    pitch 32 0    128  256         0 for every lane      -> 32 wavefronts
    pitch 33 0    132  264         l % 32                -> 1 wavefront

>>> simulate_access("ld.shared", "load", 4, [128 * l for l in range(32)]).wavefronts
32
>>> simulate_access("ld.shared", "load", 4, [132 * l for l in range(32)]).wavefronts
1
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import field
from typing import Any

from ..core.record import record
from ..errors import AccessError
from ..hw import Instruction, SharedMemory, check_access_bytes, check_matrix_access, get_hardware, parse_instruction
from .query import AddressQuery, address_query, check_lane_offsets

__all__ = ["AccessResult", "simulate_access", "simulate_batch"]


@record
class Pass:
    """One pass of an instruction: its lanes, the words each bank serves, and its cost."""

    lanes: tuple[int, ...]
    words_per_bank: dict[int, tuple[int, ...]] = field(compare=False)
    wavefronts: int
    lanes_per_word: dict[int, tuple[int, ...]] = field(compare=False, default_factory=dict)

    def conflicts(self) -> dict[int, tuple[int, ...]]:
        """Banks that must deliver more than one distinct word (``{bank: words}``)."""
        return {b: w for b, w in self.words_per_bank.items() if len(w) > 1}


@record
class AccessResult:
    """Wavefronts of one instruction, with the passes that produced them."""

    instruction: str
    op: str
    access_bytes: int
    wavefronts: int
    passes: tuple[Pass, ...]
    merged: bool
    pass_lane_bits: tuple[int, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "instruction": self.instruction,
            "op": self.op,
            "access_bytes": self.access_bytes,
            "wavefronts": self.wavefronts,
            "passes": len(self.passes),
            "merged_passes": self.merged,
            "pass_wavefronts": [p.wavefronts for p in self.passes],
            "conflicting_banks": [{str(b): list(w) for b, w in p.conflicts().items()} for p in self.passes],
        }


def merged_load(offsets: Sequence[int]) -> bool:
    """Whether lane bit 0 or lane bit 1 broadcasts (lane ``l`` and ``l ^ 1`` or ``l ^ 2`` always agree).

    Observed on the addresses, independently of any plan; whether the
    broadcast merges passes is the model's rule (:meth:`SharedMemory.merges_passes`).
    """
    n = len(offsets)
    for b in (0, 1):
        if n <= 1 << b:
            continue
        if all(offsets[l] == offsets[l ^ (1 << b)] for l in range(n)):
            return True
    return False


def _pass(lanes: Sequence[int], offs: Sequence[int], access_bytes: int, hw: SharedMemory) -> Pass:
    ws = hw.word_shift
    banks: dict[int, set[int]] = {}
    who: dict[int, list[int]] = {}
    for l in lanes:
        a = offs[l]
        for w in range(a >> ws, ((a + access_bytes - 1) >> ws) + 1):
            banks.setdefault(w % hw.banks, set()).add(w)
            who.setdefault(w, []).append(l)
    wpb = {b: tuple(sorted(s)) for b, s in sorted(banks.items())}
    lpw = {w: tuple(ls) for w, ls in sorted(who.items())}
    return Pass(tuple(lanes), wpb, max((len(s) for s in banks.values()), default=0), lpw)


def _groups(pass_bits: Sequence[int], nlanes: int) -> list[list[int]]:
    groups: dict[int, list[int]] = {}
    mask = sum(1 << b for b in pass_bits)
    for l in range(nlanes):
        groups.setdefault(l & mask, []).append(l)
    return [groups[k] for k in sorted(groups)]


def simulate_access(
    instruction: str | Instruction | AddressQuery | None,
    op: str | None = None,
    access_bytes: int | None = None,
    lane_byte_offsets: Sequence[int] | None = None,
    hardware: str | SharedMemory | None = None,
) -> AccessResult:
    """Simulate one instruction issued by one warp; return its wavefronts and passes.

    Takes the fields of an :class:`~linlayout.count.query.AddressQuery`, or one
    (already checked).

    Parameters
    ----------
    instruction
        ``ld.shared``, ``st.shared``, ``ldmatrix.x1/.x2/.x4`` or
        ``stmatrix.x1/.x2/.x4`` (``None``: chosen from ``op``).
    op
        ``"load"`` or ``"store"`` (``None``: implied by the instruction).
    access_bytes
        Bytes per lane (1, 2, 4, 8, 16); 16 for the matrix instructions (one row).
    lane_byte_offsets
        One byte offset per lane, from a base aligned to at least 128 bytes.
        For ``.xN`` matrix instructions lanes ``8j .. 8j+7`` give the rows of
        matrix ``j``; the other lanes are ignored (but must be listed).

    Raises :class:`AccessError` for misaligned or malformed offsets and
    :class:`~linlayout.errors.InstructionError` for unknown instructions.

    >>> r = simulate_access("ld.shared", "load", 16, [16 * l for l in range(32)])
    >>> r.wavefronts, len(r.passes)
    (4, 4)
    >>> simulate_access(AddressQuery("ld.shared", "load", 16, [16 * l for l in range(32)])) == r
    True
    """
    q = address_query(instruction, op, access_bytes, lane_byte_offsets, hardware)
    hw, ins, access_bytes, offs = q.hw, q.ins, q.access_bytes, list(q.lane_byte_offsets)
    op = ins.op
    if ins.is_matrix:
        rows = hw.matrix_rows
        passes = tuple(
            _pass(range(rows * j, rows * j + rows), offs, hw.matrix_row_bytes, hw) for j in range(ins.matrices)
        )
        return AccessResult(ins.name, op, access_bytes, sum(p.wavefronts for p in passes), passes, False)
    broadcast = merged_load(offs)
    bits = hw.pass_lane_bits(access_bytes, op, broadcast)
    passes = tuple(_pass(g, offs, access_bytes, hw) for g in _groups(bits, hw.lanes))
    return AccessResult(ins.name, op, access_bytes, sum(p.wavefronts for p in passes), passes,
                        hw.merges_passes(op, access_bytes, broadcast), bits)


def simulate_batch(
    instruction: str | None,
    op: str | None,
    access_bytes: int,
    offsets: Any,
    hardware: str | SharedMemory | None = None,
):  # -> numpy.ndarray
    """Wavefronts of many accesses at once: ``offsets`` has shape ``(n, lanes)``.

    The same rules as :func:`simulate_access`, vectorised with numpy; returns
    an ``int64`` array of ``n`` wavefront counts.

    >>> import numpy as np
    >>> simulate_batch("ld.shared", "load", 4, np.array([[128 * l for l in range(32)], [4 * l for l in range(32)]])).tolist()
    [32, 1]
    """
    import numpy as np

    hw = get_hardware(hardware)
    ins = parse_instruction(instruction, op)
    try:
        offs = np.asarray(offsets)
    except (ValueError, TypeError, OverflowError):
        raise AccessError(f"offsets must be a rectangular (n, {hw.lanes}) array of integers (one row per access)") from None
    if offs.ndim != 2 or offs.shape[1] != hw.lanes:
        raise AccessError(f"offsets must have shape (n, {hw.lanes}), got {offs.shape}")
    if offs.size and not np.issubdtype(offs.dtype, np.integer):
        raise AccessError(f"offsets must be integers, got dtype {offs.dtype}")
    if offs.dtype not in (np.int32, np.int64):
        offs = offs.astype(np.int64)
    n = offs.shape[0]
    if ins.is_matrix:
        check_matrix_access(ins, access_bytes, hw)
    else:
        check_access_bytes(access_bytes, hw)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    # Blocks of rows keep the temporaries small (large fresh arrays are slow to fault in).
    out = [_simulate_rows(ins, access_bytes, offs[i : i + _BLOCK_ROWS], hw) for i in range(0, n, _BLOCK_ROWS)]
    return out[0] if len(out) == 1 else np.concatenate(out)


_BLOCK_ROWS = 16384


def _simulate_rows(ins, access_bytes: int, offs, hw: SharedMemory):
    """simulate_batch on one block of offsets (numpy int32/int64, shape (n, lanes)): check, then count."""
    import numpy as np

    n = offs.shape[0]
    if (offs < 0).any():
        raise AccessError("byte offsets must be non-negative")
    align = hw.matrix_row_bytes if ins.is_matrix else access_bytes
    if (offs & (align - 1)).any():
        if ins.is_matrix:
            raise AccessError(f"matrix row addresses must be aligned to {align} bytes")
        raise AccessError(f"every byte offset must be aligned to the {align}-byte access")
    if ins.is_matrix:
        rows = hw.matrix_rows
        total = np.zeros(n, dtype=np.int64)
        for j in range(ins.matrices):
            total += _batch_pass(offs[:, rows * j : rows * j + rows], hw.matrix_row_bytes, hw)
        return total

    def cost(bits: Sequence[int]):
        groups = _groups(bits, hw.lanes)
        if len(groups) == 1:
            return _batch_pass(offs, access_bytes, hw)
        total = np.zeros(n, dtype=np.int64)
        for g in groups:
            total += _batch_pass(offs[:, g], access_bytes, hw)
        return total

    plain = cost(hw.pass_lane_bits(access_bytes, ins.op, False))
    if hw.merges_passes(ins.op, access_bytes, True):
        lanes = np.arange(hw.lanes)
        m = np.zeros(n, dtype=bool)
        for b in (0, 1):
            if hw.lanes > 1 << b:
                m |= (offs == offs[:, lanes ^ (1 << b)]).all(axis=1)
        if m.any():
            merged = cost(hw.pass_lane_bits(access_bytes, ins.op, True))
            plain = np.where(m, merged, plain)
    return plain


def _batch_pass(offs, access_bytes: int, hw: SharedMemory):
    """Per row of byte offsets (one pass): max over banks of the number of distinct words (numpy)."""
    import numpy as np

    ws = hw.word_shift
    nwords = max(1, access_bytes >> ws)
    words = offs >> ws  # (n, lanes_in_pass)
    if nwords > 1:
        words = (words[:, :, None] + np.arange(nwords, dtype=words.dtype)[None, None, :]).reshape(offs.shape[0], -1)
    return max_words_per_bank(words, hw.banks)


def max_words_per_bank(words, banks: int | None = None):  # -> numpy.ndarray
    """For each row of word addresses, the largest number of distinct words that one bank holds.

    ``words`` is an ``(n, m)`` integer array of word indices (byte address
    >> 2 on sm90); the bank of word ``w`` is ``w % banks`` (default: the
    default model's banks, :func:`~linlayout.hw.get_hardware`).  This is
    the cost of one pass.  Each row is sorted by (bank, word), so equal words
    and banks form runs; one sweep down the ``m`` columns (vectorised over
    the ``n`` rows) counts the distinct words of each bank's run.

    >>> import numpy as np
    >>> max_words_per_bank(np.array([[0, 32, 64, 1], [0, 0, 1, 2]])).tolist()
    [3, 1]
    """
    import numpy as np

    if banks is None:
        banks = get_hardware().banks
    words = np.asarray(words)
    n, m = words.shape
    if n == 0 or m == 0:
        return np.zeros(n, dtype=np.int64)
    lb = banks.bit_length() - 1
    hi = words >> lb
    top = int(hi.max())
    shift = max(1, top.bit_length())
    dt = np.int32 if shift + lb <= 31 else np.int64
    key = (words & (banks - 1)).astype(dt)
    key <<= shift
    key |= hi.astype(dt, copy=False)
    key.sort(axis=1)  # bank-major, then word
    kt = np.ascontiguousarray(key.T)  # (m, n): column sweeps are contiguous
    new = kt[1:] != kt[:-1]  # a different word than the previous entry
    kt >>= shift
    bank_change = kt[1:] != kt[:-1]
    cnt = np.ones(n, dtype=np.int32)
    best = np.ones(n, dtype=np.int32)
    for i in range(m - 1):
        cnt += new[i]
        np.copyto(cnt, 1, where=bank_change[i])
        np.maximum(best, cnt, out=best)
    return best.astype(np.int64)
