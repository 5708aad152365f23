"""linlayout.core.memory: memory layouts of offsets (Triton's shared encodings judged per CTA)."""

from linlayout.core.layout import LinearLayout
from linlayout.core.memory import is_offset_memory_layout


def test_offset_memory_layout_with_a_block_input_is_judged_per_cta():
    # Two CTAs split dim1; each holds a 2x1 column: a memory layout per CTA, though the whole is one too.
    split = LinearLayout({"offset": [[1, 0]], "block": [[0, 1]]}, {"dim0": 2, "dim1": 2})
    assert is_offset_memory_layout(split)
    # Two CTAs that both hold the whole 2x2 tile (a broadcast block basis): not invertible, still a memory layout.
    both = LinearLayout({"offset": [[0, 1], [1, 1]], "block": [[0, 0]]}, {"dim0": 2, "dim1": 2})
    assert not both.is_invertible() and is_offset_memory_layout(both)
    # A CTA whose offsets repeat, or blocks that leave part of the tensor uncovered, are not.
    assert not is_offset_memory_layout(LinearLayout({"offset": [[1, 0], [1, 0]], "block": [[0, 1]]}, {"dim0": 2, "dim1": 2}))
    assert not is_offset_memory_layout(LinearLayout({"offset": [[1, 0]], "block": [[0, 0]]}, {"dim0": 2, "dim1": 2}))
    # A weight-3 basis inside a CTA is not a memory layout either.
    assert not is_offset_memory_layout(LinearLayout({"offset": [[1, 0, 0], [0, 1, 0], [1, 1, 1]], "block": [[0, 0, 0]]},
                            {"dim0": 2, "dim1": 2, "dim2": 2}))
    # A distributed layout is never a memory layout of offsets, even an invertible one of small weight.
    assert not is_offset_memory_layout(LinearLayout({"register": [[1, 0]], "lane": [[0, 1]]}, {"dim0": 2, "dim1": 2}))
