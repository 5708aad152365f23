"""The ``linlayout`` command (also ``python -m linlayout``).

Every error on bad input prints one line to standard error and exits with
status 2; success exits 0.

    linlayout show LAYOUT.json [--json] [--no-grid]
    linlayout show blocked|mma|wgmma|ldmatrix|stmatrix|mfma|cute [parameters]
    linlayout conflicts QUERY.json [--json] [--simulate] [--all-banks]
    linlayout swizzle QUERY.json [--json] [--emit json|c|cute|triton] [--name F] [--cute-single] [--compare]
                     [--no-grid | --grid]
    linlayout sweep [FAMILY.json] [--json] [--jobs N] [--progress] [--sample N] [--mask-bits B]
    linlayout verify-gpu QUERY.json [QUERY.json ...] [--json] [--keep DIR]
    linlayout draw LAYOUT.json|QUERY.json -o OUT.png|OUT.svg [--element-bits N] [--max-side N]

``sweep`` exits with status 1 when the closed form and the simulation
disagree (the report names the failing configurations); ``verify-gpu`` exits
with status 1 when a measurement differs from the prediction; ``swizzle
--emit cute --cute-single`` exits with status 1 (and says why) when no layout
of one CuTe swizzle lets both sides access the tile.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence

from .errors import ConstructorArgumentError, LinLayoutError

__all__ = ["main"]


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    """A parser whose errors are one line (exit 2, in :func:`main`) and whose arguments may be added on first use.

    ``define(parser)`` adds a command's arguments the first time its parser parses (``linlayout lint ...`` or
    ``linlayout lint --help``): building every command's arguments (their help texts, argparse's formatters and
    translations) took about as long as linting a small kernel.  ``linlayout --help`` lists the commands from the
    ``help`` each was registered with."""

    def __init__(self, *args, define: Callable[[argparse.ArgumentParser], None] | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.define = define

    def parse_known_args(self, args=None, namespace=None):
        if self.define is not None:
            define, self.define = self.define, None
            define(self)
        return super().parse_known_args(args, namespace)

    def error(self, message: str) -> None:  # one line, exit 2 (handled in main)
        raise _UsageError(f"{self.prog}: {message} (see --help)")


def _properties(layout) -> dict:
    from .core.memory import is_offset_memory_layout

    mem = is_offset_memory_layout(layout)
    return {
        "in_dims": layout.in_sizes,
        "out_dims": layout.out_sizes,
        "rank": layout.rank(),
        "surjective": layout.is_surjective(),
        "injective": layout.is_injective(),
        "invertible": layout.is_invertible(),
        "free_variables": layout.free_variable_masks(),
        # A layout of offsets is a memory layout, never a distributed one (whose inputs are hardware indices).
        "distributed": "offset" not in layout.in_dims and layout.is_distributed(),
        "memory_layout": mem,
    }


# linlayout lint shows its stages on stderr once it has run this many seconds (io/ttgir/progress.py).
LINT_PROGRESS_AFTER = 1.0


CONSTRUCTORS = ("blocked", "mma", "wgmma", "ldmatrix", "stmatrix", "mfma", "cute")


def _need(value, flag: str, name: str):
    if value is None:
        raise ConstructorArgumentError(f"linlayout show {name} needs {flag}")
    return value


def _layout_by_name(args: argparse.Namespace):
    from .catalog import constructors as c

    name = args.layout
    if name == "blocked":
        shape = _need(args.shape, "--shape", name)
        rank = len(shape)
        return c.blocked(shape, args.size_per_thread or [1] * rank, _need(args.threads_per_warp, "--threads-per-warp", name),
                         args.warps_per_cta or [1] * rank, args.order or list(range(rank - 1, -1, -1)))
    if name == "mma":
        instr = args.instr or {16: "m16n8k16", 8: "m16n8k32", 32: "m16n8k8"}.get(args.bits or 16)
        if instr is None:
            raise ConstructorArgumentError(f"mma takes --bits 16, 8 or 32 (tf32), not {args.bits}")
        return c.mma(args.operand or "A", _need(args.shape, "--shape", name), instr, args.warps_per_cta or (1, 1))
    if name == "wgmma":
        return c.wgmma(args.operand or "C", _need(args.shape, "--shape", name), n=args.n or 8, element_bits=args.bits or 16,
                       warps_per_cta=args.warps_per_cta or (4, 1))
    if name in ("ldmatrix", "stmatrix"):
        return c.ldmatrix(args.matrices or 4, args.trans)
    if name == "mfma":
        return c.mfma(args.operand or "C", args.instr or "32x32x8")
    if name == "cute":
        from .io.jsonio import decode

        form = "--tv '[[thread shape, value shape], [thread stride, value stride]]'"
        tv = decode(_need(args.tv, form, name), "--tv")
        if not (isinstance(tv, list) and len(tv) == 2):
            raise _UsageError(f"linlayout show cute: {form} takes a JSON list of two entries, got {args.tv!r}")
        return c.cute_tv_layout(tv[0], tv[1], _need(args.shape, "--shape", name))
    raise ConstructorArgumentError(f"unknown layout {name!r}")  # pragma: no cover


def _cmd_show(args: argparse.Namespace) -> int:
    from .io.jsonio import layout_from_json, load_file
    from .core.text import grid_text, layout_text

    if args.layout in CONSTRUCTORS:
        layout = _layout_by_name(args)
    elif args.layout.lstrip().startswith(("tensor<", "!ttg.memdesc<", "#ttg.")):  # a TTGIR type or attribute
        layout = layout_from_json({"ttgir": args.layout, **({"shape": args.shape} if args.shape else {})})
    else:
        path, sep, value = args.layout.partition(".ttgir:")  # FILE.ttgir:%value or FILE.ttgir:#alias
        if not sep:
            _unknown_constructor(args.layout)
        obj = load_file(path + ".ttgir" if sep else args.layout, "layout file")
        if isinstance(obj, dict) and "ttgir" in obj:
            obj = dict(obj, **({"shape": args.shape} if args.shape else {}), **({"value": value} if sep else {}))
        layout = layout_from_json(obj)
    props = _properties(layout)
    if args.json:
        print(json.dumps({"layout": layout.to_dict(), **props}))
        return 0
    print(layout_text(layout))
    mem = props["memory_layout"]
    if "offset" not in layout.in_dims or any(d not in ("offset", "block") for d in layout.in_dims):
        mem = f"no (inputs {', '.join(layout.in_dims) or 'none'}; a memory layout maps 'offset')"
    elif not mem:
        mem = "no (not invertible, or a basis of weight above 2: paper Def. 4.14)"
    print(
        f"rank {props['rank']}; surjective {props['surjective']}; injective {props['injective']}; "
        f"distributed {props['distributed']}; memory layout {mem}"
    )
    free = {k: bin(v) for k, v in props["free_variables"].items() if v}
    print("free variables (broadcast bits): " + (", ".join(f"{k} {v}" for k, v in free.items()) or "none"))
    outs = layout.out_sizes
    if args.no_grid:
        return 0
    if 1 <= len(outs) <= 2 and max(outs.values()) <= 64:
        print()
        print(grid_text(layout))
        if "register" in layout.in_dims:
            legend = {"block": "bB block B", "warp": "wM warp M", "lane": "tN lane N"}
            who = "; ".join(v for k, v in legend.items() if k in layout.in_dims)
            print(f"({who + '; ' if who else ''}rK slot K of the 'register' input dimension: one element each, "
                  f"whatever its width, not a 32-bit register)")
    else:
        shape = " x ".join(f"{n} {s}" for n, s in outs.items())
        print(f"(no grid: the tensor is {shape or 'empty'}; grids are printed for 1 or 2 dimensions of at most 64; "
              f"linlayout draw pictures larger ones)")
    return 0


def _unknown_constructor(name: str) -> None:
    """A bare word that is neither a constructor nor a file: list the constructors."""
    import difflib
    from pathlib import Path

    if name == "-" or Path(name).exists() or any(c in name for c in "./\\"):
        return
    close = difflib.get_close_matches(name, CONSTRUCTORS, n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    raise _UsageError(f"linlayout show: {name!r} is neither a constructor nor a file; {hint}constructors: "
                      f"{', '.join(CONSTRUCTORS)} (or give a layout JSON file)")


def _access_report(res) -> dict:
    """Report keys for an address-level simulation (one instruction)."""
    d = res.to_dict()
    d.update(
        {
            "instructions": 1,
            "wavefronts_per_instruction": res.wavefronts,
            "passes_per_instruction": len(res.passes),
            "ideal_wavefronts": len(res.passes),
            "vector_bits": res.access_bytes * 8,
            "method": "simulation",
        }
    )
    return d


def _cmd_conflicts(args: argparse.Namespace) -> int:
    from .count.closed_form import access_wavefronts, wavefronts
    from .count.by_simulation import lane_byte_offsets, simulate_wavefronts
    from .count.query import AddressQuery
    from .io.jsonio import conflicts_query_from_json, load_file
    from .io.render import bank_grid_text, pass_map_text
    from .count.simulate import simulate_access

    q = conflicts_query_from_json(load_file(args.query, "query file"))
    if isinstance(q, AddressQuery):
        if args.simulate:
            res = simulate_access(q)
            if args.json:
                print(json.dumps(_access_report(res)))
                return 0
            print(f"{res.instruction} ({res.op}), {res.access_bytes} bytes per lane: {res.wavefronts} wavefronts "
                  f"in {len(res.passes)} pass(es){' (merged)' if res.merged else ''} (simulation)")
        else:
            rep = access_wavefronts(q)
            if args.json:
                print(json.dumps(rep.to_dict()))
                return 0
            print(rep.explain())
            res = simulate_access(q)
        print()
        print(pass_map_text(res, only_conflicts=not args.all_banks))
        return 0
    rep = (simulate_wavefronts if args.simulate else wavefronts)(q)
    if args.json:
        print(json.dumps(rep.to_dict()))
        return 0
    print(rep.explain())
    mem = q.memory
    sizes = list(mem.out_sizes.values())
    if 1 <= len(sizes) <= 2 and max(sizes) <= 64:
        print()
        print(f"bank of each element ({q.element_bits}-bit elements):")
        print(bank_grid_text(mem, q.element_bits, q.hardware))
    first = lane_byte_offsets(q, limit=1)[0]
    res = simulate_access(rep.instruction, rep.op, rep.access_bytes, first, q.hardware)
    print()
    print("first instruction, banks per pass" + ("" if args.all_banks else " (conflicting banks only; --all-banks for all)") + ":")
    print(pass_map_text(res, only_conflicts=not args.all_banks))
    return 0


def _cmd_swizzle(args: argparse.Namespace) -> int:
    from .io.jsonio import load_file, swizzle_query_from_json
    from .io.render import grid_choice, grid_text
    from .hw import get_hardware
    from .synth.policy import default_instructions
    from .synth.synthesis import optimal_swizzle

    if args.name is not None and args.emit != "c":
        raise _UsageError("linlayout swizzle: --name names the C function of --emit c; add --emit c")
    if args.cute_single and args.emit != "cute":
        raise _UsageError("linlayout swizzle: --cute-single chooses the CuTe form of --emit cute; add --emit cute")
    q = swizzle_query_from_json(load_file(args.query, "query file"))
    res = optimal_swizzle(q)
    rows = None
    if args.compare:
        from .synth.compare import compare_swizzles

        rows = compare_swizzles(q.write, q.read, q.element_bits, q.hardware, q.objective, q.vector_bits,
                                q.instructions)
    if args.emit:
        return _emit(res, args, q.element_bits)
    if args.json:
        d = res.to_dict()
        if rows is not None:
            d["comparison"] = [r.to_dict() for r in rows]
        print(json.dumps(d))
        return 0
    print(res.explanation)
    print(res.standard_text())
    chosen = res.emitted
    if q.instructions is None:
        names = default_instructions(q.element_bits, get_hardware(res.hardware))
        print(f"instructions considered: {', '.join(names)} (the default, as for linlayout convert and lint; list "
              f"\"instructions\" in the query, e.g. [\"st.shared\", \"ld.shared\"], to narrow it)")
    print(f"instructions chosen: {chosen.instructions_reason}")
    print()
    print(f"memory layout (offset bits, lowest first), the one --emit writes: {chosen.reason}")
    print("  " + json.dumps([list(b) for b in chosen.memory.bases["offset"]]))
    if chosen.source != "synthesized":
        print("synthesized memory (the same cost): " + json.dumps([list(b) for b in res.memory.bases["offset"]]))
    why_not = grid_choice(chosen.memory.out_sizes, "no-grid" if args.no_grid else "grid" if args.grid else None)
    if why_not is None:
        print()
        print("element offset of each tensor element:")
        print(grid_text(chosen.memory, max_side=max(chosen.memory.out_sizes.values())))
    elif why_not:
        print(why_not)
    if rows is not None:
        from .synth.compare import comparison_text

        print()
        print(comparison_text(rows))
    return 0


def _emit(res, args: argparse.Namespace, element_bits: int) -> int:
    """Print ``--emit FORM`` of the memory the result gives out (``SwizzleResult.emitted``, the default policy)."""
    from .io.emit import to_c, to_cute, to_triton

    form = args.emit
    chosen = res.emitted
    note = chosen.reason if chosen.source != "synthesized" else ""
    if form == "json":
        print(chosen.memory.to_json())
    elif form == "c":
        print(("// " + note + "\n" if note else "") + to_c(chosen.memory, args.name or "offset"), end="")
    elif form == "cute":
        if args.cute_single:
            return _emit_cute_single(res, element_bits)
        cute = to_cute(chosen.memory)
        lines = [note] if note else []
        if cute.text is None:
            what = "one Swizzle" if cute.exact.count("Swizzle<") == 1 else "a chain of Swizzle functors"
            lines.append(f"no single Swizzle<B,M,S> of the row- or column-major tile spells it; exactly: {what} over a "
                         f"layout that places each coordinate bit (--cute-single: the best single-Swizzle layout of "
                         f"the tile and its cost)")
        lines.append(_cute_units_note(cute.exact, element_bits))
        for line in lines:
            print("// " + line)
        print(cute.exact)
    else:
        if note:
            print("# " + note)
        print(to_triton(chosen.memory, element_bits).text())
    return 0


def _emit_cute_single(res, element_bits: int) -> int:
    """``--emit cute --cute-single``: the standard swizzle that one CuTe Swizzle<B,M,S> spells and that is best for the
    objective, with its cost beside the optimum's (exit 1 when no such layout lets both sides access the tile)."""
    from .core.layout import LinearLayout
    from .io.emit import to_cute
    from .synth.bounds import objective_key

    best = None
    for sc in res.standards:
        memory = LinearLayout.from_flat((("offset", res.memory.in_bits),), res.memory.out_dim_bits,
                                        (sc.swizzle.columns,))
        text = to_cute(memory).text
        if text is None:
            continue
        key = objective_key(res.objective, sc.write_wavefronts, sc.read_wavefronts) + (
            sc.write_instructions + sc.read_instructions,)
        if best is None or key < best[0]:
            best = (key, sc, text)
    if best is None:
        print("linlayout: no single CuTe Swizzle<B,M,S> layout lets both sides access the tile; --emit cute without "
              "--cute-single gives the exact general form", file=sys.stderr)
        return 1
    _, sc, text = best
    print(f"// the best single-Swizzle layout ({sc.swizzle.name}): {sc.write_wavefronts} + {sc.read_wavefronts} "
          f"wavefronts ({sc.write_instructions} + {sc.read_instructions} instructions) beside the optimum's "
          f"{res.write_wavefronts} + {res.read_wavefronts} ({res.write_instructions} + {res.read_instructions})")
    print("// " + _cute_units_note(text, element_bits))
    print(text)
    return 0


