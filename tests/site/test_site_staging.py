"""A site build killed before its clean-up leaves its staging folder beside the site; the
next build removes it, and never the folder of a build that is still running."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from compare.site._build import _sweep_abandoned


def test_staging_folders_of_gone_builds_are_removed_and_live_ones_kept(tmp_path: Path) -> None:
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], check=True,
                          capture_output=True, text=True).stdout.strip()  # fmt: skip
    abandoned = tmp_path / f".build-{gone}-abc123"
    older = tmp_path / ".build-x1y2z3"  # named before builds named their process
    running = tmp_path / f".build-{os.getpid()}-def456"
    other = tmp_path / "build"
    for folder in (abandoned, older, running, other):
        (folder / "cells").mkdir(parents=True)
        (folder / "cells" / "page.html").write_text("x", encoding="utf-8")
    _sweep_abandoned(tmp_path)
    assert not abandoned.exists() and not older.exists()
    assert running.is_dir() and other.is_dir()
