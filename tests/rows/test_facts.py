"""Row prose facts (issue 36 item 6): who does what is rendered from the current cells, a
placeholder that names nothing real is a lint error, and a run implementation named in the
prose outside a placeholder is refused.
"""

from __future__ import annotations

import json
from pathlib import Path

from compare.rows._facts import NOBODY, facts, lint_facts

from ._area import area, known, row
from .test_compute import cell, run
from .test_states import FOUR


def _outcome(folder: Path, check: str, outcome: str) -> None:
    data = json.loads((folder / "verdict.json").read_text())
    for entry in data["checks"]:
        if entry["id"] == check:
            entry["outcome"] = outcome
    (folder / "verdict.json").write_text(json.dumps(data))


def _messages(text: str, key: str = "detail") -> list[str]:
    return [i.message for i in lint_facts(area(rows=[row(**{key: text})]), "a.yaml", known())]


def test_a_placeholder_parses_into_its_parts() -> None:
    (fact,) = facts("so do {who: roots-list/answered = error | silence}.")
    assert (fact.kind, fact.scenario, fact.check) == ("who", "roots-list", "answered")
    assert fact.outcomes == {"error", "silence"}


def test_who_and_count_are_rendered_from_the_current_cells(isolated: Path, tmp_path: Path) -> None:
    results = isolated / "results"
    ts = cell(results, "ts-sdk", "1.32.2", FOUR[0], [("answered", "informational")])
    _outcome(ts, "answered", "error")
    codex = cell(results, "codex", "0.171.0", FOUR[0], [("answered", "pass")])
    _outcome(codex, "answered", "result")
    text = (
        "Errors: {who: roots-list/answered = error} ({count: roots-list/answered = error});"
        " silence: {who: roots-list/answered = silence}."
    )
    doc = run(tmp_path, results, area(rows=[row(detail=text)]))
    rendered = doc["areas"][0]["rows"][0]["detail"]
    assert rendered == f"Errors: TypeScript SDK (1); silence: {NOBODY}."


def test_a_placeholder_naming_nothing_real_is_an_error() -> None:
    assert _messages("{who: no-such/answered = error}") == [
        "placeholder names unknown scenario 'no-such'"
    ]
    assert _messages("{who: roots-list/nope = error}") == ["roots-list has no check 'nope'"]
    assert _messages("{count: roots-list/answered = error|shrug}") == [
        "roots-list/answered has no outcome shrug"
    ]
    assert _messages("{who roots-list/answered}") == []  # not a placeholder at all
    assert _messages("{who: roots list}") == ["'{who: roots list}' is not a fact placeholder"]


def test_a_run_implementation_named_in_prose_is_refused() -> None:
    said = _messages("The TypeScript SDK answers -32601.")
    assert len(said) == 1 and "names the run implementation 'TypeScript SDK'" in said[0]
    assert _messages("The TypeScript SDK answers -32601.", key="effort_detail") == []
    assert _messages("{who: roots-list/answered = error} answer with an error.") == []
    # a cited implementation rests on its citations and may be named
    assert _messages("mcpx answers from its configured roots.") == []


def test_an_implementation_is_also_known_by_its_bare_name_and_its_package() -> None:
    """Prose says "rust-mcp-filesystem" of the target named "rust-mcp-filesystem
    (--enable-roots)", or names its package: both are its name, whatever the case."""
    import dataclasses

    base = known()
    targets = {
        **base.targets,
        "rfs-roots": {
            "id": "rfs-roots",
            "name": "rust-mcp-filesystem (--enable-roots)",
            "package": {"registry": "crates", "name": "rust-mcp-filesystem"},
        },
        "fs": {"id": "fs", "name": "Filesystem server (reference)"},
    }
    mine = dataclasses.replace(base, targets=targets)

    def said(text: str) -> list[str]:
        issues = lint_facts(area(rows=[row(detail=text)]), "a.yaml", mine)
        return [i.message for i in issues]

    assert any("'rust-mcp-filesystem'" in m for m in said("rust-mcp-filesystem keeps its folder."))
    assert any("'Filesystem server'" in m for m in said("The reference filesystem server asks."))
    assert said("A filesystem tool asks.") == []
