"""Triton's choice of scratch layout and instructions for a conversion, now :mod:`linlayout.convert.triton_scratch`.

The conversion planner takes Triton's scratch size as its default budget and
Triton's own staging as one of its candidates, so the port lives in the
``convert`` layer; this module keeps its names importable from ``lower``.
"""

from __future__ import annotations

from ..convert.triton_scratch import TritonScratch, conversion_tiles, count_matrix_or_vector, triton_scratch

__all__ = ["TritonScratch", "conversion_tiles", "count_matrix_or_vector", "triton_scratch"]
