"""Pictures (linlayout.io.draw, ``linlayout draw``): pixels of known cells, zoom notes, determinism, errors.

The drawing tests need matplotlib and are skipped cleanly without it; the
missing-matplotlib error path runs either way.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from linlayout import LinearLayout
from linlayout.cli import main
from linlayout.io.draw import OKABE_ITO, picture_kind
from linlayout.errors import DrawError, LayoutJSONError, LinLayoutError, MissingDependencyError, SizeError
from linlayout.catalog.swizzles import mma_swizzle
from linlayout.core.memory import unswizzled

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
LAYOUT_A = json.loads((EXAMPLES / "paper_layout_a.json").read_text())
SKY, VERMILION, EMPTY = (86, 180, 233), (213, 94, 0), (242, 242, 242)


@pytest.fixture
def mpl():
    return pytest.importorskip("matplotlib")


def _rgb(c) -> tuple[int, int, int]:
    from matplotlib.colors import to_rgb

    return tuple(round(v * 255) for v in to_rgb(c))


def _cmap(name: str, i: int, n: int) -> tuple[int, int, int]:
    import matplotlib

    return _rgb(matplotlib.colormaps[name](i / (n - 1)))


def _axes(fig, label: str):
    (ax,) = [a for a in fig.axes if a.get_label() == label]
    return ax


def cell_rgb(fig, png: Path, label: str, x0: float, y0: float, x1: float | None = None, y1: float | None = None):
    """The most common colour inside a cell (data box [x0, x1] x [y0, y1]) of a written PNG.

    Labels cover a small part of a cell, so the most common colour is its fill.
    """
    import numpy as np
    from matplotlib.image import imread

    x1 = x0 + 1 if x1 is None else x1
    y1 = y0 + 1 if y1 is None else y1
    img = imread(png)
    h = img.shape[0]
    (px0, py0), (px1, py1) = _axes(fig, label).transData.transform([(x0, y0), (x1, y1)])
    c0, c1 = sorted((px0, px1))
    r0, r1 = sorted((h - py0, h - py1))
    block = img[int(r0) + 2 : int(r1) - 1, int(c0) + 2 : int(c1) - 1, :3]
    assert block.size, "cell too small to sample"
    values, counts = np.unique(np.round(block * 255).astype(int).reshape(-1, 3), axis=0, return_counts=True)
    return tuple(int(v) for v in values[counts.argmax()])


def pixel_rgb(fig, png: Path, label: str, x: float, y: float):
    """The colour of the pixel at data point (x, y) of an axes, in a written PNG."""
    from matplotlib.image import imread

    img = imread(png)
    px, py = _axes(fig, label).transData.transform((x, y))
    return tuple(int(round(v * 255)) for v in img[int(img.shape[0] - py), int(px), :3])


def close(a, b, tol: int = 2) -> bool:
    return all(abs(x - y) <= tol for x, y in zip(a, b))


def texts(fig) -> str:
    return "\n".join(t.get_text() for t in fig.texts) + "\n" + "\n".join(
        t.get_text() for ax in fig.axes for t in ax.texts
    )


# -- the four kinds ----------------------------------------------------------------


def test_distributed_cells_coloured_by_lane(mpl, tmp_path):
    from linlayout.io.draw import draw_distributed

    png = tmp_path / "a.png"
    fig = draw_distributed(LinearLayout.from_json(LAYOUT_A), png)
    # Layout A: (0, 0) lane 0; (0, 2) lane 1; (2, 0) lane 8; (8, 0) warp 1 lane 0; (15, 15) lane 31.
    for (r, c), lane in {(0, 0): 0, (0, 2): 1, (2, 0): 8, (8, 0): 0, (15, 15): 31, (7, 9): 28}.items():
        assert close(cell_rgb(fig, png, "tensor", c, r), _cmap("viridis", lane, 32)), (r, c)
    assert cell_rgb(fig, png, "tensor", 0, 0) != cell_rgb(fig, png, "tensor", 2, 0)
    # The warp boundary (between rows 7 and 8) is a thick black line; a thread boundary is dark.
    assert close(pixel_rgb(fig, png, "tensor", 0.5, 8.0), (0, 0, 0), 10)
    assert max(pixel_rgb(fig, png, "tensor", 2.0, 0.5)) < 80  # t0 | t1
    assert "thick: warp boundaries" in texts(fig) and "label: owner (w:t over r)" in texts(fig)
    assert _axes(fig, "tensor").get_xlim() == (0, 16)


def test_distributed_zoom_broadcast_and_unreached(mpl, tmp_path):
    from linlayout.io.draw import draw_distributed

    big = LinearLayout({"register": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]],
                        "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], "warp": [[0, 0]]},
                       {"dim0": 32, "dim1": 32})
    fig = draw_distributed(big, max_side=16)
    t = texts(fig)
    assert "zoomed: showing the top-left 16x16 of 32x32" in t
    assert "broadcast: 2 owners per element" in t
    ax = _axes(fig, "tensor")
    assert ax.get_xlim() == (0, 16) and ax.get_ylim() == (16, 0)
    # Half the tensor unreached: those cells stay light grey.
    half = LinearLayout({"lane": [[0, 1], [0, 2], [1, 0]]}, {"dim0": 4, "dim1": 4})
    png = tmp_path / "half.png"
    fig = draw_distributed(half, png)
    assert close(cell_rgb(fig, png, "tensor", 0, 0), _cmap("viridis", 0, 8))
    assert close(cell_rgb(fig, png, "tensor", 0, 2), EMPTY)
    # 1-D tensors longer than max_side wrap.
    fig = draw_distributed(LinearLayout({"register": [1, 2], "lane": [4, 8, 16, 32, 64]}), max_side=32)
    assert "dim0 (128 elements) wrapped into rows of 32" in texts(fig)


def test_memory_tensor_banks_and_physical_view(mpl, tmp_path):
    from linlayout.io.draw import draw_memory

    mem = mma_swizzle(16, 32, vec=4, per_phase=1, max_phase=8)  # offset of (1, 0) is 36: bank 4
    png = tmp_path / "m.png"
    fig = draw_memory(mem, png, element_bits=32)
    assert close(cell_rgb(fig, png, "tensor", 0, 0), _cmap("viridis", 0, 32))
    assert close(cell_rgb(fig, png, "tensor", 0, 1), _cmap("viridis", 4, 32))
    assert close(cell_rgb(fig, png, "tensor", 5, 0), _cmap("viridis", 5, 32))
    # Physical view: row 1 (offsets 32..63), bank 0 holds offset 32, the element (1, 4).
    assert mem.apply({"offset": 32}) == {"dim0": 1, "dim1": 4}
    assert close(cell_rgb(fig, png, "memory", 0, 1), _cmap("cividis", 4, 32))
    assert close(cell_rgb(fig, png, "memory", 7, 0), _cmap("cividis", 7, 32))
    assert "label: offset; colour: bank" in texts(fig)


def test_memory_16_bit_elements_are_half_a_bank(mpl, tmp_path):
    from linlayout.io.draw import draw_memory

    png = tmp_path / "m16.png"
    fig = draw_memory(unswizzled([4, 64]), png, element_bits=16)
    assert close(cell_rgb(fig, png, "tensor", 3, 0), _cmap("viridis", 1, 32))  # offset 3: byte 6, bank 1
    assert close(cell_rgb(fig, png, "tensor", 3, 1), _cmap("viridis", 1, 32))  # offset 67: byte 134, bank 1
    # Element 3 of row 0 is the right half of bank 1.
    assert close(cell_rgb(fig, png, "memory", 1.5, 0, 2.0, 1), _cmap("cividis", 3, 64))
    assert close(cell_rgb(fig, png, "memory", 1.0, 0, 1.5, 1), _cmap("cividis", 2, 64))
    assert _axes(fig, "memory").get_xlim() == (0, 32)


def test_access_colliding_lanes_highlighted(mpl, tmp_path):
    from linlayout.io.draw import draw

    png = tmp_path / "x.png"
    fig = draw((EXAMPLES / "transpose_16x32_read_xor_m.json").read_text(), png)
    # 32m + (n ^ m), column read: lanes 0 and 17 hit bank 0 (words 0 and 32), lanes 1 and 16 bank 1.
    for lane, bank in ((0, 0), (17, 0), (1, 1), (16, 1)):
        assert close(cell_rgb(fig, png, "access", bank, lane), VERMILION), (lane, bank)
    assert close(cell_rgb(fig, png, "access", 16, 0), EMPTY)
    t = texts(fig)
    assert "32 wavefronts per warp" in t and "2 wavefronts in 1 pass" in t and "16 banks in conflict" in t


def test_access_conflict_free_and_address_query(mpl, tmp_path):
    from linlayout.io.draw import draw, draw_access_offsets

    png = tmp_path / "p.png"
    fig = draw((EXAMPLES / "transpose_32x32_padded_read.json").read_text(), png)
    for lane in (0, 5, 31):
        assert close(cell_rgb(fig, png, "access", lane, lane), SKY)
    assert "1 wavefront in 1 pass" in texts(fig)
    # 16-byte stores: 4 passes of 8 lanes, every lane of a pass in the same 4 banks: 8 words each.
    png = tmp_path / "f4.png"
    fig = draw((EXAMPLES / "float4_store_ld128_access.json").read_text(), png)
    assert close(cell_rgb(fig, png, "access", 0, 0), VERMILION)
    assert close(cell_rgb(fig, png, "access", 4, 8), VERMILION)  # lane 8 opens pass 1, in banks 4-7
    assert close(cell_rgb(fig, png, "access", 0, 8), EMPTY)
    assert "32 wavefronts in 4 passes" in texts(fig)
    png = tmp_path / "b.png"
    fig = draw_access_offsets("ld.shared", "load", 4, [0] * 16 + [128] * 16, path=png)
    assert close(cell_rgb(fig, png, "access", 0, 0), VERMILION)
    assert close(cell_rgb(fig, png, "access", 0, 31), VERMILION)


def test_swizzle_before_and_after(mpl, tmp_path):
    from linlayout.io.draw import draw

    png = tmp_path / "s.png"
    fig = draw((EXAMPLES / "transpose_16x32.json").read_text(), png)
    t = texts(fig)
    assert "write 16 + read 256 row-major (left), write 16 + read 16 synthesized (right)" in t
    assert close(cell_rgb(fig, png, "read before", 0, 0), VERMILION)  # all lanes in banks 0 and 1
    assert close(cell_rgb(fig, png, "read before", 1, 17), VERMILION)
    assert close(cell_rgb(fig, png, "read after", 0, 0), SKY)
    assert close(cell_rgb(fig, png, "write after", 0, 0), SKY)  # 16-byte stores, lane 0 in banks 0-3
    assert close(cell_rgb(fig, png, "write after", 3, 0), SKY)
    assert close(cell_rgb(fig, png, "memory before", 5, 0), _cmap("cividis", 5, 32))
    panels = {f"{k} {n}" for k in ("memory", "write", "read") for n in ("before", "after")}
    assert {a.get_label() for a in fig.axes} >= panels


# -- determinism, formats, errors ------------------------------------------------------


def test_same_input_same_bytes(mpl, tmp_path):
    from linlayout.io.draw import draw, save

    small = {"bases": {"register": [[0, 1]], "lane": [[0, 2], [1, 0], [2, 0]], "warp": [[0, 0]]},
             "out_dims": {"dim0": 4, "dim1": 4}}
    for suffix in ("svg", "png"):
        a, b = tmp_path / f"a.{suffix}", tmp_path / f"b.{suffix}"
        draw(small, a)
        draw(json.dumps(small), b)
        assert a.read_bytes() == b.read_bytes()
    src = tmp_path / "small.json"
    src.write_text(json.dumps(small))
    draw(src, tmp_path / "c.svg")
    assert (tmp_path / "c.svg").read_bytes() == (tmp_path / "a.svg").read_bytes()
    svg = (tmp_path / "a.svg").read_bytes()
    assert svg.startswith(b"<?xml") and b"<dc:date>" not in svg
    assert (tmp_path / "a.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    fig = draw(small)
    with pytest.raises(DrawError, match=r"\.png or \.svg"):
        save(fig, tmp_path / "x.pdf")


def test_bad_documents_and_options(mpl, tmp_path):
    from linlayout.io.draw import draw

    with pytest.raises(LayoutJSONError, match="cannot tell what to draw"):
        draw({"nothing": 1})
    with pytest.raises(DrawError, match="element_bits applies to memory layouts"):
        draw(LAYOUT_A, element_bits=16)
    with pytest.raises(SizeError, match="max_side"):
        draw(LAYOUT_A, max_side=0)
    with pytest.raises(SizeError, match="1 or 2 tensor dimensions"):
        draw({"bases": {"lane": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}})
    with pytest.raises(SizeError, match="element_bits"):
        draw({"bases": {"offset": [1, 2]}}, element_bits=3)


def test_picture_kind():
    assert picture_kind(LAYOUT_A) == "distributed"
    assert picture_kind('{"bases": [["offset", [1, 2]]]}') == "memory"
    assert picture_kind(json.loads((EXAMPLES / "float4_store_ld128_access.json").read_text())) == "access"
    assert picture_kind({"layout": {}, "memory": {}}) == "access"
    assert picture_kind({"write": {}, "read": {}}) == "swizzle"
    with pytest.raises(LayoutJSONError):
        picture_kind("[1, 2]")
    assert OKABE_ITO["vermilion"] == "#D55E00"


def test_missing_matplotlib(monkeypatch, tmp_path, capsys):
    """Without matplotlib: a MissingDependencyError naming the extra; the command exits 2 with one line."""
    from linlayout.io.draw import draw

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(MissingDependencyError, match=r"pip install 'linlayout\[plot\]'") as e:
        draw(LAYOUT_A, tmp_path / "a.png")
    assert isinstance(e.value, LinLayoutError)
    src = tmp_path / "a.json"
    src.write_text(json.dumps(LAYOUT_A))
    assert main(["draw", str(src), "-o", str(tmp_path / "a.png")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("linlayout: error:") and "linlayout[plot]" in err
    assert not (tmp_path / "a.png").exists()


def test_draw_module_import_is_light():
    code = "import sys, linlayout.io.draw; print('matplotlib' in sys.modules)"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert r.stdout.strip() == "False"


# -- command line -----------------------------------------------------------------------


def test_cli_draw(mpl, tmp_path, capsys):
    out = tmp_path / "mem.png"
    src = tmp_path / "mem.json"
    src.write_text(unswizzled([8, 32]).to_json())
    assert main(["draw", str(src), "-o", str(out), "--element-bits", "16"]) == 0
    assert out.read_bytes()[:4] == b"\x89PNG"
    assert capsys.readouterr().out == f"wrote {out} (memory layout picture)\n"
    out = tmp_path / "a.svg"
    assert main(["draw", str(EXAMPLES / "paper_layout_a.json"), "--output", str(out), "--max-side", "8"]) == 0
    assert out.read_bytes().startswith(b"<?xml")


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["draw", "{missing}", "-o", "{tmp}/x.png"], "no such file"),
        (["draw", "{bad}", "-o", "{tmp}/x.png"], "cannot tell what to draw"),
        (["draw", "{layout}", "-o", "{tmp}/x.pdf"], ".png or .svg"),
        (["draw", "{layout}", "-o", "{tmp}/x.png", "--element-bits", "16"], "element_bits applies"),
        (["draw", "{layout}"], "required: -o/--output"),
        (["draw", "{layout}", "-o", "{tmp}/no/such/dir/x.png"], "cannot write"),
    ],
)
def test_cli_draw_errors(mpl, tmp_path, capsys, args, fragment):
    bad = tmp_path / "bad.json"
    bad.write_text('{"hello": 1}')
    subs = {"missing": str(tmp_path / "missing.json"), "bad": str(bad), "tmp": str(tmp_path),
            "layout": str(EXAMPLES / "paper_layout_a.json")}
    assert main([a.format(**subs) for a in args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and fragment in err
