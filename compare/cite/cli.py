"""``mcp-compare cite``: look a citation up, or verify (and fix) every citation."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.text import Text

from compare._console import labelled, make_console
from compare._exit import exit_with

_STYLE = {
    "verified": "green",
    "verified-normalised": "green",
    "moved": "yellow",
    "ambiguous": "red",
    "mismatch": "red",
    "unavailable": "magenta",
}


def cite(
    ref: str | None = None,
    *,
    check: bool = False,
    fix: bool = False,
    allow_moved: bool = False,
    as_json: bool = False,
    area: list[Path] | None = None,
    scenarios: Path | None = None,
) -> int:
    """``cite REF`` shows a cited place or a named sentence; ``cite --check`` (``--fix``)
    verifies every citation of the rows and scenarios, writes build/citations.json and
    prints the report. Returns 1 on a failing citation, else 0. The pipeline calls it as the
    command does."""
    from compare._errors import CompareError

    # No markup: refs, paths and messages are printed as they are (Text for the styles).
    console = make_console(stderr=as_json, markup=False, highlight=False)
    if ref is not None and (check or fix):
        raise CompareError("give either a REF to show or --check/--fix", "not both")
    if ref is not None and re.fullmatch(r"[a-z0-9][a-z0-9-]*", ref):
        _show_sentence(ref, as_json, console)
        return 0
    if ref is not None:
        _show(ref, as_json, console)
        return 0
    if not (check or fix):
        raise CompareError("nothing to do", "give a REF, or --check, or --fix")
    # The walk over the area files and scenarios belongs to the rows stage, which also
    # writes (and, for unchanged inputs, has already written) build/citations.json.
    from compare.rows import check_citations, checked_document, document_failed, fix_moved

    files = area or None
    if fix:
        fixes = fix_moved(check_citations(files, scenarios=scenarios))
        for f in fixes:
            console.print(f"fixed {f.file}: {f.old} → {f.new} ({f.count}×)")
    document, _reused = checked_document(files, scenarios=scenarios)
    if as_json:
        # Sorted as build/citations.json is, so a reused record prints as a fresh one.
        typer.echo(json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False))
    else:
        _print_report(document, console)
    return 1 if document_failed(document, allow_moved) else 0


def register(app: typer.Typer) -> None:
    """Add ``cite`` to ``app``."""

    @app.command("cite")
    def cite_command(
        ref: str = typer.Argument(
            None, help="path:LINE[-END] [“quote”], or a sentence's name, to show."
        ),
        check: bool = typer.Option(False, "--check", help="Verify every citation of every row."),
        fix: bool = typer.Option(False, "--fix", help="Rewrite the line numbers of moved ones."),
        allow_moved: bool = typer.Option(False, "--allow-moved", help="Moved only warns."),
        as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
        area: list[Path] = typer.Option(  # noqa: B008 - typer's way to declare the option
            [], "--area", help="Check these area files instead of compare/rows/areas/*.yaml."
        ),
        scenarios: Path | None = typer.Option(  # noqa: B008 - as --area
            None,
            "--scenarios",
            help="Check the refs of the scenarios in this folder (default: the shipped "
            "scenarios, unless --area is given).",
        ),
    ) -> None:
        """Show a cited place (lines, pin, upstream link) or check all citations.

        REF may name a sentence of compare/exchange/scenarios/_sentences.yaml (the spec
        sentences the scenarios' checks rest on): it is shown at each revision it is cited at.
        REF may shorten a spec path to its tail when one pinned file ends with it
        (2025-11-25/client/roots.mdx:78); a quote of spec prose is also judged whole or cut
        (a fail or non-strict must quote its whole sentence; a sentence that wraps is cited
        by its line range, path:L1-L2). --check verifies the rows' citations and the
        scenarios' refs (each ref's quote must be a clause: 3+ words, 15+ characters);
        each named sentence is verified once per revision of its ``at``, and --fix rewrites
        the line numbers of a moved one in the sentence file; it writes build/citations.json
        and exits 1 on mismatch, ambiguity, a spec or
        package source that cannot be read, or (unless --allow-moved) a moved line. An
        upstream repository without a local clone in .cache/repos/OWNER/REPO is reported as
        "not verified: source unavailable", never as verified, and does not fail the check.
        """
        exit_with(
            cite(
                ref,
                check=check,
                fix=fix,
                allow_moved=allow_moved,
                as_json=as_json,
                area=list(area) or None,
                scenarios=scenarios,
            )
        )


def _print_report(document: dict[str, Any], console: Console) -> None:
    from compare.cite import STATUSES

    records = document["citations"]
    for c in records:
        if c["status"] == "verified":
            continue  # the tally counts them; the list is for what needs a look
        message = str(c.get("message") or "")
        style = _STYLE.get(c["status"], "red")
        # soft_wrap: one line per ref and message, so a log can be searched and copied.
        console.print(
            labelled(f"{c['status']:<19}", style, f"{c['row']} {c['ref']}"), soft_wrap=True
        )
        console.print(" " * 20 + message.replace("\n", "\n" + " " * 20), soft_wrap=True)
    for w in document.get("warnings") or []:
        console.print(labelled("warning:", "yellow", w), soft_wrap=True)
    tally = ", ".join(f"{k}: {document['tally'].get(k, 0)}" for k in STATUSES)
    scenario = sum(c.get("origin") in ("scenario", "sentence") for c in records)
    console.print(f"{len(records)} citations ({scenario} of them scenario refs) — {tally}")


def _show_sentence(name: str, as_json: bool, console: Console) -> None:
    """A named sentence at each revision: its window, then each cited place as ``_show``."""
    from compare._errors import CompareError
    from compare.judge._sentences import load_sentences

    sentences = load_sentences()
    sentence = sentences.get(name)
    if sentence is None:
        raise CompareError(
            f"no sentence named {name!r} in compare/exchange/scenarios/_sentences.yaml",
            "give path:LINE[-END], or one of: " + ", ".join(sorted(sentences)),
        )
    refs = [f"{sentence.cite(rev)} “{sentence.quote}”" for rev in sorted(sentence.at)]
    if as_json:
        from compare.cite import lookup

        found = [lookup(r).as_dict() for r in refs]
        window = sentence.window
        typer.echo(json.dumps({"name": name, **window, "at": found}, indent=2, ensure_ascii=False))
        return
    until = sentence.window.get("until") or "now"
    console.print(labelled(name, "bold", f"holds {sentence.window['from']} … {until}"))
    for rev, ref in zip(sorted(sentence.at), refs, strict=True):
        console.print(Text(f"\n── at {rev}", style="bold"))
        _show(ref, False, console)


def _show(ref: str, as_json: bool, console: Console) -> None:
    from compare.cite import lookup

    found = lookup(ref)
    if as_json:
        typer.echo(json.dumps(found.as_dict(), indent=2, ensure_ascii=False))
        return
    console.print(labelled(found.citation.location, "bold", f" ({found.provenance})"))
    if found.link:
        console.print(f"upstream: {found.link}", soft_wrap=True)
    width = len(str(found.lines[-1][0])) if found.lines else 1
    for number, text, cited in found.lines:
        marker = "▶" if cited else " "
        line = f"{marker} {number:>{width}} │ {text}"
        console.print(Text(line, style="bold" if cited else "dim"))
    if found.result:
        style = _STYLE.get(found.result.status, "red")
        console.print(Text.assemble((found.result.status, style), ": ", found.result.message))
    clause = found.clause
    if clause is not None and clause.problem is None:
        console.print(
            Text.assemble(
                ("whole clause", "green"), ": the quote runs from a sentence start to its end"
            )
        )
    elif clause is not None:
        console.print(
            Text.assemble(("cut clause", "yellow"), f": {clause.problem}"), soft_wrap=True
        )
        if clause.sentence is not None:
            whole = f"{found.citation.source}:{clause.lines} “{clause.sentence}”"
            console.print(f"whole sentence: {whole}", soft_wrap=True)
