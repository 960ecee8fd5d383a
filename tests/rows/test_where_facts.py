"""The where-column describes the row's own difference, and a lint holds it to the row's text.

Regression tests for issue 9: ROOT-03 (a 2026-07-28 embedding) read "present" in 2024-11-05
because ListRootsRequest exists there, and ROOT-05 (a key no schema defines) read "added" in
2026-07-28 because RequestMetaObject appeared then.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from _revisions import first_after_initialize, initialize_era

from compare.rows import Known, area_files, compute, gather, lint_all

from ._area import FIRST_AFTER, LAST_INIT, OLDEST, REVS, area, known, row, write
from .test_real_area import _real_diff


def _present(role: str | None = None, since: int = 0) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for i, rev in enumerate(REVS):
        out[rev] = {"present": i >= since} | ({"role": role} if role and i >= since else {})
    return {"kind": "definition", "revisions": out}


def _known() -> Known:
    """A diff where ListRootsRequest changes shape in the last ``initialize`` revision, and the
    first one without ``initialize`` adds the union that embeds it and a _meta object without a
    roots key."""
    k = known()
    diff = copy.deepcopy(k.diff or {})
    diff["items"] |= {
        "ListRootsRequest": _present("core"),
        "ListRootsRequest.id": {"kind": "field", "revisions": _present(since=1)["revisions"]},
        "InputRequest": _present("embedder", since=2),
        "RequestMetaObject": _present("referenced", since=2),
        "RequestMetaObject.io.modelcontextprotocol/logLevel": _present(since=2),
    }
    diff["changes"] = [
        {"item": "ListRootsRequest.id", "revision": LAST_INIT, "change": "added"},
        {"item": "InputRequest", "revision": FIRST_AFTER, "change": "added"},
        {"item": "RequestMetaObject", "revision": FIRST_AFTER, "change": "added"},
    ]
    k.diff = diff
    return k


def _messages(tmp_path: Path, r: dict[str, Any]) -> list[str]:
    path = write(tmp_path / "roots.yaml", area(rows=[r]))
    return [i.message for i in lint_all([path], _known()) if i.where.endswith("/where")]


def _states(tmp_path: Path, r: dict[str, Any]) -> dict[str, str]:
    doc = compute([write(tmp_path / "roots.yaml", area(rows=[r]))], _known(), tmp_path / "none")
    where = doc["areas"][0]["rows"][0]["where"]
    return {
        rev: c["state"] + ("+deprecated" if c.get("deprecated") else "")
        for rev, c in where["revisions"].items()
    }


EMBED = f"{FIRST_AFTER} deprecates roots and embeds roots/list in InputRequiredResult"


def test_a_row_about_a_2026_embedding_that_reads_present_in_2024_is_flagged(
    isolated: Path, tmp_path: Path
) -> None:
    loose = row(
        difference=EMBED, where={"items": ["InputRequest", "ListRootsRequest"], "deprecation": True}
    )
    messages = _messages(tmp_path, loose)
    assert any(f"shows changed in {LAST_INIT}, before the {FIRST_AFTER}" in m for m in messages)
    exact = row(
        difference=EMBED,
        where={
            "items": ["InputRequest", "ListRootsRequest"],
            "facts": [{"item": "InputRequest", "role": "embedder"}],
            "deprecation": True,
        },
    )
    assert _messages(tmp_path, exact) == []
    assert _states(tmp_path, exact) == {
        OLDEST: "absent",
        LAST_INIT: "absent",
        FIRST_AFTER: "added+deprecated",
    }


def test_a_key_no_schema_defines_must_read_absent_everywhere(
    isolated: Path, tmp_path: Path
) -> None:
    text = "An SEP lists a per-request roots _meta key that no schema defines"
    loose = row(difference=text, where={"items": ["RequestMetaObject"]})
    assert any(
        f"no schema defines it, but the where-column shows added in {FIRST_AFTER}" in m
        for m in _messages(tmp_path, loose)
    )
    fact = {"item": "RequestMetaObject", "property": "io.modelcontextprotocol/roots"}
    exact = row(difference=text, where={"items": ["RequestMetaObject"], "facts": [fact]})
    assert _messages(tmp_path, exact) == []
    assert set(_states(tmp_path, exact).values()) == {"absent"}
    # the same selector on a key that exists reads added where it appears
    there = {"item": "RequestMetaObject", "property": "io.modelcontextprotocol/logLevel"}
    assert (
        _states(tmp_path, row(where={"items": ["ListRootsRequest"], "facts": [there]}))[FIRST_AFTER]
        == "added"
    )


def test_a_claimed_removal_or_deprecation_the_column_does_not_show_is_flagged(
    isolated: Path, tmp_path: Path
) -> None:
    removed = row(difference=f"{FIRST_AFTER} removes it", where={"items": ["ListRootsRequest"]})
    assert any(
        f"says removed in {FIRST_AFTER}, but the where-column shows" in m
        for m in _messages(tmp_path, removed)
    )
    labelled = row(labels=["deprecated"], where={"items": ["ListRootsRequest"]})
    assert any("label 'deprecated'" in m for m in _messages(tmp_path, labelled))


def test_a_presence_fact_ignores_changes_below_the_item(isolated: Path, tmp_path: Path) -> None:
    fact = {"item": "ListRootsRequest", "presence": True}
    states = _states(tmp_path, row(where={"items": ["ListRootsRequest"], "facts": [fact]}))
    assert set(states.values()) == {"present"}
    plain = _states(tmp_path, row(where={"items": ["ListRootsRequest"]}))
    assert plain[LAST_INIT] == "changed"


def test_a_fact_on_an_item_the_diff_lacks_is_reported(isolated: Path, tmp_path: Path) -> None:
    fact = {"item": "InputRequests", "role": "embedder"}
    path = write(
        tmp_path / "roots.yaml",
        area(rows=[row(where={"items": ["ListRootsRequest"], "facts": [fact]})]),
    )
    assert any(
        "'InputRequests' is not in the diff" in i.message for i in lint_all([path], _known())
    )


def test_real_root_03_and_root_05_show_their_own_difference(isolated: Path) -> None:
    _real_diff()
    doc = compute(area_files(), gather(), isolated / "results")
    rows = {r["id"]: r["where"]["revisions"] for a in doc["areas"] for r in a["rows"]}
    embed = rows["ROOT-03"]
    assert {embed[r]["state"] for r in initialize_era()} == {"absent"}
    added = embed[first_after_initialize()]
    assert added["state"] == "added" and added["deprecated"]
    assert {c["state"] for c in rows["ROOT-05"].values()} == {"absent"}
