"""Input errors of the memory-layout constructors (issue 26): library errors that say how to fix the call."""

from __future__ import annotations

import pytest

from linlayout.catalog.swizzles import cute_swizzle, nvmma_layout, swizzle_mode_bytes, tma_swizzle
from linlayout.errors import InputError, SizeError


@pytest.mark.parametrize("layout", [(8, 64), ((8, 64),), ((8, 64), (64, 1), (1,)), ("a", "b")])
def test_cute_swizzle_refuses_a_tuple_that_is_not_a_shape_stride_pair(layout):
    with pytest.raises(InputError, match=r"\(shape, stride\) pair such as \(\(8, 64\), \(64, 1\)\)"):
        cute_swizzle(3, 3, 3, layout, units="elements")


def test_cute_swizzle_takes_a_shape_stride_pair():
    assert cute_swizzle(3, 3, 3, ((8, 64), (64, 1)), units="elements") == nvmma_layout([8, 64], 16, 128)


@pytest.mark.parametrize("mode", ["128", " 64 ", "0"])
def test_a_number_in_a_string_is_not_a_swizzle_mode(mode):
    with pytest.raises(SizeError, match="a number in a string: give the int"):
        nvmma_layout([64, 64], 16, mode)
    with pytest.raises(SizeError, match="a number in a string"):
        swizzle_mode_bytes(mode)


def test_swizzle_mode_names_and_ints_still_work():
    assert nvmma_layout([64, 64], 16, "128B") == nvmma_layout([64, 64], 16, 128) == tma_swizzle("128B", [64, 64], 16)
