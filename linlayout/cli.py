"""The ``linlayout`` command (also ``python -m linlayout``).

Every error on bad input prints one line to standard error and exits with
status 2; success exits 0.

    linlayout show LAYOUT.json [--json] [--no-grid]
    linlayout conflicts QUERY.json [--json] [--simulate] [--all-banks]
    linlayout swizzle QUERY.json [--json] [--emit json|c|cute|triton] [--compare]
    linlayout draw LAYOUT.json|QUERY.json -o OUT.png|OUT.svg [--element-bits N] [--max-side N]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from .errors import LinLayoutError

__all__ = ["main"]


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2 (handled in main)
        raise _UsageError(f"{self.prog}: {message} (see --help)")


def _properties(layout) -> dict:
    return {
        "in_dims": layout.in_sizes,
        "out_dims": layout.out_sizes,
        "rank": layout.rank(),
        "surjective": layout.is_surjective(),
        "injective": layout.is_injective(),
        "invertible": layout.is_invertible(),
        "free_variables": layout.free_variable_masks(),
        "distributed": layout.is_distributed(),
        "memory_layout": layout.is_memory_layout(),
    }


def _cmd_show(args: argparse.Namespace) -> int:
    from .jsonio import layout_from_json, load_file
    from .render import grid_text, layout_text

    obj = load_file(args.layout, "layout file")
    layout = layout_from_json(obj)
    props = _properties(layout)
    if args.json:
        print(json.dumps({"layout": layout.to_dict(), **props}))
        return 0
    print(layout_text(layout))
    print(
        f"rank {props['rank']}; surjective {props['surjective']}; injective {props['injective']}; "
        f"distributed {props['distributed']}; memory layout {props['memory_layout']}"
    )
    free = {k: bin(v) for k, v in props["free_variables"].items() if v}
    print("free variables (broadcast bits): " + (", ".join(f"{k} {v}" for k, v in free.items()) or "none"))
    outs = layout.out_sizes
    if not args.no_grid and 1 <= len(outs) <= 2 and max(outs.values()) <= 64:
        print()
        print(grid_text(layout))
    return 0


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
    from .conflicts import access_wavefronts, lane_byte_offsets, simulate_wavefronts, wavefronts
    from .jsonio import conflicts_query_from_json, load_file
    from .render import bank_grid_text, pass_map_text
    from .simulate import simulate_access

    q = conflicts_query_from_json(load_file(args.query, "query file"))
    kind = q.pop("kind")
    if kind == "access":
        if args.simulate:
            res = simulate_access(**q)
            if args.json:
                print(json.dumps(_access_report(res)))
                return 0
            print(f"{res.instruction} ({res.op}), {res.access_bytes} bytes per lane: {res.wavefronts} wavefronts "
                  f"in {len(res.passes)} pass(es){' (merged)' if res.merged else ''} (simulation)")
        else:
            rep = access_wavefronts(**q)
            if args.json:
                print(json.dumps(rep.to_dict()))
                return 0
            print(rep.explain())
            res = simulate_access(**q)
        print()
        print(pass_map_text(res, only_conflicts=not args.all_banks))
        return 0
    rep = (simulate_wavefronts if args.simulate else wavefronts)(**q)
    if args.json:
        print(json.dumps(rep.to_dict()))
        return 0
    print(rep.explain())
    mem = q["memory"]
    sizes = list(mem.out_sizes.values())
    if 1 <= len(sizes) <= 2 and max(sizes) <= 64:
        print()
        print(f"bank of each element ({q['element_bits']}-bit elements):")
        print(bank_grid_text(mem, q["element_bits"], q["hardware"]))
    first = lane_byte_offsets(**q)[0]
    res = simulate_access(rep.instruction, rep.op, rep.access_bytes, first, q["hardware"])
    print()
    print("first instruction, banks per pass" + ("" if args.all_banks else " (conflicting banks only; --all-banks for all)") + ":")
    print(pass_map_text(res, only_conflicts=not args.all_banks))
    return 0


def _cmd_swizzle(args: argparse.Namespace) -> int:
    from .emit import to_c, to_cute, to_triton
    from .jsonio import load_file, swizzle_query_from_json
    from .render import grid_text
    from .synthesis import optimal_swizzle

    q = swizzle_query_from_json(load_file(args.query, "query file"))
    res = optimal_swizzle(**q)
    rows = None
    if args.compare:
        from .compare import compare_swizzles

        rows = compare_swizzles(q["write"], q["read"], q["element_bits"], q["hardware"], q["objective"])
    if args.emit:
        if args.emit == "json":
            print(res.memory.to_json())
        elif args.emit == "c":
            print(to_c(res.memory), end="")
        elif args.emit == "cute":
            form = to_cute(res.memory)
            if form.text is None:
                raise _EmitError(f"cannot emit CuTe: {form.reason}")
            print(form.text)
        else:
            print(to_triton(res.memory, q["element_bits"]).text())
        return 0
    if args.json:
        d = res.to_dict()
        if rows is not None:
            d["comparison"] = [r.to_dict() for r in rows]
        print(json.dumps(d))
        return 0
    print(res.explanation)
    print()
    print("memory layout (offset bits, lowest first):")
    print("  " + json.dumps([list(b) for b in res.memory.bases["offset"]]))
    sizes = list(res.memory.out_sizes.values())
    if len(sizes) <= 2 and max(sizes) <= 64:
        print()
        print("element offset of each tensor element:")
        print(grid_text(res.memory))
    if rows is not None:
        from .compare import comparison_text

        print()
        print(comparison_text(rows))
    return 0


class _EmitError(LinLayoutError):
    pass


def _cmd_draw(args: argparse.Namespace) -> int:
    from .draw import draw, picture_kind
    from .jsonio import load_file

    obj = load_file(args.input, "input file")
    kind = picture_kind(obj)
    draw(obj, args.output, element_bits=args.element_bits, max_side=args.max_side)
    what = {"distributed": "distributed layout", "memory": "memory layout", "access": "access", "swizzle": "swizzle"}
    print(f"wrote {args.output} ({what[kind]} picture)")
    return 0


def _build_parser() -> argparse.ArgumentParser:
    from . import __version__

    p = _Parser(prog="linlayout", description="GPU tensor layouts as linear algebra over F2.")
    p.add_argument("--version", action="version", version=f"linlayout {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    s = sub.add_parser("show", help="print a layout, its properties and its grid")
    s.add_argument("layout", metavar="LAYOUT.json", help="layout JSON file ('-' for stdin)")
    s.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    s.add_argument("--no-grid", action="store_true", help="do not print the tensor grid")
    s.set_defaults(func=_cmd_show)

    c = sub.add_parser("conflicts", help="count shared-memory wavefronts of an access (exact, sm90 rules)")
    c.add_argument("query", metavar="QUERY.json", help="layout-level or address-level query ('-' for stdin)")
    c.add_argument("--json", action="store_true", help="print one JSON object")
    c.add_argument("--simulate", action="store_true", help="count with the address-level simulator instead of the closed form")
    c.add_argument("--all-banks", action="store_true", help="list every bank in the pass map, not only conflicting ones")
    c.set_defaults(func=_cmd_conflicts)

    w = sub.add_parser("swizzle", help="synthesize the optimal shared-memory layout for a write and a read layout")
    w.add_argument("query", metavar="QUERY.json", help="swizzle query ('-' for stdin)")
    w.add_argument("--json", action="store_true", help="print one JSON object")
    w.add_argument("--emit", choices=["json", "c", "cute", "triton"], help="print the layout for code: "
                   "its JSON, a C offset function, a CuTe Swizzle, or Triton Gluon layouts")
    w.add_argument("--compare", action="store_true", help="also score the standard swizzles (TMA, CuTe, padding, ...)")
    w.set_defaults(func=_cmd_swizzle)

    d = sub.add_parser("draw", help="draw a layout, an access or a swizzle as a PNG or SVG picture "
                       "(needs matplotlib)")
    d.add_argument("input", metavar="LAYOUT.json|QUERY.json",
                   help="a layout, a conflicts query or a swizzle query ('-' for stdin); "
                   "the picture follows the kind")
    d.add_argument("-o", "--output", required=True, metavar="OUT.png|OUT.svg", help="picture file (.png or .svg)")
    d.add_argument("--element-bits", type=int, metavar="N",
                   help="bits per element of a memory layout (default 32); queries give their own")
    d.add_argument("--max-side", type=int, default=64, metavar="N",
                   help="draw at most N rows and columns of a tensor, the top-left corner (default 64)")
    d.set_defaults(func=_cmd_draw)
    return p


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
