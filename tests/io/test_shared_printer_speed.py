"""The shared-encoding printer's direct offsets equal the catalogue's swizzled_shared layouts (the printer
compares memories with them instead of building each candidate)."""

from __future__ import annotations

import itertools
import random

import pytest

from linlayout.catalog import triton_encodings as te
from linlayout.core.layout import LinearLayout
from linlayout.io.ttgir.encodings import swizzled_candidates, swizzled_offsets, to_ttgir_shared

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


def _first_swizzled(memory, shape) -> str | None:
    """The printer's swizzled_shared before it passed over orders: every candidate tried in its order."""
    offsets = tuple(memory.bases["offset"])
    for vec, pp, mp, order in sorted(swizzled_candidates(shape), key=lambda c: (c[2] > 1, c)):
        if swizzled_offsets(shape, vec, pp, mp, order) == offsets:
            return (f"#ttg.swizzled_shared<{{vec = {vec}, perPhase = {pp}, maxPhase = {mp}, "
                    f"order = [{', '.join(map(str, order))}]}}>")
    return None


@pytest.mark.parametrize("shape", SHAPES)
def test_printer_finds_the_first_matching_candidate(shape):
    """Passing over an order whose columns a memory does not begin with loses no match: on candidates' own
    layouts (each found) and on shuffled ones (mostly none), the printer says what trying every candidate says."""
    rng = random.Random(sum(shape))
    candidates = list(swizzled_candidates(shape))
    memories = []
    for vec, pp, mp, order in rng.sample(candidates, min(12, len(candidates))):
        offsets = list(swizzled_offsets(shape, vec, pp, mp, order))
        memories.append(offsets)
        memories.append(rng.sample(offsets, len(offsets)))
    for offsets in memories:
        memory = LinearLayout({"offset": [list(b) for b in offsets]}, {f"dim{i}": n for i, n in enumerate(shape)})
        expected = _first_swizzled(memory, shape)
        printed = to_ttgir_shared(memory)
        assert printed == expected if expected else printed.startswith("#ttg.shared_linear"), (shape, offsets)
