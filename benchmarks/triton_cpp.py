"""Triton 3.9.0's C++ swizzle synthesis and bank-conflict counter, called through ctypes (for timing only).

``optimalSwizzlingLdSt`` and ``bankConflictsLdSt`` (``lib/Dialect/TritonGPU/Transforms/...``) have no Python
binding.  The ``triton==3.9.0`` x86-64 wheel exports them from ``_C/libtriton.so``, and a
``triton.tools.LinearLayout`` is a nanobind wrapper around the C++ ``mlir::triton::LinearLayout``, so both can be
called on layouts built in Python:

* the C++ object of a nanobind instance lies at the offset stored at byte 16 of the instance header; bit 2 of
  the flags at byte 20 says whether it is stored inline (else that slot holds a pointer to it);
* a function returning a ``LinearLayout`` by value writes it into a caller-provided buffer passed as a hidden
  first argument, and the caller destroys it afterwards;
* ``LocalMemOpTile`` (three ``SmallVector<int32_t, 12>``: laneContig, laneAddr, laneMask; 64 bytes each) is
  passed by reference to a caller-owned copy; empty tiles are what Triton's own ``SwizzleTest`` passes;
* ``bankConflictsLdSt`` returns ``std::pair<int, int>`` (read, write extra wavefronts) packed in one register.

Everything here is checked against the running wheel before use (:func:`unavailable_reason`): another Triton
version, platform or a missing symbol makes the benchmark skip this peer instead of crashing.
"""

from __future__ import annotations

import ctypes
import os
import platform
from typing import Any

_SYMBOLS = {
    "copy": "_ZN4mlir6triton12LinearLayoutC2ERKS1_",
    "destroy": "_ZN4mlir6triton12LinearLayoutD2Ev",
    "swizzle": "_ZN4mlir6triton3gpu20optimalSwizzlingLdStERKNS0_12LinearLayoutES4_iiNS1_14LocalMemOpTileES5_",
    "conflicts": "_ZN4mlir6triton3gpu17bankConflictsLdStERKNS0_12LinearLayoutES4_S4_iiNS1_14LocalMemOpTileES5_",
}
_TILE_BYTES = 3 * 64
_RESULT_BYTES = 256  # more than sizeof(LinearLayout)

_lib: dict[str, Any] = {}


def unavailable_reason() -> str | None:
    """None when the C++ functions can be called here, else why not."""
    if _lib:
        return None
    if platform.machine() not in ("x86_64", "AMD64"):
        return f"the ctypes ABI is written for x86-64, not {platform.machine()}"
    try:
        import triton
        from triton.tools import LinearLayout  # noqa: F401
    except Exception as e:  # pragma: no cover - optional peer
        return f"triton not importable ({type(e).__name__}: {e})"
    if triton.__version__ != "3.9.0":
        return f"the ctypes ABI is verified for triton 3.9.0 only, found {triton.__version__}"
    try:
        so = ctypes.CDLL(os.path.join(os.path.dirname(triton.__file__), "_C", "libtriton.so"))
        fns = {k: getattr(so, name) for k, name in _SYMBOLS.items()}
    except (OSError, AttributeError) as e:
        return f"libtriton.so does not export the functions ({e})"
    vp, i32 = ctypes.c_void_p, ctypes.c_int
    fns["copy"].argtypes, fns["copy"].restype = [vp, vp], None
    fns["destroy"].argtypes, fns["destroy"].restype = [vp], None
    fns["swizzle"].argtypes, fns["swizzle"].restype = [vp, vp, vp, i32, i32, vp, vp], vp
    fns["conflicts"].argtypes, fns["conflicts"].restype = [vp, vp, vp, i32, i32, vp, vp], ctypes.c_uint64
    _lib.update(fns)
    return None


def cpp_address(layout: Any) -> int:
    """Address of the C++ ``LinearLayout`` held by a ``triton.tools.LinearLayout`` (keep ``layout`` alive)."""
    base = id(layout)
    offset = ctypes.c_int32.from_address(base + 16).value
    inline = (ctypes.c_uint32.from_address(base + 20).value >> 2) & 1
    return base + offset if inline else ctypes.c_void_p.from_address(base + offset).value


def _empty_tile() -> ctypes.Array:
    """A ``LocalMemOpTile`` of three empty small vectors (data pointer to the inline storage, size 0, capacity 12)."""
    buf = ctypes.create_string_buffer(_TILE_BYTES)
    at = ctypes.addressof(buf)
    for k in range(3):
        vec = at + 64 * k
        ctypes.c_void_p.from_address(vec).value = vec + 16
        ctypes.c_uint32.from_address(vec + 12).value = 12
    return buf


class LdSt:
    """One (write layout, read layout, element bits) problem, ready for repeated C++ calls.

    :meth:`swizzle_call` and :meth:`conflicts_call` return zero-argument callables that make exactly one C++
    call each (plus the destructor of the returned layout for the swizzle), on arguments prepared here.
    """

    def __init__(self, write: Any, read: Any, element_bits: int, banks: int = 32) -> None:
        reason = unavailable_reason()
        if reason:
            raise RuntimeError(reason)
        self._keep = [write, read]
        self.write, self.read = cpp_address(write), cpp_address(read)
        self.bits, self.banks = element_bits, banks
        self._tiles = (_empty_tile(), _empty_tile())
        self.tiles = tuple(ctypes.addressof(t) for t in self._tiles)
        self._result = ctypes.create_string_buffer(_RESULT_BYTES)
        self.result = ctypes.addressof(self._result)

    def swizzle_call(self):
        """``optimalSwizzlingLdSt(write, read, bits, banks, tile, tile)``, result destroyed."""
        f, d = _lib["swizzle"], _lib["destroy"]
        args = (self.result, self.write, self.read, self.bits, self.banks, *self.tiles)
        res = self.result

        def call() -> None:
            f(*args)
            d(res)
        return call

    def swizzle(self) -> Any:
        """One call, its result copied into a new ``triton.tools.LinearLayout``."""
        from triton.tools import LinearLayout

        _lib["swizzle"](self.result, self.write, self.read, self.bits, self.banks, *self.tiles)
        out = LinearLayout()
        at = cpp_address(out)
        _lib["destroy"](at)
        _lib["copy"](at, self.result)
        _lib["destroy"](self.result)
        return out

    def conflicts_call(self, memory: Any):
        """``bankConflictsLdSt(write, read, memory, bits, banks, tile, tile)``: packed (read, write) extra wavefronts."""
        self._keep.append(memory)
        f = _lib["conflicts"]
        args = (self.write, self.read, cpp_address(memory), self.bits, self.banks, *self.tiles)

        def call() -> int:
            return f(*args)
        return call

    def conflicts(self, memory: Any) -> tuple[int, int]:
        """(read, write) extra wavefronts per access, as Triton counts them."""
        packed = self.conflicts_call(memory)()
        lo, hi = packed & 0xFFFFFFFF, packed >> 32
        return tuple(v - (1 << 32) if v >> 31 else v for v in (lo, hi))  # type: ignore[return-value]