def _cute_units_note(text: str, element_bits: int) -> str:
    """Say which unit the emitted Swizzle<B,M,S> counts in, and its byte-level spelling (CUTLASS's SW atoms)."""
    import re

    found = re.findall(r"Swizzle<(\d+),(\d+),(-?\d+)>", text)
    z = element_bits.bit_length() - 4  # element offset bit p is byte-address bit p + z
    if len(found) != 1 or int(found[0][0]) == 0 or z < 0:
        return "Swizzle<B,M,S> on element offsets"
    b, mm, sh = (int(g) for g in found[0])
    return (f"Swizzle<B,M,S> on element offsets; on byte addresses ({element_bits}-bit elements, as CUTLASS's "
            f"SW32/64/128 atoms count) it is Swizzle<{b},{mm + z},{sh}>")


def _cmd_convert(args: argparse.Namespace) -> int:
    import dataclasses

    from .convert.plan import plan_conversion
    from .io.convert_io import convert_query_from_json, to_cuda
    from .io.jsonio import load_file

    q = convert_query_from_json(load_file(args.query, "query file"))
    if args.multistep is not None:
        q = dataclasses.replace(q, multistep=args.multistep)
    plan = plan_conversion(q)
    if args.name is not None and args.emit != "cuda":
        raise _UsageError("linlayout convert: --name names the device function of --emit cuda; add --emit cuda")
    if args.emit == "cuda":
        print(to_cuda(plan, q.src, q.dst, args.name or "convert_layout", hardware=q.hardware), end="")
        return 0
    if args.json:
        print(json.dumps(plan.to_dict()))
        return 0
    print(f"path: {plan.path}")
    print("instructions per thread: " + (", ".join(f"{k} {v}" for k, v in plan.instructions.items()) or "none"))
    if plan.wavefronts:
        print(f"wavefronts per warp: write {plan.wavefronts['write']}, read {plan.wavefronts['read']}; "
              f"reps {plan.reps}, scratch {plan.scratch_bytes} bytes")
    print(f"cost: {plan.cost}")
    print()
    print(plan.explain())
    return 0


