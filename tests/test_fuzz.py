"""Fuzzing the three surfaces (API, JSON, CLI): every input gets a correct answer or a clear error.

The contract checked here (issue 15):

* **API**: a public function returns, or raises an exception of the
  library's family (:class:`~linlayout.errors.LinLayoutError`: an
  :class:`~linlayout.errors.InputError` for bad input).  Nothing else escapes
  (no ``TypeError``, ``IndexError``, ``KeyError``, ``RecursionError``...).
* **JSON**: every reader turns any document (mutated examples, junk) into a
  value or a :class:`~linlayout.errors.LayoutJSONError`-family error, and a
  conflicts query that parses is answered.
* **CLI**: ``linlayout ...`` exits 0, 1 or 2; with 2 it prints exactly one
  line on stderr; it never shows a traceback.

Adding a surface is one entry: :func:`api` registers a function with one
strategy per argument (``valid | junk``), :data:`JSON_READERS` takes a
reader of decoded JSON, :data:`CLI_COMMANDS` an argument vector builder.

Profiles: the CI profile runs a few examples per surface (a few seconds in
all).  ``python tools/fuzz.py`` (or ``LINLAYOUT_FUZZ_EXAMPLES=5000``) runs the
long profile.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import linlayout as ll
from linlayout.cli import main
from linlayout.errors import LinLayoutError

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
LONG = int(os.environ.get("LINLAYOUT_FUZZ_EXAMPLES", "0"))


def fuzz_settings(fast: int):
    """``fast`` examples in CI, ``LINLAYOUT_FUZZ_EXAMPLES`` in the long profile."""
    return settings(max_examples=LONG or fast, deadline=None, derandomize=not LONG,
                    suppress_health_check=list(HealthCheck))


# -- values ---------------------------------------------------------------------------------------------

POW2 = st.sampled_from([1, 2, 4, 8, 16, 32, 64, 128])
SMALL_INT = st.one_of(POW2, st.integers(-3, 70), st.sampled_from([2**40, 2**70, -(2**63)]))
LAYOUTS = st.sampled_from([
    ll.ldmatrix(4),
    ll.blocked([32, 32], [1, 4], [4, 8], [1, 1], [1, 0]),
    ll.unswizzled([16, 32]),
    ll.LinearLayout({"lane": [[1, 1]]}, {"dim0": 2, "foo": 2}),
    ll.LinearLayout.empty(),
    ll.LinearLayout({"register": [[1], [2]], "lane": [[4]]}, {"dim0": 8}),
])
JUNK = st.deferred(lambda: st.one_of(
    SMALL_INT,
    st.booleans(),
    st.none(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([4.0, 16.0, 0.5]),
    st.text(max_size=6),
    st.sampled_from(["ld.shared", " ld.shared ", "ldmatrix.x4", "load", "store", "A", "C", "sm90", "128B", "dim0"]),
    st.lists(SMALL_INT, max_size=5),
    st.lists(st.lists(SMALL_INT, max_size=3), max_size=3),
    st.dictionaries(st.sampled_from(["lane", "register", "dim0", "x"]), SMALL_INT, max_size=3),
    LAYOUTS,
))


def arg(valid: st.SearchStrategy) -> st.SearchStrategy:
    """An argument: mostly a plausible value, sometimes junk."""
    return st.one_of(valid, valid, JUNK)


SHAPE = st.lists(POW2, min_size=1, max_size=3)
SHAPE2 = st.tuples(POW2, POW2).map(list)
OFFSETS = st.lists(st.integers(0, 4096).map(lambda x: x * 4), min_size=32, max_size=32)
HW = st.sampled_from(["sm90", None, ll.SharedMemory("toy", banks=4, lanes=4, matrix_rows=0),
                      ll.SharedMemory("two", lanes=2, matrix_rows=0)])
INSTR = st.sampled_from(["ld.shared", "st.shared", "ldmatrix.x4", "stmatrix.x2.trans", None, " ld.shared"])
OP = st.sampled_from(["load", "store", None])

# -- the API surface: name -> (function, argument strategies) -------------------------------------------

API: dict[str, tuple[Callable, tuple[st.SearchStrategy, ...]]] = {}


def api(name: str, fn: Callable, *args: st.SearchStrategy) -> None:
    """Register one entry point of the API with one strategy per positional argument."""
    API[name] = (fn, args)


api("LinearLayout", ll.LinearLayout, arg(st.dictionaries(st.sampled_from(["lane", "register"]),
                                                          st.lists(st.lists(SMALL_INT, max_size=2), max_size=3))),
    arg(st.dictionaries(st.sampled_from(["dim0", "dim1"]), POW2, max_size=2)))
api("apply", lambda L, x: L.apply(x), LAYOUTS, arg(st.dictionaries(st.sampled_from(["lane", "register"]), SMALL_INT)))
api("basis", lambda L, d, k: L.basis(d, k), LAYOUTS, arg(st.sampled_from(["lane", "offset"])), arg(st.integers(0, 3)))
api("compose", lambda a, b: a.compose(b), LAYOUTS, arg(LAYOUTS))
api("invert_and_compose", lambda a, b: a.invert_and_compose(b), LAYOUTS, arg(LAYOUTS))
api("divide_left", lambda a, b: a.divide_left(b), LAYOUTS, arg(LAYOUTS))
api("product", lambda a, b: a * b, LAYOUTS, LAYOUTS)
api("rename", lambda L, m: L.rename(m), LAYOUTS, arg(st.just({"lane": "t"})))
api("transpose_outs", lambda L, o: L.transpose_outs(o), LAYOUTS, arg(st.just(["dim1", "dim0"])))
api("sublayout", lambda L, i, o: L.sublayout(i, o), LAYOUTS, arg(st.just(["lane"])), arg(st.just(["dim0"])))
api("reshape_outs", lambda L, d: L.reshape_outs(d), LAYOUTS, arg(st.just({"flat": 512})))
api("identity", ll.LinearLayout.identity, arg(POW2), arg(st.just("lane")), arg(st.just("dim0")))
api("from_matrix", ll.LinearLayout.from_matrix, arg(st.just([[1, 0], [0, 1]])), arg(st.just({"lane": 4})),
    arg(st.just({"dim0": 4})))
api("blocked", ll.blocked, arg(SHAPE2), arg(SHAPE2), arg(st.just([4, 8])), arg(SHAPE2), arg(st.just([1, 0])))
api("sliced", ll.sliced, arg(LAYOUTS), arg(st.integers(0, 2)))
api("fit_to_shape", ll.fit_to_shape, arg(LAYOUTS), arg(SHAPE))
api("mma", ll.mma, arg(st.sampled_from("ABCD")), arg(SHAPE2), arg(st.sampled_from(["m16n8k16", "m16n8k8"])),
    arg(SHAPE2))
api("wgmma", ll.wgmma, arg(st.sampled_from("AC")), arg(st.just([64, 16])), arg(st.sampled_from([8, 16])),
    arg(st.sampled_from([16, 8])), arg(st.just([4, 1])))
api("ldmatrix", ll.ldmatrix, arg(st.sampled_from([1, 2, 4])), arg(st.booleans()))
api("mfma", ll.mfma, arg(st.sampled_from("ABC")), arg(st.sampled_from(["32x32x8", "16x16x16"])))
api("cute_tv_layout", ll.cute_tv_layout, arg(st.just(((4, 8), 2))), arg(st.just(((2, 8), 1))), arg(st.just((8, 8))))
api("unswizzled", ll.unswizzled, arg(SHAPE), arg(st.just([0])))
api("padded", ll.padded, arg(SHAPE2), arg(st.integers(0, 4)))
api("PaddedLayout", ll.PaddedLayout, arg(st.just((32, 32))), arg(st.integers(0, 4)))
api("mma_swizzle", ll.mma_swizzle, arg(POW2), arg(POW2), arg(POW2), arg(POW2), arg(POW2))
api("cute_layout", ll.cute_layout, arg(st.just((8, 8))), arg(st.just((1, 8))))
api("cute_swizzle", lambda b, m, s, lay: ll.cute_swizzle(b, m, s, lay), arg(st.integers(0, 3)),
    arg(st.integers(0, 4)), arg(st.integers(-3, 3)), arg(st.just(((8, 8), (8, 1)))))
api("tma_swizzle", ll.tma_swizzle, arg(st.sampled_from([0, 32, 64, 128])), arg(SHAPE2), arg(st.sampled_from([8, 16])))
api("nvmma_layout", ll.nvmma_layout, arg(st.just([64, 128])), arg(st.sampled_from([8, 16])),
    arg(st.sampled_from([0, 32, 64, 128])), arg(st.booleans()))
api("wavefronts", ll.wavefronts, arg(LAYOUTS), arg(LAYOUTS), arg(st.sampled_from([8, 16, 32])), arg(OP), arg(INSTR),
    arg(st.sampled_from([None, 32, 64])), arg(HW))
api("simulate_wavefronts", ll.simulate_wavefronts, arg(LAYOUTS), arg(LAYOUTS), arg(st.sampled_from([16, 32])),
    arg(OP), arg(INSTR), arg(st.none()), arg(HW))
api("access_wavefronts", ll.access_wavefronts, arg(INSTR), arg(OP), arg(st.sampled_from([4, 8, 16])), arg(OFFSETS),
    arg(HW))
api("simulate_access", ll.simulate_access, arg(INSTR), arg(OP), arg(st.sampled_from([4, 8, 16])), arg(OFFSETS),
    arg(HW))
api("simulate_batch", ll.simulate_batch, arg(INSTR), arg(OP), arg(st.sampled_from([4, 16])),
    arg(st.lists(OFFSETS, max_size=3)), arg(HW))
api("parse_instruction", ll.parse_instruction, arg(INSTR), arg(OP))
api("get_hardware", ll.get_hardware, arg(st.sampled_from(["sm90", None])))
api("SharedMemory", lambda n, b, lanes, rows: ll.SharedMemory(n, banks=b, lanes=lanes, matrix_rows=rows),
    arg(st.just("m")), arg(POW2), arg(POW2), arg(st.sampled_from([0, 8])))
api("to_c", ll.to_c, arg(LAYOUTS))
api("to_cute", ll.to_cute, arg(LAYOUTS))
api("to_triton", ll.to_triton, arg(LAYOUTS), arg(st.sampled_from([16, 32])))
api("optimal_swizzle", lambda w, r, eb, hw, obj, ins: ll.optimal_swizzle(w, r, eb, hardware=hw, objective=obj,
                                                                        instructions=ins),
    arg(LAYOUTS), arg(LAYOUTS), arg(st.sampled_from([16, 32])), arg(HW), arg(st.sampled_from(sorted(ll.OBJECTIVES))),
    arg(st.sampled_from([None, ["st.shared", "ldmatrix.x4"], [" st.shared ", "ld.shared"]])))
api("compare_swizzles", ll.compare_swizzles, arg(LAYOUTS), arg(LAYOUTS), arg(st.sampled_from([16, 32])))
api("strided", ll.LinearLayout.strided, arg(POW2), arg(POW2), arg(st.just("lane")), arg(st.just("dim0")))
api("zeros", ll.LinearLayout.zeros, arg(POW2), arg(st.just("warp")), arg(st.just("dim0")), arg(POW2))
api("from_flat", ll.LinearLayout.from_flat, arg(st.just((("offset", 2),))), arg(st.just((("dim0", 2),))),
    arg(st.just([(1, 2)])))
api("from_json", ll.LinearLayout.from_json, arg(st.just('{"bases": {"lane": [1, 2]}}')))
api("reshape_ins", lambda L, d: L.reshape_ins(d), LAYOUTS, arg(st.just({"x": 256})))
api("divide_right", lambda a, b: a.divide_right(b), LAYOUTS, arg(LAYOUTS))
api("pseudo_invert", lambda L: L.pseudo_invert(), LAYOUTS)
api("out_coords", lambda L, v: L.out_coords(v), LAYOUTS, arg(st.integers(0, 64)))
api("out_flat", lambda L, m: L.out_flat(m), LAYOUTS, arg(st.just({"dim0": 1})))
api("in_size", lambda L, d: L.in_size(d), LAYOUTS, arg(st.just("lane")))
api("grid", lambda L: L.grid(), LAYOUTS)
api("lane_byte_offsets", ll.lane_byte_offsets, arg(LAYOUTS), arg(LAYOUTS), arg(st.sampled_from([16, 32])), arg(OP),
    arg(INSTR), arg(st.none()), arg(HW))
api("plan_access", ll.plan_access, arg(LAYOUTS), arg(LAYOUTS), arg(st.sampled_from([16, 32])), arg(OP), arg(INSTR),
    arg(st.none()), arg(HW))
api("fit_affine", ll.fit_affine, arg(st.lists(st.integers(0, 64), min_size=4, max_size=4)))
api("standard_candidates", ll.standard_candidates, st.just([16, 32]), st.sampled_from([16, 32]))  # synth/: no junk
api("offset_terms", ll.offset_terms, arg(LAYOUTS))
api("decode", ll.decode, arg(st.just('{"a": 1}')))
api("register_hardware", ll.register_hardware, arg(st.just(ll.SharedMemory("fuzz-model", matrix_rows=0))))
api("Instruction", ll.Instruction, arg(st.sampled_from(["ld.shared", "ldmatrix"])), arg(st.sampled_from([1, 4])),
    arg(st.booleans()))

# The conversion planner (linlayout.convert) and the TTGIR reader (linlayout.io.ttgir).
CONVERT_PAIRS = st.sampled_from([
    ll.blocked([32, 32], [1, 4], [4, 8], [1, 1], [1, 0]),
    ll.blocked([32, 32], [4, 1], [8, 4], [1, 1], [0, 1]),
    ll.mma("C", [16, 16], "m16n8k16", (1, 1)),
    ll.LinearLayout({"register": [[1, 0]], "lane": [[2, 0], [4, 0], [8, 0], [16, 0], [0, 1]]}, {"dim0": 32, "dim1": 2}),
    ll.LinearLayout({"register": [[0, 1]], "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]}, {"dim0": 32, "dim1": 2}),
])
TTGIR_FILES = sorted((ROOT / "tests" / "data" / "ttgir").glob("*.ttgir"))
TTGIR_ATTRS = st.sampled_from([
    "tensor<32x32xf16, #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], "
    "order = [1, 0]}>>",
    "tensor<16x16xf32, #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], "
    "instrShape = [16, 8]}>>",
    "!ttg.memdesc<64x64xf16, #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>, "
    "#smem, mutable>",
    "#ttg.linear<{register = [[1], [2]], lane = [], warp = [], block = []}>",
])


@st.composite
def mutated_text(draw, texts):
    """A real TTGIR text, sometimes cut short or with a few characters replaced."""
    text = draw(texts)
    for _ in range(draw(st.integers(0, 3))):
        i = draw(st.integers(0, max(0, len(text) - 1)))
        text = text[:i] + draw(st.sampled_from(["", "<", ">", "{", "}", "[", "]", ",", "=", "#", "x", "9", "\x00",
                                                  "-1", "99999999999"])) + text[i + 1:]
    if draw(st.booleans()):
        text = text[: draw(st.integers(0, len(text)))]
    return text


TTGIR_MODULES = st.sampled_from([p.read_text() for p in TTGIR_FILES[:4]])
api("plan_conversion", ll.plan_conversion, arg(CONVERT_PAIRS), arg(CONVERT_PAIRS), arg(st.sampled_from([8, 16, 32])),
    arg(HW), arg(st.sampled_from([None, 256, 1024])))
api("plan_gather", ll.plan_gather, arg(CONVERT_PAIRS), arg(CONVERT_PAIRS), arg(st.integers(0, 1)),
    arg(st.sampled_from([16, 32])))
api("max_vector", ll.max_vector, arg(CONVERT_PAIRS), arg(LAYOUTS), arg(st.sampled_from([8, 16, 32])), arg(OP))
api("layout_from_ttgir", ll.layout_from_ttgir, arg(mutated_text(TTGIR_ATTRS)))
api("parse_module", ll.parse_module, arg(mutated_text(TTGIR_MODULES)))
api("lint_text", ll.lint_text, arg(mutated_text(TTGIR_MODULES)), arg(st.sampled_from([None, 1, 4])))


@pytest.mark.parametrize("name", sorted(API))
def test_api_answers_or_raises_library_errors(name):
    fn, strategies = API[name]

    @fuzz_settings(6)
    @given(st.tuples(*strategies))
    def run(args):
        try:
            fn(*args)
        except LinLayoutError:
            pass

    run()


# -- the JSON surface -----------------------------------------------------------------------------------

EXAMPLE_DOCS = [json.loads(p.read_text()) for p in sorted(EXAMPLES.glob("*.json"))] + [
    {"layout": {"mma": {"operand": "A", "shape": [16, 16]}}, "memory": {"swizzle": "tma32B"}, "element_bits": 16,
     "op": "load", "instruction": "ldmatrix.x4"},
    {"layout": {"blocked": {"shape": [32, 32], "size_per_thread": [1, 4], "threads_per_warp": [4, 8],
                            "warps_per_cta": [1, 1], "order": [1, 0]}}, "memory": {"row_major": [32, 32]},
     "element_bits": 32},
    {"write": {"ldmatrix": 4}, "read": {"ldmatrix": {"matrices": 4, "trans": True}}, "element_bits": 16},
    {"layout": {"bases": {"lane": [1, 2, 4, 8, 16]}}, "rank": 5, "memory_layout": False},
]
"""The examples, plus named layouts (io/named.py) and a show --json document, to mutate."""


@st.composite
def mutated(draw, doc=None):
    """An example document with a few values replaced by junk, keys dropped or nesting added."""
    obj = json.loads(json.dumps(draw(st.sampled_from(EXAMPLE_DOCS)) if doc is None else doc))
    for _ in range(draw(st.integers(0, 3))):
        path = []
        node = obj
        while isinstance(node, (dict, list)) and node and draw(st.booleans()):
            key = draw(st.sampled_from(sorted(node) if isinstance(node, dict) else list(range(len(node)))))
            path.append((node, key))
            node = node[key]
        if not path:
            break
        parent, key = path[-1]
        action = draw(st.sampled_from(["junk", "drop", "wrap"]))
        if action == "drop" and isinstance(parent, dict):
            del parent[key]
        elif action == "wrap":
            parent[key] = [parent[key]]
        else:
            parent[key] = draw(st.one_of(SMALL_INT, st.booleans(), st.none(), st.text(max_size=4),
                                         st.sampled_from([1.5, 16.0, [], {}, [[]]])))
    return obj


def _conflicts(doc):
    q = ll.conflicts_query_from_json(doc)
    return ll.access_wavefronts(q) if q.kind == "access" else ll.wavefronts(q)


def _family(doc):
    from linlayout.io.families import family_from_json

    return family_from_json(doc)


def _picture(doc):
    from linlayout.io.draw import picture_kind

    return picture_kind(doc)


RAW_JSON = st.sampled_from(["[" * 100000, "1" * 5000, '{"bases": {"lane": [[' + "9" * 5000 + "]]}}", "{", "\x00",
                            "[1, 2", '{"bases": 1e999}', "NaN", b"\xff\xfe"])
"""JSON text the decoder must refuse clearly: deep nesting, huge integer literals, truncation, bad bytes."""

JSON_READERS: dict[str, Callable] = {
    "layout": ll.layout_from_json,
    "memory": ll.memory_from_json,
    "conflicts": _conflicts,
    "swizzle": ll.swizzle_query_from_json,
    "family": _family,
    "picture_kind": _picture,
    "convert": ll.convert_query_from_json,
}


@pytest.mark.parametrize("reader", sorted(JSON_READERS))
def test_json_readers_answer_or_raise_library_errors(reader):
    @fuzz_settings(10)
    @given(st.one_of(mutated(), JUNK.filter(lambda x: not isinstance(x, ll.LinearLayout)), RAW_JSON))
    def run(doc):
        try:
            JSON_READERS[reader](doc)
        except LinLayoutError:
            pass

    run()


# -- the CLI surface ------------------------------------------------------------------------------------

FLAG_VALUES = st.sampled_from(["x", "-5", "0", "5", "4.0", "[1]", '{"a":1}', "[[[[1]]]]", "", "16", "64"])
SHOW_FLAGS = ["--shape", "--operand", "--bits", "--instr", "--n", "--warps-per-cta", "--size-per-thread",
              "--threads-per-warp", "--order", "--matrices", "--tv", "--json", "--no-grid", "--trans"]


@st.composite
def show_argv(draw, path):
    name = draw(st.sampled_from(["blocked", "mma", "wgmma", "ldmatrix", "mfma", "cute", "blockd", path]))
    argv = ["show", name]
    for flag in draw(st.lists(st.sampled_from(SHOW_FLAGS), max_size=4)):
        argv.append(flag)
        if flag not in ("--json", "--no-grid", "--trans"):
            argv += draw(st.lists(FLAG_VALUES, min_size=1, max_size=3))
    return argv


@st.composite
def query_argv(draw, path):
    cmd = draw(st.sampled_from(["conflicts", "swizzle"]))
    flags = {"conflicts": ["--json", "--simulate", "--all-banks"], "swizzle": ["--json", "--compare", "--emit"]}[cmd]
    argv = [cmd, path]
    for flag in draw(st.lists(st.sampled_from(flags), max_size=2, unique=True)):
        argv.append(flag)
        if flag == "--emit":
            argv.append(draw(st.sampled_from(["json", "c", "cute", "triton", "x"])))
    return argv


@st.composite
def sweep_argv(draw, path):
    argv = ["sweep", "--mask-bits", draw(st.sampled_from(["1", "0", "9", "x"])), "--library-check", "2",
            "--no-progress"]
    for flag in draw(st.lists(st.sampled_from(["--seed", "--sample", "--jobs", "--examples"]), max_size=2,
                              unique=True)):
        argv += [flag, draw(st.sampled_from(["-5", "0", "1", "3", "x"]))]
    return argv


@st.composite
def draw_argv(draw, path):
    out = str(Path(path).with_name("out" + draw(st.sampled_from([".png", ".svg", ".jpg", ""]))))
    argv = ["draw", path, "-o", out]
    for flag in draw(st.lists(st.sampled_from(["--max-side", "--element-bits"]), max_size=2, unique=True)):
        argv += [flag, draw(st.sampled_from(["-5", "0", "1", "3", "8", "x", "100000"]))]
    return argv


@st.composite
def convert_argv(draw, path):
    argv = ["convert", path]
    for flag in draw(st.lists(st.sampled_from(["--json", "--emit"]), max_size=2, unique=True)):
        argv.append(flag)
        if flag == "--emit":
            argv.append(draw(st.sampled_from(["cuda", "x"])))
    return argv


@st.composite
def lint_argv(draw, path):
    """``lint`` of a (possibly damaged) corpus kernel, written next to the query file."""
    ttgir = str(Path(path).with_suffix(".ttgir"))
    Path(ttgir).write_text(draw(mutated_text(TTGIR_MODULES)))
    argv = ["lint", ttgir]
    for flag in draw(st.lists(st.sampled_from(["--json", "--num-warps", "--grid", "--trip-count"]), max_size=2,
                              unique=True)):
        argv.append(flag)
        if flag == "--num-warps":
            argv.append(draw(st.sampled_from(["4", "0", "-1", "x"])))
        elif flag == "--grid":
            argv += draw(st.lists(st.sampled_from(["1", "2", "0", "x"]), min_size=1, max_size=3))
        elif flag == "--trip-count":
            argv.append(draw(st.sampled_from(["a.py:3=4", "x", "=", "loc=-2"])))
    return argv


CLI_COMMANDS: dict[str, Callable] = {"show": show_argv, "query": query_argv, "sweep": sweep_argv,
                                     "convert": convert_argv, "lint": lint_argv}
if LONG:  # pictures take a second or more each: the long profile only
    CLI_COMMANDS["draw"] = draw_argv


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    """Run ``linlayout argv`` in this process; return (status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(argv)
        except SystemExit as e:  # --help, --version
            rc = e.code
    return rc, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("command", sorted(CLI_COMMANDS))
def test_cli_exits_0_1_2_with_one_line(command):
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "q.json")

        @fuzz_settings(8)
        @given(CLI_COMMANDS[command](path), mutated())
        def run(argv, doc):
            Path(path).write_text(json.dumps(doc))
            rc, _, err = run_cli(argv)
            assert rc in (0, 1, 2), (argv, rc, err)
            if rc == 2:
                assert err.count("\n") == 1 and "Traceback" not in err, (argv, err)

        run()
