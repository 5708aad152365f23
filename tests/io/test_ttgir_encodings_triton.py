"""The TTGIR reader and printer against Triton 3.9.0's own ``to_linear_layout``, on random valid attributes.

``tests/data/ttgir_attribute_cases.json`` holds 2,400 attributes written by
``tools/ttgir_attribute_cases.py`` (every encoding the reader knows, ranks 1
to 4, tensors smaller than the encoding's tile, CGA layouts, slices of every
parent) with the bases Triton returned for each.  The replay needs no Triton:
a tenth of the cases by default (the printer: a fortieth), all of them under
the ``thorough`` profile (the printer: half).  Where Triton is installed, a fresh random sample is asked again, and the
printer's text for each is read back by Triton.
"""

from __future__ import annotations

import json
import random
import sys
import time
from typing import NamedTuple

import pytest
from hypothesis import settings

from linlayout.errors import LinLayoutError
from linlayout.io.ttgir.attributes import TTGIRError, parse_attribute, parse_type
from linlayout.io.ttgir.encodings import layout_from_encoding, layout_from_ttgir, to_ttgir_linear, to_ttgir_shared
from ..conftest import BASE_EXAMPLES, ROOT

sys.path.insert(0, str(ROOT / "tools"))
import ttgir_attribute_cases as gen  # noqa: E402

DATA = json.loads((ROOT / "tests" / "data" / "ttgir_attribute_cases.json").read_text())
THOROUGH = settings().max_examples > BASE_EXAMPLES


def _sample(cases: list[dict]) -> list[dict]:
    return cases if THOROUGH else cases[::10]


def layout_bases(layout) -> dict:
    return {k: [list(b) for b in v] for k, v in layout.bases.items() if v}


def _nonempty(bases: dict) -> dict:
    return {k: v for k, v in bases.items() if v}


def refused_by_reader(case: dict) -> bool:
    """The one valid family the reader refuses: Triton's layout of it is not a memory layout."""
    return "swizzlingByteWidth = 0, transposed = true" in case["attribute"] and len(case["shape"]) >= 3


def read(case: dict):
    t = parse_type(gen.type_text(case))
    return layout_from_encoding(t.encoding, t.shape)


def read_or_none(case: dict):
    try:
        return read(case)
    except LinLayoutError:  # the generator may write text Triton refuses too (checked below)
        return None


def printed(case: dict, layout) -> str:
    bits = int("".join(c for c in case["element"] if c.isdigit()))
    return to_ttgir_shared(layout, bits) if case["memdesc"] else to_ttgir_linear(layout)


class TritonAnswers(NamedTuple):
    """Fresh attributes read by linlayout and by Triton: what :func:`ask_triton` returns."""

    cases: list[dict]  # read by the reader
    ours: list  # the reader's layouts of ``cases``
    reprinted: list[dict]  # ``cases`` with the printer's text of ``ours``
    refused: list[dict]  # refused by the reader
    theirs: list  # Triton's layouts (None: refused) of ``cases``, of ``reprinted`` and of ``refused``
    theirs_printed: list
    theirs_refused: list


def ask_triton(rng: random.Random, n: int) -> TritonAnswers:
    """Draw ``n`` attributes (leaving out the family the reader refuses by design), read and print them, and ask
    Triton (one batch) for its layout of each case, each printed text and each refused case."""
    drawn = [c for c in (gen.random_case(rng) for _ in range(n)) if not refused_by_reader(c)]
    read_all = [read_or_none(c) for c in drawn]
    cases = [c for c, L in zip(drawn, read_all) if L is not None]
    ours = [L for L in read_all if L is not None]
    refused = [c for c, L in zip(drawn, read_all) if L is None]
    reprinted = [{**c, "attribute": printed(c, L)} for c, L in zip(cases, ours)]
    answers = gen.triton_layouts(cases + reprinted + refused)
    k = len(cases)
    return TritonAnswers(cases, ours, reprinted, refused, answers[:k], answers[k:2 * k], answers[2 * k:])


def test_the_recorded_cases_cover_every_encoding():
    cases = DATA["cases"]
    assert len(cases) >= 2000 and DATA["triton"] == "3.9.0"
    assert {c["kind"] for c in cases} == set(gen.KINDS)
    assert {len(c["shape"]) for c in cases} == {1, 2, 3, 4}
    assert sum("CGALayout" in c["attribute"] for c in cases) > 200
    assert sum(c["kind"] == "slice" and "#ttg.linear" in c["attribute"] for c in cases) > 50


