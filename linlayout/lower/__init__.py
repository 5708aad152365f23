"""The compiler's lowering model: what Triton emits for the ops of a kernel, counted per warp.

A layer of its own, between ``convert/`` (linlayout's own conversion
planner) and ``check/``: what a compiler does is neither input/output nor the
library's own optimisation, but a model of another program, checked against
its measured kernels.  One module per compiler version, never a branch:

* :mod:`.ir`: the plain values of Triton's IR that the model reads (attributes,
  tensor types, ops, a module); :mod:`linlayout.io.ttgir` reads the text into
  them;
* :mod:`.model`: :class:`~.model.Lowering`, what a version's model provides
  (how it counts local loads and stores, the scope and round trip of a
  conversion, reductions across warps, the ops it cannot count and why);
* :mod:`.triton_3_6`: Triton 3.6 on sm90, measured with Nsight Compute;
* :mod:`.triton_3_9`: Triton 3.9 on sm90, checked against its PTX;
* Triton's own choice of scratch layout and instructions for a conversion
  through shared memory (its generic swizzling) is
  :mod:`linlayout.convert.triton_scratch`, a layer below: the planner uses it
  too, as its default budget and one of its candidates;
* :mod:`.scratch_ops`: each version's models of the ops that use scratch
  shared memory (reductions, scans, histograms, atomics, gathers, cp.async);
* :mod:`.loops`: trip counts, read from the IR, given, or data-dependent;
* :mod:`.registry`: :data:`~.registry.LOWERINGS` and
  :func:`~.registry.get_lowering` by version;
* :mod:`.records`: the immutable results (per conversion, op, buffer,
  kernel);
* :mod:`.lint`: :func:`~.lint.lint_module`, the analysis behind
  ``linlayout lint``: every op of a module counted under one lowering, the
  buffers' optimal swizzles, the totals over a grid;
* :mod:`.remedies`: what a kernel could do instead, on request: the cheapest
  legal NVMMA encoding or writer conversion for a buffer a wgmma/TMA user
  fixes, a cheaper exchange (with its bound and Gluon code) for a reduction
  across warps.

A second Triton version is a new module beside :mod:`.triton_3_6` that builds
its :class:`~.model.Lowering` (reusing the functions that did not change)
and one entry in :data:`~.registry.LOWERINGS`.
"""

__all__ = ["ConvertPlanner", "LintReport", "LoweredConversion", "get_lowering", "lint_module", "shared_round_trip"]
"""The names ``linlayout`` exports from this layer; the records, :class:`~.model.Lowering` and the
registry's table are reached by their module paths (``linlayout.lower.records``, ...)."""

_HOMES = {"ConvertPlanner": ".records", "LintReport": ".records", "LoweredConversion": ".records",
          "get_lowering": ".registry", "lint_module": ".lint", "shared_round_trip": ".triton_3_6"}


def __getattr__(name: str):
    """The exported names, imported on first use.

    :mod:`linlayout.io.ttgir` reads text into :mod:`.ir`'s values when
    ``linlayout`` is imported; importing this package must not pull in the
    lowering models (and through them ``convert/`` and numpy) at that point.
    """
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(_HOMES[name], __name__), name)
    globals()[name] = value
    return value
