"""The HTML report: one self-contained file in the site's colours and symbols (its
stylesheet is inlined), readable offline and uploadable as one CI artifact.

At a glance: the result, then per area a table of the rows with the program's state beside
the published columns; under it every failing check with its sentence, and every cell with
its transcript, so a reader can check each word against the bytes. Everything taken from a
cell (a program's output may be hostile) is escaped.
"""

from __future__ import annotations

import json
import re
from html import escape
from pathlib import Path
from typing import Any

from compare.rows._state import STATE_SYMBOLS

SITE_CSS = Path(__file__).resolve().parents[2] / "site" / "assets" / "mcp-compare.css"
#: A transcript shows at most this many lines, and a stream at most this many bytes.
MAX_LINES = 400
MAX_BYTES = 64 * 1024
#: The transcript's direction words from the point of view of the checked program.
DIRECTION = {"in": "program →", "out": "→ program", "note": "note"}

_BASE = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 72rem; padding: 1rem;
  color: #1f2328; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.2rem; margin-top: 2rem; }
table { border-collapse: collapse; width: 100%; margin: .5rem 0; }
th, td { border-bottom: 1px solid var(--mc-line); padding: .25em .5em; text-align: left;
  vertical-align: top; }
thead th { background: var(--mc-head); position: sticky; top: 0; }
td:first-child { white-space: nowrap; } .wide { overflow-x: auto; }
.result-pass { color: var(--mc-good); } .result-fail { color: var(--mc-bad); }
.result-pass, .result-fail { font-weight: 700; } code, a { overflow-wrap: anywhere; }
blockquote { margin: .3em 0 .3em 1em; padding-left: .6em; border-left: 3px solid var(--mc-line); }
pre { white-space: pre-wrap; overflow-wrap: anywhere; font-size: 12px; background: var(--mc-head);
  padding: .5em; }
