"""The deprecated flat paths of the previous release: they still work, and they say where the code went.

``linlayout.sweep``, ``linlayout.conflicts`` and the other compatibility
modules re-export the public names of the modules that now hold the code
(:func:`linlayout.compat.reexport`) and emit a :class:`DeprecationWarning`
naming those modules, pointed at the line that imported them.  This is the
one file of the project that imports them (``tests/test_architecture.py``
fails on any other import); ``import linlayout`` itself warns about nothing.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import linlayout

ROOT = Path(__file__).resolve().parents[1]

NEW_HOMES = {
    "linlayout.compare": ["linlayout.synth.compare"],
    "linlayout.conflicts": ["linlayout.count.closed_form", "linlayout.count.by_simulation"],
    "linlayout.constructors": ["linlayout.catalog.constructors"],
    "linlayout.draw": ["linlayout.io.draw"],
    "linlayout.emit": ["linlayout.io.emit"],
    "linlayout.f2": ["linlayout.core.f2"],
    "linlayout.hardware": ["linlayout.hw"],
    "linlayout.jsonio": ["linlayout.io.jsonio"],
    "linlayout.layout": ["linlayout.core.layout"],
    "linlayout.render": ["linlayout.io.render"],
    "linlayout.simulate": ["linlayout.count.simulate"],
    "linlayout.sweep": ["linlayout.check.family", "linlayout.check.sweep", "linlayout.io.families",
                        "linlayout.count.batched"],
    "linlayout.swizzles": ["linlayout.catalog.swizzles", "linlayout.core.memory"],
    "linlayout.synthesis": ["linlayout.synth.synthesis"],
    "linlayout.verify_gpu": ["linlayout.check.gpu.codegen", "linlayout.check.gpu.counts", "linlayout.check.gpu.ncu",
                             "linlayout.check.gpu.tools", "linlayout.check.gpu.verify", "linlayout.io.gpu_queries",
                             "linlayout.errors"],
}
"""Each compatibility module and the modules that hold its code now (the warning names all of them)."""

SINGLE_NAMES = {
    "linlayout.sweep": {"family_from_json": "linlayout.io.families", "batch_rank": "linlayout.count.batched"},
    "linlayout.verify_gpu": {"GPUToolError": "linlayout.errors"},
}
"""Names an old path re-exports alone from a further module (not the module's every public name)."""


def compatibility_modules() -> set[str]:
    """The modules at the top of the package built with ``compat.reexport``, found from the source."""
    return {f"linlayout.{p.stem}" for p in (ROOT / "linlayout").glob("*.py")
            if "from .compat import reexport" in p.read_text(encoding="utf-8")}


def fresh_import(name: str, monkeypatch: pytest.MonkeyPatch, filename: str = "user.py"):
    """Run ``import name`` as if for the first time (so its body runs and warns), as line 1 of ``filename``.

    Undone after the test: ``sys.modules`` and the package attribute (``linlayout.f2`` is ``core.f2``
    until the deprecated ``linlayout.f2`` is imported) are restored.
    """
    parent, _, child = name.rpartition(".")
    monkeypatch.delitem(sys.modules, name, raising=False)
    monkeypatch.setattr(sys.modules[parent], child, None, raising=False)
    monkeypatch.delattr(sys.modules[parent], child)
    exec(compile(f"import {name}", filename, "exec"), {})
    return sys.modules[name]


def test_every_compatibility_module_is_listed():
    assert compatibility_modules() == set(NEW_HOMES)


@pytest.mark.parametrize("name", sorted(NEW_HOMES))
def test_importing_warns_and_names_the_new_path(name, monkeypatch):
    """One warning, naming every new home, pointed (``stacklevel``) at the importing line, not at linlayout."""
    with pytest.warns(DeprecationWarning) as caught:
        module = fresh_import(name, monkeypatch, filename="user.py")
    ours = [w for w in caught if str(w.message).startswith(f"{name} is deprecated")]
    assert len(ours) == 1, [str(w.message) for w in caught]
    message = str(ours[0].message)
    for home in NEW_HOMES[name]:
        assert home in message, message
    assert "next release" in message
    if type(module.__loader__).__name__ != "AssertionRewritingHook":  # a frame of pytest's when the file is an argument
        assert (ours[0].filename, ours[0].lineno) == ("user.py", 1)


@pytest.mark.parametrize("name", sorted(NEW_HOMES))
def test_the_old_names_still_work(name, monkeypatch):
    """Every public name of the new homes is reachable through the old path, as the same object.

    Two old paths also carried single names of further modules (:data:`SINGLE_NAMES`).
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        old = fresh_import(name, monkeypatch)
    singles = SINGLE_NAMES.get(name, {})
    for home_name in NEW_HOMES[name]:
        home = importlib.import_module(home_name)
        if home_name in singles.values():
            public = [n for n, h in singles.items() if h == home_name]
        else:
            public = [n for n in vars(home) if not n.startswith("_")]
            assert set(home.__all__) <= set(old.__all__), home_name
        for attr in public:
            assert getattr(old, attr) is getattr(home, attr), f"{name}.{attr}"
    assert all(hasattr(old, n) for n in old.__all__)


def test_a_few_old_spellings(monkeypatch):
    """What users wrote against the previous release (each import warns, and still works): names read through three
    old paths, each imported as a user's file imports it (:func:`fresh_import`, as the tests above do)."""
    with pytest.warns(DeprecationWarning) as caught:
        conflicts, sweep, verify_gpu = (fresh_import(f"linlayout.{name}", monkeypatch)
                                        for name in ("conflicts", "sweep", "verify_gpu"))
    assert len(caught) == 3
    from linlayout.check.sweep import sweep as new_sweep
    from linlayout.count.closed_form import wavefronts as new_wavefronts

    assert conflicts.wavefronts is new_wavefronts and sweep.sweep is new_sweep
    assert verify_gpu.GPUToolError is linlayout.GPUToolError
    for module, names in ((conflicts, "lane_byte_offsets"), (sweep, "batch_rank family_from_json"),
                          (verify_gpu, "generate_cuda")):
        assert all(hasattr(module, n) for n in names.split()), module.__name__
    assert len(sweep.transpose_16x32_family().toggles) == 20


def test_import_linlayout_warns_about_nothing():
    """``import linlayout`` and every name of ``linlayout.__all__`` load with DeprecationWarnings as errors."""
    code = "import linlayout\nfor n in linlayout.__all__: getattr(linlayout, n)\nprint(len(linlayout.__all__))"
    r = subprocess.run([sys.executable, "-W", "error::DeprecationWarning", "-c", code],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert int(r.stdout) == len(linlayout.__all__)
