"""Call Triton Gluon's layout helpers from plain Python, on a CPU-only machine.

Written for Triton 3.9.0 (``triton.experimental.gluon``).  No GPU, driver or
kernel launch is needed: we drive the same C++ binding that the Gluon frontend
calls while it traces a ``@gluon.jit`` kernel, ``GluonOpBuilder``, ourselves.

Public functions
----------------

``gluon_bank_conflicts(reg_bases, shared_offset_bases, shape, bitwidth)``
    Triton's bank-conflict count, i.e. what ``ttgl.bank_conflicts(distr_ty,
    shared_ty)`` returns inside a kernel, for a ``DistributedLinearLayout``
    given as ``{"register": [...], "lane": [...], "warp": [...],
    "block": [...]}`` and a ``SharedLinearLayout`` given by its offset bases.

``make_gluon_bank_conflicts_callable(...)``
    A zero-argument callable that performs exactly one Triton call on
    prebuilt MLIR attributes, for timing (see its docstring for what one call
    includes).

``gluon_blocked_to_bases(shape, size_per_thread, threads_per_warp,
warps_per_cta, order)``
    Triton's own conversion of a ``BlockedLayout`` into linear-layout bases,
    i.e. ``ttgl.to_linear_layout(BlockedLayout(...), shape)``, returned as
    ``{"register": [...], "lane": [...], "warp": [...], "block": [...]}``.

``gluon_bank_conflicts_via_kernel(...)``, ``gluon_blocked_to_bases_via_kernel(...)``
    The same two answers obtained the other way: by tracing a tiny
    ``@gluon.jit`` kernel for an explicit ``GPUTarget("cuda", 90, 32)`` (no GPU
    needed) that calls ``ttgl.bank_conflicts`` / ``ttgl.to_linear_layout`` at
    compile time.  Slow (a fresh interpreter per call); used as a cross-check.

``gluon_available()`` / ``gluon_unavailable_reason()``
    Whether the direct route works in this environment.

Every function raises :class:`GluonPeerError` (a ``RuntimeError``) when Triton
is missing or the call path does not work, and ``ValueError`` for inputs that
Triton would reject.

Why this is more than three lines
---------------------------------

1. ``GluonOpBuilder.get_shared_bank_conflicts`` looks up the enclosing module
   through the builder's *insertion block*
   (``insertionBlock->getParentOp()->getParentOfType<ModuleOp>()``, to pick
   AMD bank parameters from ``ttg.target``).  On a fresh builder there is no
   insertion block, so the call dereferences a null pointer and the
   interpreter dies with SIGSEGV.  We therefore do what the code generator
   does (``CodeGenerator.visit_FunctionDef``): create a module with the
   ``ttg.*`` attributes that ``GluonASTSource.make_ir`` sets, add a function
   to it, add its entry block, and set the insertion point there.  Note that
   putting the insertion point directly in the module body is not enough:
   ``getParentOfType`` starts from the *parent* of the module.
2. The Triton 3.9.0 wheel is built with C++ assertions on, and the layout
   code aborts the process (``assert`` / ``LLVM ERROR``) instead of raising on
   many invalid inputs: non-power-of-two shapes, bases outside the shape, a
   register layout that does not cover the shape, a shared layout that is not
   a bijection, an empty shared layout, odd bit widths, tiny tensors where
   Triton's bank/segment split degenerates, ...  We validate inputs in Python
   first and only call Triton in this process for inputs inside an envelope
   known to be safe.  Valid inputs outside that envelope (fewer than 2 lane
   bases, or ``prod(shape) * bitwidth < 1024``) are computed in a child
   interpreter, so a Triton abort becomes a ``GluonPeerError`` carrying
   Triton's own message instead of killing the caller.  Results of such
   isolated calls are cached.
3. Before the first in-process call we run the whole call path once in a
   child interpreter on known inputs (about 2 s, once per process), so that a
   different Triton build where the route crashes is reported as
   ``GluonPeerError`` rather than a crash.  Set ``TRITON_PEERS_NO_PROBE=1`` to
   skip this.

Only the CUDA bank model is used (``ttg.target = "cuda:90"``; the count does
not depend on the SM version).  Triton 3.9.0's AMD branch of
``get_shared_bank_conflicts`` aborts for ``SharedLinearLayout`` inputs (it
asks the shared layout for a ``vector`` input dim it does not have), so it is
not offered.

Cosmetic: after ``gluon_blocked_to_bases`` has been used in a process,
nanobind prints "leaked N instances" warnings to stderr at interpreter exit.
They come from Triton itself (``layoutToGluon`` keeps Python class handles in
a C++ static) and also appear when Gluon compiles a kernel; they are harmless.

Usage::

    from triton_peers import gluon_bank_conflicts, gluon_blocked_to_bases
    n = gluon_bank_conflicts(
        {"register": [[0, 1], [0, 2], [1, 0]],
         "lane": [[0, 4], [0, 8], [0, 16], [0, 32], [2, 0]],
         "warp": [[0, 0], [0, 0]], "block": []},
        [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 0], [2, 0]],
        [4, 64], 16)
    bases = gluon_blocked_to_bases([128, 128], [1, 8], [4, 8], [4, 1], [1, 0])

    call = make_gluon_bank_conflicts_callable(reg, offsets, shape, 16)
    timeit.timeit(call, number=10000)

``python benchmarks/triton_peers.py`` runs a self-test (the examples above,
a timing, and a cross-check against the compiled-kernel route).

Not thread-safe across threads sharing the callables returned by
``make_gluon_bank_conflicts_callable``; the other functions take a lock.
"""

