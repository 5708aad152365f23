"""The package's architecture, checked from the source with ``ast`` (no import of linlayout).

The rules (``docs/architecture.md``):

* **Layers.**  ``errors`` < ``core`` < ``hw`` < ``count`` < ``catalog`` <
  ``synth`` < ``convert`` < ``lower`` < ``check`` < ``io`` < top (``cli.py``, ``__main__.py``,
  ``__init__.py`` and the compatibility modules at the top of the package,
  which may import anything).  A module imports only from its own layer or
  lower ones -- function-level imports included, imports under ``if
  TYPE_CHECKING:`` excepted.
* **No import cycles** between modules (same rule for what is counted).
* **No private names across modules**: no ``from .x import _name``, no
  ``module._name`` on an imported linlayout module, and no private attribute
  of another module's objects (``layout._cols`` outside ``core/layout.py``);
  and the project's tests, examples, benchmarks and tools import no private
  name of the package (:func:`find_private_imports`).
* **No analysis in io/**: an ``io/`` module parses and prints; it does not
  call the analysis layers' functions except the presentation calls listed
  in :data:`IO_MAY_CALL` (:func:`find_analysis_in_io` defines the rule).
* **Small modules**: none over :data:`MAX_LINES` lines.

Every failure names the file and the line.  The whole file runs in well under
a second: each module is parsed once.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path


ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "linlayout"
MAX_LINES = 800

LAYERS = ("errors", "core", "hw", "count", "catalog", "synth", "convert", "lower", "check", "io", "top")
"""Layer names, lowest first."""

CORE_LAYOUT_PRIVATE = ("_make", "_ins", "_outs", "_cols", "_cached")
"""Private attributes of LinearLayout: used nowhere outside ``core/layout.py``."""


# ---------------------------------------------------------------------------
# Reading the package
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Import:
    """One import edge: ``source`` imports ``target`` (a linlayout module) at ``line``."""

    source: str
    target: str
    line: int
    function_level: bool
    names: tuple[str, ...] = ()  # for ``from target import names``


@dataclass
class Module:
    name: str
    path: Path
    root: Path
    tree: ast.Module
    lines: int
    imports: list[Import] = field(default_factory=list)
    nodes: list[tuple[ast.AST, bool]] = field(default_factory=list)  # every node, and whether inside a function

    @property
    def rel(self) -> str:
        return self.path.relative_to(self.root).as_posix()

    @property
    def is_package(self) -> bool:
        return self.path.name == "__init__.py"


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer_of(name: str) -> str:
    """The layer of a module: ``errors``, a subpackage name, or ``top``."""
    parts = name.split(".")
    if len(parts) >= 2 and parts[1] == "errors" and len(parts) == 2:
        return "errors"
    if len(parts) >= 2 and parts[1] in LAYERS[1:-1]:
        return parts[1]
    return "top"


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _walk(tree: ast.AST) -> list[tuple[ast.AST, bool]]:
    """Every node below ``tree`` with whether it sits inside a function; skips ``if TYPE_CHECKING:`` bodies."""
    out: list[tuple[ast.AST, bool]] = []
    todo: list[tuple[ast.AST, bool]] = [(tree, False)]
    functions = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
    while todo:
        node, in_fn = todo.pop()
        inner = in_fn or isinstance(node, functions)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child.test):
                todo.extend((sub, inner) for sub in child.orelse)
                out.extend((sub, inner) for sub in child.orelse)
                continue
            out.append((child, inner))
            todo.append((child, inner))
    return out


def read_package(pkg_dir: Path) -> dict[str, Module]:
    """Every module under ``pkg_dir`` (a package directory), parsed, with its imports of modules of that package."""
    root = pkg_dir.parent
    mods: dict[str, Module] = {}
    for path in sorted(pkg_dir.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        name = module_name(path, root)
        mods[name] = Module(name, path, root, ast.parse(text, str(path)), text.count("\n"))
    for mod in mods.values():
        mod.nodes = _walk(mod.tree)
        mod.imports = list(_imports(mod, mods))
    return mods


@lru_cache(maxsize=1)
def package() -> dict[str, Module]:
    """The modules of linlayout (parsed once per test session)."""
    return read_package(PACKAGE)


def _resolve(mod: Module, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = mod.name.split(".")
    if not mod.is_package:
        base.pop()
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _known(name: str, mods: dict[str, Module]) -> str | None:
    """The longest prefix of dotted ``name`` that is a linlayout module."""
    parts = name.split(".")
    while parts:
        if ".".join(parts) in mods:
            return ".".join(parts)
        parts.pop()
    return None


def _imports(mod: Module, mods: dict[str, Module]) -> Iterator[Import]:
    for node, in_fn in mod.nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                target = _known(alias.name, mods) if alias.name.split(".")[0] == "linlayout" else None
                if target:
                    yield Import(mod.name, target, node.lineno, in_fn)
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(mod, node)
            if base.split(".")[0] != "linlayout":
                continue
            plain = []
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                if sub in mods:  # ``from . import f2``: the submodule itself
                    yield Import(mod.name, sub, node.lineno, in_fn)
                else:
                    plain.append(alias.name)
            if plain:
                target = _known(base, mods)
                if target:
                    yield Import(mod.name, target, node.lineno, in_fn, tuple(plain))


def _where(mod: Module, line: int) -> str:
    return f"{mod.rel}:{line}"


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


# ---------------------------------------------------------------------------
# (a) cycles
# ---------------------------------------------------------------------------


def _cycles(edges: dict[str, dict[str, Import]]) -> list[list[str]]:
    """One cycle (list of modules, first repeated last) per non-trivial strongly connected component."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    comps: list[set[str]] = []
    counter = [0]

    def visit(v: str) -> None:  # Tarjan; the package is small, recursion is fine
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1 or v in edges.get(v, {}):
                comps.append(comp)

    for v in sorted(edges):
        if v not in index:
            visit(v)
    out = []
    for comp in comps:
        start = min(comp)
        # Breadth-first search inside the component for the shortest way back to start.
        prev: dict[str, str] = {}
        frontier = [start]
        found = None
        while frontier and found is None:
            nxt = []
            for v in frontier:
                for w in sorted(edges.get(v, {})):
                    if w not in comp:
                        continue
                    if w == start:
                        found = v
                        break
                    if w not in prev:
                        prev[w] = v
                        nxt.append(w)
                if found is not None:
                    break
            frontier = nxt
        path = [found]
        while path[-1] != start:
            path.append(prev[path[-1]])
        out.append([start] + path[::-1][1:] + [start] if len(path) > 1 else [start, start])
    return out


