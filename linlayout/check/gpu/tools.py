"""Finding the CUDA tools and the GPU: ``nvcc``, Nsight Compute's ``ncu`` and ``nvidia-smi``.

Concepts
========

Measuring needs three things on this machine: the CUDA compiler ``nvcc``,
the profiler ``ncu`` and an NVIDIA GPU.  A tool is found by
:func:`which_tool`, in this order:

1. the path given explicitly (``--nvcc``/``--ncu`` on the command line);
2. the environment variable (``NVCC``/``NCU``);
3. ``PATH``;
4. ``$CUDA_HOME/bin``, ``$CUDA_PATH/bin``, ``/usr/local/cuda/bin``;
5. for ``ncu`` only, the usual Nsight Compute folders
   (``/opt/nvidia/nsight-compute/*/``, ``/usr/local/NVIDIA-Nsight-Compute``,
   ``/usr/local/cuda-*/bin``).

An explicit path or environment variable is final: when it names no
executable file, the tool counts as missing (no fallback to ``PATH``).

The GPU is the first one ``nvidia-smi --query-gpu=name,driver_version,compute_cap``
lists; the architecture to compile for is ``sm_<compute capability>``, or
``sm_90`` when ``nvidia-smi`` is too old to report it.  :func:`find_tools`
gathers all of it into :class:`Tools`, or raises one
:class:`~linlayout.errors.GPUToolError` naming *everything* that is missing,
so one run tells the whole story:

>>> find_tools(nvcc="/nonexistent/nvcc")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
linlayout.errors.GPUToolError: verify-gpu needs nvcc, ncu and an NVIDIA GPU; missing: nvcc (...

API: :class:`Tools`, :func:`which_tool`, :func:`find_tools`, :func:`arch_number`.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

from ...core.record import record
from ...errors import GPUToolError

__all__ = ["find_tools"]


@record(frozen=False)
class Tools:
    """Paths and facts about the local CUDA set-up: the tools, their versions, the GPU and the target architecture."""

    nvcc: str
    ncu: str
    gpu_name: str
    compute_cap: str | None
    driver: str
    arch: str
    nvcc_version: str = ""
    ncu_version: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The ``device`` entry of a verification report."""
        return {
            "gpu": self.gpu_name,
            "compute_capability": self.compute_cap,
            "driver": self.driver,
            "arch": self.arch,
            "nvcc": self.nvcc,
            "nvcc_version": self.nvcc_version,
            "ncu": self.ncu,
            "ncu_version": self.ncu_version,
        }


def which_tool(name: str, explicit: str | None = None, env: str | None = None) -> str | None:
    """The path of the executable ``name``, or ``None`` when it is not found (the search order is in the module docstring).

    Parameters
    ----------
    name
        The executable's name: ``"nvcc"`` or ``"ncu"`` (``ncu`` also searches
        the Nsight Compute folders).
    explicit
        A path given by the user; when set, it is the answer if it is an
        executable file and ``None`` otherwise.
    env
        The environment variable that may name the path (``"NVCC"``,
        ``"NCU"``), used like ``explicit`` when ``explicit`` is not set.

    >>> which_tool("nvcc", explicit="/nonexistent/nvcc") is None
    True
    """
    for cand in (explicit, os.environ.get(env) if env else None):
        if cand:
            return cand if (os.path.isfile(cand) and os.access(cand, os.X_OK)) else None
    found = shutil.which(name)
    if found:
        return found
    homes = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"]
    for h in homes:
        if h and os.access(os.path.join(h, "bin", name), os.X_OK):
            return os.path.join(h, "bin", name)
    if name == "ncu":
        for base in ("/opt/nvidia/nsight-compute", "/usr/local/NVIDIA-Nsight-Compute"):
            hits = sorted(Path(base).glob("*/ncu")) + [Path(base) / "ncu"]
            for h in reversed(hits):
                if os.access(h, os.X_OK):
                    return str(h)
        for h in sorted(Path("/usr/local").glob("cuda-*/bin/ncu"), reverse=True):
            if os.access(h, os.X_OK):
                return str(h)
    return None


