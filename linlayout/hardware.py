"""Hardware model: shared-memory banks, passes and instruction kinds.

Concepts
========

Shared memory is split into **banks** (32 banks of 4 bytes on NVIDIA GPUs):
the bank of byte address ``a`` is ``(a // 4) % 32`` and a 128-byte **row**
holds one word of every bank.  An instruction issued by a warp is served in
**passes** (groups of lanes); within one pass a bank delivers one 4-byte word
per **wavefront**, and lanes that touch the same word share it (broadcast).
A pass costs as many wavefronts as the largest number of distinct words any
one bank must deliver.

The rules measured on an H100 (``sm90``, 626 instructions in
``tests/data/h100_smem_wavefronts.json``)::

    access            passes (split by lane bits)     merged load (lane bit 0 or 1 broadcast)
    1, 2, 4 bytes     1 pass of 32 lanes              -
    8 bytes           2 passes of 16 (lane bit 4)     1 pass of 32
    16 bytes          4 passes of 8 (lane bits 3, 4)  2 passes of 16 (lane bit 4)
    ldmatrix/stmatrix one pass per 8x8 matrix (8 rows of 16 bytes)

A pass never spans more than one row's worth of bytes (``lanes_per_pass *
access_bytes <= 128``), which is where the split comes from; the merge rule
applies to loads only.  :class:`SharedMemory` derives these rules from its
sizes, so scaled-down models (4 banks, 4 lanes) follow the same logic.

>>> sm90.pass_lane_bits(16, op="load", broadcast_low_lane=False)
(3, 4)
>>> sm90.pass_lane_bits(16, op="load", broadcast_low_lane=True)
(4,)
>>> parse_instruction("ldmatrix.x4").matrices
4
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from .errors import HardwareError, InstructionError, SizeError

__all__ = [
    "HardwareError",
    "InstructionError",
    "SharedMemory",
    "Instruction",
    "sm90",
    "PRESETS",
    "get_hardware",
    "parse_instruction",
]


def _log2(x: int, what: str) -> int:
    if not isinstance(x, int) or isinstance(x, bool) or x <= 0 or x & (x - 1):
        raise HardwareError(f"{what} must be a positive power of two, got {x!r}")
    return x.bit_length() - 1


@dataclass(frozen=True)
class SharedMemory:
    """A shared-memory bank model.

    Parameters
    ----------
    name
        Preset name (``"sm90"``) or a label for a custom model.
    banks, bank_bytes
        Number of banks and the width of one bank word in bytes.
    lanes
        Lanes per warp.
    merge_broadcast_loads
        Whether wide loads whose lane bit 0 or 1 broadcasts are served in
        passes twice as large (measured on sm90; stores never merge).
    matrix_rows, matrix_row_bytes
        Geometry of one ``ldmatrix``/``stmatrix`` matrix; 0 when unsupported.
    measured
        True only when every rule was measured on hardware.
    note
        Where the rules come from.
    """

    name: str
    banks: int = 32
    bank_bytes: int = 4
    lanes: int = 32
    merge_broadcast_loads: bool = True
    matrix_rows: int = 8
    matrix_row_bytes: int = 16
    measured: bool = False
    note: str = ""

    def __post_init__(self) -> None:
        _log2(self.banks, "banks")
        _log2(self.bank_bytes, "bank_bytes")
        _log2(self.lanes, "lanes")
        if self.matrix_rows:
            _log2(self.matrix_rows, "matrix_rows")
            _log2(self.matrix_row_bytes, "matrix_row_bytes")

    @property
    def row_bytes(self) -> int:
        """Bytes served by one wavefront when no bank conflicts (banks * bank_bytes)."""
        return self.banks * self.bank_bytes

    @property
    def lane_bits(self) -> int:
        """log2(lanes)."""
        return self.lanes.bit_length() - 1

    @property
    def word_shift(self) -> int:
        """log2(bank_bytes): byte-address bits below the word index."""
        return self.bank_bytes.bit_length() - 1

    @property
    def bank_mask(self) -> int:
        """Byte-address bits that select the bank (bits 2..6 on sm90)."""
        return (self.banks - 1) << self.word_shift

    def bank_of(self, byte_address: int) -> int:
        """Bank of a byte address.

        >>> sm90.bank_of(132)
        1
        """
        return (byte_address >> self.word_shift) % self.banks

    def access_sizes(self) -> tuple[int, ...]:
        """Access sizes (bytes per lane) of plain ``ld.shared``/``st.shared``: 1 .. max vector.

        >>> sm90.access_sizes()
        (1, 2, 4, 8, 16)
        """
        return self._access_sizes

    @cached_property
    def _access_sizes(self) -> tuple[int, ...]:
        out = []
        a = 1
        while a <= min(16, self.row_bytes):
            out.append(a)
            a *= 2
        return tuple(out)

    def pass_lane_bits(self, access_bytes: int, op: str = "load", broadcast_low_lane: bool = False) -> tuple[int, ...]:
        """Lane bits that select the pass of an ``access_bytes`` ld/st.shared.

        A pass holds at most ``row_bytes // access_bytes`` lanes, so the top
        lane bits split the warp.  A load whose lane bit 0 or 1 broadcasts
        (``broadcast_low_lane``) is served in passes twice as large when
        :attr:`merge_broadcast_loads` holds.

        >>> sm90.pass_lane_bits(8), sm90.pass_lane_bits(8, broadcast_low_lane=True)
        ((4,), ())
        """
        key = (access_bytes, op == "load" and broadcast_low_lane)
        cache = self._pass_cache
        hit = cache.get(key)
        if hit is not None:
            return hit
        if access_bytes not in self.access_sizes():
            raise InstructionError(
                f"ld/st.shared moves 1, 2, 4, 8 or 16 bytes per lane on {self.name}, not {access_bytes}"
            )
        per_pass = min(self.lanes, max(1, self.row_bytes // access_bytes))
        if access_bytes > self.bank_bytes and op == "load" and broadcast_low_lane and self.merge_broadcast_loads:
            per_pass = min(self.lanes, per_pass * 2)
        lo = per_pass.bit_length() - 1
        res = cache[key] = tuple(range(lo, self.lane_bits))
        return res

    @cached_property
    def _pass_cache(self) -> dict:
        return {}

    def passes(self, access_bytes: int, op: str = "load", broadcast_low_lane: bool = False) -> int:
        """Number of passes of one ld/st.shared."""
        return 1 << len(self.pass_lane_bits(access_bytes, op, broadcast_low_lane))

    def describe(self) -> str:
        """One paragraph describing the model."""
        src = "measured" if self.measured else "NOT measured on hardware"
        return (
            f"{self.name}: {self.banks} banks x {self.bank_bytes} B, {self.lanes} lanes; "
            f"wide accesses split into passes of at most {self.row_bytes} B; "
            f"merged passes for wide loads with broadcast lane bit 0/1: {self.merge_broadcast_loads}; "
            f"ldmatrix/stmatrix: {'one pass per 8x8 matrix' if self.matrix_rows else 'unsupported'} ({src}). "
            f"{self.note}"
        ).strip()


sm90 = SharedMemory(
    name="sm90",
    measured=True,
    note="Measured on an NVIDIA H100 80GB HBM3 with Nsight Compute (tests/data/h100_smem_wavefronts.json).",
)

PRESETS: dict[str, SharedMemory] = {"sm90": sm90}


def get_hardware(hw: str | SharedMemory | None = None) -> SharedMemory:
    """Resolve a preset name (default ``"sm90"``) or pass a :class:`SharedMemory` through.

    >>> get_hardware().name
    'sm90'
    """
    if hw is None:
        return sm90
    if isinstance(hw, SharedMemory):
        return hw
    if isinstance(hw, str) and hw in PRESETS:
        return PRESETS[hw]
    raise HardwareError(f"unknown hardware {hw!r}; known presets: {sorted(PRESETS)} (or pass a SharedMemory)")


@dataclass(frozen=True)
class Instruction:
    """A shared-memory instruction kind.

    ``kind`` is ``"ld.shared"``, ``"st.shared"``, ``"ldmatrix"`` or
    ``"stmatrix"``; ``matrices`` is 1, 2 or 4 for the matrix instructions
    (0 otherwise) and ``trans`` marks ``.trans``.
    """

    kind: str
    matrices: int = 0
    trans: bool = False

    @property
    def op(self) -> str:
        """``"load"`` or ``"store"``."""
        return "load" if self.kind in ("ld.shared", "ldmatrix") else "store"

    @property
    def is_matrix(self) -> bool:
        return self.kind in ("ldmatrix", "stmatrix")

    @property
    def name(self) -> str:
        """The PTX-style name (``ldmatrix.x4.trans``)."""
        if not self.is_matrix:
            return self.kind
        return f"{self.kind}.x{self.matrices}" + (".trans" if self.trans else "")

    def __str__(self) -> str:
        return self.name


def parse_instruction(name: str | Instruction | None, op: str | None = None) -> Instruction:
    """Parse ``ld.shared``, ``st.shared``, ``ldmatrix.x1/.x2/.x4[.trans]``, ``stmatrix...``.

    ``None`` picks ``ld.shared`` for ``op="load"`` and ``st.shared`` for
    ``op="store"``.  When both are given they must agree.

    >>> parse_instruction(None, "store").name
    'st.shared'
    >>> parse_instruction("stmatrix.x2.trans").op
    'store'
    """
    if op is not None and op not in ("load", "store"):
        raise InstructionError(f"op must be 'load' or 'store', got {op!r}")
    if isinstance(name, Instruction):
        ins = name
    elif name is None:
        ins = Instruction("st.shared" if op == "store" else "ld.shared")
    elif not isinstance(name, str):
        raise InstructionError(f"instruction must be a string such as 'ld.shared' or 'ldmatrix.x4', got {name!r}")
    else:
        parts = name.strip().split(".")
        if parts[:2] in (["ld", "shared"], ["st", "shared"]) and len(parts) == 2:
            ins = Instruction(".".join(parts))
        elif parts and parts[0] in ("ldmatrix", "stmatrix") and len(parts) in (2, 3):
            xs = parts[1]
            if xs not in ("x1", "x2", "x4") or (len(parts) == 3 and parts[2] != "trans"):
                raise InstructionError(
                    f"unknown instruction {name!r}; matrix instructions are {parts[0]}.x1, .x2 or .x4, optionally .trans"
                )
            ins = Instruction(parts[0], int(xs[1]), len(parts) == 3)
        else:
            raise InstructionError(
                f"unknown instruction {name!r}; use ld.shared, st.shared, ldmatrix.x1/.x2/.x4 or stmatrix.x1/.x2/.x4"
            )
    if op is not None and ins.op != op:
        raise InstructionError(f"{ins.name} is a {ins.op}, but op={op!r} was requested")
    return ins


def check_access_bytes(access_bytes: int, hw: SharedMemory) -> int:
    """Validate a per-lane access size for ld/st.shared; return log2 of it."""
    if isinstance(access_bytes, bool) or not isinstance(access_bytes, int):
        raise SizeError(f"access_bytes must be an int, got {access_bytes!r}")
    if access_bytes not in hw.access_sizes():
        raise SizeError(f"access_bytes must be one of {list(hw.access_sizes())}, got {access_bytes}")
    return access_bytes.bit_length() - 1
