"""Triton's TTGIR: read encodings, types and modules, print layouts back, lint shared-memory traffic."""

from . import encodings, module
from .encodings import *
from .module import *

__all__ = [*encodings.__all__, *module.__all__]
"""The public names of the reader and printer (the lint, :mod:`.lint`, loads on first use: it plans conversions)."""
