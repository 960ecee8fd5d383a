"""An authored note is shown with the client version it describes (issue 9: notes went stale
silently), and the new row states reach the legend with their promises."""

from __future__ import annotations

import html
from pathlib import Path

from compare.site import render


def test_a_note_is_shown_beside_the_version_it_describes(site_env: Path) -> None:
    render()
    docs = site_env / "site" / "docs"
    shown = "(<code>2.3.0</code>) encodes the space but not the"
    area = html.unescape((docs / "roots.md").read_text(encoding="utf-8"))
    assert shown in area
    page = html.unescape((docs / "implementations" / "py-sdk.md").read_text(encoding="utf-8"))
    assert shown in page


def test_the_legend_states_what_non_strict_promises(site_env: Path) -> None:
    render()
    legend = (site_env / "site" / "docs" / "legend.md").read_text(encoding="utf-8")
    legend = html.unescape(legend)
    assert "<code>non-strict</code>" in legend
    assert "no graded check behind it failed" in legend