def find_cycles(mods: dict[str, Module]) -> list[str]:
    """One message per import cycle, naming every import of the cycle with its file and line."""
    edges: dict[str, dict[str, Import]] = {}
    for mod in mods.values():
        for imp in mod.imports:
            if imp.target != mod.name:
                edges.setdefault(mod.name, {}).setdefault(imp.target, imp)
    problems = []
    for cycle in _cycles(edges):
        steps = []
        for a, b in zip(cycle, cycle[1:]):
            imp = edges[a][b]
            kind = "function-level" if imp.function_level else "module-level"
            steps.append(f"  {a} imports {b} at {_where(mods[a], imp.line)} ({kind})")
        problems.append("import cycle " + " -> ".join(cycle) + ":\n" + "\n".join(steps))
    return problems


def test_no_import_cycles():
    problems = find_cycles(package())
    assert not problems, "\n".join(problems)


# ---------------------------------------------------------------------------
# (b) layers
# ---------------------------------------------------------------------------


def test_layer_of():
    assert [layer_of(n) for n in ("linlayout.errors", "linlayout.core.f2", "linlayout.hw", "linlayout.io.draw")] == [
        "errors", "core", "hw", "io"]
    assert {layer_of(n) for n in ("linlayout", "linlayout.cli", "linlayout.sweep", "linlayout.f2", "linlayout.__main__")} == {"top"}


def find_upward_imports(mods: dict[str, Module]) -> list[str]:
    """One message per import of a higher layer."""
    rank = {name: i for i, name in enumerate(LAYERS)}
    problems = []
    for mod in mods.values():
        src = layer_of(mod.name)
        if src == "top":
            continue
        for imp in mod.imports:
            dst = layer_of(imp.target)
            if rank[dst] > rank[src]:
                kind = "function-level " if imp.function_level else ""
                problems.append(
                    f"{_where(mod, imp.line)}: {kind}import of {imp.target} ({dst}) from the {src} layer; "
                    f"{src} may import only from {', '.join(LAYERS[: rank[src] + 1])}"
                )
    return problems


