"""Exhaustive sweeps: the closed form against brute-force simulation over a family of memory layouts.

Concepts
========

A family (:mod:`linlayout.check.family`) is a base memory layout, toggles
that XOR its offset bases (``2^T`` configurations for ``T`` toggles) and
the accesses to count.  For every configuration and access the sweep

1. builds the memory; one that is not invertible (two offsets on one
   element) is skipped and reported, with the toggles that caused it;
2. counts wavefronts per instruction in **closed form**, with the batched
   counter (:mod:`linlayout.count.batched`): the access plan of
   :mod:`linlayout.count.plan` evaluated on numpy arrays of configurations,
   one instruction costing ``passes * 2^dim P`` (``P`` the colliding word
   directions of a pass's generators);
3. generates the 32 lane byte offsets of **every** instruction (warp 0) and
   counts them with the address-level simulator,
   :func:`linlayout.count.simulate.simulate_batch`;
4. requires every simulated instruction to cost exactly the closed-form
   count, checks the family's known fact if it has one, and tallies how
   many configurations give 1, 2, 4, ... wavefronts per instruction.

Finally the library itself (:func:`linlayout.count.closed_form.wavefronts` and
:func:`~linlayout.count.by_simulation.lane_byte_offsets`, on full layout objects) is
run on a sample of configurations and must agree with the vectorised counts
and with the generated addresses.  Work is split across processes, in
chunks of configurations whose tallies merge.

Worked example: the seeds' 16x32 fp32 transpose
(:func:`~linlayout.check.family.transpose_16x32_family`), where segment
basis ``j`` of the memory is ``(m_j, C_j)`` and a read instruction costs
``2^(5 - rank{C_0, .., C_3, 1})`` wavefronts.  With 3-bit masks ``C_j``
(2^12 layouts; ``linlayout sweep`` runs all 2^20 in a few seconds):

>>> r = sweep(transpose_16x32_family(mask_bits=3))
>>> r.ok, r.configs, r.checked_instructions
(True, 4096, 131072)
>>> r.sides["read"].histogram
{4: 3360, 8: 720, 16: 16}

API
===

:func:`sweep` (a :class:`SweepResult` with one :class:`SideSummary` per
access, and its report :meth:`SweepResult.text`), and :func:`evaluate_family`, the
per-configuration detail of the same engine.  Families are read from JSON
by :func:`linlayout.io.families.family_from_json`.
"""

from __future__ import annotations

import os
import sys
import time
from collections import Counter
from collections.abc import Iterable
from typing import Any

from ..count.batched import COUNTED, NOT_LOWERABLE, STATUS_NAMES, BatchCount, MemoryBatch, count_batch, memory_batch
from ..errors import LoweringError, NotInvertibleError, SweepError
from .family import KNOWN_FACTS, Family, transpose_16x32_family  # noqa: F401 (the doctests use it)
from .sweep_result import SideSummary, SweepResult

__all__ = ["evaluate_family"]


# ---------------------------------------------------------------------------
# The engine: a family compiled for the batched counter
# ---------------------------------------------------------------------------


class _Engine:
    """The family compiled to packed integers; counts arrays of configurations with :func:`count_batch`."""

    def __init__(self, family: Family) -> None:
        mem = family.memory
        self.family = family
        self.base = [int(v) for v in mem.flat_bases("offset")]
        shift: dict[str, int] = {}
        s = 0
        for nm, sz in mem.out_sizes.items():
            shift[nm] = s
            s += sz.bit_length() - 1

        def pack(dims: Iterable[str], vector: Iterable[int]) -> int:
            return sum(v << shift[k] for k, v in zip(dims, vector))

        self.toggles = [(t.basis, pack(mem.out_dims, t.xor)) for t in family.toggles]
        self.accesses = [
            (a, a.ins, {d: [pack(a.layout.out_dims, b) for b in a.layout.bases[d]] for d in a.layout.in_dims})
            for a in family.accesses
        ]

    def memories(self, configs) -> MemoryBatch:
        """The memories of an int64 array of configurations, inverted."""
        import numpy as np

        cols = np.tile(np.array(self.base, dtype=np.int64), (len(configs), 1))
        for t, (k, x) in enumerate(self.toggles):
            cols[:, k] ^= ((configs >> t) & 1) * x
        return memory_batch(cols)

    def evaluate(self, configs, addresses: bool = False) -> tuple[Any, list[BatchCount]]:
        """(invertible mask, one :class:`BatchCount` per access) for an int64 array of configurations."""
        import numpy as np

        mem = self.memories(np.asarray(configs, dtype=np.int64))
        return mem.invertible, [count_batch(mem, imgs, a.element_bits, ins, a.hardware, a.vector_bits, addresses)
                                for a, ins, imgs in self.accesses]