from __future__ import annotations

import copy
import functools
import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any

__all__ = [
    "GluonPeerError",
    "gluon_available",
    "gluon_unavailable_reason",
    "gluon_bank_conflicts",
    "make_gluon_bank_conflicts_callable",
    "gluon_blocked_to_bases",
    "gluon_bank_conflicts_via_kernel",
    "gluon_blocked_to_bases_via_kernel",
]

_IN_DIMS = ("register", "lane", "warp", "block")
_RESULT_TAG = "TRITON_PEERS_RESULT "
_CHILD_TIMEOUT_S = 300
_TARGET = "cuda:90"


class GluonPeerError(RuntimeError):
    """Triton/Gluon is missing, or the call path does not work here."""


# --------------------------------------------------------------------------- input checks


def _is_pow2(x: int) -> bool:
    return x >= 1 and (x & (x - 1)) == 0


def _as_int(x: Any, what: str) -> int:
    if isinstance(x, bool) or not hasattr(x, "__index__"):
        raise ValueError(f"{what} must be an int, got {x!r}")
    return int(x.__index__())


def _int_list(xs: Any, what: str) -> list[int]:
    if isinstance(xs, (str, bytes)) or not isinstance(xs, Sequence):
        raise ValueError(f"{what} must be a list of ints, got {xs!r}")
    return [_as_int(x, what) for x in xs]


def _check_shape(shape: Any) -> list[int]:
    shape = _int_list(shape, "shape")
    if not shape:
        raise ValueError("shape must have at least one dimension")
    for s in shape:
        if not _is_pow2(s):
            raise ValueError(f"every shape dimension must be a power of two >= 1, got {shape}")
    return shape


def _check_bases(bases: Any, shape: list[int], what: str) -> list[list[int]]:
    if isinstance(bases, (str, bytes)) or not isinstance(bases, Sequence):
        raise ValueError(f"{what} must be a list of bases, got {bases!r}")
    out = []
    for b in bases:
        b = _int_list(b, f"{what} basis")
        if len(b) != len(shape):
            raise ValueError(f"{what} basis {b} has {len(b)} coordinates, shape {shape} has {len(shape)}")
        for v, s in zip(b, shape):
            if not 0 <= v < s:
                raise ValueError(f"{what} basis {b} lies outside shape {shape}")
        out.append(b)
    return out


def _gf2_rank(bases: list[list[int]], shape: list[int]) -> int:
    """Rank over GF(2) of the bases, each flattened to one bit vector."""
    logs = [s.bit_length() - 1 for s in shape]
    rows = []
    for b in bases:
        v, off = 0, 0
        for x, lg in zip(b, logs):
            v |= x << off
            off += lg
        rows.append(v)
    rank = 0
    pivots: dict[int, int] = {}
    for v in rows:
        while v:
            hb = v.bit_length() - 1
            if hb in pivots:
                v ^= pivots[hb]
            else:
                pivots[hb] = v
                rank += 1
                break
    return rank