def test_layers_import_downward_only():
    problems = find_upward_imports(package())
    assert not problems, "upward imports:\n" + "\n".join(problems)


# ---------------------------------------------------------------------------
# (c) private names
# ---------------------------------------------------------------------------


def _private_attributes(mod: Module) -> set[str]:
    """Private attribute names that the module's classes define (methods, class fields, ``self._x = ...``)."""
    names: set[str] = set()
    for node in ast.walk(mod.tree):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and _private(item.name):
                    names.add(item.name)
                elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name) and _private(item.target.id):
                    names.add(item.target.id)
                elif isinstance(item, ast.Assign):
                    names.update(t.id for t in item.targets if isinstance(t, ast.Name) and _private(t.id))
                    if any(isinstance(t, ast.Name) and t.id == "__slots__" for t in item.targets):
                        names.update(c.value for c in ast.walk(item.value)
                                     if isinstance(c, ast.Constant) and isinstance(c.value, str) and _private(c.value))
            for sub in ast.walk(node):
                if isinstance(sub, ast.Attribute) and isinstance(sub.ctx, ast.Store) and _private(sub.attr):
                    if isinstance(sub.value, ast.Name) and sub.value.id in ("self", "cls"):
                        names.add(sub.attr)
                elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id == "setattr":
                    if len(sub.args) >= 2 and isinstance(sub.args[1], ast.Constant) and isinstance(sub.args[1].value, str):
                        if _private(sub.args[1].value):
                            names.add(sub.args[1].value)
    return names


def _module_aliases(mod: Module, mods: dict[str, Module]) -> dict[str, str]:
    """Local names bound to linlayout modules (``from ..core import f2``, ``import linlayout.x as y``)."""
    out: dict[str, str] = {}
    for node, _ in mod.nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] != "linlayout":
                    continue
                if alias.asname:
                    target = _known(alias.name, mods)
                    if target:
                        out[alias.asname] = target
                else:
                    out["linlayout"] = "linlayout"
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(mod, node)
            if base.split(".")[0] != "linlayout":
                continue
            for alias in node.names:
                if f"{base}.{alias.name}" in mods:
                    out[alias.asname or alias.name] = f"{base}.{alias.name}"
    return out


def _dotted(node: ast.expr) -> list[str] | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return parts[::-1]


def find_private_uses(mods: dict[str, Module]) -> list[str]:
    """One message per use of another module's private name or private attribute."""
    defined = {name: _private_attributes(mod) for name, mod in mods.items()}
    owners: dict[str, set[str]] = {}
    for name, attrs in defined.items():
        for attr in attrs:
            owners.setdefault(attr, set()).add(name)
    layout_mod = "linlayout.core.layout"
    problems = []
    for mod in mods.values():
        own = defined[mod.name]
        # from .x import _name
        for imp in mod.imports:
            for name in imp.names:
                if _private(name):
                    problems.append(f"{_where(mod, imp.line)}: imports the private name {name} from {imp.target}")
        aliases = _module_aliases(mod, mods)
        seen: set[tuple[int, str]] = set()
        for node, _ in mod.nodes:
            if not isinstance(node, ast.Attribute) or not _private(node.attr):
                continue
            key = (node.lineno, node.attr)
            # module._name on an imported linlayout module (also linlayout.core.f2._name)
            parts = _dotted(node)
            if parts and parts[0] in aliases and parts[0] not in ("self", "cls"):
                full = aliases[parts[0]].split(".") + parts[1:-1]
                target = ".".join(full)
                if target in mods and key not in seen:
                    seen.add(key)
                    problems.append(f"{_where(mod, node.lineno)}: uses {node.attr}, a private name of module {target}")
                    continue
            # private attributes of objects of another module's classes
            if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                continue
            if node.attr in CORE_LAYOUT_PRIVATE and mod.name != layout_mod:
                if key not in seen:
                    seen.add(key)
                    problems.append(
                        f"{_where(mod, node.lineno)}: uses .{node.attr}, a private attribute of LinearLayout "
                        f"(core/layout.py); use or add a public method"
                    )
                continue
            others = owners.get(node.attr, set()) - {mod.name}
            if others and node.attr not in own and key not in seen:
                seen.add(key)
                problems.append(
                    f"{_where(mod, node.lineno)}: uses .{node.attr}, a private attribute defined by "
                    f"{', '.join(sorted(others))}"
                )
    return problems


