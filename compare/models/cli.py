"""``mcp-compare models [--check]``."""

from __future__ import annotations

import typer

from compare._console import make_console
from compare._errors import CompareError
from compare._paths import PROJECT_ROOT

_out = make_console(highlight=False)


def _show(path: object) -> str:
    text = str(path)
    root = f"{PROJECT_ROOT}/"
    return text.removeprefix(root)


def models(*, check: bool = False) -> int:
    """``models [--check]``: generate the per-revision pydantic models from the pinned schemas
    and print what was written; with ``check``, raise :class:`CompareError` when a generated
    module is not current. The pipeline calls it as the command does; returns 0."""
    from compare.models import generate_models

    report = generate_models(check=check)
    for path in report.written:
        _out.print(f"wrote     {_show(path)}", markup=False)
    for path in report.unchanged:
        _out.print(f"unchanged {_show(path)}", markup=False)
    if check and not report.ok:
        problems = (
            [f"differs from a fresh generation: {_show(p)}" for p in report.drifted]
            + [f"missing: {_show(p)}" for p in report.missing]
            + [f"not generated from any pinned revision: {_show(p)}" for p in report.extra]
        )
        raise CompareError(
            "generated models are not current:\n  " + "\n  ".join(problems),
            hint="run `mcp-compare models` and commit the result (never edit them by hand)",
            exit_code=1,
        )
    if check:
        _out.print(f"[green]ok[/] {len(report.unchanged)} generated modules are current")
    return 0


def register(app: typer.Typer) -> None:
    """Mount ``models`` on ``app``."""

    @app.command("models")
    def models_command(
        check: bool = typer.Option(
            False, "--check", help="Regenerate in a temporary folder; fail if anything differs."
        ),
    ) -> None:
        """Generate the per-revision pydantic models from the pinned schemas."""
        models(check=check)
