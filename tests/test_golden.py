"""The golden-file mechanism itself (``tests/_golden.py`` and its options in ``tests/conftest.py``).

The golden-backed tests need the real clients, so the mechanism is checked here on a crafted
test module run in a child pytest with the same plugin: update mode writes what compare mode
then reads, a rerun changes no byte, a mismatch prints a diff and names ``make golden``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from _golden import HEADER, HEADER_KEY, REGENERATE, GoldenFile

TESTS = Path(__file__).resolve().parent
GOLDEN = TESTS / "golden"
DEMO = """
import json, os

def test_measure(golden):
    golden("demo").expect("target-a", json.loads(os.environ["DEMO_VALUE"]))
"""


def _pytest(folder: Path, value: object, *extra: str) -> subprocess.CompletedProcess[str]:
    """Run the crafted module in a child pytest that loads ``tests/conftest.py`` as a plugin."""
    env = {**os.environ, "PYTHONPATH": str(TESTS), "DEMO_VALUE": json.dumps(value)}
    argv = [sys.executable, "-m", "pytest", "-p", "conftest", "-p", "no:cacheprovider"]
    argv += ["-c", str(folder / "pytest.ini"), "--rootdir", str(folder), "-q"]
    argv += ["--golden-dir", str(folder / "golden"), *extra, str(folder / "test_demo.py")]
    return subprocess.run(
        argv, cwd=folder, env=env, capture_output=True, text=True, timeout=120, check=False
    )


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    (tmp_path / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (tmp_path / "test_demo.py").write_text(DEMO, encoding="utf-8")
    return tmp_path


def test_update_writes_what_compare_reads_and_a_rerun_changes_nothing(demo: Path) -> None:
    value = {"verdicts": {"b/2": "pass", "a/1": "fail"}, "asks_for": "2025-06-18"}
    done = _pytest(demo, value, "--update-golden")
    assert done.returncode == 0, done.stdout + done.stderr
    path = demo / "golden" / "demo.json"
    assert f"golden: wrote {path}" in done.stdout
    first = path.read_bytes()
    assert json.loads(first) == {HEADER_KEY: HEADER, "target-a": value}
    # sorted keys, two-space indent, one trailing newline: the form a reviewer diffs
    assert first.decode() == json.dumps(json.loads(first), indent=2, sort_keys=True) + "\n"
    again = _pytest(demo, value, "--update-golden")
    assert again.returncode == 0 and path.read_bytes() == first
    assert [p.name for p in path.parent.iterdir()] == ["demo.json"]  # no temp file left
    compared = _pytest(demo, value)
    assert compared.returncode == 0, compared.stdout
    assert path.read_bytes() == first


def test_a_changed_measurement_fails_with_a_diff_and_the_command(demo: Path) -> None:
    assert _pytest(demo, {"asks_for": "2025-06-18"}, "--update-golden").returncode == 0
    done = _pytest(demo, {"asks_for": "2025-11-25"})
    assert done.returncode == 1
    assert '-  "asks_for": "2025-06-18"' in done.stdout
    assert '+  "asks_for": "2025-11-25"' in done.stdout
    assert f"`{REGENERATE}`" in done.stdout
    assert "Traceback" not in done.stdout


def test_a_missing_entry_says_to_regenerate(tmp_path: Path) -> None:
    golden = GoldenFile("demo", tmp_path / "demo.json", update=False)
    with pytest.raises(pytest.fail.Exception, match="make golden"):
        golden.expect("target-a", {"x": 1})


def test_an_update_keeps_entries_it_did_not_measure(tmp_path: Path) -> None:
    path = tmp_path / "demo.json"
    path.write_text(json.dumps({HEADER_KEY: "old", "gone": 1, "kept": {"b": 2}}), encoding="utf-8")
    golden = GoldenFile("demo", path, update=True)
    golden.expect("gone", {3, 1, 2})  # a set is stored as a sorted list
    assert golden.write() == ["kept"]
    assert json.loads(path.read_text(encoding="utf-8")) == {
        HEADER_KEY: HEADER,
        "gone": [1, 2, 3],
        "kept": {"b": 2},
    }


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("*.json")), ids=lambda p: p.name)
def test_committed_golden_files_are_in_the_form_an_update_writes(path: Path) -> None:
    """Hand edits in another layout would make the next `make golden` diff noisy."""
    text = path.read_text(encoding="utf-8")
    data = json.loads(text)
    assert data.get(HEADER_KEY) == HEADER, f"{path}: header missing or stale"
    canonical = json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    assert text == canonical, f"{path}: not as `{REGENERATE}` writes it"
