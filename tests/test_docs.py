"""Every fenced block of README.md and docs/*.md runs, and the output it shows is the output it gives.

The convention (also in docs/reference.md, "How the pages are tested"). A block's info string says
what it is; any other info string, or none, fails the test:

``python``
    Executed. The blocks of one page run in order in one namespace, in a fresh interpreter. A line
    ``EXPR  # -> TEXT`` (at the block's top level) checks ``repr(EXPR) == TEXT``. A ```` ```text ````
    block that follows a python block with only blank lines between is that block's standard output.
``console``
    ``$ COMMAND`` lines, each followed by what it prints (standard output and error, interleaved).
    ``linlayout ARGS`` runs ``python -m linlayout ARGS``; ``python SCRIPT ARGS`` runs the script.
    A command must exit 0 unless its output ends with a line ``[exit N]``.
``sh``
    Commands whose output is not shown, one a line (a trailing ``# comment`` is allowed); each must
    exit 0.
``usage``
    Synopses ``linlayout VERB [--option ...]``: every ``--option`` named must be one of VERB's options.
``json``
    A document, run through the command that reads its kind: a layout (``"bases"`` or a constructor
    name) through ``linlayout show``, a sweep family (``"toggles"``) through ``linlayout sweep --sample
    16``, a swizzle query (``"write"``) through ``linlayout swizzle``, a convert query (``"src"``)
    through ``linlayout convert``, any other query through ``linlayout conflicts``; it must exit 0.

Output is compared line by line after removing trailing whitespace and trailing blank lines. A line
``...`` stands for any number of lines, and ``...`` inside a line for any text within that line:
pages use it to shorten long outputs and for the one thing that changes between runs (time).

``<!-- not-run: REASON -->`` on the line before a block skips it (a GPU, ncu, ``pip install``, a long
benchmark). ``NOT_RUN`` below counts them per page, so none is skipped silently; the two set-up
commands of the README are checked against ``.ci/run`` instead.

Commands and blocks run with the working directory in a scratch folder in which ``examples/``,
``tests/``, ``tools/``, ``benchmarks/`` and ``paper_notes/`` are the repository's and ``docs/`` is
empty (so ``linlayout draw ... -o docs/x.png`` writes there). Each page runs once, in one subprocess
(the commands through ``runpy``, as ``python -m`` does), so the test stays fast.

``python tests/test_docs.py --update [PAGE ...]`` rewrites the shown outputs from what the code prints
now (keeping a shortened output's first and last lines around its ``...``); review the diff.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = ["README.md", *sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").glob("*.md"))]
LINKED_INPUTS = ("examples", "tests", "tools", "benchmarks", "paper_notes")

# Blocks marked <!-- not-run: ... --> per page. Adding one is a visible change of this table.
NOT_RUN = {
    "README.md": 3,  # the virtual environment and the two set-up commands (checked against .ci/run)
    "docs/counting.md": 2,  # the full 2^20 sweep; the GPU validation run
    "docs/performance.md": 2,  # the benchmark script; the whole test suite
    "docs/layouts.md": 1,  # the hardware probes (a GPU)
    "docs/architecture.md": 1,  # the layer diagram
    "docs/pictures.md": 1,  # the swizzle picture (2.5 s; tests/io/test_draw.py draws it)
}


# Pages whose commands need an optional extra (installed by the test extra): skipped, with the reason, without it.
NEEDS = {"docs/pictures.md": "matplotlib"}

FENCE = re.compile(r"^```(\S*)\s*$")
NOT_RUN_MARK = re.compile(r"^<!--\s*not-run:\s*(\S.*?)\s*-->$")
CHECK = re.compile(r"^(?P<expr>\S.*?)\s+#\s*->\s*(?P<repr>.+?)\s*$")
KINDS = {"python", "console", "sh", "usage", "json", "text"}


@dataclass
class Block:
    """One fenced block: its kind, text lines, the line after its opening fence, and how it is handled."""

    kind: str
    lines: list[str]
    line: int
    not_run: str | None = None
    output: Block | None = None  # the text block showing a python block's output
    attached: bool = False  # a text block that is some python block's output


def parse_blocks(text: str) -> list[Block]:
    """The fenced blocks of a page, with their not-run marks and python/text pairs."""
    lines = text.split("\n")
    blocks: list[Block] = []
    i, last_end = 0, -10
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and lines[j] != "```":
            j += 1
        mark = NOT_RUN_MARK.match(lines[i - 1].strip()) if i else None
        block = Block(m.group(1), lines[i + 1:j], i + 2, mark.group(1) if mark else None)
        between = lines[last_end + 1:i]
        if block.kind == "text" and blocks and blocks[-1].kind == "python" and not any(s.strip() for s in between):
            blocks[-1].output, block.attached = block, True
        blocks.append(block)
        last_end, i = j, j + 1
    return blocks


def commands_of(block: Block) -> list[tuple[str, list[str]]]:
    """(command, expected output lines) of a console or sh block."""
    if block.kind == "sh":
        return [(re.sub(r"\s+#.*$", "", s).strip(), []) for s in block.lines if s.strip()]
    out: list[tuple[str, list[str]]] = []
    for s in block.lines:
        if s.startswith("$ "):
            out.append((s[2:].strip(), []))
        else:
            assert out, f"console block at line {block.line}: output before the first '$ ' command"
            out[-1][1].append(s)
    return out


def json_command(doc: dict) -> list[str]:
    """The linlayout command that reads a json block's kind of document (its file name is appended)."""
    if "bases" in doc or "layout" not in doc and len(doc) == 1:
        return ["show"]
    if "toggles" in doc:
        return ["sweep", "--sample", "16", "--library-check", "4"]
    if "write" in doc:
        return ["swizzle"]
    if "src" in doc:
        return ["convert"]
    return ["conflicts"]


