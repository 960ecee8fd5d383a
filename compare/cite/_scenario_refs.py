"""The exchange scenarios' spec references, checked by ``cite --check`` beside the rows'.

This is the one module of the cite stage that reads scenario files, through the exchange
stage's own loader (so a ref is read exactly as the judge reads it). The exchange stage
does not import the cite stage, so this adds no import cycle. Each ref becomes a
:class:`Checked` that names its scenario, check and position, written to
``build/citations.json`` with ``origin: scenario``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from compare.cite._check import Checked, SourceCache, display_path
from compare.cite._refs import joined, verify_refs

_TIP = (
    "tip: quote the whole clause the check rests on, copied from the cited line (the "
    "sentence with its MUST/SHOULD), and cite the line it starts on"
)


@dataclass(frozen=True)
class ScenarioRef:
    """One ``refs`` entry of one check, with where it sits."""

    file: Path
    scenario: str
    check: str
    index: int
    cite: str
    quote: str | None


def scenario_refs(directory: Path | None = None) -> list[ScenarioRef]:
    """Every ref of every scenario in ``directory`` (default: the shipped scenarios).

    The common wire checks (``_wire.yaml``) belong to the shipped scenarios, so they are
    included only when the shipped folder is read.
    """
    from compare.exchange._scenarios import (
        COMMON_FILE,
        SCENARIOS_DIR,
        common_checks,
        load_scenarios,
    )

    shipped = directory is None or directory.resolve() == SCENARIOS_DIR.resolve()
    found = [(s.path, s.id, c) for s in load_scenarios(directory) for c in s.checks]
    if shipped:
        found += [(COMMON_FILE, "_wire", c) for c in common_checks()]
    return [
        ScenarioRef(path, sid, check.id, j, str(ref["cite"]), ref.get("quote"))
        for path, sid, check in found
        for j, ref in enumerate(check.refs)
    ]


def check_scenarios(
    directory: Path | None = None, cache: SourceCache | None = None
) -> list[Checked]:
    """Verify every scenario ref; token quotes and unverified ones fail like a row's."""
    refs = scenario_refs(directory)
    results = verify_refs([joined(r.cite, r.quote) for r in refs], cache, standalone=True)
    out: list[Checked] = []
    for ref, res in zip(refs, results, strict=True):
        where = f"scenario {ref.scenario}, check {ref.check}, refs[{ref.index}] ({ref.cite})"
        error = None
        if res.result is None:
            error = f"{where}: {res.problem}"
        elif res.problem is not None:
            error = f"{where}: {res.problem}. {_TIP}"
        elif res.result.status == "moved":
            # `cite --fix` edits area files only: say which line of which file to change.
            fix = "`mcp-compare cite --fix` rewrites it"
            by_hand = f"change `cite:` of {where} in {ref.file.name} by hand"
            res.result.message = res.result.message.replace(fix, by_hand)
        out.append(
            Checked(
                display_path(ref.file),
                f"{ref.scenario}/{ref.check}",
                f"refs[{ref.index}]",
                res.ref,
                None,
                res.result,
                error,
                origin="scenario",
                scenario=ref.scenario,
                check=ref.check,
                ref_index=ref.index,
            )
        )
    return out
