"""The terminal summary: per area what the program's rows say, every failing check with
the sentence it broke, where the other reports are, and the result at the threshold."""

from __future__ import annotations

from typing import Any

from compare.check._report import TALLY_COLUMNS


def _quote(group: dict[str, Any]) -> str:
    """The newest revision's sentence (the exchanges are in revision order), as plain text."""
    if not group["sentences"]:
        return str(group["observed"])
    last = group["sentences"][-1]
    plain = last["quote"].replace("**", "")
    return f"“{plain}” ({last['cite']})"


def _where(group: dict[str, Any]) -> str:
    exchanges = group["exchanges"]
    scenarios = list(dict.fromkeys(e["scenario"] for e in exchanges))
    revisions = list(dict.fromkeys(e["revision"] for e in exchanges))
    shown = ", ".join(scenarios[:3]) + (
        f" and {len(scenarios) - 3} more" if len(scenarios) > 3 else ""
    )
    at = (
        revisions[0]
        if len(revisions) == 1
        else f"{len(revisions)} revisions, {revisions[0]} to {revisions[-1]}"
    )
    count = f"{len(exchanges)} exchange{'s' if len(exchanges) > 1 else ''}"
    return f"in {count} ({shown}) at {at}"


def summary(report: dict[str, Any], files: dict[str, str]) -> str:
    program, cells = report["program"], report["cells"]
    counts = ", ".join(f"{n} {verdict}" for verdict, n in cells["counts"].items()) or "none"
    lines = [
        f"check: {program['name']} ({program['side']}), {cells['played']} cells ({counts});"
        f" checked {report['checked_at']}, spec {report['spec_commit'][:12]}",
        "",
    ]
    width = max([len("area")] + [len(a["title"]) for a in report["areas"]])
    head = "  ".join(f"{c:>10}" for c in TALLY_COLUMNS)
    lines.append(f"{'area':<{width}}  {head}")
    for area in report["areas"]:
        tally = "  ".join(f"{area['tally'][c]:>10}" for c in TALLY_COLUMNS)
        lines.append(f"{area['title']:<{width}}  {tally}")
    if report["findings"]:
        lines += ["", "findings (one per behaviour):"]
        for group in report["findings"]:
            word = "FAIL" if group["verdict"] == "fail" else "NON-STRICT"
            rows = ", ".join(group["rows"]) or "no row"
            lines.append(f"  {word} {rows} ({group['check']}): {group['title']}")
            lines.append(f"      {_quote(group)}")
            if group["observed"]:
                lines.append(f"      observed: {group['observed'][:200]}")
            lines.append(f"      {_where(group)}")
    for why in report["cells"]["errors"]:
        lines.append(f"  ERROR {why}")
    for why in report["beside"]["missing"]:
        lines.append(f"note: {why}")
    lines += ["", "reports:"] + [f"  {kind}: {path}" for kind, path in files.items()]
    result = report["result"]
    verdict = result["outcome"].upper()
    why = f": {'; '.join(result['why'])}" if result["why"] else ""
    lines.append(f"result: {verdict} (--fail-on {result['threshold']}){why}")
    return "\n".join(lines)