def argv_of(command: str) -> list[str]:
    """A page's command as argv for the driver: ['-m', 'linlayout', ...] or [SCRIPT, ...]."""
    words = shlex.split(command)
    assert not set(words) & {"|", ">", "<", "&&", ";"}, f"pipes and redirections are not run: {command}"
    if words[0] == "linlayout":
        return ["-m", "linlayout", *words[1:]]
    assert words[0] in ("python", "python3") and words[1:] and words[1] != "-m", f"not a runnable command: {command}"
    return words[1:]


# The driver runs a page's steps in order in one interpreter and prints their results as JSON.
DRIVER = r'''
import contextlib, io, json, runpy, sys, traceback, warnings

# A page that reaches the library through a deprecated path or name fails (its block raises).
warnings.filterwarnings("error", category=DeprecationWarning, message=r"linlayout")

ns = {"__name__": "__docs__"}

def run_argv(argv):
    buf = io.StringIO()
    saved = sys.argv
    code = 0
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        try:
            if argv[0] == "-m":
                sys.argv = [argv[1], *argv[2:]]
                runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
            else:
                sys.argv = list(argv)
                runpy.run_path(argv[0], run_name="__main__")
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
            if isinstance(e.code, str):
                print(e.code, file=sys.stderr)
        except BaseException:
            code = 1
            traceback.print_exc()
        finally:
            sys.argv = saved
    return {"output": buf.getvalue(), "code": code}

def run_python(code):
    buf = io.StringIO()
    values, error = {}, None
    ns["__record__"] = lambda n, v: values.__setitem__(str(n), repr(v))
    with contextlib.redirect_stdout(buf):
        try:
            exec(compile(code, "<docs block>", "exec"), ns)
        except BaseException:
            error = traceback.format_exc()
    return {"output": buf.getvalue(), "values": values, "error": error}

results = []
for step in json.load(sys.stdin):
    if step["kind"] == "python":
        results.append(run_python(step["code"]))
    else:
        results.append(run_argv(step["argv"]))
sys.stdout.write(json.dumps(results))
'''


def python_step(block: Block) -> dict:
    """Rewrite ``EXPR  # -> TEXT`` lines into ``__record__(n, EXPR)`` and remember the expected TEXTs."""
    code, checks = [], {}
    for n, s in enumerate(block.lines):
        m = CHECK.match(s)
        if m:
            checks[str(n)] = m.group("repr")
            code.append(f"__record__({n}, ({m.group('expr')}))")
        else:
            code.append(s)
    return {"kind": "python", "code": "\n".join(code), "checks": checks}


def steps_of(blocks: list[Block], scratch: Path) -> list[tuple[Block, int, dict]]:
    """Every step of a page: (block, index of the command in the block, driver step)."""
    steps = []
    for b in blocks:
        if b.not_run or b.attached:
            continue
        if b.kind == "python":
            steps.append((b, 0, python_step(b)))
        elif b.kind in ("console", "sh"):
            steps += [(b, k, {"kind": "argv", "argv": argv_of(c)}) for k, (c, _) in enumerate(commands_of(b))]
        elif b.kind == "usage":
            verbs = sorted({shlex.split(s)[1] for s in b.lines if s.strip()})
            steps += [(b, k, {"kind": "argv", "argv": ["-m", "linlayout", v, "--help"]}) for k, v in enumerate(verbs)]
        elif b.kind == "json":
            doc = json.loads("\n".join(b.lines))
            path = scratch / f"block_{b.line}.json"
            path.write_text(json.dumps(doc))
            steps.append((b, 0, {"kind": "argv", "argv": ["-m", "linlayout", *json_command(doc), path.name]}))
    return steps