def test_no_private_names_across_modules():
    problems = find_private_uses(package())
    assert not problems, "private names used across modules:\n" + "\n".join(problems)


def test_the_checks_catch_each_kind_of_violation(tmp_path):
    """The checkers on a small fake package with one violation of each kind (and imports they must ignore)."""
    files = {
        "__init__.py": "from .core.a import A\n",
        "errors.py": "",
        "core/__init__.py": "",
        "core/a.py": (
            "from typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n"
            "    from ..io.out import Out\n"  # ignored: TYPE_CHECKING
            "class A:\n"
            "    __slots__ = ('_cols',)\n"
            "    def _make(self):\n"
            "        return self._cols\n"
            "def f():\n"
            "    from ..count import e\n"  # line 9: upward, function-level
            "    return e\n"
        ),
        "core/c.py": "from . import d\n",  # cycle c -> d -> c
        "core/d.py": "import linlayout.core.c as c\n",
        "count/__init__.py": "",
        "count/e.py": "",
        "count/b.py": (
            "from ..core.a import _helper\n"  # line 1: private import
            "from ..core import a\n"
            "x = a._secret\n"  # line 3: module._name
            "def g(layout):\n"
            "    return layout._cols\n"  # line 5: private attribute of LinearLayout-like class
            "def h(thing):\n"
            "    return thing._make()\n"  # line 7
        ),
        "io/__init__.py": "",
        "io/out.py": "import linlayout.count.b\nfrom linlayout.errors import *\n",
    }
    for rel, text in files.items():
        path = tmp_path / "linlayout" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    mods = read_package(tmp_path / "linlayout")
    assert {i.target for i in mods["linlayout.io.out"].imports} == {"linlayout.count.b", "linlayout.errors"}
    cycles = find_cycles(mods)
    assert len(cycles) == 1 and "linlayout.core.c -> linlayout.core.d -> linlayout.core.c" in cycles[0]
    assert "linlayout/core/d.py:1" in cycles[0] and "linlayout/core/c.py:1" in cycles[0]
    up = find_upward_imports(mods)
    assert len(up) == 1 and up[0].startswith("linlayout/core/a.py:9: function-level import of linlayout.count.e")
    private = sorted(find_private_uses(mods))
    assert [p.split(": ")[0] for p in private] == [f"linlayout/count/b.py:{i}" for i in (1, 3, 5, 7)], private
    assert "_helper" in private[0] and "module linlayout.core.a" in private[1] and "._cols" in private[2]


# ---------------------------------------------------------------------------
# (d) no analysis in io/
# ---------------------------------------------------------------------------

ANALYSIS_LAYERS = ("count", "synth", "convert", "lower", "check")
"""The layers that compute: counting, synthesis, conversion planning, the compiler's lowering model, checking."""

ANALYSIS_MODULES = ("linlayout.core.f2",)
"""Modules outside those layers whose functions are analysis too: the F2 kernel (rank, reduction, inverse)."""

IO_MAY_CALL: dict[str, dict[str, str]] = {
    "linlayout.io.ttgir.lint": {
        "lint_module": "lint_text, the parse entry point, hands the parsed module to the analysis (lower/lint.py)"},
    "linlayout.io.gpu_queries": {
        "plan_probes": "plan_query, a front door: one decoded query handed to check/gpu/verify.py",
        "expand_swizzle": "swizzle_sides, a front door: one decoded query handed to check/gpu/batch.py",
        "plan_batch": "load_queries, a front door: the queries read handed to check/gpu/batch.py",
        "verify_batch": "verify_files, a front door: the queries read handed to the verify-gpu command"},
    "linlayout.io.convert_io": {
        "f2": "the CUDA emitter evaluates the plan's F2 maps (f2.apply) to print their constants",
        "plan_access": "the CUDA emitter asks the access plan which registers one ldmatrix/stmatrix moves",
        "aligned": "the CUDA emitter prints the vectors the plan's access rule found",
        "index_bits": "the CUDA emitter prints each register's element (the layout's hardware columns)"},
    "linlayout.io.draw.access": {
        "lane_byte_offsets": "a picture of an access shows each lane's address",
        "simulate_wavefronts": "a picture of an access shows the simulator's wavefronts",
        "simulate_access": "a picture of an access shows the simulator's passes",
        "wavefronts": "a picture of an access shows the closed form's wavefronts"},
    "linlayout.io.draw.swizzle": {
        "optimal_swizzle": "a picture of a swizzle query draws the memory the synthesis chose",
        "wavefronts": "a picture of a swizzle shows each side's wavefronts"},
    "linlayout.io.draw.layouts": {
        "check_element_bits": "validates the element width of the picture's input (the counters' rule)"},
}
"""Calls from ``io/`` into the analysis that are presentation, each with why (see :func:`find_analysis_in_io`)."""


