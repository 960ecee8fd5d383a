"""Commands of the site stage: ``render [--check]``, ``site [--serve]``, ``export [--out]``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from compare._console import make_console
from compare._errors import CompareError


def render(*, check: bool = False, as_json: bool = False) -> int:
    """``render [--check]``: generate the Markdown pages under site/docs/ from the pipeline's
    data and print the summary; with ``check``, raise :class:`CompareError` when they are not
    current. The pipeline calls it as the command does; returns 0."""
    from compare import site

    console = make_console()
    if check:
        drift = site.check()
        if as_json:
            typer.echo(json.dumps({"up_to_date": not drift, "drift": drift}))
        if drift:
            shown = "\n".join(drift[:20]) + ("\n…" if len(drift) > 20 else "")
            raise CompareError(
                f"site/docs/ is out of date ({len(drift)} files):\n{shown}",
                "run `mcp-compare render`",
            )
        if not as_json:
            console.print("site/docs/ is up to date")
        return 0
    summary = site.render()
    if as_json:
        typer.echo(json.dumps(summary))
    else:
        console.print(
            f"rendered {summary['pages']} pages ({summary['written']} written, "
            f"{summary['removed']} stale removed, {summary['kept']} cell pages unchanged "
            "and kept) into site/docs/"
        )
    return 0


def build(*, serve: bool = False, port: int = 8000) -> int:
    """``site [--serve]``: build the static site with ``mkdocs build --strict`` and say where
    it is (``serve``: serve it on 127.0.0.1 instead). The pipeline calls it as the command
    does; returns 0."""
    from compare import site

    if serve:
        site.serve_site(port=port)
        return 0
    built = site.build_site()
    summary = "summary pages rebuilt" if built.summary_rebuilt else "summary pages unchanged"
    make_console().print(
        f"built {built.pages} HTML pages in {built.seconds:.1f} s ({summary}; cell pages: "
        f"{built.converted} written, {built.kept} unchanged); open "
        f"{built.folder / 'index.html'} (search needs a server: `make serve`)",
        markup=False,
    )
    return 0


def export(out: Path | None = None, *, as_json: bool = False) -> int:
    """``export``: write build/matrix.json (or ``out``) and print what it holds (``as_json``:
    the matrix itself). The pipeline calls it as the command does; returns 0."""
    from compare import site

    path, matrix = site.export(out)
    if as_json:
        typer.echo(json.dumps(matrix, indent=2, ensure_ascii=False))
    else:
        make_console().print(
            f"wrote {path}: {len(matrix['rows'])} rows, {len(matrix['cells'])} cells, "
            f"{len(matrix['citations'])} citations"
        )
    return 0


def register(app: typer.Typer) -> None:
    """Add ``render``, ``site`` and ``export`` to ``app``."""

    @app.command("render")
    def render_cmd(
        check: bool = typer.Option(False, "--check", help="Fail if site/docs/ is not current."),
        as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
    ) -> None:
        """Generate the Markdown pages under site/docs/ from the pipeline's data."""
        render(check=check, as_json=as_json)

    @app.command("site")
    def site_cmd(
        serve: bool = typer.Option(False, "--serve", help="Serve the built site on 127.0.0.1."),
        port: int = typer.Option(8000, "--port", help="Port for --serve."),
    ) -> None:
        """Build the static site with `mkdocs build --strict` (Material theme)."""
        build(serve=serve, port=port)

    @app.command("export")
    def export_cmd(
        out: Annotated[Path | None, typer.Option("--out", help="Write here instead.")] = None,
        as_json: bool = typer.Option(False, "--json", help="Print the matrix to stdout too."),
    ) -> None:
        """Write build/matrix.json (schema: compare/site/matrix.schema.json)."""
        export(out, as_json=as_json)

    @app.command("matrix-diff")
    def matrix_diff_cmd(
        old: Annotated[Path, typer.Argument(help="matrix.json before the change.")],
        new: Annotated[Path, typer.Argument(help="matrix.json after it.")],
        as_json: bool = typer.Option(False, "--json", help="Print the changes as JSON."),
    ) -> None:
        """Every cell verdict and row state that differs between two matrix.json files."""
        from compare.site import _matrixdiff

        changes = _matrixdiff.diff_matrices(old, new)
        if as_json:
            typer.echo(json.dumps([c.__dict__ for c in changes], indent=2, ensure_ascii=False))
        else:
            typer.echo(_matrixdiff.report(changes, old, new))
