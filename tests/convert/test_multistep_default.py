"""The two-step search is on by default (API, query, JSON, CLI), and a search stopped at its work bound says so.

``plan_conversion`` searches two-step plans unless ``multistep=False`` (query key ``"multistep": false``,
``linlayout convert --no-multistep``); the search plans at most
:data:`~linlayout.convert.multistep.MAX_STEP_PLANS` steps, and a plan whose search stopped there reports the
intermediate layouts it left unsettled in ``explain()`` and its JSON.
"""

from __future__ import annotations

import contextlib
import io
import json

import linlayout.convert.multistep as multistep
from linlayout.cli import main
from linlayout.convert.plan import plan_conversion
from linlayout.convert.query import ConversionQuery
from linlayout.core.layout import LinearLayout
from linlayout.io.convert_io import convert_query_from_json

# tests/convert/test_plan.py's two-step win: one selp (11), then 2 shfl.sync (12 + 29), against 56 direct
WIN_SRC = LinearLayout({"register": [[0, 1]], "lane": [[0, 4], [0, 0], [0, 8], [1, 0], [0, 2]]},
                       {"dim0": 2, "dim1": 16})
WIN_DST = LinearLayout({"register": [[0, 0], [0, 4]], "lane": [[0, 5], [0, 2], [1, 5], [0, 8], [0, 0]]},
                       {"dim0": 2, "dim1": 16})
# a 16-bit warp-local pair whose search stops at the bound with one intermediate layout unsettled
STOP_SRC = LinearLayout({"register": [[0, 0], [0, 1], [0, 0]], "lane": [[8, 0], [2, 0], [16, 0], [1, 0], [4, 0]]},
                        {"dim0": 32, "dim1": 2})
STOP_DST = LinearLayout({"register": [[8, 0]], "lane": [[0, 1], [2, 0], [16, 0], [1, 0], [4, 0]]},
                        {"dim0": 32, "dim1": 2})


def run_cli(argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = main(argv)
    return rc, out.getvalue()


def test_plan_conversion_and_the_query_search_two_steps_by_default():
    assert plan_conversion(WIN_SRC, WIN_DST, 16).path == "multistep"
    assert plan_conversion(WIN_SRC, WIN_DST, 16, multistep=False).path == "shared_memory"
    assert ConversionQuery(WIN_SRC, WIN_DST, 16).multistep is True
    assert plan_conversion(ConversionQuery(WIN_SRC, WIN_DST, 16, multistep=False)).path == "shared_memory"
    # paths= restricts the choice to one-step paths: no search
    assert plan_conversion(WIN_SRC, WIN_DST, 16, paths=["shuffles", "shared_memory"]).path == "shared_memory"


def test_the_cli_searches_unless_told_not_to(tmp_path):
    query = {"src": WIN_SRC.to_dict(), "dst": WIN_DST.to_dict(), "element_bits": 16}
    plain, off = tmp_path / "q.json", tmp_path / "off.json"
    plain.write_text(json.dumps(query))
    off.write_text(json.dumps(query | {"multistep": False}))
    assert convert_query_from_json(plain.read_text()).multistep is True
    paths = {}
    for name, argv in (("default", [str(plain)]), ("no", [str(plain), "--no-multistep"]),
                       ("query false", [str(off)]), ("flag over query", [str(off), "--multistep"])):
        rc, out = run_cli(["convert", *argv, "--json"])
        assert rc == 0
        paths[name] = json.loads(out)["path"]
    assert paths == {"default": "multistep", "no": "shared_memory", "query false": "shared_memory",
                     "flag over query": "multistep"}


def test_a_search_stopped_at_the_bound_says_so_and_costs_no_more_than_one_step():
    plan = plan_conversion(STOP_SRC, STOP_DST, 16)
    one = plan_conversion(STOP_SRC, STOP_DST, 16, multistep=False)
    assert plan.multistep_unsettled == 1 and one.multistep_unsettled == 0
    assert plan.cost <= one.cost
    assert f"stopped at its bound of {multistep.MAX_STEP_PLANS} step plans with 1 intermediate layout unsettled" \
        in plan.explain()
    assert plan.to_dict()["multistep_unsettled"] == 1 and "multistep_unsettled" not in one.to_dict()
    assert "stopped" not in plan_conversion(WIN_SRC, WIN_DST, 16).explain()  # a search that completed