def _check_bank_inputs(reg_bases: Any, shared_offset_bases: Any, shape: Any,
                       bitwidth: Any) -> tuple[dict[str, list[list[int]]], list[list[int]], list[int], int]:
    shape = _check_shape(shape)
    log_total = sum(s.bit_length() - 1 for s in shape)
    if log_total == 0:
        raise ValueError("shape must have at least 2 elements (Triton crashes on an empty shared layout)")
    if not isinstance(reg_bases, dict):
        raise ValueError("reg_bases must be a dict with keys 'register', 'lane', 'warp', 'block'")
    unknown = set(reg_bases) - set(_IN_DIMS)
    if unknown:
        raise ValueError(f"unknown reg_bases keys {sorted(unknown)}; expected {list(_IN_DIMS)}")
    reg = {k: _check_bases(reg_bases.get(k, []), shape, f"reg_bases[{k!r}]") for k in _IN_DIMS}
    if _gf2_rank([b for k in _IN_DIMS for b in reg[k]], shape) != log_total:
        raise ValueError(f"the register layout does not cover every element of shape {shape} "
                         "(Triton requires a surjective distributed layout)")
    smem = _check_bases(shared_offset_bases, shape, "shared_offset_bases")
    if len(smem) != log_total or _gf2_rank(smem, shape) != log_total:
        raise ValueError(f"shared_offset_bases must be {log_total} bases forming a bijection onto shape {shape} "
                         f"(got {len(smem)} bases)")
    bitwidth = _as_int(bitwidth, "bitwidth")
    if not (_is_pow2(bitwidth) and bitwidth <= 128):
        raise ValueError(f"bitwidth must be a power of two between 1 and 128, got {bitwidth}")
    return reg, smem, shape, bitwidth


def _in_safe_envelope(reg: dict[str, list[list[int]]], shape: list[int], bitwidth: int) -> bool:
    """Inputs for which Triton 3.9.0's bankConflictsMemDesc cannot hit an abort.

    With vec the chosen vector size (vec * bitwidth <= 128): bankSize =
    min(1024 / (vec * bitwidth), numel) and segmentSize = numel / (bankSize *
    vec) must be >= 1, which holds for every vec iff numel * bitwidth >= 1024;
    and up to log2(128 / 32) = 2 lane bases are dropped for vectorised access.
    """
    numel = 1
    for s in shape:
        numel *= s
    return numel * bitwidth >= 1024 and len(reg["lane"]) >= 2


def _check_blocked_inputs(shape: Any, size_per_thread: Any, threads_per_warp: Any, warps_per_cta: Any,
                          order: Any) -> tuple[list[int], list[int], list[int], list[int], list[int]]:
    shape = _check_shape(shape)
    rank = len(shape)
    lists = []
    for name, xs in (("size_per_thread", size_per_thread), ("threads_per_warp", threads_per_warp),
                     ("warps_per_cta", warps_per_cta)):
        xs = _int_list(xs, name)
        if len(xs) != rank:
            raise ValueError(f"{name} has {len(xs)} entries, shape {shape} has {rank}")
        if not all(_is_pow2(x) for x in xs):
            raise ValueError(f"every entry of {name} must be a power of two >= 1, got {xs}")
        lists.append(xs)
    order = _int_list(order, "order")
    if sorted(order) != list(range(rank)):
        raise ValueError(f"order must be a permutation of 0..{rank - 1}, got {order}")
    return shape, lists[0], lists[1], lists[2], order


# --------------------------------------------------------------------------- in-process Triton state


class _GluonState:
    """A context, a GluonOpBuilder and a module/function/entry block to insert into."""

    def __init__(self) -> None:
        try:
            import triton
            from triton._C.libtriton import gluon_ir, ir
            from triton.experimental.gluon.language import _layouts
        except Exception as e:  # ImportError, or a broken install
            raise GluonPeerError(f"Triton with Gluon is not importable: {type(e).__name__}: {e}") from e
        self.triton_version = getattr(triton, "__version__", "?")
        self.layouts = _layouts
        self.ctx = ir.context()
        ir.load_dialects(self.ctx)
        b = gluon_ir.GluonOpBuilder(self.ctx)
        self.builder = b
        # As GluonASTSource.make_ir does for a cuda target.
        self.module = b.create_module()
        self.module.set_attr("ttg.target", b.get_string_attr(_TARGET))
        self.module.set_attr("ttg.num-warps", b.get_int32_attr(4))
        self.module.set_attr("ttg.num-ctas", b.get_int32_attr(1))
        self.module.set_attr("ttg.threads-per-warp", b.get_int32_attr(32))
        # As CodeGenerator.visit_FunctionDef does: a function, its entry block,
        # and the insertion point inside it (get_shared_bank_conflicts needs it).
        self.fn = b.get_or_insert_function(self.module, "triton_peers", b.get_function_ty([], []), "private",
                                           False)
        self.module.push_back(self.fn)
        self.entry = self.fn.add_entry_block()
        b.set_insertion_point_to_start(self.entry)

    def reg_attr(self, reg: dict[str, list[list[int]]], shape: list[int]):
        return self.layouts.DistributedLinearLayout(reg["register"], reg["lane"], reg["warp"], reg["block"],
                                                    shape)._to_ir(self.builder)

    def shared_attr(self, smem: list[list[int]]):
        return self.layouts.SharedLinearLayout(smem, [], 16)._to_ir(self.builder)

    def bank_conflicts(self, reg, smem, shape, bitwidth) -> int:
        ra = self.reg_attr(reg, shape)
        sa = self.shared_attr(smem)
        return int(self.builder.get_shared_bank_conflicts(ra, sa, shape, bitwidth))

    def blocked_to_bases(self, shape, spt, tpw, wpc, order) -> dict[str, list[list[int]]]:
        attr = self.layouts.BlockedLayout(spt, tpw, wpc, order)._to_ir(self.builder)
        ll = self.builder.to_linear_layout(attr, shape)
        return {
            "register": [list(map(int, b)) for b in ll.reg_bases],
            "lane": [list(map(int, b)) for b in ll.lane_bases],
            "warp": [list(map(int, b)) for b in ll.warp_bases],
            "block": [list(map(int, b)) for b in ll.block_bases],
        }


