"""Progress of a long lint on stderr: silent for the first second, then one line per stage.

``linlayout lint`` usually answers in a tenth of a second, and a progress line
would only be noise there.  On a large input (an ``MLIR_ENABLE_DUMP`` log of
tens of megabytes, a module of thousands of ops) the user should see that it
works and on what: :class:`Progress` is called at each stage of
:func:`~linlayout.io.ttgir.lint.lint_text` and prints the stage only once
``after`` seconds have passed since it was created, with the time so far.

>>> import io
>>> clock = iter([0.0, 0.5, 1.5]).__next__
>>> out = io.StringIO()
>>> p = Progress(out, after=1.0, clock=clock)
>>> p("reading the log")          # 0.5 s: nothing yet
>>> p("parsing the module")       # 1.5 s: shown
>>> out.getvalue()
'linlayout lint: parsing the module (1.5 s)\\n'
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO

__all__ = ["Progress"]


class Progress:
    """A stage reporter: ``progress(stage)`` writes ``stage`` to ``stream`` once ``after`` seconds have passed."""

    def __init__(self, stream: TextIO, after: float = 1.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.stream, self.after, self.clock = stream, after, clock
        self.start = clock()

    def __call__(self, stage: str) -> None:
        elapsed = self.clock() - self.start
        if elapsed >= self.after:
            self.stream.write(f"linlayout lint: {stage} ({elapsed:.1f} s)\n")
            self.stream.flush()
