"""The shared-encoding printer's direct offsets equal the catalogue's swizzled_shared layouts (the printer
compares memories with them instead of building each candidate)."""

from __future__ import annotations

import itertools

import pytest

from linlayout.catalog import triton_encodings as te
from linlayout.io.ttgir.encodings import swizzled_candidates, swizzled_offsets

from ..conftest import examples

SHAPES = [[1, 8], [4, 8], [64, 16], [2, 4, 8]]


@pytest.mark.parametrize("shape", SHAPES)
def test_direct_offsets_are_the_catalogues(shape):
    for vec, pp, mp, order in swizzled_candidates(shape):
        cand = te.triton_swizzled_shared(shape, vec, pp, mp, order)
        assert swizzled_offsets(shape, vec, pp, mp, order) == tuple(cand.bases["offset"]), (shape, vec, pp, mp, order)


@pytest.mark.skipif(examples(1) < 2, reason="every small shape: the thorough profile only (a few seconds)")
def test_direct_offsets_on_every_small_shape():
    sizes = [1, 2, 4, 8, 16, 32, 64, 128, 256]
    for shape in itertools.chain(([a, b] for a in sizes for b in sizes), ([a, b, c] for a in sizes[:4] for b in sizes[:4]
                                                                          for c in sizes[:5])):
        test_direct_offsets_are_the_catalogues(shape)