def evaluate_family(family: Family, configs: Iterable[int]) -> dict[str, list[dict[str, Any]]]:
    """Closed-form and simulated wavefronts of each access, for a few configurations (a list per access).

    Each entry has ``config``, ``status`` (``"ok"``, ``"singular"`` memory or
    ``"not lowerable"``), and when counted ``wavefronts_per_instruction``
    (closed form), ``instructions``, ``access_bytes``, ``simulated`` (one
    count per instruction) and ``lane_byte_offsets`` (per instruction, as
    :func:`linlayout.count.by_simulation.lane_byte_offsets` gives them).  This is the
    vectorised engine of :func:`sweep`, for checking it against the library.

    >>> e = evaluate_family(transpose_16x32_family(), [0])
    >>> e["read"][0]["wavefronts_per_instruction"], e["read"][0]["simulated"][:3]
    (16, [16, 16, 16])
    """
    import numpy as np

    cfg = np.array(list(configs), dtype=np.int64)
    if len(cfg) and (cfg.min() < 0 or cfg.max() >= family.size):
        raise SweepError(f"configurations must lie in 0..{family.size - 1}")
    eng = _Engine(family)
    _, sides = eng.evaluate(cfg, addresses=True)
    out: dict[str, list[dict[str, Any]]] = {}
    for a, side in zip(family.accesses, sides):
        rows: list[dict[str, Any]] = [
            {"config": int(c), "status": STATUS_NAMES[int(s)]} for c, s in zip(cfg, side.status)
        ]
        for g in side.groups:
            for j, r in enumerate(g.rows):
                rows[r].update(
                    wavefronts_per_instruction=int(side.wavefronts[r]),
                    instructions=int(side.instructions[r]),
                    access_bytes=int(side.access_bytes[r]),
                    simulated=[int(x) for x in g.simulated[j]],
                    lane_byte_offsets=g.lane_byte_offsets[j].tolist(),
                )
        out[a.name] = rows
    return out


# ---------------------------------------------------------------------------
# The sweep: chunks of configurations, in processes, merged
# ---------------------------------------------------------------------------


_WORKER: dict[str, Any] = {}


def _worker_init(family: Family, examples: int) -> None:
    _WORKER["engine"] = _Engine(family)
    _WORKER["examples"] = examples


def _worker_run(task) -> dict[str, Any]:
    return _run_chunk(_WORKER["engine"], task, _WORKER["examples"])


def _task_configs(task):
    import numpy as np

    if isinstance(task, tuple):
        return np.arange(task[0], task[1], dtype=np.int64)
    return task