_LOCK = threading.RLock()
_STATE: _GluonState | None = None
_STATE_ERROR: str | None = None
_PROBE_DONE = False
_ISOLATED_CACHE: dict[str, Any] = {}


def _state() -> _GluonState:
    """The in-process state, after a one-time crash probe in a child interpreter."""
    global _STATE, _STATE_ERROR, _PROBE_DONE
    with _LOCK:
        if _STATE is not None:
            return _STATE
        if _STATE_ERROR is not None:
            raise GluonPeerError(_STATE_ERROR)
        try:
            import triton.experimental.gluon  # noqa: F401  (fail fast and cheaply if missing)
        except Exception as e:
            _STATE_ERROR = f"Triton with Gluon is not importable: {type(e).__name__}: {e}"
            raise GluonPeerError(_STATE_ERROR) from e
        if not _PROBE_DONE and os.environ.get("TRITON_PEERS_NO_PROBE") != "1":
            try:
                got = _run_child([{"op": "probe"}])[0]
            except GluonPeerError as e:
                _STATE_ERROR = f"the in-process Gluon call path does not work here: {e}"
                raise GluonPeerError(_STATE_ERROR) from None
            if got != _PROBE_EXPECTED:
                _STATE_ERROR = (f"the in-process Gluon call path gives unexpected results here: "
                                f"got {got}, expected {_PROBE_EXPECTED}")
                raise GluonPeerError(_STATE_ERROR)
            _PROBE_DONE = True
        try:
            _STATE = _GluonState()
        except GluonPeerError as e:
            _STATE_ERROR = str(e)
            raise
        except Exception as e:
            _STATE_ERROR = f"setting up the Gluon builder failed: {type(e).__name__}: {e}"
            raise GluonPeerError(_STATE_ERROR) from e
        return _STATE


def gluon_available() -> bool:
    """True if the in-process route works (runs the one-time probe)."""
    try:
        _state()
        return True
    except GluonPeerError:
        return False


def gluon_unavailable_reason() -> str | None:
    """None if the in-process route works, else why not."""
    try:
        _state()
        return None
    except GluonPeerError as e:
        return str(e)


# --------------------------------------------------------------------------- child interpreter


def _run_child(requests: list[dict[str, Any]]) -> list[Any]:
    """Run requests in a fresh interpreter; a crash there becomes GluonPeerError."""
    env = dict(os.environ)
    env["TRITON_PEERS_NO_PROBE"] = "1"
    env["PYTHONFAULTHANDLER"] = "1"  # a Python stack in the error message if it segfaults
    env.setdefault("TRITON_DEFAULT_FP_FUSION", "1")  # silences a 3.9 warning; no effect on layouts
    try:
        proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker"], input=json.dumps(requests),
                              capture_output=True, text=True, timeout=_CHILD_TIMEOUT_S, env=env)
    except subprocess.TimeoutExpired:
        raise GluonPeerError(f"the Triton child process timed out after {_CHILD_TIMEOUT_S} s") from None
    except OSError as e:
        raise GluonPeerError(f"could not start a child interpreter: {e}") from e
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith(_RESULT_TAG):
            payload = json.loads(line[len(_RESULT_TAG):])
            if payload["ok"]:
                return payload["results"]
            raise GluonPeerError(payload["error"])
    noise = ("nanobind:", " - leaked", "See https://nanobind")
    tail = "\n".join(ln for ln in proc.stderr.splitlines() if not ln.startswith(noise))[-2000:]
    how = f"signal {-proc.returncode}" if proc.returncode < 0 else f"exit status {proc.returncode}"
    raise GluonPeerError(f"Triton crashed in the child process ({how}):\n{tail.strip()}")


