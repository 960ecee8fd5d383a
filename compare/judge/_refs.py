"""The scenarios' spec references as citation strings, each with its place.

A check's refs name sentences of ``scenarios/_sentences.yaml``; each sentence keeps its lines
per revision (``at``) apart from the words it rests on (``quote``); joined, they are the house
citation form ``path:line “quote”`` that the rows' citations use, so one verifier
(``compare.cite``) checks both. Each sentence a loaded check names is handed over once per
revision, placed in the sentence file (name, revision), where ``cite --fix`` rewrites a moved
line; a literal ``{cite, quote}`` ref of a test fixture is placed at its check. This stage
owns the scenario files, so it is the one that reads them, through the loader the judge uses.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from compare.exchange._scenarios import COMMON_FILES, SCENARIOS_DIR, common_checks, load_scenarios
from compare.exchange._yaml import load_yaml
from compare.judge._sentences import SENTENCES_FILE, load_sentences, sentences_file


@dataclass(frozen=True)
class ScenarioRef:
    """One ``refs`` entry of one check: the file, scenario, check and index it sits at."""

    file: Path
    scenario: str
    check: str
    index: int
    cite: str
    quote: str | None
    #: A sentence's revision (``at`` key): then ``check`` is the sentence's name.
    revision: str | None = None

    @property
    def ref(self) -> str:
        """The citation string: ``path:line “quote”`` (the bare location without a quote)."""
        return self.cite.strip() if self.quote is None else f"{self.cite.strip()} “{self.quote}”"

    @property
    def place(self) -> str:
        """Where to find it, in the words a reader searches the file with."""
        if self.revision is not None:
            return f"sentence {self.check}, at {self.revision} ({self.cite})"
        return f"scenario {self.scenario}, check {self.check}, refs[{self.index}] ({self.cite})"


def scenario_refs(directory: Path | None = None) -> list[ScenarioRef]:
    """Every ref of every scenario in ``directory`` (default: the shipped scenarios).

    The common wire checks (``_wire.yaml``, ``_wire-server.yaml``) belong to the shipped
    scenarios, so they are included only when the shipped folder is read. A scenario that
    does not load is a ``CompareError`` from the loader, as it is for a run.
    """
    folder = directory or SCENARIOS_DIR
    shipped = folder.resolve() == SCENARIOS_DIR.resolve()
    scenarios = load_scenarios(directory)
    named = {sentences_file(folder): {n for s in scenarios for c in s.checks for n in c.sentences}}
    if shipped:
        named[SENTENCES_FILE] |= {
            n for side in COMMON_FILES for c in common_checks(side) for n in c.sentences
        }
        # and the sentences no check names, which an area's where-column names instead
        named[SENTENCES_FILE] |= set(load_sentences(SENTENCES_FILE))
    # a literal ref (a test fixture's) is placed at its check, as the file spells it
    out = [
        ScenarioRef(s.path, s.id, str(check["id"]), j, str(ref["cite"]), ref.get("quote"))
        for s in scenarios
        for check in load_yaml(s.path)["checks"]
        for j, ref in enumerate(check["refs"])
        if isinstance(ref, dict) and "cite" in ref
    ]
    for path, names in named.items():
        sentences = load_sentences(path)
        for name in sorted(names):
            sentence = sentences[name]
            out += [
                ScenarioRef(path, path.stem, name, k, sentence.cite(rev), sentence.quote, rev)
                for k, rev in enumerate(sorted(sentence.at))
            ]
    return out


def scenario_files(directory: Path | None = None) -> list[Path]:
    """The files :func:`scenario_refs` reads for ``directory``: what a record of their
    verified refs depends on (the ``_wire*.yaml`` files only with the shipped folder)."""
    folder = directory or SCENARIOS_DIR
    files = sorted(folder.glob("[!_]*.yaml")) if folder.is_dir() else []
    files.append(sentences_file(folder))
    shipped = folder.resolve() == SCENARIOS_DIR.resolve()
    return [*files, *COMMON_FILES.values()] if shipped else files
