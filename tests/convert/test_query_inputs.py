"""plan_conversion's boundary (issue 26): library errors for bad arguments, and the two-step search's budget."""

from __future__ import annotations

import time

import pytest

from linlayout.convert.multistep import MAX_STEP_PLANS, search
from linlayout.convert.step_floors import Floor
from linlayout.convert.plan import plan_conversion
from linlayout.core.layout import LinearLayout
from linlayout.count.by_simulation import lane_byte_offsets
from linlayout.catalog.swizzles import unswizzled
from linlayout.errors import InputError, InputTypeError

SRC = LinearLayout({"register": [[0, 1]], "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]}, {"dim0": 32, "dim1": 2})
DST = LinearLayout({"register": [[1, 0]], "lane": [[0, 1], [2, 0], [4, 0], [8, 0], [16, 0]]}, {"dim0": 32, "dim1": 2})


@pytest.mark.parametrize("kw, error, fragment", [
    (dict(paths=[["x"]]), InputError, r"paths\[0\] is \['x'\], which is no conversion path"),
    (dict(paths=[]), InputError, "paths is empty"),
    (dict(paths="shuffles"), InputTypeError, "write \\['shuffles'\\]"),
    (dict(scratch_bytes=64.0), InputTypeError, "scratch_bytes .* must be an int, got 64.0"),
    (dict(scratch_bytes=0), InputError, "scratch_bytes .* must be at least 1"),
])
def test_bad_arguments_are_library_errors_that_say_how_to_fix_them(kw, error, fragment):
    with pytest.raises(error, match=fragment):
        plan_conversion(SRC, DST, 32, **kw)


def test_paths_names_are_stripped_like_other_keywords():
    assert plan_conversion(SRC, DST, 32, paths=[" shared_memory "]).path == "shared_memory"


def test_the_two_step_search_tries_at_most_its_budget():
    big = LinearLayout({"register": [[0, 1 << k] for k in range(6)] + [[1, 0]],
                        "lane": [[0, 1 << k] for k in range(6, 11)]}, {"dim0": 2, "dim1": 2048})
    calls = []

    def plan(a, b, warp_local, ceiling):
        calls.append((a, b, warp_local))
        raise InputError("no step")  # count the steps tried, plan none

    start = time.perf_counter()
    found = search(big, big, 10, plan, lambda a, b: Floor(0))  # floors that prune nothing
    assert found.path is None and found.step_plans == MAX_STEP_PLANS and found.unsettled > 0
    assert len(calls) == MAX_STEP_PLANS and time.perf_counter() - start < 1.0


def test_lane_byte_offsets_checks_its_limit():
    L = LinearLayout({"register": [[0, 1]], "lane": [[0, 2 << k] for k in range(5)], "block": [[1, 0]]},
                     {"dim0": 2, "dim1": 64})
    assert len(lane_byte_offsets(L, unswizzled([2, 64]), 32, "load", limit=1)) == 1
    for bad, error in ((0, InputError), (-1, InputError), (1.5, InputTypeError), ("a", InputTypeError)):
        with pytest.raises(error, match="limit"):
            lane_byte_offsets(L, unswizzled([2, 64]), 32, "load", limit=bad)
