"""The instruction registry: shared-memory instructions as data.

Concepts
========

Two addressing schemes cover every instruction the library counts:

* **vector** (``ld.shared``, ``st.shared``): every lane gives one address and
  moves 1 to ``max_access_bytes`` contiguous bytes; the model's pass rule
  (:meth:`~linlayout.hw.model.SharedMemory.pass_lane_bits`) groups lanes.
* **matrix** (``ldmatrix``/``stmatrix`` ``.x1/.x2/.x4``, optionally
  ``.trans``): lanes ``rows*j .. rows*j + rows - 1`` give the row addresses
  of matrix ``j``; each matrix is one pass, and every lane receives one
  register of each matrix.

An :class:`Instruction` is a frozen value naming its kind, op, addressing
scheme, matrix count and transposition.  :data:`INSTRUCTIONS` holds every
known instruction by its PTX-style name; :func:`register_instruction` adds
one, and :func:`parse_instruction` is the one way names become instructions
(whitespace around a name is ignored, case is not).

>>> parse_instruction("ldmatrix.x4").matrices
4
>>> [n for n in INSTRUCTIONS if n.startswith("st")][:3]
['st.shared', 'stmatrix.x1', 'stmatrix.x1.trans']
"""

from __future__ import annotations

from dataclasses import field

from ..core.record import record
from ..core.validate import check_keyword
from ..errors import AccessError, InstructionError, SizeError

__all__ = ["Instruction", "INSTRUCTIONS", "register_instruction", "parse_instruction"]

VECTOR = "vector"
MATRIX = "matrix"


@record
class Instruction:
    """A shared-memory instruction kind.

    ``kind`` is ``"ld.shared"``, ``"st.shared"``, ``"ldmatrix"`` or
    ``"stmatrix"``; ``matrices`` is 1, 2 or 4 for the matrix instructions
    (0 otherwise) and ``trans`` marks ``.trans``.
    """

    kind: str
    matrices: int = 0
    trans: bool = False
    #: ``"load"`` or ``"store"`` (derived from ``kind``).
    op: str = field(init=False, repr=False, compare=False)
    #: ``"vector"`` (one address per lane) or ``"matrix"`` (one row address per lane).
    addressing: str = field(init=False, repr=False, compare=False)
    #: True for ``ldmatrix``/``stmatrix`` (matrix addressing).
    is_matrix: bool = field(init=False, repr=False, compare=False)
    #: The PTX-style name (``ldmatrix.x4.trans``).
    name: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Derived once: the counters and the synthesizer ask these in their inner loops.
        if type(self.kind) is not str or self.kind not in _KINDS:
            raise InstructionError(f"unknown instruction kind {self.kind!r}; kinds are {sorted(_KINDS)}")
        if type(self.matrices) is not int or self.matrices < 0 or type(self.trans) is not bool:
            raise InstructionError(f"an instruction needs an int count of matrices and a bool trans, got "
                                   f"matrices={self.matrices!r}, trans={self.trans!r}")
        op, addressing = _KINDS[self.kind]
        matrix = addressing == MATRIX
        name = f"{self.kind}.x{self.matrices}" + (".trans" if self.trans else "") if matrix else self.kind
        for k, v in (("op", op), ("addressing", addressing), ("is_matrix", matrix), ("name", name)):
            object.__setattr__(self, k, v)
        object.__setattr__(self, "_hash", hash((self.kind, self.matrices, self.trans)))

    def __hash__(self) -> int:  # computed once: instructions key the plan's and the synthesizer's caches
        return self._hash

    def __str__(self) -> str:
        return self.name


# kind -> (op, addressing).  A new kind is one line here plus its rule in linlayout.count.plan.
_KINDS: dict[str, tuple[str, str]] = {
    "ld.shared": ("load", VECTOR),
    "st.shared": ("store", VECTOR),
    "ldmatrix": ("load", MATRIX),
    "stmatrix": ("store", MATRIX),
}

INSTRUCTIONS: dict[str, Instruction] = {}