def _version(exe: str) -> str:
    try:
        out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=60)
        lines = [ln.strip() for ln in (out.stdout + out.stderr).splitlines() if ln.strip()]
        return lines[-1] if lines else ""
    except (OSError, subprocess.SubprocessError):
        return ""


def _query_gpu(smi: str, missing: list[str]) -> tuple[str, str, str | None]:
    """(name, driver, compute capability) of the first GPU; appends to ``missing`` when there is none."""
    name = driver = ""
    cap = None
    try:
        out = subprocess.run([smi, "--query-gpu=name,driver_version,compute_cap", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=60)
        if out.returncode != 0:
            out = subprocess.run([smi, "--query-gpu=name,driver_version", "--format=csv,noheader"],
                                 capture_output=True, text=True, timeout=60)
        first = out.stdout.strip().splitlines()[0] if out.returncode == 0 and out.stdout.strip() else ""
    except (OSError, subprocess.SubprocessError) as e:
        first = ""
        missing.append(f"an NVIDIA GPU (nvidia-smi failed: {e})")
    if first:
        parts = [p.strip() for p in first.split(",")]
        name, driver = parts[0], parts[1] if len(parts) > 1 else ""
        cap = parts[2] if len(parts) > 2 and re.fullmatch(r"\d+\.\d+", parts[2]) else None
    elif not any(m.startswith("an NVIDIA GPU") for m in missing):
        missing.append("an NVIDIA GPU (nvidia-smi lists none)")
    return name, driver, cap


def find_tools(nvcc: str | None = None, ncu: str | None = None, arch: str | None = None) -> Tools:
    """Locate ``nvcc``, ``ncu`` and a GPU; raise :class:`~linlayout.errors.GPUToolError` naming everything that is missing.

    ``nvcc``/``ncu`` may be given (or set ``NVCC``/``NCU``); otherwise
    ``PATH``, ``$CUDA_HOME/bin``, ``/usr/local/cuda/bin`` and the usual Nsight
    Compute folders are searched (:func:`which_tool`).  The GPU is the first
    one ``nvidia-smi`` lists; the architecture is ``sm_<compute capability>``
    (``sm_90`` when ``nvidia-smi`` cannot tell), or ``arch``.
    """
    missing = []
    nv = which_tool("nvcc", nvcc, "NVCC")
    if nv is None:
        missing.append("nvcc (not on PATH, $CUDA_HOME/bin or /usr/local/cuda/bin; set NVCC or --nvcc)")
    nc = which_tool("ncu", ncu, "NCU")
    if nc is None:
        missing.append("ncu, Nsight Compute (not on PATH, $CUDA_HOME/bin, /usr/local/cuda/bin or "
                       "/opt/nvidia/nsight-compute; set NCU or --ncu)")
    smi = shutil.which("nvidia-smi")
    name = driver = ""
    cap = None
    if smi is None:
        missing.append("an NVIDIA GPU (nvidia-smi not found)")
    else:
        name, driver, cap = _query_gpu(smi, missing)
    if missing:
        raise GPUToolError("verify-gpu needs nvcc, ncu and an NVIDIA GPU; missing: " + "; ".join(missing))
    if arch is None:
        arch = "sm_" + cap.replace(".", "") if cap else "sm_90"
    return Tools(nv, nc, name, cap, driver, arch, _version(nv), _version(nc))  # type: ignore[arg-type]


def arch_number(arch: str) -> int:
    """The number of an architecture name (``sm_90a`` -> 90; 90 when it has none).

    >>> arch_number("sm_90a"), arch_number("sm_80"), arch_number("native")
    (90, 80, 90)
    """
    m = re.search(r"(\d+)", arch)
    return int(m.group(1)) if m else 90
