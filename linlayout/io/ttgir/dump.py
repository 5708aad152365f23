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

__all__ = ["is_dump", "select_module"]

_HEADER = re.compile(r"^// -----// IR Dump (?:Before|After) (.*?) //----- //[ \t]*$", re.M)


def is_dump(text: str) -> bool:
    """Whether ``text`` is an ``MLIR_ENABLE_DUMP`` log (several modules, each after a header)."""
    return _HEADER.search(text) is not None


def _ttgir_level(body: str) -> bool:
    return "ttg.num-warps" in body and "llvm.func" not in body and not re.search(r"\bcf\.(cond_)?br\b", body)


def select_module(text: str, pass_name: str | None = None) -> tuple[str, str]:
    """``(header, module text)`` of the module to lint (see the module docstring); a ``TTGIRError`` when none fits."""
    parts = _HEADER.split(text)
    dumps = [(h, b.strip("\n")) for h, b in zip(parts[1::2], parts[2::2]) if "'builtin.module' operation" in h]
    if pass_name is not None:
        named = [d for d in dumps if pass_name in d[0]]
        if not named:
            raise TTGIRError(f"no module dumped before a pass named {pass_name!r} (the log has {len(dumps)} module "
                             f"dumps)")
        return named[-1]
    ttgir = [d for d in dumps if _ttgir_level(d[1])]
    if not ttgir:
        raise TTGIRError(f"the dump has no TTGIR-level module (of {len(dumps)} module dumps, none has "
                         "ttg.num-warps with its loops still in scf and no llvm.func)")
    return ttgir[-1]
