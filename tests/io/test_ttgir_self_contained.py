"""What lint prints stands alone: every layout is self-contained (aliases resolved, a slice's parent inline) and reads
back to the layout lint used, and every conversion it reports carries a ``linlayout convert`` query that runs."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from linlayout.cli import main
from linlayout.io.ttgir.attributes import parse_attribute
from linlayout.io.ttgir.encodings import layout_from_encoding
from linlayout.io.ttgir.lint import lint_json, lint_text, render_lint

DATA = Path(__file__).resolve().parents[1] / "data"
KERNELS = ("red_sum_row_fp16_4x2048_w8", "colsum", "softmax")
ALIAS = re.compile(r"#(?!ttg\.|ttng\.|amdgpu\.|triton_gpu\.)[A-Za-z_][\w$-]*(?![\w.$<-])")


@pytest.mark.parametrize("name", KERNELS)
def test_printed_layouts_name_no_alias_and_read_back_to_the_layouts_lint_used(name):
    report = lint_text((DATA / "ttgir39" / f"{name}.ttgir").read_text(), triton="3.9")
    text, doc = render_lint(report), lint_json(report)
    assert not ALIAS.findall(text), ALIAS.findall(text)
    for op, rec in zip(doc["ops"], report.ops):
        assert not ALIAS.findall(op["layout"] + op["memory"]), op["layout"]
        if rec.op == "ttg.convert_layout" and rec.layouts is not None:
            src_text, dst_text = op["layout"].split(" -> ")
            for printed, layout in ((src_text, rec.layouts[0]), (dst_text, rec.layouts[1])):
                read = layout_from_encoding(parse_attribute(printed), list(rec.shape))
                assert read == layout


def test_a_slice_prints_its_parent_inline():
    report = lint_text((DATA / "ttgir36" / "red_sum_row_fp16_4x2048_w8.ttgir").read_text(), triton="3.6")
    (cvt,) = [o for o in report.ops if o.op == "ttg.convert_layout"]
    assert cvt.layout_text.startswith("#ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [1, 8], ")


def test_every_reported_conversion_has_a_query_that_linlayout_convert_runs(tmp_path, capsys):
    """A convert_layout and Triton 3.9's reduction exchange (its partials converted through scratch) alike."""
    doc = lint_json(lint_text((DATA / "ttgir39" / "colsum.ttgir").read_text(), triton="3.9"))
    converting = [o for o in doc["ops"] if o["op"] == "ttg.convert_layout" or
                  (o["op"] == "tt.reduce" and o["counted"])]
    assert {o["op"] for o in converting} == {"ttg.convert_layout", "tt.reduce"}
    for o in converting:
        path = tmp_path / f"q{o['line']}.json"
        path.write_text(json.dumps(o["query"]))
        assert main(["convert", str(path), "--json"]) == 0, o["op"]
        assert json.loads(capsys.readouterr().out)["path"] in ("shared_memory", "shuffles", "registers")