def _cmd_sweep(args: argparse.Namespace) -> int:
    from .check.family import transpose_16x32_family
    from .check.sweep import sweep
    from .io.families import family_from_json

    if args.family is not None:
        if args.mask_bits is not None:
            raise _UsageError("linlayout sweep: --mask-bits applies to the built-in family only, not to FAMILY.json")
        from .io.jsonio import load_file

        family = family_from_json(load_file(args.family, "family file"))
    else:
        family = transpose_16x32_family(5 if args.mask_bits is None else args.mask_bits)
    for k in ("jobs", "sample", "examples", "library_check", "seed"):
        v = getattr(args, k)
        if v is not None and v < (0 if k in ("library_check", "examples", "seed") else 1):
            kind = "a non-negative" if k in ("library_check", "examples", "seed") else "a positive"
            raise _UsageError(f"linlayout sweep: --{k.replace('_', '-')} must be {kind} integer, got {v}")
    show = args.progress or (not args.no_progress and sys.stderr.isatty())
    res = sweep(family, jobs=args.jobs, progress=show, sample=args.sample, seed=args.seed,
                library_check=args.library_check, examples=args.examples)
    if args.json:
        print(json.dumps(res.to_dict()))
    else:
        print(res.text())
    return 0 if res.ok else 1


def _cmd_verify_gpu(args: argparse.Namespace) -> int:
    from .check.gpu.batch import verify_batch
    from .io.gpu_queries import read_queries

    if args.repeat < 1 or args.timeout <= 0:
        raise _UsageError("linlayout verify-gpu: --repeat and --timeout must be positive")
    res = verify_batch(read_queries(args.queries), keep=args.keep, timeout=args.timeout, arch=args.arch,
                       repeat=args.repeat, nvcc=args.nvcc, ncu=args.ncu,
                       command="linlayout verify-gpu " + " ".join(args.queries))
    print(json.dumps(res.to_dict()) if args.json else res.text())
    return 0 if res.ok else 1