def _analysis_names(mod: Module, mods: dict[str, Module]) -> dict[str, str]:
    """Local names of ``mod`` bound to analysis: functions imported from an analysis module, and those modules."""
    out: dict[str, str] = {}
    for imp in mod.imports:
        target_mod = mods[imp.target]
        analysis = layer_of(imp.target) in ANALYSIS_LAYERS or imp.target in ANALYSIS_MODULES
        if not analysis:
            continue
        if not imp.names:  # the module itself: ``from ..core import f2``, ``import linlayout.count.plan as p``
            node = next(n for n, _ in mod.nodes if getattr(n, "lineno", None) == imp.line
                        and isinstance(n, (ast.Import, ast.ImportFrom)))
            for alias in node.names:
                out[alias.asname or alias.name.split(".")[-1]] = imp.target
            continue
        node = next(n for n, _ in mod.nodes if isinstance(n, ast.ImportFrom) and n.lineno == imp.line)
        for alias in node.names:
            if alias.name in imp.names and alias.name[:1].islower():  # functions; classes and CONSTANTS are data
                out[alias.asname or alias.name] = target_mod.name
    return out


def find_analysis_in_io(mods: dict[str, Module]) -> list[str]:
    """One message per call from an ``io/`` module into the analysis that :data:`IO_MAY_CALL` does not list.

    ``io/`` is the outside world: it parses text into the library's values and
    prints results.  An *analysis module under io/* is one that computes what
    the analysis layers (:data:`ANALYSIS_LAYERS`: count, synth, convert, lower,
    check) or the F2 kernel compute.  The test sees that as a **call**: an io
    module calls a function it imported from one of those modules (``f(...)``)
    or a function of such a module (``f2.rank(...)``).  Importing their
    classes and constants (result types, records, query types) is reading and
    printing them, and importing a function without calling it (a
    re-export) computes nothing; both are allowed.  The calls that are
    presentation (an emitter or a picture that shows what a counter says)
    or a front door (a reader that hands what it read to one analysis entry
    point) are listed, with the reason, in :data:`IO_MAY_CALL`; anything else
    belongs in the analysis layers, with io calling it from the CLI's side.
    """
    problems: list[tuple[str, int, str]] = []
    for mod in mods.values():
        if layer_of(mod.name) != "io":
            continue
        names = _analysis_names(mod, mods)
        allowed = IO_MAY_CALL.get(mod.name, {})
        for node, _ in mod.nodes:
            if not isinstance(node, ast.Call):
                continue
            parts = _dotted(node.func)
            if not parts or parts[0] not in names:
                continue
            if parts[0] in allowed:
                continue
            problems.append((mod.rel, node.lineno,
                             f"{_where(mod, node.lineno)}: calls {'.'.join(parts)} ({names[parts[0]]}), analysis in "
                             f"io/; move the computation below io/ (or list it in IO_MAY_CALL with why it is "
                             f"presentation)"))
    return [msg for _, _, msg in sorted(problems)]


def test_io_holds_no_analysis():
    problems = find_analysis_in_io(package())
    assert not problems, "analysis under io/:\n" + "\n".join(problems)