def register_instruction(ins: Instruction) -> Instruction:
    """Add ``ins`` to :data:`INSTRUCTIONS` under its name (its kind must be known)."""
    if not isinstance(ins, Instruction) or ins.kind not in _KINDS:
        raise InstructionError(f"cannot register {ins!r}: kinds are {sorted(_KINDS)}")
    INSTRUCTIONS[ins.name] = ins
    return ins


for _kind in ("ld.shared", "st.shared"):
    register_instruction(Instruction(_kind))
for _kind in ("ldmatrix", "stmatrix"):
    for _n in (1, 2, 4):
        for _t in (False, True):
            register_instruction(Instruction(_kind, _n, _t))


def parse_instruction(name: str | Instruction | None, op: str | None = None) -> Instruction:
    """Parse ``ld.shared``, ``st.shared``, ``ldmatrix.x1/.x2/.x4[.trans]``, ``stmatrix...``.

    ``None`` picks ``ld.shared`` for ``op="load"`` and ``st.shared`` for
    ``op="store"``.  When both are given they must agree.

    >>> parse_instruction(None, "store").name
    'st.shared'
    >>> parse_instruction("stmatrix.x2.trans").op
    'store'
    """
    if op is not None:  # keywords: strings, surrounding whitespace ignored (linlayout.core.validate)
        op = check_keyword(op, "op", ("load", "store"), error=InstructionError)
    if isinstance(name, Instruction):
        ins = name
    elif name is None:
        ins = INSTRUCTIONS["st.shared" if op == "store" else "ld.shared"]
    elif not isinstance(name, str):
        raise InstructionError(f"instruction must be a string such as 'ld.shared' or 'ldmatrix.x4', got {name!r}")
    else:
        ins = INSTRUCTIONS.get(name.strip())
        if ins is None:
            head = name.strip().split(".")[0]
            if head in ("ldmatrix", "stmatrix"):
                raise InstructionError(
                    f"unknown instruction {name!r}; matrix instructions are {head}.x1, .x2 or .x4, optionally .trans"
                )
            raise InstructionError(
                f"unknown instruction {name!r}; use ld.shared, st.shared, ldmatrix.x1/.x2/.x4 or stmatrix.x1/.x2/.x4"
            )
    if op is not None and ins.op != op:
        raise InstructionError(f"{ins.name} is a {ins.op}, but op={op!r} was requested")
    return ins


def check_access_bytes(access_bytes: object, hw) -> int:
    """Validate a per-lane access size for ld/st.shared on model ``hw``; return log2 of it."""
    if isinstance(access_bytes, bool) or not isinstance(access_bytes, int):
        raise SizeError(f"access_bytes must be an int, got {access_bytes!r}")
    if access_bytes not in hw.access_sizes():
        raise SizeError(f"access_bytes must be one of {list(hw.access_sizes())}, got {access_bytes}")
    return access_bytes.bit_length() - 1


def check_matrix_access(ins: Instruction, access_bytes: object, hw) -> None:
    """Validate an address-level ``ldmatrix``/``stmatrix`` access on model ``hw``.

    The model must have matrix instructions (``matrix_rows > 0``) and
    ``access_bytes`` must be one matrix row.  Raises :class:`AccessError`
    (the same message from the closed form and the simulators).

    >>> from linlayout.hw import SharedMemory, sm90
    >>> check_matrix_access(parse_instruction("ldmatrix.x4"), 16, sm90)
    >>> check_matrix_access(parse_instruction("ldmatrix.x4"), 16, SharedMemory("n", matrix_rows=0))
    Traceback (most recent call last):
    ...
    linlayout.errors.AccessError: n has no ldmatrix
    """
    if not hw.matrix_rows:
        raise AccessError(f"{hw.name} has no {ins.kind}")
    if access_bytes != hw.matrix_row_bytes:
        raise AccessError(f"{ins.name} moves {hw.matrix_row_bytes}-byte rows; access_bytes must be {hw.matrix_row_bytes}")