def _cmd_draw(args: argparse.Namespace) -> int:
    from .io.draw import draw, picture_kind
    from .io.jsonio import load_file

    obj = load_file(args.input, "input file")
    kind = picture_kind(obj)
    draw(obj, args.output, element_bits=args.element_bits, max_side=args.max_side)
    what = {"distributed": "distributed layout", "memory": "memory layout", "access": "access", "swizzle": "swizzle"}
    print(f"wrote {args.output} ({what[kind]} picture)")
    return 0


def _lint_progress(when: str):
    """Progress lines on stderr after LINT_PROGRESS_AFTER seconds: with ``auto`` only on a terminal, so that
    piped and captured output (scripts, CI, the docs' checked blocks) stays the answer alone."""
    from .io.ttgir.progress import Progress

    if when == "never" or (when == "auto" and not sys.stderr.isatty()):
        return None
    return Progress(sys.stderr, LINT_PROGRESS_AFTER)


def _cmd_lint(args: argparse.Namespace) -> int:
    from .errors import InputError
    from .io.ttgir.lint import lint_json, lint_text, render_lint

    try:
        text = sys.stdin.read() if args.kernel == "-" else open(args.kernel, encoding="utf-8").read()
    except OSError as e:
        raise InputError(f"cannot read {args.kernel}: {e.strerror or e}") from None
    trips, totals = {}, {}
    for flag, items, out in (("--trip-count", args.trip_count, trips), ("--loop-total", args.loop_total, totals)):
        for item in items or []:
            loc, sep, n = item.rpartition("=")
            if not sep or not loc or not (n.isascii() and n.isdigit()):
                raise _UsageError(f"linlayout lint: error: {flag} takes LOC=N (a loop's file:line and its "
                                  f"iterations), got {item!r}")
            out[loc] = int(n)
    report = lint_text(text, num_warps=args.num_warps, grid=args.grid, trip_counts=trips, triton=args.triton,
                       strict_trip_counts=True, pass_name=args.dump_pass, remedies=args.remedies,
                       progress=_lint_progress(args.progress), loop_totals=totals)
    if args.queries:
        _write_queries(args.queries, report)
    if args.json:
        print(json.dumps(lint_json(report)))
    else:
        print(render_lint(report))
    return 0


