"""The site the browser module and the maintainers' browser module look at: the small data
set (no hostile crafted cell) plus one real cell, the engine's ``command`` target driving
``hostile_client.py``, rendered and built with mkdocs.

``test_site_browser`` and ``test_site_maintainers_browser`` each built a copy of the same
inputs (the maintainers' pages are read from the target, scenario and schema files, not from
the results, so the extra cell changes nothing on them). They now read one build, made once
per test process by the session fixture ``small_site`` (``conftest.py``), and
``tests/_groups.py`` runs the two modules as one group, so the worker that runs them builds it
once.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from site_data import write_dataset
from wide_site import render_and_build


def build_small_site(root: Path, hostile_results: Path) -> Path:
    """Write the small data set and the hostile client's results under ``root``, render and
    build them; the built folder."""
    write_dataset(root, hostile=False)
    shutil.copytree(hostile_results, root / "results", dirs_exist_ok=True)
    return render_and_build(root)
