"""The bank model: how shared memory serves one warp's instruction.

Concepts
========

Shared memory is split into **banks** (32 banks of 4 bytes on NVIDIA GPUs):
the bank of byte address ``a`` is ``(a // bank_bytes) % banks`` and one
**row** of ``banks * bank_bytes`` bytes holds one word of every bank.  An
instruction issued by a warp is served in **passes** (groups of lanes);
within one pass a bank delivers one word per **wavefront**, and lanes that
touch the same word share it (broadcast).  A pass costs as many wavefronts
as the largest number of distinct words any one bank must deliver.

Every rule that depends on the hardware is a method or a field of
:class:`SharedMemory`; the rest of the library asks the model and never
hard-codes a number.  The rules measured on an H100 (``sm90``, 626
instructions in ``tests/data/h100_smem_wavefronts.json``)::

    access            passes (split by lane bits)     merged load (lane bit 0 or 1 broadcast)
    1, 2, 4 bytes     1 pass of 32 lanes              -
    8 bytes           2 passes of 16 (lane bit 4)     1 pass of 32
    16 bytes          4 passes of 8 (lane bits 3, 4)  2 passes of 16 (lane bit 4)
    ldmatrix/stmatrix one pass per 8x8 matrix (8 rows of 16 bytes)

A pass never spans more than one row's worth of bytes (``lanes_per_pass *
access_bytes <= row_bytes``), which is where the split comes from; the merge
rule (:meth:`SharedMemory.merges_passes`) applies to wide loads only.  The
rules follow from the sizes, so scaled-down models (4 banks, 4 lanes) and
other warp widths (64 lanes) use the same logic.

Adding a model is one file: build a :class:`SharedMemory` (or a subclass
that overrides a rule) and :func:`register_hardware` it, as
:mod:`linlayout.hw.sm90` does.

>>> m = SharedMemory("toy", banks=4, lanes=4, matrix_rows=0)
>>> m.row_bytes, m.pass_lane_bits(8), m.bank_of(20)
(16, (1,), 1)
"""

from __future__ import annotations

from dataclasses import field, fields

from ..core.record import record
from ..errors import HardwareError, InstructionError

__all__ = ["SharedMemory", "get_hardware", "register_hardware"]


def _log2(x: object, what: str) -> int:
    if not isinstance(x, int) or isinstance(x, bool) or x <= 0 or x & (x - 1):
        raise HardwareError(f"{what} must be a positive power of two, got {x!r}")
    return x.bit_length() - 1


