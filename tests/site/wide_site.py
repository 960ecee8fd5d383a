"""The site the two matrix browser modules look at: the small data set widened to the real
one's size, rendered and built with mkdocs.

Its Roots area has COLUMNS implementation columns (every shipped target but the ``command``
templates, plus cited ones) and ROWS rows with every row state present, so the width checks
measure the real worst case. Its rows carry the status queries real rows have, with rows for
each side (n/a and the revision windows show). Ten more areas of ten rows give the home and
interop tables their real width (two-digit shares).

Building it is the longest setup of the site tests (render and mkdocs: half a minute alone,
up to a minute on a loaded CI worker). ``test_site_matrix_browser`` and
``test_site_reader_browser`` used to build a copy each; they now read one build, made once per
test process by the session fixture ``wide_site`` (``conftest.py``), and ``tests/_groups.py``
runs the two modules as one group, so the worker that runs them builds it once.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

from conftest import mc
from site_data import eleven_areas, write_dataset

from compare.exchange._targets import load_targets

STATES = ["supported", "non-strict", "partial", "not-supported", "observed", "error", "not-run"]
#: The ``command`` templates (a client or server named on the command line) are no column.
SHIPPED = [t.id for t in load_targets() if "command" not in (t.id, t.kind, t.id[-7:])]
#: Every shipped target is a column (each has a page with its matrix), plus a few cited ones,
#: and never fewer than the 27 the real roots matrix had when this layout was measured.
COLUMNS, ROWS = max(27, len(SHIPPED) + 4), 17


def widen(rows_json: Path) -> None:
    """Fill the first area of rows.json to COLUMNS implementation columns (every shipped target
    among them) and ROWS rows, every state used."""
    data = json.loads(rows_json.read_text(encoding="utf-8"))
    area = data["areas"][0]
    cited = [f"cited-{n}" for n in range(COLUMNS)]
    first = area["rows"][0]["status"]
    extra = [n for n in SHIPPED + cited if n not in first][: COLUMNS - len(first)]
    for name in extra:
        if name.startswith("cited-"):
            data["implementations"].append(
                {"id": name, "name": name, "kind": "cited", "version": None}
            )
    template = area["rows"][1]
    while len(area["rows"]) < ROWS:
        row = copy.deepcopy(template)
        row["id"] = f"ROOT-{len(area['rows']) + 1:02d}"
        row["difference"] = f"layout row {row['id']} with a difference of ordinary length"
        area["rows"].append(row)
    for r, row in enumerate(area["rows"]):
        for c, name in enumerate(extra):
            state = "cited" if name.startswith("cited-") else STATES[(r + c) % len(STATES)]
            row["status"][name] = {
                "state": state,
                "label": state,
                "reason": "not run, because this layout test has no cell for it",
                **({"cited_state": "supported"} if state == "cited" else {}),
            }
    rows_json.write_text(json.dumps(data), encoding="utf-8")


#: Row index → the scenario of its status query, for the rows not played against clients: two
#: rows for servers and two for proxies (rows three apart, so no column of those sides is
#: "not run" in both and every program keeps a column), the others ``roots-list`` (clients).
QUERIES = {2: "server-asks", 5: "server-asks", 3: "relay-roots", 6: "relay-roots"}


def with_queries(rows_json: Path) -> None:
    """Give the widened rows the status queries real rows have (QUERIES: each side has rows of
    its own), so n/a and the revision windows show."""
    data = json.loads(rows_json.read_text(encoding="utf-8"))
    for i, row in enumerate(data["areas"][0]["rows"]):
        row["status_query"] = {"scenario": QUERIES.get(i, "roots-list")}
    rows_json.write_text(json.dumps(data), encoding="utf-8")


def build_wide_site(root: Path) -> Path:
    """Write the widened data set under ``root``, render and build it; the built folder."""
    rows_json = write_dataset(root, hostile=False)["build"] / "rows.json"
    widen(rows_json)
    with_queries(rows_json)
    eleven_areas(rows_json, SHIPPED, rows_per_area=10)
    return render_and_build(root)


def render_and_build(root: Path) -> Path:
    """``mcp-compare render`` then ``site`` on the data set under ``root``; the built folder."""
    env = {
        "MCP_COMPARE_RESULTS": str(root / "results"),
        "MCP_COMPARE_BUILD": str(root / "build"),
        "MCP_COMPARE_SITE": str(root / "site"),
    }
    for step in ("render", "site"):
        proc = mc(step, env=env)
        assert proc.returncode == 0, f"mcp-compare {step} failed:\n{proc.stderr}"
    return root / "site" / "build"