def test_the_io_analysis_check_catches_a_fake_analysis_module(tmp_path):
    """A synthetic io module that counts is caught; one that reads results, re-exports or is listed is not."""
    files = {
        "__init__.py": "",
        "errors.py": "",
        "core/__init__.py": "",
        "core/f2.py": "def rank(cols):\n    return len(cols)\n",
        "count/__init__.py": "",
        "count/closed_form.py": "class WavefrontReport:\n    pass\nLIMIT = 1\ndef wavefronts(x):\n    return x\n",
        "io/__init__.py": "",
        "io/analysis.py": (
            "from ..count.closed_form import wavefronts as wf\n"
            "from ..core import f2\n"
            "def lint(x):\n"
            "    return wf(x)\n"  # line 4: a counter called from io
            "def scope(a):\n"
            "    return f2.rank(a)\n"  # line 6: the F2 kernel called from io
        ),
        "io/printer.py": (
            "from ..count.closed_form import LIMIT, WavefrontReport, wavefronts\n"
            "__all__ = ['wavefronts']\n"  # a re-export: imported, never called
            "def render(r: WavefrontReport) -> str:\n"
            "    return str(LIMIT) + repr(r)\n"
        ),
        "io/draw.py": "from ..count.closed_form import wavefronts\ndef picture(x):\n    return wavefronts(x)\n",
    }
    for rel, text in files.items():
        path = tmp_path / "linlayout" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    mods = read_package(tmp_path / "linlayout")
    found = find_analysis_in_io(mods)
    assert [p.split(": ")[0] for p in found] == ["linlayout/io/analysis.py:4", "linlayout/io/analysis.py:6",
                                                "linlayout/io/draw.py:3"], found
    assert "calls wf (linlayout.count.closed_form)" in found[0] and "calls f2.rank" in found[1]
    IO_MAY_CALL["linlayout.io.draw"] = {"wavefronts": "a picture shows the count"}
    try:
        assert [p.split(": ")[0] for p in find_analysis_in_io(mods)] == ["linlayout/io/analysis.py:4",
                                                                        "linlayout/io/analysis.py:6"]
    finally:
        del IO_MAY_CALL["linlayout.io.draw"]


# ---------------------------------------------------------------------------
# (e) module size
# ---------------------------------------------------------------------------


def _oversized() -> list[str]:
    return [f"{m.rel}:1: {m.lines} lines (at most {MAX_LINES})" for m in package().values() if m.lines > MAX_LINES]


def test_modules_are_small():
    big = _oversized()
    assert not big, "modules over the size limit (split them by concept):\n" + "\n".join(big)


# ---------------------------------------------------------------------------
# Optional dependencies stay optional
# ---------------------------------------------------------------------------


def test_matplotlib_only_in_draw_and_never_at_module_level():
    problems = []
    for mod in package().values():
        if mod.rel.startswith("linlayout/io/draw"):
            continue
        for node, in_fn in mod.nodes:
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            if any(n.split(".")[0] == "matplotlib" for n in names) and not in_fn:
                problems.append(f"{_where(mod, node.lineno)}: imports matplotlib at module level")
    # Inside io/draw*, matplotlib is imported when a picture is drawn, not when the module loads.
    for mod in package().values():
        if not mod.rel.startswith("linlayout/io/draw"):
            continue
        for node, in_fn in mod.nodes:
            if isinstance(node, (ast.Import, ast.ImportFrom)) and not in_fn:
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                if any(n.split(".")[0] == "matplotlib" for n in names):
                    problems.append(f"{_where(mod, node.lineno)}: imports matplotlib at module level")
    assert not problems, "\n".join(problems)


def test_compatibility_modules_import_light():
    """The old flat paths load without numpy, galois, networkx or matplotlib (``import linlayout``: tests/cli/test_cli.py)."""
    heavy = {"galois", "networkx", "matplotlib", "numpy"}
    compat = sorted(m.name for m in package().values() if m.name.count(".") == 1 and layer_of(m.name) == "top"
                    and m.name not in ("linlayout.__main__",))
    code = (
        "import importlib, sys\n"
        f"for n in {compat!r}: importlib.import_module(n)\n"
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({sorted(heavy)!r})))"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]", f"importing {compat} pulled in {r.stdout.strip()}"


# ---------------------------------------------------------------------------
# (f) the top-level API
# ---------------------------------------------------------------------------


def test_every_exported_name_resolves():
    """Every name in ``linlayout.__all__`` (the lazily imported ones included) is importable."""
    import linlayout

    missing = [n for n in linlayout.__all__ if not hasattr(linlayout, n)]
    assert not missing, f"in linlayout.__all__ but not importable: {missing}"


