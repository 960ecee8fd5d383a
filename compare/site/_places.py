"""The folders of the machine that ran the comparison, named instead of spelled out on pages.

A client's stderr echoes the command line we started it with, and a server cell's wire log
notes the server's argv: both hold absolute paths of the checkout that ran them
(``/home/someone/mcp-compare/tools/venvs/...``). To a reader those are noise, and they say
where someone's checkout lives. Pages show each such folder by a name in angle brackets
instead; the downloadable transcript keeps the raw bytes.
"""

from __future__ import annotations

import re
from functools import cache

from compare import _paths

#: What each folder is called on the pages.
TOOLS, RESULTS, CHECKOUT = "<tools>", "<results>", "<mcp-compare>"


@cache
def _pattern(folders: tuple[tuple[str, str], ...]) -> re.Pattern[str]:
    # Longest first, so a folder inside the checkout gets its own name; a path counts only
    # whole (followed by a separator, a quote, a space or the end), so /work/main does not
    # match /work/mainline.
    alternatives = "|".join(re.escape(p) for p, _ in sorted(folders, key=lambda f: -len(f[0])))
    return re.compile(rf"(?:{alternatives})(?=[/\\\s\"':,;)\]}}]|$)")


def unplace(text: str) -> str:
    """``text`` with the folders of this machine's checkout named instead of spelled out (the
    folders as configured now: a test or a run may point them elsewhere)."""
    folders = (
        (str(_paths.tools_dir()), TOOLS),
        (str(_paths.results_dir()), RESULTS),
        (str(_paths.PROJECT_ROOT), CHECKOUT),
    )
    names = dict(folders)
    return _pattern(folders).sub(lambda m: names[m.group(0)], text)
