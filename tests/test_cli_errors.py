"""Errors print as plain text: a path with ``[abc]`` or ``[/x]`` is shown as it is.

Rich reads ``[...]`` as markup: ``[abc]`` vanished from messages and ``[/x]`` (a closing tag
with no opening one) crashed the error printer with a traceback instead of exit 2.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer

import compare.cli
from compare._errors import CompareError
from compare._paths import PROJECT_ROOT

ODD = "no[abc]where/[/x]"


def _cli(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "compare", *args],
        cwd=PROJECT_ROOT,
        env=dict(os.environ) | env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_cite_check_names_a_missing_area_file_with_brackets_verbatim(tmp_path: Path) -> None:
    area = f"{tmp_path}/{ODD}.yaml"
    done = _cli("cite", "--check", "--area", area, COLUMNS="400")
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert f"error: cannot read {area}" in done.stderr


def test_pin_names_a_missing_spec_source_with_brackets_verbatim(tmp_path: Path) -> None:
    source = f"{tmp_path}/{ODD}"
    done = _cli("pin", "--spec-source", source, MCP_COMPARE_CACHE=str(tmp_path / "cache"))
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert f"spec source not found: {source}" in done.stderr


def test_message_and_hint_with_markup_print_verbatim_through_main(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    app = typer.Typer()

    @app.command()
    def boom() -> None:
        raise CompareError("bad [abc] and [/x] and [bold]x[/bold]", "try [red]this[/] \\[ok]")

    monkeypatch.setattr(compare.cli, "app", app)
    monkeypatch.setattr(compare.cli, "_register_stages", lambda: None)
    monkeypatch.setattr(sys, "argv", ["mcp-compare"])
    with pytest.raises(SystemExit) as stop:
        compare.cli.main()
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "error: bad [abc] and [/x] and [bold]x[/bold]\n" in err
    assert "hint: try [red]this[/] \\[ok]\n" in err
