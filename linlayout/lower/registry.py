"""The lowering models by compiler version: :data:`LOWERINGS` and :func:`get_lowering`.

A compiler version is a key (``"3.6"``); its model is a
:class:`~linlayout.lower.model.Lowering` defined in a module of its own
(:mod:`linlayout.lower.triton_3_6`, :mod:`linlayout.lower.triton_3_9`).
Adding a version is one new module and one line here, never a branch inside
an existing model.

>>> get_lowering().version, sorted(LOWERINGS)
('3.9', ['3.6', '3.9'])
>>> get_lowering("2.0")
Traceback (most recent call last):
  ...
linlayout.errors.InputError: unknown Triton version '2.0': the lowering is modelled for 3.6, 3.9
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from ..errors import InputError
from .model import Lowering
from .triton_3_6 import TRITON_3_6
from .triton_3_9 import TRITON_3_9

__all__ = ["DEFAULT_TRITON", "LOWERINGS", "get_lowering"]

LOWERINGS: Mapping[str, Lowering] = MappingProxyType({TRITON_3_6.version: TRITON_3_6,
                                                      TRITON_3_9.version: TRITON_3_9})
"""Every modelled compiler version and its lowering (read-only)."""

DEFAULT_TRITON = "3.9"
"""The version linted when none is named: the newest modelled (3.6 is the H100 corpus' version)."""


def get_lowering(version: str = DEFAULT_TRITON) -> Lowering:
    """The lowering model of a Triton version (``"3.6"``, ``"3.9"``; ``"3.9.0"`` is read as ``"3.9"``); an :class:`~linlayout.errors.InputError` names the known ones."""
    if isinstance(version, str):
        key = ".".join(version.strip().split(".")[:2])
        if key in LOWERINGS and (version.strip() == key or version.strip().split(".")[2:] == ["0"]):
            return LOWERINGS[key]
    raise InputError(f"unknown Triton version {version!r}: the lowering is modelled for "
                     f"{', '.join(sorted(LOWERINGS))}")
