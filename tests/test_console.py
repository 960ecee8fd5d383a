"""Consoles off a terminal are wide enough for the run summary (one column per revision)."""

from __future__ import annotations

import pytest

from compare._console import LOG_WIDTH, make_console


def test_off_a_terminal_the_console_is_log_width(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    assert make_console().width == LOG_WIDTH  # pytest captures stdout: not a terminal


def test_columns_and_an_explicit_width_win(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "90")
    assert make_console().width == 90
    monkeypatch.delenv("COLUMNS")
    assert make_console(width=70).width == 70


def test_labelled_text_is_never_read_as_markup() -> None:
    from compare._console import labelled

    console = make_console(width=200, record=True)
    console.print(labelled("error:", "bold red", "a [abc] b [/x] c [bold]d"))
    assert console.export_text() == "error: a [abc] b [/x] c [bold]d\n"
