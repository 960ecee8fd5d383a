"""JUnit XML, the report format CI systems read: one test suite per area, one test case per
row. A row fails when a check behind it fails at the chosen threshold; a row nothing tested
is skipped with its reason; a harness error is an error, not a failure of the program."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

#: Row states that never ran a graded check: a skipped test case, with the reason.
SKIPPED = ("not-run", "not-exercised")
ERRORS = ("error", "unstable")


def _message(finding: dict[str, Any]) -> str:
    said = [s["quote"].replace("**", "") + f" ({s['cite']})" for s in finding["sentences"]]
    return f"{finding['scenario']} at {finding['revision']}: {finding['title']}: " + (
        " ".join(said) or finding["reason"]
    )


def junit(report: dict[str, Any]) -> bytes:
    threshold = report["result"]["threshold"]
    counted = {"fail": ("fail",), "non-strict": ("fail", "non-strict"), "never": ()}[threshold]
    suites = ET.Element("testsuites", name=f"mcp-compare check: {report['program']['name']}")
    for area in report["areas"]:
        suite = ET.SubElement(suites, "testsuite", name=area["title"])
        tests = failures = errors = skipped = 0
        for row in area["rows"]:
            tests += 1
            case = ET.SubElement(
                suite, "testcase", classname=area["area"], name=f"{row['id']} {row['difference']}"
            )
            bad = [f for f in row["findings"] if f["verdict"] in counted]
            if row["state"] in ERRORS:
                errors += 1
                ET.SubElement(case, "error", message=str(row["reason"] or row["label"]))
            elif bad:
                failures += 1
                node = ET.SubElement(
                    case, "failure", message=_message(bad[0]), type=bad[0]["verdict"]
                )
                node.text = "\n".join(_message(f) for f in bad)
            elif row["state"] in SKIPPED:
                skipped += 1
                ET.SubElement(case, "skipped", message=str(row["reason"] or row["label"]))
            else:
                out = ET.SubElement(case, "system-out")
                out.text = f"{row['label']}" + "".join(f"\n{_message(f)}" for f in row["findings"])
        suite.set("tests", str(tests))
        suite.set("failures", str(failures))
        suite.set("errors", str(errors))
        suite.set("skipped", str(skipped))
    stray = [g for g in report["findings"] if not g["rows"] and g["verdict"] in counted]
    if stray:
        suite = ET.SubElement(suites, "testsuite", name="checks no row reads")
        for group in stray:
            case = ET.SubElement(suite, "testcase", classname="other", name=group["title"])
            first = group["exchanges"][0] | {"title": group["title"], "reason": group["observed"]}
            first["sentences"] = group["sentences"][-1:]
            node = ET.SubElement(case, "failure", message=_message(first), type=group["verdict"])
            node.text = "\n".join(f"{e['scenario']} at {e['revision']}" for e in group["exchanges"])
        suite.set("tests", str(len(stray)))
        suite.set("failures", str(len(stray)))
    ET.indent(suites)
    data: bytes = ET.tostring(suites, encoding="utf-8", xml_declaration=True)
    return data + b"\n"
