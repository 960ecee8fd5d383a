"""The terminal summary: per area what the program's rows say, every failing check with
the sentence it broke, where the other reports are, and the result at the threshold."""

from __future__ import annotations

from typing import Any

from compare.check._report import TALLY_COLUMNS


def _quote(finding: dict[str, Any]) -> str:
    sentences = finding["sentences"]
    if not sentences:
        return str(finding["reason"])
    first = sentences[0]
    plain = first["quote"].replace("**", "")
    return f"“{plain}” ({first['cite']})"


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
    findings = [
        (row["id"], f) for area in report["areas"] for row in area["rows"] for f in row["findings"]
    ] + [("(no row)", f) for f in report["other_findings"]]
    if findings:
        lines += ["", "findings:"]
        for row_id, f in findings:
            word = "FAIL" if f["verdict"] == "fail" else "NON-STRICT"
            lines.append(f"  {word} {row_id} {f['scenario']} at {f['revision']}: {f['title']}")
            lines.append(f"      {_quote(f)}")
            if f["observed"]:
                lines.append(f"      observed: {f['observed'][:200]}")
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