details { margin: .2em 0; } summary { cursor: pointer; }
.muted { color: var(--mc-none); }
"""


#: Shorter words than the labels where a table has many columns (the legend's meaning is
#: the same; the full label is the cell's title).
SHORT = {"observed": "observed", "not-exercised": "not exercised", "not-run": "not run"}


def _state(state: str, label: str) -> str:
    symbol = STATE_SYMBOLS.get(state, "?")
    if state in SHORT and label.startswith(SHORT[state]):
        return (
            f'<span class="mc-b mc-status-{escape(state)}" title="{escape(label)}">'
            f"{symbol} {escape(SHORT[state])}</span>"
        )
    return f'<span class="mc-b mc-status-{escape(state)}">{symbol} {escape(label)}</span>'


def _sentence(quote: str) -> str:
    """A quoted sentence as the spec page shows it: its Markdown emphasis and code spans
    rendered (the keyword in bold), everything else escaped."""
    text = escape(quote)
    text = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", text)
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", text)


def _cited(cite: str) -> str:
    """A spec citation (``path:line`` or ``path:start-end``) as a link to those lines at the
    pinned commit, so a reader opens the sentence in its page; plain text if it is not one."""
    from compare.pin import upstream_link

    path, _, lines = cite.rpartition(":")
    first, _, last = lines.partition("-")
    if not path or not first.isdigit() or (last and not last.isdigit()):
        return escape(cite)
    link = upstream_link(path, int(first), int(last) if last else None)
    return f"<a href='{escape(link)}'>{escape(cite)}</a>"


def _behaviour(group: dict[str, Any]) -> str:
    """One finding: the rows it is, the sentence of the newest revision (every revision's
    cite listed), what was seen, and each exchange that shows it."""
    word = "fail" if group["verdict"] == "fail" else "non-strict"
    rows = ", ".join(group["rows"]) or "no row"
    last = group["sentences"][-1:]
    quotes = "".join(
        f"<blockquote>{_sentence(s['quote'])}<br><span class='muted'>"
        + ", ".join(_cited(x["cite"]) for x in group["sentences"])
        + "</span></blockquote>"
        for s in last
    )
    links = ", ".join(
        f"<a href='#cell-{escape(e['cell'])}'>"
        f"{escape(e['scenario'])} at {escape(e['revision'])}</a>"
        for e in group["exchanges"]
    )
    return (
        f"<li><span class='mc-b mc-verdict-{word}'>{word}</span> {escape(rows)}: "
        f"{escape(group['title'])} <span class='muted'>({escape(group['check'])})</span>"
        f"{quotes}<div>observed: {escape(group['observed'])}</div>"
        f"<details><summary>{len(group['exchanges'])} exchange(s)</summary>{links}</details></li>"
    )


def _stream(path: Path) -> str:
    try:
        data = path.read_bytes()[:MAX_BYTES]
    except OSError:
        return "<span class='muted'>(not recorded)</span>"
    text = data.decode("utf-8", "replace")
    return f"<pre>{escape(text)}</pre>" if text else "<span class='muted'>(empty)</span>"


def _transcript(path: Path) -> str:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return "<span class='muted'>(no transcript)</span>"
    out = []
    for line in lines[:MAX_LINES]:
        try:
            entry = json.loads(line)
            shown = f"{entry.get('n')} {DIRECTION.get(entry.get('dir'), '?')} {entry.get('raw')}"
        except (ValueError, AttributeError):
            shown = line
        out.append(escape(shown))
    more = len(lines) - MAX_LINES
    tail = f"\n… {more} more lines in transcript.jsonl" if more > 0 else ""
    return f"<pre>{chr(10).join(out)}{escape(tail)}</pre>"


def _cells(results: Path, cells: list[dict[str, Any]]) -> str:
    parts = []
    for cell in cells:
        folder = results / cell["folder"]
        parts.append(
            f"<details id='cell-{escape(cell['folder'])}'><summary>"
            f"<span class='mc-verdict-{escape(cell['verdict'])}'>{escape(cell['verdict'])}</span>"
            f" {escape(cell['scenario'])} at {escape(cell['revision'])}</summary>"
            f"<p>{escape(cell['reason'])}</p>"
            f"<h4>Transcript</h4>{_transcript(folder / 'transcript.jsonl')}"
            f"<h4>Standard error</h4>{_stream(folder / cell['stderr'])}</details>"
        )
    return "".join(parts)


def html(report: dict[str, Any], results: Path, cells: list[dict[str, Any]]) -> str:
    """The whole page; ``cells`` lists each played cell (folder relative to ``results``,
    scenario, revision, verdict, reason, stderr file name)."""
    program, result = report["program"], report["result"]
    columns = report["beside"]["columns"]
    head = "".join(
        f"<th>{escape(c['name'])}<br><span class='muted'>{escape(str(c.get('version') or ''))}"
        "</span></th>"
        for c in columns
    )
    body = []
    for area in report["areas"]:
        rows = []
        for row in area["rows"]:
            beside = "".join(
                "<td>"
                + (
                    _state(row["beside"][c["id"]]["state"], row["beside"][c["id"]]["label"])
                    if c["id"] in row["beside"]
                    else "<span class='muted'>–</span>"
                )
                + "</td>"
                for c in columns
            )
            why = f"<div class='muted'>{escape(row['reason'])}</div>" if row["reason"] else ""
            rows.append(
                f"<tr><td>{escape(row['id'])}</td><td>{escape(row['difference'])}</td>"
                f"<td>{_state(row['state'], row['label'])}{why}</td>{beside}</tr>"
            )
        words = {"n/a": "the other side's"}
        tally = ", ".join(f"{n} {words.get(k, k)}" for k, n in area["tally"].items() if n) + " rows"
        body.append(
            f"<h2>{escape(area['title'])}</h2><p class='muted'>{escape(tally)}</p>"
            "<div class='wide'><table><thead><tr><th>row</th><th>what differs</th>"
            f"<th>{escape(program['name'])}"
            f"</th>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
        )
    found = "".join(_behaviour(g) for g in report["findings"])
    findings = (
        f"<h2>Findings, one per behaviour</h2><ul>{found}</ul>"
        if found
        else "<h2>Findings</h2><p>No check failed.</p>"
    )
    notes = "".join(f"<p class='muted'>{escape(m)}</p>" for m in report["beside"]["missing"])
    errors = "".join(f"<li>{escape(e)}</li>" for e in report["cells"]["errors"])
    why = f": {escape('; '.join(result['why']))}" if result["why"] else ""
    css = SITE_CSS.read_text(encoding="utf-8") if SITE_CSS.is_file() else ""
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>mcp-compare check: {escape(program['name'])}</title>"
        f"<style>{css}{_BASE}</style></head><body>"
        f"<h1>{escape(program['name'])}: what the MCP specification asks of a "
        f"{escape(program['side'])}, checked</h1>"
        f"<p class='result-{result['outcome']}'>{result['outcome'].upper()} at "
        f"--fail-on {escape(result['threshold'])}{why}</p>"
        f"<p>Checked {escape(report['checked_at'])} with mcp-compare "
        f"{escape(report['tool_version'])},"
        f" against the specification at commit {escape(report['spec_commit'][:12])} (revisions "
        f"{escape(', '.join(report['revisions']))}); exchanges played: "
        f"{report['cells']['played']}. Command: <code>{escape(program['command'])}</code></p>"
        "<p class='muted'>Each row is one thing the revisions differ on; the state is read "
        "from this program's exchanges by the same rules as the published matrix, whose "
        "columns stand beside it. A fail breaks a MUST, a non-strict a SHOULD, each quoted "
        "below it.</p>"
        f"{notes}{findings}{''.join(body)}"
        + (f"<h2>Exchanges that ended in a harness error</h2><ul>{errors}</ul>" if errors else "")
        + f"<h2>Every exchange</h2>{_cells(results, cells)}</body></html>\n"
    )