def _worker_main() -> None:
    """Child side of _run_child: JSON requests on stdin, one tagged JSON line on stdout."""
    try:
        requests = json.loads(sys.stdin.read())
        results = []
        for req in requests:
            op = req["op"]
            if op == "probe":
                st = _GluonState()
                results.append([st.bank_conflicts(*_bank_args(c)) for c in _PROBE_BANK] +
                               [st.blocked_to_bases(*c) for c in _PROBE_BLOCKED])
            elif op == "bank_conflicts":
                results.append(_GluonState().bank_conflicts(req["reg"], req["smem"], req["shape"], req["bitwidth"]))
            elif op == "blocked":
                results.append(_GluonState().blocked_to_bases(*req["args"]))
            elif op == "kernel_bank_conflicts":
                results.append(_kernel_bank_conflicts(req["reg"], req["smem"], req["shape"], req["bitwidth"]))
            elif op == "kernel_blocked":
                results.append(_kernel_blocked(*req["args"]))
            else:
                raise ValueError(f"unknown op {op!r}")
        out = {"ok": True, "results": results}
    except Exception as e:
        out = {"ok": False, "error": f"{type(e).__name__}: {e}"}
    sys.stdout.write("\n" + _RESULT_TAG + json.dumps(out) + "\n")
    sys.stdout.flush()


# Known inputs and Triton 3.9.0's answers, for the one-time probe.
_PROBE_BANK = [
    ({"register": [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [64, 0]],
      "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], "warp": [[16, 0], [32, 0]], "block": []},
     [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 8], [2, 16], [4, 32], [8, 0], [16, 0], [32, 0],
      [64, 0], [0, 64]], [128, 128], 16),
    ({"register": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]],
      "warp": [], "block": []},
     [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], [32, 32], 32),
]
_PROBE_BLOCKED = [([128, 128], [1, 8], [4, 8], [4, 1], [1, 0])]
_PROBE_EXPECTED = [
    0, 7,
    {"register": [[0, 1], [0, 2], [0, 4], [0, 64], [16, 0], [32, 0], [64, 0]],
     "lane": [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], "warp": [[4, 0], [8, 0]], "block": []},
]


def _bank_args(case):
    reg, smem, shape, bw = case
    return {k: reg.get(k, []) for k in _IN_DIMS}, smem, shape, bw


# --------------------------------------------------------------------------- public API


def gluon_bank_conflicts(reg_bases: dict, shared_offset_bases: list, shape: list[int], bitwidth: int, *,
                         isolate: bool | None = None) -> int:
    """Triton's bank-conflict count for a register layout against a shared layout.

    Equivalent to ``ttgl.bank_conflicts(distributed_type(dtype, shape,
    DistributedLinearLayout(reg..., shape)), shared_memory_descriptor_type(dtype,
    shape, SharedLinearLayout(shared_offset_bases), shape))`` with a dtype of
    ``bitwidth`` bits, i.e. ``GluonOpBuilder.get_shared_bank_conflicts``.
    Triton defines it as the excess number of shared-memory wavefronts per
    ld.shared/st.shared instruction (0 = conflict-free), CUDA bank model.

    Args:
        reg_bases: ``{"register": [...], "lane": [...], "warp": [...],
            "block": [...]}``, each a list of bases ``[d0, d1, ...]``;
            missing keys mean no bases.
        shared_offset_bases: the ``offset`` bases of the shared layout
            (exactly log2(prod(shape)) of them, forming a bijection).
        shape: the tensor shape, powers of two.
        bitwidth: element size in bits (power of two, 1..128).
        isolate: ``None`` (default): in this process when the inputs are in a
            range where Triton cannot abort, otherwise in a child interpreter
            (about 2 s, result cached).  ``True``: always in a child.
            ``False``: in this process only; inputs outside the safe range
            raise ``GluonPeerError``.

    Raises:
        ValueError: inputs Triton would reject (it would abort on most).
        GluonPeerError: Triton missing, the call path broken, or Triton
            failing on these inputs.
    """
    reg, smem, shape, bitwidth = _check_bank_inputs(reg_bases, shared_offset_bases, shape, bitwidth)
    safe = _in_safe_envelope(reg, shape, bitwidth)
    if isolate is False and not safe:
        raise GluonPeerError("these inputs are outside the range where Triton's bank-conflict code is known not "
                             "to abort (need >= 2 lane bases and prod(shape) * bitwidth >= 1024); "
                             "use isolate=None or True")
    if isolate or not safe:
        req = {"op": "bank_conflicts", "reg": reg, "smem": smem, "shape": shape, "bitwidth": bitwidth}
        return int(_cached_child(req))
    with _LOCK:
        st = _state()
        try:
            return st.bank_conflicts(reg, smem, shape, bitwidth)
        except Exception as e:
            raise GluonPeerError(f"Triton's get_shared_bank_conflicts failed: {type(e).__name__}: {e}") from e


