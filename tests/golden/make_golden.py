"""Golden outputs of the ``linlayout`` command line: the case list and the generator.

Run ``python tests/golden/make_golden.py`` (from anywhere) to (re)write one
``<case>.txt`` per case in this folder; ``tests/cli/test_golden.py`` imports
:data:`CASES` and :func:`render` from here and checks that every command still
prints exactly the stored bytes.  Regenerate only when an output change is
intended, and review the diff.

Each case runs ``python -m linlayout ARGS...`` as a subprocess with the
repository root as working directory (so the file paths in arguments, and in
error messages that echo them, are relative and the same on every machine),
standard input from ``stdin`` (or empty), and ``PYTHONIOENCODING=utf-8`` so the
bytes do not depend on the locale.  A golden file holds::

    # linlayout golden case: NAME
    # command: linlayout ARGS...
    # stdin: N bytes                     (only when the case has stdin)
    # exit code: RC
    # normalised: ...                    (only when something was normalised)
    # stdout: N bytes
    <exactly N bytes of standard output>
    # stderr: N bytes
    <exactly N bytes of standard error>

Each byte block is followed by one newline of the format, so a block that does
not end with a newline still leaves the next header on its own line.

The generator runs every case as that subprocess.  ``tests/cli/test_golden.py``
runs every case in its own process through ``linlayout.cli.main``
(:func:`run_case_in_process`, the same working directory, encoding and exit
status; about a tenth of the time) and a few of them again as the subprocess.

The cases: every ``examples/*.json`` with every command that accepts it (kind
told from its keys: ``src``/``dst`` a convert query, ``bases`` a layout, ``write``/``read`` a swizzle query,
``layout``+``memory`` or ``lane_byte_offsets`` a conflicts query,
``queries``/``toggles`` a sweep family) in text and ``--json`` mode and with
the command's other output options; every example with every command that
does not accept it (a one-line error, exit 2); constructor invocations of
``show``; ``show -`` on standard input; one-line error paths of ``show``,
``sweep`` and ``draw`` (``draw`` only where it fails before drawing, so no
picture is written and matplotlib is not needed).  Not covered: pictures
(``draw`` output is binary), ``verify-gpu`` (needs a GPU), ``--help`` and
argparse's own messages other than a missing required option (they change
between Python versions).

Normalisation (the only one): ``sweep`` reports its wall time, so in ``sweep``
cases ``"seconds": <number>`` (``--json``) and ``in <number> s (`` (text) become
``"seconds": <SECONDS>`` and ``in <SECONDS> s (``.  Everything else is compared
byte for byte.  The sweep of ``sweep_transpose_16x32.json`` (2^20 layouts, about
15 s on 2 cores) runs a fixed ``--sample 4096 --seed 0``; the others run whole.
``sweep`` chooses one process below 16384 configurations, so no case depends on
the CPU count.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

GOLDEN = Path(__file__).resolve().parent
REPO = GOLDEN.parents[1]
EXAMPLES = REPO / "examples"

__all__ = ["CASES", "GOLDEN", "REPO", "golden_path", "normalise", "render", "parse", "run_case", "run_case_in_process",
           "main"]

# Extra arguments for a sweep family that takes too long in full (keep them fixed: seeded, deterministic).
SWEEP_ARGS = {
    "sweep_transpose_16x32.json": ["--sample", "4096", "--seed", "0"],
}

COMMAND_VARIANTS = {
    "show": [("text", []), ("json", ["--json"]), ("no-grid", ["--no-grid"])],
    "conflicts": [
        ("text", []),
        ("json", ["--json"]),
        ("all-banks", ["--all-banks"]),
        ("simulate", ["--simulate"]),
        ("simulate-json", ["--simulate", "--json"]),
        ("simulate-all-banks", ["--simulate", "--all-banks"]),
    ],
    "swizzle": [
        ("text", []),
        ("json", ["--json"]),
        ("compare", ["--compare"]),
        ("compare-json", ["--compare", "--json"]),
        ("emit-json", ["--emit", "json"]),
        ("emit-c", ["--emit", "c"]),
        ("emit-cute", ["--emit", "cute"]),
        ("emit-triton", ["--emit", "triton"]),
    ],
    "sweep": [("text", []), ("json", ["--json"])],
    "convert": [("text", []), ("json", ["--json"]), ("emit-cuda", ["--emit", "cuda"])],
}

# Constructor invocations of ``linlayout show`` (name, arguments after "show").
CONSTRUCTOR_CASES = [
    ("blocked-8x64", ["blocked", "--shape", "8", "64", "--size-per-thread", "1", "8", "--threads-per-warp", "4", "8",
                      "--warps-per-cta", "2", "1", "--order", "1", "0"]),
    ("blocked-8x64-json", ["blocked", "--shape", "8", "64", "--size-per-thread", "1", "8", "--threads-per-warp", "4", "8",
                           "--warps-per-cta", "2", "1", "--order", "1", "0", "--json"]),
    ("blocked-16x16-defaults", ["blocked", "--shape", "16", "16", "--threads-per-warp", "8", "4"]),
    ("blocked-rank1", ["blocked", "--shape", "128", "--size-per-thread", "4", "--threads-per-warp", "32"]),
    ("mma-A-16x16", ["mma", "--shape", "16", "16", "--operand", "A", "--bits", "16"]),
    ("mma-A-16x16-json", ["mma", "--shape", "16", "16", "--operand", "A", "--bits", "16", "--json"]),
    ("mma-B-32x16-fp8", ["mma", "--shape", "32", "16", "--operand", "B", "--bits", "8"]),
    ("mma-C-32x32-warps", ["mma", "--shape", "32", "32", "--operand", "C", "--warps-per-cta", "2", "2"]),
    ("mma-A-tf32", ["mma", "--shape", "16", "8", "--operand", "A", "--instr", "m16n8k8"]),
    ("wgmma-C-64x16", ["wgmma", "--shape", "64", "16", "--n", "16"]),
    ("wgmma-C-64x16-json", ["wgmma", "--shape", "64", "16", "--n", "16", "--json"]),
    ("wgmma-A-64x32-fp8", ["wgmma", "--operand", "A", "--shape", "64", "32", "--bits", "8"]),
    ("ldmatrix-x4", ["ldmatrix"]),
    ("ldmatrix-x2-trans", ["ldmatrix", "--matrices", "2", "--trans"]),
    ("stmatrix-x1", ["stmatrix", "--matrices", "1"]),
    ("mfma-C-32x32x8", ["mfma"]),
    ("mfma-A-16x16x16", ["mfma", "--operand", "A", "--instr", "16x16x16"]),
    ("mfma-A-16x16x16-json", ["mfma", "--operand", "A", "--instr", "16x16x16", "--json"]),
    ("cute-8x8", ["cute", "--tv", "[[[4, 8], 2], [[2, 8], 1]]", "--shape", "8", "8"]),
    ("cute-8x8-json", ["cute", "--tv", "[[[4, 8], 2], [[2, 8], 1]]", "--shape", "8", "8", "--json"]),
    # one-line errors, exit 2
    ("error-mma-no-shape", ["mma"]),
    ("error-mma-bits-12", ["mma", "--shape", "16", "16", "--bits", "12"]),
    ("error-blocked-no-threads", ["blocked", "--shape", "8", "8"]),
    ("error-cute-no-tv", ["cute", "--shape", "8", "8"]),
    ("error-cute-not-linear", ["cute", "--tv", "[[[3, 8], 2], [[2, 8], 1]]", "--shape", "8", "8"]),
]


def _kind(obj) -> str | None:
    """Which command reads this example: 'show', 'conflicts', 'swizzle', 'sweep' or 'convert'."""
    if not isinstance(obj, dict):
        return None
    if "src" in obj and "dst" in obj:
        return "convert"
    if "queries" in obj or "toggles" in obj or "query" in obj:
        return "sweep"
    if "write" in obj or "read" in obj:
        return "swizzle"
    if ("layout" in obj and "memory" in obj) or "lane_byte_offsets" in obj:
        return "conflicts"
    if "bases" in obj:
        return "show"
    return None


def _case(name: str, args: list[str], stdin: str | None = None) -> dict:
    case = {"name": name, "args": list(args)}
    if stdin is not None:
        case["stdin"] = stdin
    return case


def _build_cases() -> list[dict]:
    cases: list[dict] = []
    examples = sorted(EXAMPLES.glob("*.json"))
    for path in examples:
        rel = path.relative_to(REPO).as_posix()
        kind = _kind(json.loads(path.read_text()))
        if kind is None:
            raise SystemExit(f"make_golden: cannot tell which command reads {rel}; add it to _kind")
        for command in ("show", "conflicts", "swizzle", "sweep", "convert"):
            if command != kind:  # the wrong command: a one-line error, exit 2
                cases.append(_case(f"{command}__{path.stem}__wrong-kind", [command, rel]))
                continue
            extra = SWEEP_ARGS.get(path.name, []) if command == "sweep" else []
            for variant, opts in COMMAND_VARIANTS[command]:
                cases.append(_case(f"{command}__{path.stem}__{variant}", [command, rel, *opts, *extra]))

    for name, args in CONSTRUCTOR_CASES:
        cases.append(_case(f"show__constructor__{name}", ["show", *args]))

    layout_text = (EXAMPLES / "paper_layout_a.json").read_text()
    cases += [
        _case("show__stdin__paper_layout_a", ["show", "-"], stdin=layout_text),
        _case("show__stdin__paper_layout_a-json", ["show", "-", "--json"], stdin=layout_text),
        _case("show__stdin__malformed", ["show", "-"], stdin="{bad"),
        _case("show__error__missing-file", ["show", "examples/nonexistent.json"]),
        _case("show__error__directory", ["show", "examples"]),
        _case("conflicts__error__missing-file", ["conflicts", "examples/nonexistent.json"]),
        _case("swizzle__error__missing-file", ["swizzle", "examples/nonexistent.json"]),
        _case("convert__error__missing-file", ["convert", "examples/nonexistent.json"]),
        # the built-in family, small enough to run whole
        _case("sweep__builtin__mask-bits-2-text", ["sweep", "--mask-bits", "2"]),
        _case("sweep__builtin__mask-bits-2-json", ["sweep", "--mask-bits", "2", "--json"]),
        _case("sweep__error__mask-bits-with-file", ["sweep", "examples/sweep_gemm_fp16_ldmatrix.json", "--mask-bits", "2"]),
        _case("sweep__error__sample-0", ["sweep", "examples/sweep_gemm_fp16_ldmatrix.json", "--sample", "0"]),
        _case("sweep__error__jobs-0", ["sweep", "examples/sweep_gemm_fp16_ldmatrix.json", "--jobs", "0"]),
        # draw: only the errors raised before anything is drawn (one line, exit 2; no file is written)
        _case("draw__error__no-output", ["draw", "examples/paper_layout_a.json"]),
        _case("draw__error__bad-suffix", ["draw", "examples/paper_layout_a.json", "-o", "no_such_dir/out.jpg"]),
        _case("draw__error__no-suffix", ["draw", "examples/paper_layout_a.json", "-o", "no_such_dir/out"]),
        _case("draw__error__max-side-0", ["draw", "examples/paper_layout_a.json", "-o", "no_such_dir/out.png",
                                          "--max-side", "0"]),
        _case("draw__error__element-bits-on-distributed", ["draw", "examples/paper_layout_a.json", "-o",
                                                           "no_such_dir/out.png", "--element-bits", "16"]),
        _case("draw__error__element-bits-on-swizzle", ["draw", "examples/transpose_16x32.json", "-o",
                                                       "no_such_dir/out.png", "--element-bits", "16"]),
        _case("draw__error__sweep-family", ["draw", "examples/sweep_transpose_16x32.json", "-o", "no_such_dir/out.png"]),
        _case("draw__error__missing-file", ["draw", "examples/nonexistent.json", "-o", "no_such_dir/out.png"]),
        _case("lint__gluon_smem_transpose__text", ["lint", "tests/data/ttgir/gluon_smem_transpose.ttgir",
                                                   "--grid", "16", "16", "1", "--triton", "3.6"]),
        _case("lint__gluon_smem_transpose__json", ["lint", "tests/data/ttgir/gluon_smem_transpose.ttgir", "--json",
                                                   "--triton", "3.6"]),
        _case("lint__matmul_fp16_s3__trip-count", ["lint", "tests/data/ttgir/matmul_fp16_s3.ttgir", "--grid", "4", "4",
                                                   "1", "--trip-count", "kernels.py:69=8", "--triton", "3.6"]),
        _case("lint__tut_grouped_gemm__triton-3.9", ["lint", "tests/data/ttgir39/tut_grouped_gemm.ttgir", "--json",
                                                     "--triton", "3.9"]),
        _case("lint__error__unknown-triton", ["lint", "tests/data/ttgir39/transpose.ttgir", "--triton", "2.1"]),
        _case("lint__error__missing-file", ["lint", "tests/data/ttgir/nonexistent.ttgir"]),
        _case("lint__error__json-file", ["lint", "examples/paper_layout_a.json"]),
    ]
    names = [c["name"] for c in cases]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise SystemExit(f"make_golden: duplicate case names {sorted(dup)}")
    return cases


CASES: list[dict] = _build_cases()


def golden_path(case: dict) -> Path:
    return GOLDEN / f"{case['name']}.txt"


_SECONDS_JSON = re.compile(rb'"seconds": -?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?')
_SECONDS_TEXT = re.compile(rb" in [0-9]+\.[0-9] s \(")


def normalise(case: dict, stdout: bytes, stderr: bytes) -> tuple[bytes, bytes, list[str]]:
    """Replace what legitimately varies between runs (see the module docstring); also say what was replaced."""
    notes = []
    if case["args"][0] == "sweep":
        stdout, n1 = _SECONDS_JSON.subn(b'"seconds": <SECONDS>', stdout)
        stdout, n2 = _SECONDS_TEXT.subn(b" in <SECONDS> s (", stdout)
        if n1 or n2:
            notes.append("sweep wall time -> <SECONDS>")
    return stdout, stderr, notes


def run_case(case: dict, timeout: float = 300) -> tuple[int, bytes, bytes, list[str]]:
    """Run one case; returns (exit code, normalised stdout, normalised stderr, normalisation notes)."""
    env = dict(os.environ)
    env["PYTHONIOENCODING"] = "utf-8"
    for k in ("FORCE_COLOR", "PYTHON_COLORS"):
        env.pop(k, None)
    stdin = case.get("stdin")
    r = subprocess.run(
        [sys.executable, "-m", "linlayout", *case["args"]],
        cwd=REPO,
        env=env,
        input=b"" if stdin is None else stdin.encode(),
        capture_output=True,
        timeout=timeout,
    )
    out, err, notes = normalise(case, r.stdout, r.stderr)
    return r.returncode, out, err, notes


# What a plain ``python`` prints of the warnings raised in its modules: everything but these
# categories, which its default filters ignore outside ``__main__``.
_SILENT_WARNINGS = (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning)


def run_case_in_process(case: dict) -> tuple[int, bytes, bytes, list[str]]:
    """Run one case through ``linlayout.cli.main`` in this process, as :func:`run_case` runs it in a subprocess.

    The same conditions, rebuilt in the process for the duration of the call: the repository root as
    working directory; ``sys.stdin``, ``sys.stdout`` and ``sys.stderr`` replaced by UTF-8 text streams
    over byte buffers with the interpreter's own settings on POSIX (newline ``"\\n"`` untranslated,
    ``strict`` errors on stdout and ``backslashreplace`` on stderr, not a terminal); the exit status
    of ``sys.exit(main(args))``.  numpy's print options are restored afterwards.  What a subprocess
    would show and this cannot reproduce raises ``RuntimeError`` instead of passing silently: a
    warning that ``python`` would print (its text holds a machine-dependent path, so no golden file
    can hold one).  An uncaught exception propagates (a subprocess would print a traceback and exit 1).
    Returns (exit code, normalised stdout, normalised stderr, normalisation notes).
    """
    import io
    import warnings

    import numpy as np

    from linlayout.cli import main as cli_main

    stdin = case.get("stdin") or ""
    out_bytes, err_bytes = io.BytesIO(), io.BytesIO()
    out = io.TextIOWrapper(out_bytes, encoding="utf-8", errors="strict", newline="\n")
    err = io.TextIOWrapper(err_bytes, encoding="utf-8", errors="backslashreplace", newline="\n")
    inp = io.TextIOWrapper(io.BytesIO(stdin.encode()), encoding="utf-8", newline="\n")
    saved_streams, saved_cwd, saved_print = (sys.stdin, sys.stdout, sys.stderr), os.getcwd(), np.get_printoptions()
    try:
        os.chdir(REPO)
        sys.stdin, sys.stdout, sys.stderr = inp, out, err
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                code = cli_main(list(case["args"]))
            except SystemExit as e:  # what sys.exit(code) does with the code
                code = e.code
            if code is None:
                code = 0
            elif not isinstance(code, int):
                print(code, file=sys.stderr)
                code = 1
        out.flush()
        err.flush()
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        os.chdir(saved_cwd)
        np.set_printoptions(**saved_print)
    shown = [w for w in caught if not issubclass(w.category, _SILENT_WARNINGS)]
    if shown:
        raise RuntimeError(f"{case['name']}: warnings that `python -m linlayout` would print on stderr: "
                           + "; ".join(f"{w.category.__name__}: {w.message}" for w in shown))
    stdout, stderr, notes = normalise(case, out_bytes.getvalue(), err_bytes.getvalue())
    return code, stdout, stderr, notes


def render(case: dict, returncode: int, stdout: bytes, stderr: bytes, notes: list[str]) -> bytes:
    """The golden file's bytes for one result."""
    head = [f"# linlayout golden case: {case['name']}", f"# command: linlayout {shlex.join(case['args'])}"]
    if "stdin" in case:
        head.append(f"# stdin: {len(case['stdin'].encode())} bytes")
    head.append(f"# exit code: {returncode}")
    if notes:
        head.append(f"# normalised: {'; '.join(notes)}")
    return (
        ("\n".join(head) + "\n").encode()
        + f"# stdout: {len(stdout)} bytes\n".encode() + stdout + b"\n"
        + f"# stderr: {len(stderr)} bytes\n".encode() + stderr + b"\n"
    )