def _write_queries(folder: str, report) -> None:
    """Write each conversion's ``linlayout convert`` query as FOLDER/convert_<line>.json."""
    import os

    from .errors import InputError
    from .io.ttgir.lint import conversion_query

    try:
        os.makedirs(folder, exist_ok=True)
        for o in report.ops:
            if o.layouts is not None:
                with open(os.path.join(folder, f"convert_{o.line}.json"), "w", encoding="utf-8") as f:
                    json.dump(conversion_query(o), f)
    except OSError as e:
        raise InputError(f"cannot write the queries to {folder}: {e.strerror or e}") from None


def _build_parser() -> argparse.ArgumentParser:
    """The command line's parser: each command's arguments are added when that command is run (``define``), so a
    run builds its own command's arguments only and imports only what their help texts name."""
    from . import __version__

    p = _Parser(prog="linlayout", description="GPU tensor layouts as linear algebra over F2.")
    p.add_argument("--version", action="version", version=f"linlayout {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    sub.add_parser("show", help="print a layout, its properties and its grid", define=_show_arguments)
    sub.add_parser("conflicts", help="count shared-memory wavefronts of an access (exact, for the hardware model the "
                   "query names; sm90 by default)", define=_conflicts_arguments)
    sub.add_parser("swizzle", help="synthesize the optimal shared-memory layout for a write and a read layout",
                   define=_swizzle_arguments)
    sub.add_parser("convert", help="plan a layout conversion: registers, warp shuffles or shared memory",
                   define=_convert_arguments)
    sub.add_parser("sweep", help="check the closed form against simulation of every instruction over a family "
                   "of memory layouts", define=_sweep_arguments)
    sub.add_parser("verify-gpu", help="measure the wavefronts of queries on this machine's GPU with Nsight "
                   "Compute and compare them with the prediction", define=_verify_gpu_arguments)
    sub.add_parser("draw", help="draw a layout, an access or a swizzle as a PNG or SVG picture "
                   "(needs matplotlib)", define=_draw_arguments)
    sub.add_parser("lint", help="count the shared-memory wavefronts of every op of a Triton kernel's TTGIR and "
                   "suggest better swizzles", define=_lint_arguments)
    return p


def _show_arguments(s: argparse.ArgumentParser) -> None:
    """The arguments of ``linlayout show``."""
    s.add_argument("layout", metavar="LAYOUT.json|NAME",
                   help="layout JSON file ('-' for stdin) or a constructor: " + ", ".join(CONSTRUCTORS)
                   + "; or TTGIR: a type 'tensor<...>', an attribute '#ttg...' with --shape, a .ttgir file, "
                   "FILE.ttgir:%%value or FILE.ttgir:#alias")
    s.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    s.add_argument("--no-grid", action="store_true", help="do not print the tensor grid")
    g = s.add_argument_group("constructor parameters")
    g.add_argument("--shape", type=int, nargs="+", help="tensor shape (dim0 dim1 ...)")
    g.add_argument("--operand", help="mma/wgmma/mfma operand: A, B or C")
    g.add_argument("--bits", type=int, help="element bits (mma: 16, 8 or 32 for tf32; wgmma: 16 or 8)")
    g.add_argument("--instr", help="mma instruction (m16n8k16, m16n8k32, m16n8k8) or mfma (32x32x8, 16x16x16)")
    g.add_argument("--n", type=int, help="wgmma instruction N")
    g.add_argument("--warps-per-cta", type=int, nargs="+", help="warps per CTA per dimension")
    g.add_argument("--size-per-thread", type=int, nargs="+", help="blocked: elements per thread per dimension")
    g.add_argument("--threads-per-warp", type=int, nargs="+", help="blocked: threads per warp per dimension")
    g.add_argument("--order", type=int, nargs="+", help="blocked: dimensions, fastest first")
    g.add_argument("--matrices", type=int, help="ldmatrix/stmatrix: 1, 2 or 4")
    g.add_argument("--trans", action="store_true", help="ldmatrix/stmatrix .trans")
    g.add_argument("--tv", help="cute: JSON [[thread shape, value shape], [thread stride, value stride]]")
    s.set_defaults(func=_cmd_show)


def _conflicts_arguments(c: argparse.ArgumentParser) -> None:
    """The arguments of ``linlayout conflicts``."""
    c.add_argument("query", metavar="QUERY.json", help="layout-level or address-level query ('-' for stdin)")
    c.add_argument("--json", action="store_true", help="print one JSON object")
    c.add_argument("--simulate", action="store_true", help="count with the address-level simulator instead of the closed form")
    c.add_argument("--all-banks", action="store_true", help="list every bank in the pass map, not only conflicting ones")
    c.set_defaults(func=_cmd_conflicts)


def _swizzle_arguments(w: argparse.ArgumentParser) -> None:
    """The arguments of ``linlayout swizzle``."""
    w.add_argument("query", metavar="QUERY.json", help="swizzle query ('-' for stdin)")
    w.add_argument("--json", action="store_true", help="print one JSON object")
    w.add_argument("--emit", choices=["json", "c", "cute", "triton"], help="print the layout for code: "
                   "its JSON, a C offset function, a CuTe expression, or Triton Gluon layouts (the memory the text "
                   "prints: a standard swizzle of equal cost when one exists)")
    w.add_argument("--compare", action="store_true", help="also score the standard swizzles (TMA, CuTe, padding, ...)")
    w.add_argument("--name", help="--emit c: the C function's name (a C identifier; default offset)")
    w.add_argument("--cute-single", action="store_true", help="--emit cute: the best layout one Swizzle<B,M,S> spells, "
                   "with its cost beside the optimum's, instead of the exact form")
    wg = w.add_mutually_exclusive_group()
    wg.add_argument("--no-grid", action="store_true", help="do not print the offset grid")
    wg.add_argument("--grid", action="store_true", help="print the offset grid whatever its size (by default only up "
                    "to 1024 elements)")
    w.set_defaults(func=_cmd_swizzle)


def _convert_arguments(cv: argparse.ArgumentParser) -> None:
    """The arguments of ``linlayout convert``."""
    cv.add_argument("query", metavar="QUERY.json", help="convert query ('-' for stdin)")
    cv.add_argument("--json", action="store_true", help="print one JSON object")
    cv.add_argument("--emit", choices=["cuda"], help="print a CUDA device function performing the conversion")
    cv.add_argument("--name", help="--emit cuda: the device function's name (a C identifier; default convert_layout)")
    ms = cv.add_mutually_exclusive_group()
    ms.add_argument("--no-multistep", dest="multistep", action="store_false", default=None,
                    help="plan one step only: no two-step search (overrides the query's \"multistep\")")
    ms.add_argument("--multistep", dest="multistep", action="store_true", default=None,
                    help="search two-step plans (the default; overrides the query's \"multistep\": false)")
    cv.set_defaults(func=_cmd_convert)


def _sweep_arguments(v: argparse.ArgumentParser) -> None:
    """The arguments of ``linlayout sweep``."""
    v.add_argument("family", nargs="?", metavar="FAMILY.json", help="family JSON ('-' for stdin); default: the "
                   "built-in 16x32 fp32 transpose family (2^20 memory layouts)")
    v.add_argument("--json", action="store_true", help="print one JSON object")
    v.add_argument("--jobs", type=int, help="worker processes (default: every CPU for large families)")
    v.add_argument("--progress", action="store_true", help="draw the progress bar on stderr even when it is not a terminal")
    v.add_argument("--no-progress", action="store_true", help="no progress bar, even on a terminal")
    v.add_argument("--sample", type=int, help="sweep this many random configurations instead of all")
    v.add_argument("--seed", type=int, default=0, help="random seed for --sample and the library check (default 0)")
    v.add_argument("--mask-bits", type=int, help="built-in family only: bits of each mask C_j, 1-5 "
                   "(2^(4 B) layouts; default 5)")
    v.add_argument("--library-check", type=int, default=64, metavar="N",
                   help="also run linlayout.count.closed_form.wavefronts on N sampled layouts (default 64; 0: off)")
    v.add_argument("--examples", type=int, default=5, metavar="K", help="failing configurations to list (default 5)")
    v.set_defaults(func=_cmd_sweep)


def _verify_gpu_arguments(g: argparse.ArgumentParser) -> None:
    """The arguments of ``linlayout verify-gpu``."""
    g.add_argument("queries", nargs="+", metavar="QUERY.json", help="conflicts queries (layout- or address-level), "
                   "or batch files {\"queries\": [...]}")
    g.add_argument("--json", action="store_true", help="print one JSON object")
    g.add_argument("--keep", metavar="DIR", help="keep the generated probe (.cu, binary, ncu CSV) in DIR")
    g.add_argument("--timeout", type=float, default=600, help="seconds allowed for nvcc and for ncu each (default 600)")
    g.add_argument("--arch", help="GPU architecture for nvcc, e.g. sm_90a (default: detected with nvidia-smi)")
    g.add_argument("--repeat", type=int, default=1, help="launches per instruction; measurements must agree (default 1)")
    g.add_argument("--nvcc", help="path of nvcc (default: NVCC, PATH, $CUDA_HOME/bin, /usr/local/cuda/bin)")
    g.add_argument("--ncu", help="path of Nsight Compute's ncu (default: NCU, PATH, $CUDA_HOME/bin, ...)")
    g.set_defaults(func=_cmd_verify_gpu)


def _draw_arguments(d: argparse.ArgumentParser) -> None:
    """The arguments of ``linlayout draw``."""
    d.add_argument("input", metavar="LAYOUT.json|QUERY.json",
                   help="a layout, a conflicts query or a swizzle query ('-' for stdin); "
                   "the picture follows the kind")
    d.add_argument("-o", "--output", required=True, metavar="OUT.png|OUT.svg", help="picture file (.png or .svg)")
    d.add_argument("--element-bits", type=int, metavar="N",
                   help="bits per element of a memory layout (default 32); queries give their own")
    d.add_argument("--max-side", type=int, default=64, metavar="N",
                   help="draw at most N rows and columns of a tensor, the top-left corner (default 64)")
    d.set_defaults(func=_cmd_draw)


def _lint_arguments(t: argparse.ArgumentParser) -> None:
    """The arguments of ``linlayout lint``."""
    from .lower.registry import DEFAULT_TRITON, LOWERINGS

    t.add_argument("kernel", metavar="KERNEL.ttgir", help="TTGIR module text ('-' for stdin), e.g. "
                   "kernel.asm['ttgir'] or a TRITON_KERNEL_DUMP file")
    t.add_argument("--json", action="store_true", help="print one JSON object")
    t.add_argument("--num-warps", type=int, metavar="N", help="warps per CTA (default: the module's ttg.num-warps)")
    t.add_argument("--grid", type=int, nargs=3, metavar=("X", "Y", "Z"), help="launch grid: multiply out the "
                   "kernel's total wavefronts")
    t.add_argument("--trip-count", action="append", metavar="LOC=N", help="iterations of the loop at LOC "
                   "(file:line[:col] or line of its scf.for), repeatable; a LOC that matches no loop is an error. "
                   "Loops with constant bounds are read from the IR")
    t.add_argument("--loop-total", action="append", metavar="LOC=N", help="the body of the loop at LOC runs N times "
                   "per program in all, over every run of the loops around it (a persistent or grouped kernel's "
                   "tiles per program); replaces the trip counts of that loop and the loops around it; repeatable, "
                   "a LOC that matches no loop is an error")
    t.add_argument("--pass", dest="dump_pass", metavar="NAME", help="an MLIR_ENABLE_DUMP log: lint the module dumped "
                   "before the last pass whose name contains NAME (default: the last TTGIR-level module)")
    t.add_argument("--queries", metavar="DIR", help="write each conversion's ready 'linlayout convert' query to "
                   "DIR/convert_LINE.json (LINE: the op's line in the TTGIR)")
    t.add_argument("--triton", metavar="VERSION", default=DEFAULT_TRITON, help="the Triton version that compiled "
                   f"the kernel, whose lowering is modelled: {', '.join(sorted(LOWERINGS))} (default {DEFAULT_TRITON})")
    t.add_argument("--remedies", action="store_true", help="also give remedies: for a buffer a wgmma or TMA user "
                   "fixes, the cheapest legal NVMMA encoding or writer conversion; for a reduction across warps, a "
                   "cheaper scratch exchange with its lower bound and Gluon code (can take a few seconds)")
    t.add_argument("--progress", choices=("auto", "always", "never"), default="auto", help="show each stage on "
                   "stderr once the lint has taken a second: auto (default) when stderr is a terminal")
    t.set_defaults(func=_cmd_lint)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    parser = _build_parser()
    try:
        args = parser.parse_args(argv)
        return args.func(args)
    except _UsageError as e:
        print(str(e), file=sys.stderr)
        return 2
    except LinLayoutError as e:
        msg = " ".join(str(e).split())
        print(f"linlayout: error: {msg}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `linlayout show x.json | head`
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