@dataclass
class PageRun:
    blocks: list[Block]
    results: dict[tuple[int, int], dict] = field(default_factory=dict)


@lru_cache(maxsize=None)
def run_page(page: str) -> PageRun:
    """Run every block of a page once, in one subprocess, in a scratch folder."""
    blocks = parse_blocks((ROOT / page).read_text())
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        for name in LINKED_INPUTS:
            (scratch / name).symlink_to(ROOT / name)
        (scratch / "docs").mkdir()
        steps = steps_of(blocks, scratch)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
               "COLUMNS": "100"}
        proc = subprocess.run([sys.executable, "-c", DRIVER], input=json.dumps([s for _, _, s in steps]),
                              capture_output=True, text=True, cwd=scratch, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    results = json.loads(proc.stdout)
    run = PageRun(blocks)
    for (b, k, _), r in zip(steps, results):
        run.results[(b.line, k)] = r
    return run


def normalise(text: str | list[str]) -> list[str]:
    lines = [s.rstrip() for s in (text.split("\n") if isinstance(text, str) else text)]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def matches(expected: list[str], actual: list[str]) -> bool:
    """Exact line match, where a line ``...`` is any lines and ``...`` in a line is any text."""
    parts = []
    for s in normalise(expected):
        parts.append(r"(?:[^\n]*\n)*?" if s == "..." else ".*?".join(map(re.escape, s.split("..."))) + r"\n")
    return re.fullmatch("".join(parts), "".join(s + "\n" for s in normalise(actual)), re.S) is not None


def split_exit(expected: list[str]) -> tuple[list[str], int]:
    lines = normalise(expected)
    if lines and re.fullmatch(r"\[exit \d+\]", lines[-1]):
        return lines[:-1], int(lines[-1][6:-1])
    return lines, 0


def failures(page: str) -> list[str]:
    """What differs between a page and what its blocks do, one message per failing block or command."""
    run = run_page(page)
    bad = []
    for b in run.blocks:
        where = f"{page}:{b.line}"
        if b.kind not in KINDS:
            bad.append(f"{where}: block without a known info string ({b.kind or 'none'!r}); see tests/test_docs.py")
        elif b.kind == "text" and not b.attached and not b.not_run:
            bad.append(f"{where}: a text block must follow a python block (its output)")
        if b.not_run or b.kind not in KINDS or b.attached:
            continue
        if b.kind == "python":
            r = run.results[(b.line, 0)]
            if r["error"]:
                bad.append(f"{where}: raised\n{r['error']}")
                continue
            step = python_step(b)
            for n, want in step["checks"].items():
                got = r["values"].get(n)
                if got != want:
                    bad.append(f"{page}:{b.line + int(n)}: {b.lines[int(n)].strip()}\n    gives {got}")
            if b.output is not None and not matches(b.output.lines, r["output"].split("\n")):
                bad.append(f"{where}: printed\n{r['output']}")
        elif b.kind in ("console", "sh", "json"):
            cmds = commands_of(b) if b.kind != "json" else [("(json document)", [])]
            for k, (cmd, want) in enumerate(cmds):
                r = run.results[(b.line, k)]
                lines, code = split_exit(want)
                if r["code"] != code:
                    bad.append(f"{where}: {cmd}: exit {r['code']}, expected {code}\n{r['output']}")
                elif b.kind == "console" and not matches(lines, r["output"].split("\n")):
                    bad.append(f"{where}: {cmd}: printed\n{r['output']}")
        elif b.kind == "usage":
            helps = {shlex.split(s)[1] for s in b.lines if s.strip()}
            texts = {v: run.results[(b.line, k)]["output"] for k, v in enumerate(sorted(helps))}
            for s in b.lines:
                if not s.strip():
                    continue
                verb = shlex.split(s)[1]
                for opt in re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", s):
                    if not re.search(rf"(?<![\w-]){re.escape(opt)}(?![\w-])", texts[verb]):
                        bad.append(f"{where}: linlayout {verb} has no option {opt}")
    return bad


@pytest.mark.parametrize("page", PAGES)
def test_page_blocks_run_and_show_their_output(page):
    if page in NEEDS:
        pytest.importorskip(NEEDS[page])
    bad = failures(page)
    assert not bad, "\n\n".join(bad)


@pytest.mark.parametrize("page", PAGES)
def test_not_run_blocks_are_counted(page):
    """Skipped blocks are few, named in NOT_RUN, and say why."""
    marked = [b for b in parse_blocks((ROOT / page).read_text()) if b.not_run]
    assert len(marked) == NOT_RUN.get(page, 0), [(b.line, b.not_run) for b in marked]


def test_every_page_is_tested():
    assert set(NOT_RUN) <= set(PAGES)
    assert "README.md" in PAGES and len(PAGES) >= 8


def test_readme_setup_commands_are_the_ones_ci_runs():
    """The two set-up commands are not run here (they install); .ci/run runs them, word for word."""
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    install_and_test = "pip install -e '.[test]' && pytest"
    install_and_run = "pip install . && linlayout swizzle examples/transpose_16x32.json"
    for command in (install_and_test, install_and_run):
        assert f"\n{command}\n" in readme
    assert f"\n{install_and_test}\n" in ci
    assert 'pip install -q "$repo"' in ci and 'linlayout" swizzle "$repo/examples/transpose_16x32.json"' in ci


def test_readme_is_a_front_page():
    lines = (ROOT / "README.md").read_text().split("\n")
    assert len(lines) <= 250
    for page in ("swizzle", "counting", "convert", "lint", "reference", "performance", "architecture"):
        assert f"docs/{page}.md" in "\n".join(lines), page


def test_links_between_pages_resolve():
    for page in PAGES:
        text = (ROOT / page).read_text()
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
            if "://" in target:
                continue
            assert (ROOT / page).parent.joinpath(target).exists(), f"{page}: broken link {target}"


def test_layouts_page_is_generated():
    """docs/layouts.md is what docs/make_layouts_md.py writes from the constructors."""
    sys.path.insert(0, str(ROOT / "docs"))
    try:
        import make_layouts_md
    finally:
        sys.path.remove(str(ROOT / "docs"))
    assert (ROOT / "docs" / "layouts.md").read_text() == make_layouts_md.render()


def test_a_wrong_output_fails(tmp_path):
    """The comparison itself: a changed number, a missing line and a wrong exit status are caught."""
    assert matches(["a 1", "...", "z"], ["a 1", "b", "c", "z"])
    assert matches(["took ... s"], ["took 5.3 s"])
    assert not matches(["a 2", "...", "z"], ["a 1", "b", "z"])
    assert not matches(["a 1"], ["a 1", "b"])
    assert split_exit(["error", "[exit 2]"]) == (["error"], 2)
    blocks = parse_blocks("```python\nx = 3\nx + 1  # -> 4\nprint(x)\n```\n\n```text\n3\n```\n")
    assert blocks[0].output is blocks[1] and python_step(blocks[0])["checks"] == {"1": "4"}


# --- --update: rewrite shown outputs from the code (review the diff) ---------------------------

def shortened(expected: list[str], actual: list[str]) -> list[str]:
    """The actual output, shortened as the expected one was: its lines before and after a ``...``."""
    exp, act = normalise(expected), normalise(actual)
    if "..." not in exp or exp == ["..."]:  # a bare "..." asks for the whole output
        return act
    head, tail = exp.index("..."), len(exp) - 1 - max(i for i, s in enumerate(exp) if s == "...")
    return act[:head] + ["..."] + (act[len(act) - tail:] if tail else [])


def updated(page: str) -> str:
    run = run_page(page)
    lines = (ROOT / page).read_text().split("\n")
    for b in reversed(run.blocks):  # bottom-up, so earlier line numbers stay valid
        if b.not_run or b.attached:
            continue
        first = b.line - 1  # index of the block's first text line
        if b.kind == "python":
            r = run.results[(b.line, 0)]
            if b.output is not None and not r["error"]:
                o = b.output
                lines[o.line - 1:o.line - 1 + len(o.lines)] = shortened(o.lines, r["output"].split("\n"))
            for n in python_step(b)["checks"]:
                if n in r["values"]:
                    lines[first + int(n)] = re.sub(r"#\s*->\s*.+$", "# -> " + r["values"][n], lines[first + int(n)])
        elif b.kind == "console":
            new = []
            for k, (cmd, want) in enumerate(commands_of(b)):
                r = run.results[(b.line, k)]
                exp, _ = split_exit(want)
                got = r["output"].split("\n")
                keep = matches(exp, got) and exp != ["..."]
                new += [f"$ {cmd}", *(exp if keep else shortened(exp, got))]
                new += [f"[exit {r['code']}]"] if r["code"] else []
            lines[first:first + len(b.lines)] = new
    return "\n".join(lines)


if __name__ == "__main__":
    if sys.argv[1:2] != ["--update"]:
        sys.exit("usage: python tests/test_docs.py --update [PAGE ...]")
    for page in sys.argv[2:] or PAGES:
        (ROOT / page).write_text(updated(page))
        run_page.cache_clear()
        left = failures(page)
        print(f"{page}: {len(left)} block(s) still differ", *left, sep="\n")