@record
class SharedMemory:
    """A shared-memory bank model.

    Parameters
    ----------
    name
        Preset name (``"sm90"``) or a label for a custom model.
    banks, bank_bytes
        Number of banks and the width of one bank word in bytes.
    lanes
        Lanes per warp (32 on NVIDIA GPUs, 64 for a wave64).
    merge_broadcast_loads
        Whether wide loads whose lane bit 0 or 1 broadcasts are served in
        passes twice as large (measured on sm90; stores never merge).
    matrix_rows, matrix_row_bytes
        Geometry of one ``ldmatrix``/``stmatrix`` matrix; ``matrix_rows=0``
        when the model has no matrix instructions.  A lane holds one
        ``register_bytes`` register of a row, so ``matrix_rows *
        matrix_row_bytes / register_bytes`` must equal ``lanes``.
    measured
        True only when every rule was measured on hardware.
    note
        Where the rules come from.
    max_access_bytes
        The widest per-lane ``ld/st.shared`` access.
    register_bytes
        Width of one per-lane register (a matrix instruction moves one per
        lane and matrix).
    smem_bytes
        Shared memory of one SM in bytes: the largest tile a query may place
        (228 KB = 233472 bytes on sm90, of which a block can use 227 KB).
        Every counter refuses a larger tile with a
        :class:`~linlayout.errors.SizeError` that states this limit.
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
    max_access_bytes: int = 16
    register_bytes: int = 4
    smem_bytes: int = 228 * 1024
    _cache: dict = field(default_factory=dict, init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise HardwareError(f"a hardware model needs a non-empty name, got {self.name!r}")
        _log2(self.banks, "banks")
        _log2(self.bank_bytes, "bank_bytes")
        _log2(self.lanes, "lanes")
        _log2(self.max_access_bytes, "max_access_bytes")
        _log2(self.register_bytes, "register_bytes")
        if isinstance(self.smem_bytes, bool) or not isinstance(self.smem_bytes, int) or self.smem_bytes <= 0:
            raise HardwareError(f"smem_bytes must be a positive int (shared memory per SM), got {self.smem_bytes!r}")
        if not isinstance(self.merge_broadcast_loads, bool):
            raise HardwareError(f"merge_broadcast_loads must be True or False, got {self.merge_broadcast_loads!r}")
        if isinstance(self.matrix_rows, bool) or not isinstance(self.matrix_rows, int) or self.matrix_rows < 0:
            raise HardwareError(f"matrix_rows must be 0 (no matrix instructions) or a power of two, got {self.matrix_rows!r}")
        if self.matrix_rows:
            _log2(self.matrix_rows, "matrix_rows")
            _log2(self.matrix_row_bytes, "matrix_row_bytes")
            if self.matrix_row_bytes > self.banks * self.bank_bytes:
                raise HardwareError(
                    f"{self.name}: a matrix row of {self.matrix_row_bytes} bytes is wider than one row of the banks "
                    f"({self.banks} x {self.bank_bytes} bytes); the counters need each matrix row inside one bank row"
                )
            per_row = self.matrix_row_bytes // self.register_bytes
            if per_row < 1 or self.matrix_rows * per_row != self.lanes:
                raise HardwareError(
                    f"{self.name}: a matrix of {self.matrix_rows} rows of {self.matrix_row_bytes} bytes fills "
                    f"{self.matrix_rows * max(per_row, 0)} lanes with {self.register_bytes}-byte registers, but the "
                    f"warp has {self.lanes}; fix the geometry or pass matrix_rows=0 (no ldmatrix/stmatrix)"
                )

        # Hashed once, here: models key the plan's and the synthesizer's memos (a dozen lookups per synthesis).
        # The hash reads the numeric fields only, so equal models hash alike in every process (a str's hash
        # changes with the interpreter's seed, and a pickled model carries this attribute along).
        object.__setattr__(self, "_hash", hash(tuple(getattr(self, f) for f in _HASHED_FIELDS)))

    def __hash__(self) -> int:  # computed at construction (see __post_init__); a subclass must call it
        return self._hash

    # -- geometry ------------------------------------------------------------

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

        >>> from linlayout.hw import sm90
        >>> sm90.bank_of(132)
        1
        """
        return (byte_address >> self.word_shift) % self.banks

    def access_sizes(self) -> tuple[int, ...]:
        """Access sizes (bytes per lane) of plain ``ld.shared``/``st.shared``: 1 .. max vector.

        >>> from linlayout.hw import sm90
        >>> sm90.access_sizes()
        (1, 2, 4, 8, 16)
        """
        hit = self._cache.get("sizes")
        if hit is None:
            top = min(self.max_access_bytes, self.row_bytes)
            hit = self._cache["sizes"] = tuple(1 << i for i in range(top.bit_length()))
        return hit

    # -- passes --------------------------------------------------------------

    def merges_passes(self, op: str, access_bytes: int, low_lane_broadcast: bool) -> bool:
        """Whether an access is served in merged passes (twice as large).

        True for a load wider than a bank word whose lane bit 0 or 1
        broadcasts (lanes ``l`` and ``l ^ 1``, or ``l`` and ``l ^ 2``, always
        touch the same address), on a model with :attr:`merge_broadcast_loads`.
        This is the only place the merge rule is written.

        >>> from linlayout.hw import sm90
        >>> sm90.merges_passes("load", 16, True), sm90.merges_passes("store", 16, True)
        (True, False)
        """
        return bool(op == "load" and low_lane_broadcast and self.merge_broadcast_loads and access_bytes > self.bank_bytes)

    def pass_lane_bits(self, access_bytes: int, op: str = "load", broadcast_low_lane: bool = False) -> tuple[int, ...]:
        """Lane bits that select the pass of an ``access_bytes`` ld/st.shared.

        A pass holds at most ``row_bytes // access_bytes`` lanes, so the top
        lane bits split the warp; merged passes (:meth:`merges_passes`) are
        twice as large.

        >>> from linlayout.hw import sm90
        >>> sm90.pass_lane_bits(8), sm90.pass_lane_bits(8, broadcast_low_lane=True)
        ((4,), ())
        >>> sm90.pass_lane_bits(16, op="load", broadcast_low_lane=False)
        (3, 4)
        """
        merged = self.merges_passes(op, access_bytes, broadcast_low_lane)
        key = ("passes", access_bytes, merged)
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        if access_bytes not in self.access_sizes():
            raise InstructionError(
                f"ld/st.shared moves {', '.join(map(str, self.access_sizes()))} bytes per lane on {self.name}, "
                f"not {access_bytes!r}"
            )
        per_pass = min(self.lanes, max(1, self.row_bytes // access_bytes))
        if merged:
            per_pass = min(self.lanes, per_pass * 2)
        res = self._cache[key] = tuple(range(per_pass.bit_length() - 1, self.lane_bits))
        return res

    def passes(self, access_bytes: int, op: str = "load", broadcast_low_lane: bool = False) -> int:
        """Number of passes of one ld/st.shared."""
        return 1 << len(self.pass_lane_bits(access_bytes, op, broadcast_low_lane))

    # -- matrix instructions -------------------------------------------------

    @property
    def matrix_lanes_per_row(self) -> int:
        """Lanes that share one matrix row (each holds one register of it): 4 on sm90."""
        return self.matrix_row_bytes // self.register_bytes if self.matrix_rows else 0

    def describe(self) -> str:
        """One paragraph describing the model."""
        src = "measured" if self.measured else "NOT measured on hardware"
        mat = (
            f"one pass per {self.matrix_rows}x{self.matrix_row_bytes} B matrix" if self.matrix_rows else "unsupported"
        )
        return (
            f"{self.name}: {self.banks} banks x {self.bank_bytes} B, {self.lanes} lanes; "
            f"wide accesses split into passes of at most {self.row_bytes} B; "
            f"merged passes for wide loads with broadcast lane bit 0/1: {self.merge_broadcast_loads}; "
            f"ldmatrix/stmatrix: {mat} ({src}). "
            f"{self.note}"
        ).strip()


# The fields equality compares whose values hash alike in every process (ints and bools; not name or note).
_HASHED_FIELDS = tuple(f.name for f in fields(SharedMemory) if f.compare and f.type in ("int", "bool"))

PRESETS: dict[str, SharedMemory] = {}


def register_hardware(model: SharedMemory) -> SharedMemory:
    """Make ``model`` known by its name to :func:`get_hardware` (and so to JSON queries and the CLI)."""
    if not isinstance(model, SharedMemory):
        raise HardwareError(f"register_hardware takes a SharedMemory, got {type(model).__name__}")
    PRESETS[model.name] = model
    return model


def get_hardware(hw: str | SharedMemory | None = None) -> SharedMemory:
    """Resolve a preset name (default ``"sm90"``) or pass a :class:`SharedMemory` through.

    >>> get_hardware().name
    'sm90'
    """
    if type(hw) is str:  # a preset's exact name: one lookup
        preset = PRESETS.get(hw)
        if preset is not None:
            return preset
    if hw is None:
        hw = "sm90"
    if isinstance(hw, SharedMemory):
        return hw
    if isinstance(hw, str) and hw.strip() in PRESETS:
        return PRESETS[hw.strip()]
    raise HardwareError(f"unknown hardware {hw!r}; known presets: {sorted(PRESETS)} (or pass a SharedMemory)")
