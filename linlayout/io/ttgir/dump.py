"""Pick one module out of an ``MLIR_ENABLE_DUMP=1`` log: the last TTGIR-level module, or the one a pass names.

Triton with ``MLIR_ENABLE_DUMP=1`` prints the IR before every pass, each
headed ``// -----// IR Dump Before PASS (...) ('builtin.module' operation) //----- //``.
Linting all of them merged would count every op many times; lint reads one:
by default the last whole module that is still TTGIR (it has
``ttg.num-warps``, no ``llvm.func`` and its loops are still ``scf``), else the
last dump before a pass whose header contains ``pass_name``.

>>> log = ("// -----// IR Dump Before A ('builtin.module' operation) //----- //\\nmodule attributes {\\"ttg.num-warps\\" = 4 : i32} {\\n}\\n"
...        "// -----// IR Dump Before B ('builtin.module' operation) //----- //\\nmodule {\\n  llvm.func @k() {\\n  }\\n}\\n")
>>> header, text = select_module(log)
>>> header.split(" (")[0], text.splitlines()[0]
('A', 'module attributes {"ttg.num-warps" = 4 : i32} {')
"""

from __future__ import annotations

import re

from .attributes import TTGIRError

__all__ = ["is_dump", "module_dumps", "select_module"]

_HEADER = re.compile(r"^// -----// IR Dump (?:Before|After) (.*?) //----- //[ \t]*$", re.M)


def is_dump(text: str) -> bool:
    """Whether ``text`` is an ``MLIR_ENABLE_DUMP`` log (several modules, each after a header)."""
    return _HEADER.search(text) is not None


_BRANCH = re.compile(r"\bcf\.(cond_)?br\b")
_MARK = "// -----// IR Dump "


def _ttgir_level(body: str) -> bool:
    return "ttg.num-warps" in body and "llvm.func" not in body and not _BRANCH.search(body)


def module_dumps(text: str) -> list[tuple[str, int, int]]:
    """``(header, start, end)`` of every module dump in the log, in order: ``text[start:end]`` is the dump's text
    (its newlines at either end included; a dump ends where the next header of any kind begins).

    Headers are found by their literal start (``str.find``, not a regular expression over the whole log),
    each confirmed by the header pattern at the start of its line; a log of tens of megabytes is split in
    tens of milliseconds."""
    heads = []
    pos = text.find(_MARK)
    while pos >= 0:
        m = _HEADER.match(text, pos)
        if m is not None and (pos == 0 or text[pos - 1] == "\n"):
            heads.append(m)
        pos = text.find(_MARK, pos + 1)
    ends = [m.start() for m in heads[1:]] + [len(text)]
    return [(m.group(1), m.end(), end) for m, end in zip(heads, ends) if "'builtin.module' operation" in m.group(1)]


def select_module(text: str, pass_name: str | None = None) -> tuple[str, str]:
    """``(header, module text)`` of the module to lint (see the module docstring); a ``TTGIRError`` when none fits.

    The dumps are tried from the last one back, so only the modules after the chosen one are read twice."""
    dumps = module_dumps(text)
    if pass_name is not None:
        for h, start, end in reversed(dumps):
            if pass_name in h:
                return h, text[start:end].strip("\n")
        raise TTGIRError(f"no module dumped before a pass named {pass_name!r} (the log has {len(dumps)} module "
                         f"dumps)")
    for h, start, end in reversed(dumps):
        body = text[start:end].strip("\n")
        if _ttgir_level(body):
            return h, body
    raise TTGIRError(f"the dump has no TTGIR-level module (of {len(dumps)} module dumps, none has "
                     "ttg.num-warps with its loops still in scf and no llvm.func)")