def make_gluon_bank_conflicts_callable(reg_bases: dict, shared_offset_bases: list, shape: list[int], bitwidth: int,
                                       *, include_attr_build: bool = False) -> Callable[[], int]:
    """A zero-argument callable returning Triton's bank-conflict count, for timing.

    Validation, the crash probe, MLIR context/builder/module setup and (by
    default) building the two layout attributes all happen here, once.  One
    call of the returned function is then exactly one
    ``GluonOpBuilder.get_shared_bank_conflicts(reg_attr, shared_attr, shape,
    bitwidth)`` call, which includes: nanobind dispatch and conversion of the
    shape list, ``ttg::toLinearLayout`` of both attributes for that shape,
    the enclosing-module/target lookup, and ``ttg::bankConflictsMemDesc``
    (drop broadcast registers, invertAndCompose into shared memory, pick the
    vector width, split into vector/bank/segment, intersect with the lane
    bases).

    With ``include_attr_build=True`` each call also builds the two
    attributes from the Python base lists (``DistributedLinearLayout(...)
    ._to_ir`` and ``SharedLinearLayout(...)._to_ir``: Python dataclass
    construction, list conversion and MLIR attribute uniquing), which is what
    :func:`gluon_bank_conflicts` does per call apart from input validation.

    Only inputs in the in-process safe range are accepted (see
    :func:`gluon_bank_conflicts`); the callable takes no lock.
    """
    reg, smem, shape, bitwidth = _check_bank_inputs(reg_bases, shared_offset_bases, shape, bitwidth)
    if not _in_safe_envelope(reg, shape, bitwidth):
        raise GluonPeerError("cannot time these inputs in process: outside the range where Triton's bank-conflict "
                             "code is known not to abort (need >= 2 lane bases and prod(shape) * bitwidth >= 1024)")
    with _LOCK:
        st = _state()
        get = st.builder.get_shared_bank_conflicts
        try:
            ra = st.reg_attr(reg, shape)
            sa = st.shared_attr(smem)
            expected = get(ra, sa, shape, bitwidth)
        except Exception as e:
            raise GluonPeerError(f"Triton's get_shared_bank_conflicts failed: {type(e).__name__}: {e}") from e

    if include_attr_build:
        dll, sll, b = st.layouts.DistributedLinearLayout, st.layouts.SharedLinearLayout, st.builder
        r, l, w, k = reg["register"], reg["lane"], reg["warp"], reg["block"]

        def call_with_attrs() -> int:
            return get(dll(r, l, w, k, shape)._to_ir(b), sll(smem, [], 16)._to_ir(b), shape, bitwidth)

        call_with_attrs.expected = expected  # type: ignore[attr-defined]
        return call_with_attrs

    def call() -> int:
        return get(ra, sa, shape, bitwidth)

    call.expected = expected  # type: ignore[attr-defined]
    return call


def gluon_blocked_to_bases(shape: list[int], size_per_thread: list[int], threads_per_warp: list[int],
                           warps_per_cta: list[int], order: list[int], *,
                           isolate: bool = False) -> dict[str, list[list[int]]]:
    """Triton's conversion of ``BlockedLayout(size_per_thread, threads_per_warp,
    warps_per_cta, order)`` on ``shape`` into linear-layout bases.

    Same as ``ttgl.to_linear_layout(BlockedLayout(...), shape)`` inside a
    kernel (``GluonOpBuilder.to_linear_layout``), read back from the returned
    ``DistributedLinearLayout``.  Returns ``{"register": [...], "lane": [...],
    "warp": [...], "block": [...]}``, each basis a list of one int per tensor
    dimension (zero bases mean broadcasting, e.g. when the layout is larger
    than the shape).  Results are cached; a fresh copy is returned.

    Raises ValueError for malformed inputs (Triton aborts on non-power-of-two
    shapes or rank mismatches; its own verifier errors, such as a
    non-power-of-two size_per_thread, are reported as ValueError too), and
    GluonPeerError if the call path does not work.  ``isolate=True`` runs the
    conversion in a child interpreter.
    """
    args = _check_blocked_inputs(shape, size_per_thread, threads_per_warp, warps_per_cta, order)
    key = tuple(tuple(a) for a in args)
    return copy.deepcopy(_blocked_cached(key, bool(isolate)))


