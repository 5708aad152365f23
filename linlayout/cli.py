"""The ``linlayout`` command (also ``python -m linlayout``).

Every error on bad input prints one line to standard error and exits with
status 2; success exits 0.

    linlayout show LAYOUT.json [--json] [--no-grid]
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