def parse(data: bytes) -> dict:
    """Read a golden file back: {'returncode', 'stdout', 'stderr', 'header'} (stdout/stderr as bytes)."""
    i = data.index(b"# stdout: ")
    header = data[:i].decode()
    m = re.search(r"^# exit code: (-?\d+)$", header, re.M)
    if m is None:
        raise ValueError("golden file without an exit code line")
    blocks = {}
    for name in ("stdout", "stderr"):
        tag = f"# {name}: ".encode()
        if not data.startswith(tag, i):
            raise ValueError(f"golden file: expected {tag!r} at byte {i}")
        j = data.index(b" bytes\n", i)
        n = int(data[i + len(tag):j])
        start = j + len(b" bytes\n")
        blocks[name] = data[start:start + n]
        if data[start + n:start + n + 1] != b"\n":
            raise ValueError(f"golden file: {name} block is not {n} bytes")
        i = start + n + 1
    if i != len(data):
        raise ValueError("golden file: trailing bytes")
    return {"header": header, "returncode": int(m.group(1)), **blocks}


def main(argv: list[str] | None = None) -> int:
    import argparse
    from concurrent.futures import ThreadPoolExecutor

    p = argparse.ArgumentParser(description="(Re)write the golden outputs of the linlayout CLI.")
    p.add_argument("--jobs", type=int, default=min(4, os.cpu_count() or 1), help="cases run at once")
    p.add_argument("--check", action="store_true", help="compare with the stored files instead of writing them")
    args = p.parse_args(argv)

    with ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(run_case, CASES))
    wanted = {golden_path(c).name for c in CASES}
    changed = []
    for case, (rc, out, err, notes) in zip(CASES, results):
        data = render(case, rc, out, err, notes)
        path = golden_path(case)
        old = path.read_bytes() if path.exists() else None
        if old != data:
            changed.append(path.name)
            if not args.check:
                path.write_bytes(data)
    stale = sorted(p.name for p in GOLDEN.glob("*.txt") if p.name not in wanted)
    if not args.check:
        for name in stale:
            (GOLDEN / name).unlink()
    verb = "differ" if args.check else "written"
    print(f"{len(CASES)} cases; {len(changed)} {verb}" + (f": {', '.join(changed)}" if changed else "")
          + (f"; stale files {'found' if args.check else 'removed'}: {', '.join(stale)}" if stale else ""))
    return 1 if args.check and (changed or stale) else 0


if __name__ == "__main__":
    sys.exit(main())