def test_the_reader_equals_triton_on_recorded_cases():
    """Each recorded attribute reads as the layout Triton 3.9.0 gave it, zero bases and all (no Triton needed)."""
    checked = refused = 0
    for case in _sample(DATA["cases"]):
        if refused_by_reader(case):
            with pytest.raises(TTGIRError, match="transposed = true is not read"):
                read(case)
            refused += 1
            continue
        assert layout_bases(read(case)) == _nonempty(case["triton"]), gen.type_text(case)
        checked += 1
    assert checked >= (2000 if THOROUGH else 200) and refused < checked // 20


def test_the_printer_reads_back_as_the_same_layout():
    for case in _sample(DATA["cases"])[::2 if THOROUGH else 4]:
        if refused_by_reader(case):
            continue
        layout = read(case)
        text = printed(case, layout)
        again = layout_from_encoding(parse_attribute(text), case["shape"])
        assert layout_bases(again) == layout_bases(layout), (gen.type_text(case), text)


def test_fresh_random_attributes_equal_triton():
    """20 new attributes: the reader equals Triton, and Triton reads the printer's text as the same layout."""
    pytest.importorskip("triton")
    seed = time.time_ns() % 2**32
    cases, ours, reprinted, _, theirs, theirs_printed, theirs_refused = ask_triton(random.Random(seed), 20)
    if all(a is None for a in theirs + theirs_printed + theirs_refused):
        pytest.skip("Triton's MLIR parser is unavailable here")
    assert all(a is None for a in theirs_refused), f"seed {seed}: the reader refuses what Triton reads"
    for case, L, t, tp, again in zip(cases, ours, theirs, theirs_printed, reprinted):
        if t is None:  # Triton refused a text the generator wrote: the generator's bug, not the reader's
            continue
        where = f"seed {seed}: {gen.type_text(case)}"
        assert layout_bases(L) == _nonempty(t), where
        assert tp is not None and _nonempty(tp) == layout_bases(L), f"{where} printed as {again['attribute']}"
    assert sum(t is not None for t in theirs) >= len(cases) * 0.8


def test_the_generator_runs_without_triton():
    """The attribute half of the generator is pure Python; the reader reads nearly all it writes (some on purpose not)."""
    rng = random.Random(5)
    cases = [c for c in (gen.random_case(rng) for _ in range(60)) if not refused_by_reader(c)]
    assert sum(read_or_none(c) is not None for c in cases) >= 0.9 * len(cases)


@pytest.mark.parametrize("text, triton", [
    # a tensor smaller than the mma tile: Triton keeps the zero register basis
    ("tensor<8x8xf32, #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>>",
     {"register": [[0, 1], [0, 0]], "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]}),
    # a dot operand whose parent splits K across CTAs: every CTA holds the whole K (the block basis broadcasts)
    ("tensor<4x4xf16, #ttg.dot_op<{opIdx = 1, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, "
     "warpsPerCTA = [4, 2], instrShape = [16, 8], CGALayout = [[1, 0], [0, 1]]}>, kWidth = 2}>>",
     {"register": [[1, 0], [0, 0]], "lane": [[2, 0], [0, 0], [0, 1], [0, 0], [0, 0]], "warp": [[0, 0], [0, 0], [0, 0]],
      "block": [[0, 0], [0, 2]]}),
    # a slice of a linear layout whose bases span the sliced dimension (a reduction's result)
    ("tensor<4xf32, #ttg.slice<{dim = 0, parent = #ttg.linear<{register = [[1, 0], [0, 1]], lane = [[2, 0], [4, 0], "
     "[8, 0], [16, 0], [0, 2]], warp = [], block = []}>}>>",
     {"register": [[1]], "lane": [[0], [0], [0], [0], [2]]}),
])
def test_the_issue_examples_read_as_triton_does(text, triton):
    """The examples of issue 26, with the bases Triton 3.9.0's to_linear_layout returns."""
    assert layout_bases(layout_from_ttgir(text)) == triton


def test_unswizzled_transposed_nvmma_at_rank_3_is_refused_not_misread():
    text = ("!ttg.memdesc<4x8x8xf16, #ttg.nvmma_shared<{swizzlingByteWidth = 0, transposed = true, "
            "elementBitWidth = 16, rank = 3}>, #smem>")
    with pytest.raises(TTGIRError, match="transposed = true is not read at rank 3"):
        layout_from_ttgir(text)
    # the printer never writes it: a transposed 3-D tile prints as a form Triton reads the same way
    tile = layout_from_ttgir("!ttg.memdesc<4x8x8xf16, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, "
                             "order = [0, 2, 1]}>, #smem>")
    assert "nvmma_shared" not in to_ttgir_shared(tile, 16)