def _run_chunk(eng: _Engine, task, examples: int) -> dict[str, Any]:
    """Evaluate one chunk of configurations; return mergeable tallies."""
    import numpy as np

    fam = eng.family
    configs = _task_configs(task)
    ok, sides = eng.evaluate(configs)
    expected = None
    if fam.expect is not None:
        expected = KNOWN_FACTS[fam.expect].counts(configs, *fam.expect_args)
    out: dict[str, Any] = {
        "configs": len(configs),
        "singular": int((~ok).sum()),
        "singular_examples": [int(c) for c in configs[~ok][:examples]],
        "sides": {},
    }
    for a, side in zip(fam.accesses, sides):
        d: dict[str, Any] = {
            "histogram": Counter(), "simulated": Counter(), "ipl": Counter(), "abytes": Counter(),
            "checked": 0, "disagreements": 0, "examples": [],
            "not_lowerable": int((side.status == NOT_LOWERABLE).sum()),
            "not_lowerable_examples": [int(c) for c in configs[side.status == NOT_LOWERABLE][:examples]],
            "expect_mismatches": 0, "expect_examples": [],
        }
        counted = side.status == COUNTED
        for v, k in zip(*np.unique(side.wavefronts[counted], return_counts=True)):
            d["histogram"][int(v)] += int(k)
        for v, k in zip(*np.unique(side.instructions[counted], return_counts=True)):
            d["ipl"][int(v)] += int(k)
        for v, k in zip(*np.unique(side.access_bytes[counted], return_counts=True)):
            d["abytes"][int(v)] += int(k)
        for g in side.groups:
            sel, sim, per = g.rows, g.simulated, g.wavefronts
            for v, k in zip(*np.unique(sim, return_counts=True)):
                d["simulated"][int(v)] += int(k)
            d["checked"] += sim.size
            bad = sim != per[:, None]
            nbad = int(bad.sum())
            if nbad:
                d["disagreements"] += nbad
                rows, ins_idx = np.nonzero(bad)
                for r, i in list(zip(rows, ins_idx))[:examples]:
                    cfg = int(configs[sel[r]])
                    d["examples"].append({"config": cfg, "instruction": int(i), "closed_form": int(per[r]),
                                          "simulation": int(sim[r, i])})
        if expected is not None and a.name in expected:
            exp = expected[a.name]
            bad = counted & (side.wavefronts != exp)
            d["expect_mismatches"] = int(bad.sum())
            d["expect_examples"] = [{"config": int(c), "closed_form": int(v), "expected": int(e)}
                                    for c, v, e in zip(configs[bad][:examples], side.wavefronts[bad][:examples],
                                                       exp[bad][:examples])]
        out["sides"][a.name] = d
    return out


def _merge(total: dict[str, Any] | None, part: dict[str, Any], examples: int) -> dict[str, Any]:
    if total is None:
        return part
    total["configs"] += part["configs"]
    total["singular"] += part["singular"]
    total["singular_examples"] = sorted(total["singular_examples"] + part["singular_examples"])[:examples]
    for nm, d in part["sides"].items():
        t = total["sides"][nm]
        for k in ("histogram", "simulated", "ipl", "abytes"):
            t[k].update(d[k])
        for k in ("checked", "disagreements", "not_lowerable", "expect_mismatches"):
            t[k] += d[k]
        t["examples"] = sorted(t["examples"] + d["examples"], key=lambda e: (e["config"], e["instruction"]))[:examples]
        t["expect_examples"] = sorted(t["expect_examples"] + d["expect_examples"], key=lambda e: e["config"])[:examples]
        t["not_lowerable_examples"] = sorted(t["not_lowerable_examples"] + d["not_lowerable_examples"])[:examples]
    return total


class _Progress:
    def __init__(self, total: int, enabled: bool, stream=None) -> None:
        self.total = total
        self.enabled = enabled
        self.stream = stream or sys.stderr
        self.done = 0
        self.t0 = time.perf_counter()
        self.last = 0.0

    def update(self, n: int) -> None:
        self.done += n
        if not self.enabled:
            return
        now = time.perf_counter()
        if now - self.last < 0.1 and self.done < self.total:
            return
        self.last = now
        frac = self.done / self.total if self.total else 1.0
        width = 30
        bar = "#" * int(frac * width) + "." * (width - int(frac * width))
        el = now - self.t0
        eta = f", {el / frac - el:.0f} s left" if 0 < frac < 1 else ""
        self.stream.write(f"\rsweep [{bar}] {frac * 100:5.1f}% {self.done:,}/{self.total:,} layouts, {el:.1f} s{eta}   ")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()