@functools.lru_cache(maxsize=4096)
def _blocked_cached(key, isolate: bool) -> dict[str, list[list[int]]]:
    args = [list(a) for a in key]
    if isolate:
        return _cached_child({"op": "blocked", "args": args})
    with _LOCK:
        st = _state()
        try:
            return st.blocked_to_bases(*args)
        except RuntimeError as e:  # the layout verifier, via getChecked
            raise ValueError(f"Triton rejected the blocked layout: {e}".strip()) from e
        except Exception as e:
            raise GluonPeerError(f"Triton's to_linear_layout failed: {type(e).__name__}: {e}") from e


def _cached_child(req: dict[str, Any]) -> Any:
    key = json.dumps(req, sort_keys=True)
    with _LOCK:
        if key in _ISOLATED_CACHE:
            return copy.deepcopy(_ISOLATED_CACHE[key])
    try:
        import triton.experimental.gluon  # noqa: F401
    except Exception as e:
        raise GluonPeerError(f"Triton with Gluon is not importable: {type(e).__name__}: {e}") from e
    result = _run_child([req])[0]
    with _LOCK:
        _ISOLATED_CACHE[key] = result
    return copy.deepcopy(result)


# --------------------------------------------------------------------------- compiled-kernel route (cross-check)


def gluon_bank_conflicts_via_kernel(reg_bases: dict, shared_offset_bases: list, shape: list[int],
                                    bitwidth: int) -> int:
    """Same as :func:`gluon_bank_conflicts`, computed by tracing a ``@gluon.jit``
    kernel that calls ``ttgl.bank_conflicts`` for ``GPUTarget("cuda", 90, 32)``.

    Runs in a child interpreter (seconds per call; results cached).  bitwidth
    must be 1, 8, 16, 32 or 64 (a Gluon dtype of that size).
    """
    reg, smem, shape, bitwidth = _check_bank_inputs(reg_bases, shared_offset_bases, shape, bitwidth)
    if bitwidth not in (1, 8, 16, 32, 64):
        raise ValueError(f"the kernel route needs a Gluon dtype of {bitwidth} bits; use 1, 8, 16, 32 or 64")
    req = {"op": "kernel_bank_conflicts", "reg": reg, "smem": smem, "shape": shape, "bitwidth": bitwidth}
    return int(_cached_child(req))


def gluon_blocked_to_bases_via_kernel(shape: list[int], size_per_thread: list[int], threads_per_warp: list[int],
                                      warps_per_cta: list[int], order: list[int]) -> dict[str, list[list[int]]]:
    """Same as :func:`gluon_blocked_to_bases`, via ``ttgl.to_linear_layout`` in a
    traced ``@gluon.jit`` kernel (child interpreter; cached)."""
    args = _check_blocked_inputs(shape, size_per_thread, threads_per_warp, warps_per_cta, order)
    return _cached_child({"op": "kernel_blocked", "args": [list(a) for a in args]})


def _trace_kernel(kernel, args, num_warps: int) -> None:
    """Trace a Gluon kernel to TTGIR for an explicit CUDA target, no GPU needed.

    Same steps as ``triton._filecheck.run_parser`` (what Gluon's own frontend
    tests use): bind the arguments, build a GluonASTSource and call make_ir.
    """
    from triton._filecheck import run_parser
    from triton.backends.compiler import GPUTarget

    run_parser(kernel, args=args, kwargs={"num_warps": num_warps}, target=GPUTarget("cuda", 90, 32))


