"""The search floor's tables by counts (``bounds._pair_floors_from_counts``, ``bounds._floor_from_counts``) against
a straightforward construction (issue 27).

The tables are built from per-side width tables shared between signatures and a per-pair minimum; the reference
below builds them the plain way (every width pair of the two sides' flat width lists, one dict of floors, one of
width lists), as the synthesizer first did.  Random count signatures (element width, fixed width, objective,
each side's widest vector, registers and broadcast, the common prefix, tile caps) must give equal tables, entry
order included: the visit order of the search reads it.
"""

from __future__ import annotations

import random
from operator import itemgetter

import pytest

from linlayout.count.plan import access_shape
from linlayout.errors import LoweringError
from linlayout.hw import get_hardware
from linlayout.synth import bounds
from linlayout.synth.bounds import OBJECTIVES, objective_key, tile_group, vector_widths
from linlayout.synth.policy import pair_preference
from linlayout.synth.speed import side_shapes
from linlayout.synth.synthesis import default_options


def reference_floors_by_pair(w_opts, r_opts, eb, hw, fixed, objective, wlim, wregs, wbc, rlim, rregs, rbc, ncommon,
                             limits):
    per = []
    for opts, lim, nregs, bc in ((w_opts, wlim, wregs, wbc), (r_opts, rlim, rregs, rbc)):
        widths = []
        for ins in opts:
            for k in vector_widths(ins, eb, hw, fixed, lim):
                if not ins.is_matrix and k > nregs:
                    continue
                try:
                    shape = access_shape(ins, eb, hw, k, nregs, bc)
                except LoweringError:
                    continue
                if shape is not None:
                    widths.append((ins, k, shape.base_wavefronts, shape.instructions))
        per.append(widths)
    caps = {(wi, ri): cap for wi, ri, cap in limits}
    floors, by_width = {}, {}
    for wi, kw, bw, iw in per[0]:
        for ri, kr, br, ir in per[1]:
            mw, mr = wi.is_matrix, ri.is_matrix
            if not (mw or mr) and min(kw, kr) > ncommon:
                continue
            cap = caps.get((wi, ri))
            if cap is not None and (cap < 0 or (kr if mw else kw) > cap):
                continue
            key = objective_key(objective, bw, br) + (iw + ir, int(mw) + int(mr))
            if mw != mr:
                by_width.setdefault((wi, ri), []).append((key, kr if mw else kw))
            old = floors.get((wi, ri))
            if old is None or key < old:
                floors[(wi, ri)] = key
    return floors, by_width


def reference_floor(w_opts, r_opts, hw, eb, fixed, objective, wlim, wregs, wbc, rlim, rregs, rbc, ncommon, limits):
    floors = reference_floors_by_pair(w_opts, r_opts, eb, hw, fixed, objective, wlim, wregs, wbc, rlim, rregs, rbc,
                                      ncommon, limits)[0]
    return min(floors.values(), default=None)


def reference_pair_floors(w_opts, r_opts, hw, eb, fixed, objective, wlim, wregs, wbc, rlim, rregs, rbc, ncommon):
    floors, by_width = reference_floors_by_pair(w_opts, r_opts, eb, hw, fixed, objective, wlim, wregs, wbc, rlim,
                                                rregs, rbc, ncommon, ())
    entries = [(floor + pair_preference(wi, ri), floor, wi, ri,
                tuple(sorted(by_width[(wi, ri)])) if (wi, ri) in by_width else None, tile_group(wi, ri),
                (side_shapes(wi, eb, hw, wregs, wbc), side_shapes(ri, eb, hw, rregs, rbc)))
               for (wi, ri), floor in floors.items()]
    return tuple(sorted(entries, key=itemgetter(0)))


def random_signatures(seed: int, n: int) -> list[tuple]:
    """``n`` random count signatures of the default options (both tables' arguments but the tile caps)."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        hw = get_hardware("sm90")
        eb = rng.choice([8, 16, 32, 64])
        w_opts, r_opts = default_options(eb, hw)
        widest = (128 // eb).bit_length() - 1  # a 16-byte access
        fixed = rng.choice([None, None, None, rng.randint(0, widest)])
        sides = [(rng.randint(0, widest), rng.randint(0, 7), rng.random() < 0.3) for _ in range(2)]
        out.append((w_opts, r_opts, hw, eb, fixed, rng.choice(OBJECTIVES)) + sides[0] + sides[1]
                   + (rng.randint(0, 4),))
    return out


def random_limits(rng: random.Random, w_opts: tuple, r_opts: tuple) -> tuple:
    pairs = [(wi, ri) for wi in w_opts for ri in r_opts if wi.is_matrix or ri.is_matrix]
    return tuple((wi, ri, rng.randint(-1, 4)) for wi, ri in rng.sample(pairs, min(len(pairs), rng.randint(0, 4))))


@pytest.mark.parametrize("seed", range(4))
def test_pair_floor_tables_match_the_plain_construction(seed):
    for sig in random_signatures(seed, 40):
        assert bounds._pair_floors_from_counts.__wrapped__(*sig) == reference_pair_floors(*sig), sig


@pytest.mark.parametrize("seed", range(4))
def test_floor_tables_match_the_plain_construction(seed):
    rng = random.Random(100 + seed)
    for sig in random_signatures(seed, 40):
        limits = random_limits(rng, sig[0], sig[1])
        assert bounds._floor_from_counts.__wrapped__(*sig, limits) == reference_floor(*sig, limits), (sig, limits)
