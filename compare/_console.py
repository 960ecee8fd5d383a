"""Rich consoles that stay readable when output goes to a file or a CI log.

Rich falls back to 80 columns when it is not writing to a terminal, which folds the run's
summary table (one column per revision) into unreadable stubs in `make compare` logs. Off a
terminal, and unless COLUMNS says otherwise, the consoles here are 160 columns wide, and they
do not run Rich's highlighter: it only colours numbers and strings, a file or a log shows no
colour, and compiling its patterns was a tenth of a single `mcp-compare run` off a terminal.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Literal

from rich.console import Console
from rich.text import Text

#: Width used when the stream is not a terminal and COLUMNS is unset.
LOG_WIDTH = 160

#: How every ``typer.Typer`` of the command line formats ``--help``: plain text, as click
#: writes it. Typer's boxed help imports ``rich.markdown`` and the Markdown parser behind it
#: on every ``--help``, which was over half of that command's time (0.17 of 0.30 s).
HELP_MARKUP: Literal["markdown", "rich"] | None = None


def make_console(*, stderr: bool = False, **options: Any) -> Console:
    """A Console for stdout (or stderr) with a log-friendly width off a terminal."""
    stream = sys.stderr if stderr else sys.stdout
    terminal = stream.isatty()
    if "width" not in options and not os.environ.get("COLUMNS") and not terminal:
        options["width"] = LOG_WIDTH
    options.setdefault("highlight", terminal)
    return Console(stderr=stderr, **options)


def labelled(label: str, style: str, text: str) -> Text:
    """``label`` styled, then ``text`` exactly as given.

    Messages carry paths, refs and what a peer sent; read as Rich markup, ``[abc]`` in them
    vanishes and ``[/x]`` raises. A Text object is never parsed for markup, so they print
    verbatim.
    """
    return Text.assemble((label, style), " ", text)