def _default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def sweep(
    family: Family,
    jobs: int | None = None,
    progress: bool = False,
    sample: int | None = None,
    seed: int = 0,
    library_check: int = 64,
    examples: int = 5,
    chunk: int | None = None,
) -> SweepResult:
    """Sweep every configuration of ``family``: closed form against simulation of every instruction.

    Parameters
    ----------
    family
        A :class:`Family` (:func:`transpose_16x32_family`,
        :func:`linlayout.io.families.family_from_json`, :meth:`Family.make`).
    jobs
        Worker processes (default: the CPUs this process may use; families of
        fewer than 16,384 configurations run in this process).
    progress
        Draw a progress bar on standard error.
    sample, seed
        Sweep ``sample`` configurations drawn at random (without replacement)
        instead of all of them.
    library_check
        Also run :func:`linlayout.count.closed_form.wavefronts` and
        :func:`~linlayout.count.by_simulation.lane_byte_offsets` on this many sampled
        configurations (configuration 0 included) and compare.
    examples
        How many failing configurations to keep per kind of failure.

    Returns a :class:`SweepResult`; it does not raise on disagreements
    (``result.ok`` is false and the examples name the failing configurations).

    >>> r = sweep(transpose_16x32_family(mask_bits=2), library_check=4)
    >>> r.sides["store"].histogram, r.sides["read"].histogram, r.library_checked
    ({1: 256}, {8: 240, 16: 16}, 4)
    """
    import numpy as np

    if not isinstance(family, Family):
        raise SweepError(f"sweep needs a Family, got {type(family).__name__}")
    t0 = time.perf_counter()
    total = family.size
    if sample is not None:
        if isinstance(sample, bool) or not isinstance(sample, int) or sample <= 0:
            raise SweepError(f"sample must be a positive integer, got {sample!r}")
        rng = np.random.default_rng(seed)
        if sample >= total:
            sample = None
        elif total <= (1 << 24):
            picked = np.sort(rng.choice(total, size=sample, replace=False)).astype(np.int64)
        else:
            picked = np.unique(rng.integers(0, total, size=sample * 2, dtype=np.int64))[:sample]
            rng.shuffle(picked)
            picked = np.sort(picked[:sample])
    n = total if sample is None else len(picked)
    if jobs is None:
        jobs = _default_jobs() if n >= 16384 else 1
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise SweepError(f"jobs must be a positive integer, got {jobs!r}")
    eng = _Engine(family)
    per_cfg = 0
    for a in family.accesses:
        nz = sum(1 for v in a.layout.flat_bases("register") if v) if "register" in a.layout.in_dims else 0
        per_cfg += 1 << nz
    if chunk is None:
        chunk = max(64, min(1 << 15, (1 << 18) // max(1, per_cfg)))
        if jobs > 1:
            chunk = max(64, min(chunk, -(-n // (jobs * 4))))
    if sample is None:
        tasks: list = [(s, min(total, s + chunk)) for s in range(0, total, chunk)]
    else:
        tasks = [picked[s : s + chunk] for s in range(0, n, chunk)]
    bar = _Progress(n, progress)
    merged = None
    try:
        jobs = min(jobs, len(tasks), 4 * _default_jobs())  # never more workers than chunks or than 4 per CPU
        if jobs == 1 or len(tasks) == 1:
            jobs = 1
            for t in tasks:
                merged = _merge(merged, _run_chunk(eng, t, examples), examples)
                bar.update(len(_task_configs(t)))
        else:
            import multiprocessing as mp

            methods = mp.get_all_start_methods()
            ctx = mp.get_context("fork" if "fork" in methods and sys.platform.startswith("linux") else "spawn")
            with ctx.Pool(jobs, initializer=_worker_init, initargs=(family, examples)) as pool:
                for part in pool.imap_unordered(_worker_run, tasks):
                    merged = _merge(merged, part, examples)
                    bar.update(part["configs"])
    finally:
        bar.close()
    assert merged is not None
    res = SweepResult(
        family=family.name,
        configs=n,
        total_configs=total,
        sampled=sample is not None,
        seconds=0.0,
        jobs=jobs,
        sides={},
        singular=merged["singular"],
        expect=KNOWN_FACTS[family.expect].formula if family.expect else None,
    )
    for a in family.accesses:
        d = merged["sides"][a.name]
        s = SideSummary(a.name, a.ins.name, a.ins.op, a.element_bits)
        s.histogram = dict(sorted(d["histogram"].items()))
        s.simulated = dict(sorted(d["simulated"].items()))
        s.instructions_per_layout = dict(sorted(d["ipl"].items()))
        s.access_bytes = dict(sorted(d["abytes"].items()))
        s.checked_instructions = d["checked"]
        s.disagreements = d["disagreements"]
        s.not_lowerable = d["not_lowerable"]
        s.not_lowerable_examples = d["not_lowerable_examples"]
        s.expect_mismatches = d["expect_mismatches"]
        s.expect_examples = d["expect_examples"]
        if d["examples"]:
            det = evaluate_family(family, sorted({e["config"] for e in d["examples"]}))[a.name]
            by = {r["config"]: r for r in det}
            for e in d["examples"]:
                e["toggles"] = family.toggles_of(e["config"])
                e["lane_byte_offsets"] = by[e["config"]]["lane_byte_offsets"][e["instruction"]]
            s.examples = d["examples"]
        res.sides[a.name] = s
    for c in merged["singular_examples"]:
        try:
            family.memory_at(c).invert()
            msg = "invertible in the library (engine disagrees)"
            res.library_mismatches.append(f"config {c}: the engine calls the memory singular, the library inverts it")
        except NotInvertibleError as e:
            msg = str(e)
        res.singular_examples.append({"config": c, "toggles": family.toggles_of(c), "message": msg})
    if res.singular:
        base_ok = eng.evaluate(np.array([0], dtype=np.int64))[0][0]
        if base_ok and family.toggles:
            alone = np.array([1 << t for t in range(len(family.toggles))], dtype=np.int64)
            inv_ok = eng.evaluate(alone)[0]
            res.singular_toggles = [int(t) for t in np.flatnonzero(~inv_ok)]
    if library_check:
        _library_check(family, res, n if sample is None else picked, library_check, seed)
    res.seconds = time.perf_counter() - t0
    return res


def _library_check(family: Family, res: SweepResult, pool, k: int, seed: int) -> None:
    """Compare the engine with conflicts.wavefronts / lane_byte_offsets on ``k`` sampled configurations."""
    import numpy as np

    from ..count.by_simulation import lane_byte_offsets
    from ..count.closed_form import wavefronts

    rng = np.random.default_rng(seed + 1)
    if isinstance(pool, int):
        cand = rng.choice(pool, size=min(k, pool), replace=False) if pool <= (1 << 24) else rng.integers(0, pool, k)
        cand = set(int(c) for c in cand) | {0}
    else:
        cand = set(int(c) for c in rng.choice(pool, size=min(k, len(pool)), replace=False))
    cfgs = sorted(cand)[: max(k, 1)]
    det = evaluate_family(family, cfgs)
    res.library_checked = len(cfgs)
    for a in family.accesses:
        for row in det[a.name]:
            c = row["config"]
            mem = family.memory_at(c)
            try:
                rep = wavefronts(a.query(mem))
            except NotInvertibleError:
                if row["status"] != "singular":
                    res.library_mismatches.append(f"{a.name} config {c}: the library finds the memory singular, the engine does not")
                continue
            except LoweringError as e:
                if row["status"] != "not lowerable":
                    res.library_mismatches.append(f"{a.name} config {c}: the library cannot lower it ({e}), the engine can")
                continue
            if row["status"] != "ok":
                res.library_mismatches.append(f"{a.name} config {c}: the engine says {row['status']}, the library counts it")
                continue
            if (rep.wavefronts_per_instruction, rep.instructions, rep.access_bytes) != (
                row["wavefronts_per_instruction"], row["instructions"], row["access_bytes"]
            ):
                res.library_mismatches.append(
                    f"{a.name} config {c}: library {rep.wavefronts_per_instruction} wavefronts x {rep.instructions} "
                    f"instructions ({rep.access_bytes} B), engine {row['wavefronts_per_instruction']} x "
                    f"{row['instructions']} ({row['access_bytes']} B)"
                )
            elif lane_byte_offsets(a.query(mem)) != row["lane_byte_offsets"]:
                res.library_mismatches.append(f"{a.name} config {c}: lane byte offsets differ from the library's")


_RENAMED = {"evaluate": "evaluate_family"}


def __getattr__(name: str) -> Any:
    """``evaluate``, this function's name before it said what it evaluates, for one release (DeprecationWarning).

    It was exported as ``linlayout.evaluate``, which read as :mod:`linlayout.core.evaluate` (a layout at one
    input); ``evaluate_family`` evaluates a sweep family at some configurations.
    """
    new = _RENAMED.get(name)
    if new is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import warnings

    warnings.warn(f"{__name__}.{name} is deprecated; use {new}", DeprecationWarning, stacklevel=2)
    return globals()[new]
