"""Fuzzing the TTGIR reader and printer: random valid attributes, mutated text, and Triton's own answer.

* every random valid attribute (``tools/ttgir_attribute_cases.py``) reads,
  and the printer's text of its layout reads back as the same layout;
* mutated attribute and type text reads or raises an error of the library's
  family (never a ``RecursionError``, ``IndexError``, ``TypeError``...);
* long profile only (``tools/fuzz.py``, Triton installed): the reader equals
  Triton 3.9.0's ``to_linear_layout`` on every attribute Triton accepts, and
  Triton reads the printer's text as the same layout.
"""

from __future__ import annotations

import os
import random

import pytest

from linlayout.errors import LinLayoutError
from linlayout.io.ttgir.attributes import parse_attribute
from linlayout.io.ttgir.encodings import layout_from_encoding, layout_from_ttgir
from ..io.test_ttgir_encodings_triton import layout_bases as bases
from ..io.test_ttgir_encodings_triton import ask_triton, gen, printed, read, refused_by_reader
from .profile import LONG, mutate, seeds


@pytest.mark.parametrize("seed", seeds(15, 1))
def test_random_attributes_read_and_print_back(seed):
    case = gen.random_case(random.Random(seed))
    if refused_by_reader(case):
        with pytest.raises(LinLayoutError, match="transposed = true is not read"):
            read(case)
        return
    try:
        layout = read(case)
    except LinLayoutError:  # the generator's text can be invalid (Triton refuses it too: the long profile checks)
        return
    text = printed(case, layout)
    assert bases(layout_from_encoding(parse_attribute(text), case["shape"])) == bases(layout), (seed, text)


@pytest.mark.parametrize("seed", seeds(40, 2))
def test_mutated_text_reads_or_is_refused(seed):
    rng = random.Random(seed)
    text = mutate(gen.type_text(gen.random_case(rng)), rng)
    try:
        layout_from_ttgir(text)
    except LinLayoutError:
        pass


@pytest.mark.skipif(not LONG, reason="the long profile (tools/fuzz.py) asks Triton; CI replays recorded answers")
def test_the_reader_and_printer_equal_triton():
    pytest.importorskip("triton")
    seed = random.randrange(2**32)
    cases, ours, reprinted, refused, theirs, theirs_printed, theirs_refused = ask_triton(random.Random(seed), LONG)
    wrongly_refused = [gen.type_text(c) for c, t in zip(refused, theirs_refused) if t is not None]
    wrong = [gen.type_text(c) for c, L, t in zip(cases, ours, theirs) if t is not None and
             bases(L) != {k: v for k, v in t.items() if v}]
    unread = [r["attribute"] for r, t, tp in zip(reprinted, theirs, theirs_printed) if t is not None and tp is None]
    misread = [r["attribute"] for r, L, t, tp in zip(reprinted, ours, theirs, theirs_printed)
               if t is not None and tp is not None and {k: v for k, v in tp.items() if v} != bases(L)]
    reader_only = sum(t is None for t in theirs)  # Triton's verifier checks more than the layout (e.g. warps)
    summary = (f"reader vs Triton, seed {seed}: {len(cases) + len(refused)} attributes, {sum(t is not None for t in theirs)} read by "
               f"both, {reader_only} read by the reader only, {len(wrong)} read differently, "
               f"{len(wrongly_refused)} refused by the reader only "
               f"({len(refused)} refused in all); printer: {len(unread)} refused, {len(misread)} misread by Triton\n")
    if os.environ.get("LINLAYOUT_FUZZ_REPORT"):
        with open(os.environ["LINLAYOUT_FUZZ_REPORT"], "a") as f:
            f.write(summary)
    assert not wrong and not wrongly_refused and not unread and not misread, (
        seed, wrong[:3], wrongly_refused[:3], unread[:3], misread[:3])
