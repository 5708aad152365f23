"""The paper notes' examples run as written, and show what they print (issue 26).

Every ```` ```python ```` block of ``paper_notes/*.md`` runs, the blocks of one page in order in one
namespace.  A top-level expression whose line ends in a comment is checked against it:

* ``EXPR  # -> TEXT``: ``repr(EXPR) == TEXT`` (the convention of ``tests/test_docs.py``);
* ``EXPR  # LITERAL ...``: the longest prefix of the comment that is a Python literal (``True``,
  ``{'register': 2}``, ``[(1,), (2,)]``) equals the value; prose after it is the note's;
* ``EXPR  # NameError: ...``: the expression raises the exception of that class name.

Comments that are none of these (prose, or the continuation lines of a value shown over several
lines) are not checked.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

NOTES = Path(__file__).resolve().parent.parent / "paper_notes"
PAGES = sorted(p.name for p in NOTES.glob("*.md"))
FENCE = re.compile(r"^```(\S*)\s*$")
ERROR = re.compile(r"^([A-Z][A-Za-z]*(?:Error|Exception|Failure))\b")


def python_blocks(text: str) -> list[tuple[int, str]]:
    """(first line number, source) of every ```python block."""
    out, current, start = [], None, 0
    for i, line in enumerate(text.splitlines(), 1):
        m = FENCE.match(line)
        if current is None and m and m.group(1) == "python":
            current, start = [], i + 1
        elif current is not None and m and m.group(1) == "":
            out.append((start, "\n".join(current)))
            current = None
        elif current is not None:
            current.append(line)
    return out


def trailing_comments(source: str) -> dict[int, str]:
    """The comment at the end of each line that has one (line number -> text after '#')."""
    return {tok.start[0]: tok.string[1:].strip()
            for tok in tokenize.generate_tokens(io.StringIO(source).readline) if tok.type == tokenize.COMMENT}


def literal_prefix(comment: str) -> tuple[bool, object]:
    """(True, value) for the longest prefix of ``comment`` that is a Python literal, else (False, None)."""
    for end in range(len(comment), 0, -1):
        if comment[:end].rstrip().endswith(","):  # "{...}, equal to ...": the value, not a tuple of it
            continue
        try:
            return True, ast.literal_eval(comment[:end])
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    return False, None


def run_statement(stmt: ast.stmt, comment: str | None, ns: dict, where: str) -> None:
    code = compile(ast.Module([stmt], []), where, "exec")
    if not isinstance(stmt, ast.Expr) or comment is None:
        exec(code, ns)
        return
    expected_error = ERROR.match(comment)
    if expected_error:
        with pytest.raises(Exception) as info:
            exec(code, ns)
        assert type(info.value).__name__ == expected_error.group(1), f"{where}: {info.value!r}"
        return
    value = eval(compile(ast.Expression(stmt.value), where, "eval"), ns)
    if comment.startswith("->"):
        assert repr(value) == comment[2:].strip(), f"{where}: {value!r}"
        return
    found, literal = literal_prefix(comment)
    if found:
        assert value == literal, f"{where}: {value!r}, the note says {comment}"


@pytest.mark.parametrize("page", PAGES)
def test_paper_note_examples_run_as_written(page):
    ns: dict = {}
    for start, source in python_blocks((NOTES / page).read_text(encoding="utf-8")):
        comments = trailing_comments(source)
        for stmt in ast.parse(source).body:
            run_statement(stmt, comments.get(stmt.end_lineno), ns, f"paper_notes/{page}:{start + stmt.lineno - 1}")


def test_the_checker_catches_a_wrong_value_and_a_missing_error():
    ns: dict = {}
    (stmt,) = ast.parse("1 + 1").body
    with pytest.raises(AssertionError):
        run_statement(stmt, "3", ns, "x")
    with pytest.raises(AssertionError):
        run_statement(stmt, "-> 3", ns, "x")
    with pytest.raises(pytest.fail.Exception):
        run_statement(stmt, "DivisionError: no", ns, "x")
    run_statement(stmt, "2  (prose after the value)", ns, "x")
