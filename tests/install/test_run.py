"""Running an installer program: what a failure says."""

from __future__ import annotations

from pathlib import Path

import pytest

from compare._errors import CompareError
from compare.install._run import run


def test_npm_warnings_do_not_hide_the_cause_of_a_failure(tmp_path: Path) -> None:
    """npm ci on the tools lock prints dozens of ERESOLVE warnings before its "in sync" error;
    the installer falls back on that error's text, so it must survive the shortening."""
    script = (
        "for i in $(seq 40); do echo 'npm warn ERESOLVE overriding peer dependency' >&2; done; "
        "echo 'npm error code EUSAGE' >&2; "
        "echo 'npm error `npm ci` can only install packages when your package.json and "
        "package-lock.json are in sync.' >&2; "
        "for i in $(seq 20); do echo 'npm error usage line' >&2; done; exit 1"
    )
    with pytest.raises(CompareError) as caught:
        run(["sh", "-c", script], tools=tmp_path, cwd=tmp_path, what="npm ci")
    assert "in sync" in caught.value.message
    assert "npm warn" not in caught.value.message


def test_a_failure_of_only_warnings_still_shows_them(tmp_path: Path) -> None:
    with pytest.raises(CompareError) as caught:
        run(["sh", "-c", "echo 'npm warn alone' >&2; exit 1"], tools=tmp_path, what="npm ci")
    assert "npm warn alone" in caught.value.message


def test_an_http_mode_is_installed_by_its_stdio_target(tmp_path: Path) -> None:
    """A target whose package says installed_by is left to that target's install (one venv,
    one build), and must name a target with the very same package."""
    import shutil

    from compare.exchange._targets import TARGETS_DIR
    from compare.install._pins import load_pins

    pins = {p.target for p in load_pins()}
    assert "py-sdk-server" in pins and "py-sdk-server-http" not in pins
    folder = tmp_path / "targets"
    shutil.copytree(TARGETS_DIR, folder)
    http = folder / "py-sdk-server-http.yaml"
    http.write_text(http.read_text().replace('version: "2.3.0"', 'version: "2.2.0"'))
    with pytest.raises(CompareError, match="installed_by"):
        load_pins(folder)