def test_import_does_not_load_the_heavy_kits():
    """``import linlayout`` alone loads neither the sweep's process pool, the pictures nor the GPU kit."""
    code = ("import sys, linlayout; heavy = [m for m in ('linlayout.check.sweep', 'linlayout.io.draw', "
            "'linlayout.check.gpu.verify', 'matplotlib') if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_readme_api_table_names_are_importable():
    """The API table (docs/reference.md) promises that its names import from ``linlayout`` (sweep and draw aside)."""
    import linlayout

    text = (ROOT / "docs" / "reference.md").read_text()
    table = text[text.index("## API overview"): text.index("Every name in this table")]
    for name in ("transpose_16x32_family", "family_from_json", "evaluate_family", "batch_rank", "load_queries",
                 "generate_cuda", "ptx_statement", "parse_ncu_csv", "find_tools", "verify", "plan_query",
                 "draw_distributed", "draw_memory", "draw_access", "draw_access_offsets", "draw_swizzle",
                 "plan_conversion", "plan_gather", "max_vector", "quotient", "is_trivial_over", "to_cuda",
                 "COST_WEIGHTS", "layout_from_ttgir", "layout_from_encoding", "triton_blocked", "triton_amd_mfma",
                 "to_ttgir_linear", "to_ttgir_shared", "parse_module", "lint_text", "standard_swizzles",
                 "score_standards", "swizzle_mode_bytes"):
        assert name in table
        assert hasattr(linlayout, name), name


# ---------------------------------------------------------------------------
# (g) nothing in the project imports a compatibility module
# ---------------------------------------------------------------------------

PROJECT_DIRS = ("linlayout", "tests", "examples", "benchmarks", "tools")
"""Where the project's Python lives (README and docs are checked by their own tests)."""

MAY_IMPORT_COMPAT = ("tests/test_compat.py", "tests/test_architecture.py")
"""The test of the deprecation itself, and this file (it writes offending imports into a fake project)."""


def compatibility_modules(mods: dict[str, Module]) -> set[str]:
    """The deprecated flat paths: modules at the top of the package built with ``linlayout.compat``."""
    return {m.name for m in mods.values() if m.name.count(".") == 1 and layer_of(m.name) == "top"
            and any(i.target == "linlayout.compat" for i in m.imports)}


def _compat_target(name: str, compat: set[str]) -> str | None:
    parts = name.split(".")
    return next((".".join(parts[:i]) for i in range(2, len(parts) + 1) if ".".join(parts[:i]) in compat), None)


def _compat_imports_in(mod: Module, tree: ast.AST, compat: set[str], top_names: set[str]) -> Iterator[tuple[int, str]]:
    """(line, compatibility module) for each import of one in ``tree``: statements, ``import_module("...")``
    and ``__import__("...")`` calls, and code held in string constants (``python -c`` snippets)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if hit := _compat_target(alias.name, compat):
                    yield node.lineno, hit
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(mod, node)
            if hit := _compat_target(base, compat):
                yield node.lineno, hit
            elif base == "linlayout":  # ``from linlayout import sweep``, but ``f2`` is a public name of linlayout
                for alias in node.names:
                    if f"linlayout.{alias.name}" in compat and alias.name not in top_names:
                        yield node.lineno, f"linlayout.{alias.name}"
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if func in ("import_module", "__import__") and isinstance(node.args[0].value, str):
                if hit := _compat_target(node.args[0].value, compat):
                    yield node.lineno, hit
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and "linlayout" in node.value \
                and "import" in node.value:
            try:
                code = ast.parse(node.value)
            except SyntaxError:
                continue
            yield from ((node.lineno, hit) for _, hit in _compat_imports_in(mod, code, compat, top_names))


def find_compat_imports(root: Path, compat: set[str], top_names: set[str],
                        allowed: tuple[str, ...] = MAY_IMPORT_COMPAT) -> list[str]:
    """One message per import of a compatibility module from the project under ``root``."""
    problems = []
    for top in PROJECT_DIRS:
        for path in sorted((root / top).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            name = module_name(path, root)
            if rel in allowed or name in compat or name == "linlayout.compat" or "__pycache__" in rel:
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"), rel)
            mod = Module(name, path, root, tree, 0)
            for line, target in _compat_imports_in(mod, tree, compat, top_names):
                new = "linlayout or its new module (see the DeprecationWarning)"
                problems.append(f"{rel}:{line}: imports the deprecated {target}; import from {new}")
    return problems


def test_nothing_in_the_project_imports_a_compatibility_module():
    import linlayout

    compat = compatibility_modules(package())
    assert {"linlayout.sweep", "linlayout.conflicts", "linlayout.f2"} <= compat
    problems = find_compat_imports(ROOT, compat, set(linlayout.__all__))
    assert not problems, "imports of deprecated compatibility modules:\n" + "\n".join(problems)


def test_the_compat_import_check_catches_each_form(tmp_path):
    """A fake project with one offending import of each form, and the forms it must let pass.  Its compatibility
    modules have names of their own (``legacy``, and ``bits``, which is also a public name of the fake package, as
    ``f2`` is of ``linlayout``), so this test does not depend on which real ones the release still has."""
    files = {
        "linlayout/__init__.py": "from .core import bits\n",
        "linlayout/compat.py": "",
        "linlayout/legacy.py": "from .compat import reexport\n",  # a compatibility module (may import compat)
        "linlayout/bits.py": "from .compat import reexport\n",
        "linlayout/core/__init__.py": "",
        "linlayout/core/bits.py": "",
        "linlayout/io/__init__.py": "",
        "linlayout/io/x.py": "def g():\n    from .. import legacy\n",  # line 2: relative, function level
        "tests/test_a.py": (
            "from linlayout import bits\n"  # fine: bits is a public name of linlayout
            "import linlayout.legacy\n"  # line 2
            "from linlayout.bits import rank\n"  # line 3
            "from linlayout import legacy as s\n"  # line 4
            "CODE = 'import sys, linlayout.legacy'\n"  # line 5: code in a string
            "import importlib\n"
            "m = importlib.import_module('linlayout.legacy')\n"  # line 7
            "from linlayout.core import bits as g\n"  # fine
        ),
        "tests/test_compat.py": "import linlayout.legacy\n",  # allowed
        "examples/e.py": "from linlayout.legacy import sweep\n",  # line 1
    }
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    compat = compatibility_modules(read_package(tmp_path / "linlayout"))
    assert compat == {"linlayout.legacy", "linlayout.bits"}
    problems = find_compat_imports(tmp_path, compat, {"bits"}, allowed=("tests/test_compat.py",))
    assert sorted(p.split(": ")[0] for p in problems) == sorted([
        "linlayout/io/x.py:2", "tests/test_a.py:2", "tests/test_a.py:3", "tests/test_a.py:4", "tests/test_a.py:5",
        "tests/test_a.py:7", "examples/e.py:1"]), problems
    assert "deprecated linlayout.bits" in next(p for p in problems if p.startswith("tests/test_a.py:3"))


# ---------------------------------------------------------------------------
# (f) private names from outside the package
# ---------------------------------------------------------------------------


def find_private_imports(root: Path, folders: tuple[str, ...] = ("tests", "examples", "benchmarks", "tools")) -> list[str]:
    """One message per ``from linlayout... import _name`` in the project's other folders: what they need of a
    module is part of its public surface (a public module name, if not in ``__all__``)."""
    problems = []
    for folder in folders:
        for path in sorted((root / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(), str(path))
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and \
                        (node.module == "linlayout" or node.module.startswith("linlayout.")):
                    for alias in node.names:
                        if _private(alias.name):
                            problems.append(f"{path.relative_to(root)}:{node.lineno}: imports the private name "
                                            f"{alias.name} from {node.module}")
    return problems


def test_the_project_imports_no_private_names_of_the_package():
    problems = find_private_imports(ROOT)
    assert not problems, "private names imported from linlayout:\n" + "\n".join(problems)


def test_the_private_import_check_catches_each_form(tmp_path):
    files = {
        "tests/test_a.py": ("from linlayout.synth.scoring import _x, y\n"  # line 1
                            "def f():\n    from linlayout import _z\n"  # line 3: function level
                            "from linlayout.core import __version__\n"  # fine: a dunder
                            "from . import _helper\n"  # fine: the tests' own module
                            "from linlayoutish import _q\n"),  # fine: another package
        "tools/t.py": "from linlayout.convert.smem import _bits as b\n",  # line 1
        "examples/e.py": "", "benchmarks/b.py": "",
    }
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    problems = find_private_imports(tmp_path)
    assert sorted(p.split(": ")[0] for p in problems) == ["tests/test_a.py:1", "tests/test_a.py:3", "tools/t.py:1"]