def _kernel_bank_conflicts(reg, smem, shape, bitwidth) -> int:
    from triton.experimental import gluon
    from triton.experimental.gluon import language as ttgl

    # A dict, not list.append: Triton's dependency hashing rejects calls to
    # non-Triton callables inside a constexpr_function.
    found: dict[int, int] = {}

    @gluon.constexpr_function
    def record(value):
        found[len(found)] = int(value)
        return value

    @gluon.jit
    def bank_kernel(reg_type: ttgl.constexpr, shared_type: ttgl.constexpr):
        n: ttgl.constexpr = ttgl.bank_conflicts(reg_type, shared_type)
        record(n)

    dtype = {1: ttgl.int1, 8: ttgl.int8, 16: ttgl.float16, 32: ttgl.float32, 64: ttgl.float64}[bitwidth]
    rl = ttgl.DistributedLinearLayout(reg["register"], reg["lane"], reg["warp"], reg["block"], shape)
    sl = ttgl.SharedLinearLayout(smem)
    args = (ttgl.distributed_type(dtype, shape, rl), ttgl.shared_memory_descriptor_type(dtype, shape, sl, shape))
    _trace_kernel(bank_kernel, args, num_warps=2**len(reg["warp"]))
    if len(found) != 1:
        raise GluonPeerError(f"the traced kernel recorded {len(found)} results")
    return found[0]


def _kernel_blocked(shape, spt, tpw, wpc, order) -> dict[str, list[list[int]]]:
    from triton.experimental import gluon
    from triton.experimental.gluon import language as ttgl

    found: dict[int, Any] = {}

    @gluon.constexpr_function
    def record(value):
        found[len(found)] = value
        return value

    @gluon.jit
    def ll_kernel(layout: ttgl.constexpr, shape: ttgl.constexpr):
        ll: ttgl.constexpr = ttgl.to_linear_layout(layout, shape)
        record(ll)

    num_warps = 1
    for w in wpc:
        num_warps *= w
    _trace_kernel(ll_kernel, (ttgl.BlockedLayout(spt, tpw, wpc, order), list(shape)), num_warps=num_warps)
    if len(found) != 1:
        raise GluonPeerError(f"the traced kernel recorded {len(found)} results")
    ll = found[0]
    return {
        "register": [list(map(int, b)) for b in ll.reg_bases],
        "lane": [list(map(int, b)) for b in ll.lane_bases],
        "warp": [list(map(int, b)) for b in ll.warp_bases],
        "block": [list(map(int, b)) for b in ll.block_bases],
    }


# --------------------------------------------------------------------------- self-test


def _selftest() -> int:
    import statistics
    import timeit

    case1 = _PROBE_BANK[0]
    case2 = ({"register": [[0, 1], [0, 2], [1, 0]], "lane": [[0, 4], [0, 8], [0, 16], [0, 32], [2, 0]],
              "warp": [[0, 0], [0, 0]], "block": []},
             [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], [4, 64], 16)
    case3 = _PROBE_BANK[1]
    reason = gluon_unavailable_reason()
    if reason:
        print("Gluon route unavailable:", reason)
        return 1
    import triton
    print("triton", triton.__version__)
    ok = True
    for name, case, want in (("case1 128x128 fp16 swizzled", case1, 0), ("case2 4x64 fp16", case2, None),
                             ("case3 32x32 fp32 column access", case3, 7)):
        got = gluon_bank_conflicts(*case)
        via_kernel = gluon_bank_conflicts_via_kernel(*case)
        good = got == via_kernel and (want is None or got == want)
        ok &= good
        print(f"{name}: gluon_bank_conflicts={got} via_kernel={via_kernel}" + ("" if good else "  MISMATCH"))
    blocked = ([128, 128], [1, 8], [4, 8], [4, 1], [1, 0])
    bases = gluon_blocked_to_bases(*blocked)
    via_kernel = gluon_blocked_to_bases_via_kernel(*blocked)
    ok &= bases == via_kernel
    print("blocked", blocked, "->", bases, "" if bases == via_kernel else "  MISMATCH vs kernel route")
    for name, kw in (("prebuilt attrs", {}), ("incl. attr build", {"include_attr_build": True})):
        call = make_gluon_bank_conflicts_callable(*case1, **kw)
        t = timeit.Timer(call)
        number, _ = t.autorange()
        reps = t.repeat(repeat=9, number=number)
        per = [r / number * 1e6 for r in reps]
        print(f"case1 per call ({name}): median {statistics.median(per):.2f} us "
              f"(min {min(per):.2f}, max {max(per):.2f}; 9 repeats x {number} calls)")
    small = (case2[0], case2[1], case2[2], 2)  # 256 elements x 2 bits < 1024: run isolated
    try:
        print("case2 with bitwidth 2 (isolated):", gluon_bank_conflicts(*small))
    except GluonPeerError as e:
        print("case2 with bitwidth 2 (isolated) -> GluonPeerError:", str(e).strip().splitlines()[-1][:160])
    return 0 if ok else 1


if __name__ == "__main__":
    if sys.argv[1:] == ["--worker"]:
        _worker_main()
    else:
        sys.exit(_selftest())
