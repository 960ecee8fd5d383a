"""One order of revisions, from the pins: ``compare.pin.release_order``.

The order was coded in four places (text sorts, a ``(n == "draft", n)`` key, the peer's own
comparison) and the era boundary was typed in the peer as a fallback. These tests hold every
stage to the one key and the package to having no revision list or boundary of its own.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from _revisions import revisions

from compare._paths import PROJECT_ROOT
from compare.exchange._scenarios import in_window
from compare.peer import is_modern
from compare.pin import load_pins, release_order

DATED = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring constants of every module, class and function in ``tree``."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


#: Revision names the package still holds as values, each with why it is not read from the
#: pins yet. Nothing else may join this list: a new one is a revision list or boundary of its
#: own, which the pins should give.
KNOWN = {
    # The transport's header rule (2025-06-18 basic/transports.mdx, "Protocol Version Header")
    # is prose, not schema, so the pins' models cannot say where it starts; it arrived with
    # the proxies measured alone, and moving it into the plan is left to that code's owner.
    "compare/peer/client/_http.py '2025-06-18'",
}


def test_the_package_codes_no_revision_name_of_its_own() -> None:
    """No module under compare/ holds a revision name as a value (a list of revisions, a
    boundary, a fallback): they come from the pins. Docstrings and comments may name them."""
    found = []
    for path in sorted((PROJECT_ROOT / "compare").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and DATED.match(node.value)
                and id(node) not in docs
            ):
                found.append(f"{path.relative_to(PROJECT_ROOT)} {node.value!r}")
    assert sorted(set(found) - KNOWN) == []
    assert len(found) == len(set(found))  # each known one once


def test_no_module_sorts_revisions_by_a_key_of_its_own() -> None:
    """The draft-last key is written once, in compare/pin/_pins.py."""
    hits = [
        str(path.relative_to(PROJECT_ROOT))
        for path in sorted((PROJECT_ROOT / "compare").rglob("*.py"))
        if '== "draft", ' in path.read_text(encoding="utf-8")
        or '(1, name) if name == "draft"' in path.read_text(encoding="utf-8")
    ]
    assert hits == ["compare/pin/_pins.py"]


def test_the_pins_are_kept_in_release_order() -> None:
    names = load_pins().revision_names
    assert names == sorted(names, key=release_order) == revisions()
    assert names[-1] == "draft"


def test_the_peer_era_test_agrees_with_release_order_at_every_boundary() -> None:
    """The peer imports nothing outside its folder, so it compares names itself; for every
    pinned revision as the boundary it must say what the one order says."""
    names = revisions()
    for boundary in names:
        for name in names:
            expected = release_order(name) >= release_order(boundary)
            assert is_modern(name, boundary) is expected, (name, boundary)
        assert not is_modern("junk", boundary) and not is_modern(None, boundary)
    assert not any(is_modern(name, None) for name in names)


def test_scenario_windows_use_release_order() -> None:
    names = revisions()
    first, last = names[0], names[-2]  # the oldest and the newest dated revision
    assert in_window("draft", {"from": first})
    assert not in_window("draft", {"from": first, "until": last})
    assert all(in_window(n, {"from": n, "until": n}) for n in names)


def test_the_peer_folder_holds_no_era_boundary(tmp_path: Path) -> None:
    import compare.peer as peer

    assert not hasattr(peer, "FIRST_MODERN")
