"""The fuzz suite's two profiles: a few examples per surface in CI, thousands in ``tools/fuzz.py``.

``LINLAYOUT_FUZZ_EXAMPLES=N`` (what ``tools/fuzz.py N`` sets) runs ``N``
examples per test; unset, each test runs the small count it names, so the
whole of ``tests/fuzz/`` stays well under two seconds.  A failing example
prints its seed: ``random.Random(seed)`` redraws the same input.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable

LONG = int(os.environ.get("LINLAYOUT_FUZZ_EXAMPLES", "0"))


def count(fast: int) -> int:
    """``fast`` examples in CI, ``LINLAYOUT_FUZZ_EXAMPLES`` in the long profile."""
    return LONG or fast


def seeds(fast: int, salt: int) -> list[int]:
    """The seeds of one test's examples: fixed in CI (reproducible), fresh in the long profile."""
    rng = random.Random(salt if not LONG else None)
    return [rng.randrange(2**32) for _ in range(count(fast))]


def mutate(text: str, rng: random.Random) -> str:
    """``text`` with one to three random edits: a number changed, a span cut or doubled, brackets, junk."""
    for _ in range(rng.randint(1, 3)):
        text = rng.choice(EDITS)(text, rng)
    return text


def _number(text: str, rng: random.Random) -> str:
    import re

    nums = list(re.finditer(r"\d+", text))
    if not nums:
        return text
    m = rng.choice(nums)
    new = rng.choice(["0", "-1", "-4", "3", "2.5", "7", str(2**31), "1" * 50, str(rng.randrange(1, 300))])
    return text[:m.start()] + new + text[m.end():]


def _cut(text: str, rng: random.Random) -> str:
    i = rng.randrange(len(text) + 1)
    return text[:i] + text[i + rng.randint(1, 40):]


def _double(text: str, rng: random.Random) -> str:
    i = rng.randrange(len(text) + 1)
    j = min(len(text), i + rng.randint(1, 40))
    return text[:j] + text[i:j] + text[j:]


def _insert(text: str, rng: random.Random) -> str:
    i = rng.randrange(len(text) + 1)
    junk = rng.choice(["[", "]", "<", ">", "{", "}", ",", "=", "#", "!", "\"", ":", "x", " true", "#ttg.blocked<{}>",
                       "[[1, 0]]", "\u00b2", "\n", "%0"])
    return text[:i] + junk + text[i:]


def _swap_word(text: str, rng: random.Random) -> str:
    words = ["true", "false", "order", "dim", "parent", "register", "lane", "warp", "block", "offset", "opIdx",
             "kWidth", "vec", "tensor", "!ttg.memdesc", "f16", "i8", "f32", "i1", "#smem", "mutable"]
    a, b = rng.sample(words, 2)
    return text.replace(a, b, 1)


EDITS: tuple[Callable[[str, random.Random], str], ...] = (_number, _number, _cut, _double, _insert, _swap_word)
