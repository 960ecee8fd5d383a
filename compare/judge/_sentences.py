"""Spec sentences, each named once, and the refs a check gets from the names it gives.

A check's ``refs`` name the sentences its grades rest on (``- client-stdin-valid-message``,
or ``{sentence: NAME, supports: [...]}``); ``scenarios/_sentences.yaml`` holds each sentence
once: its page, its quote (the whole clause), the window of revisions it holds in, and the
lines it sits at in each pinned revision (``at``, kept right by ``mcp-compare cite --check
--fix``). The loader expands a name into the refs the judge, the grounds lint and the
verdicts have always read — one ``{cite, quote, from, until}`` per cited revision — so a
verdict shows ``path:line “quote”`` exactly as before. A scenario folder other than the
shipped one may hold its own ``_sentences.yaml``; without one it reads the shipped file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from compare._errors import CompareError
from compare.exchange._yaml import check_schema, load_yaml
from compare.pin import release_order

HERE = Path(__file__).resolve().parent
SENTENCES_FILE = HERE.parent / "exchange" / "scenarios" / "_sentences.yaml"
SENTENCES_SCHEMA = HERE.parent / "exchange" / "sentences.schema.json"
SPEC = "docs/specification"


@dataclass(frozen=True)
class Sentence:
    name: str
    page: str
    quote: str
    window: dict[str, Any]
    #: revision → ``L``, ``L1-L2``, or ``page:L1-L2`` where the page moved at that revision
    at: dict[str, str]

    def cite(self, revision: str) -> str:
        """``path:line`` (or ``path:L1-L2``) of this sentence in ``revision``."""
        place = self.at[revision]
        page, _, lines = place.rpartition(":")
        return f"{SPEC}/{revision}/{page or self.page}:{lines}"

    def refs(self) -> list[dict[str, Any]]:
        """One ref per cited revision. Each holds until the next cited one (the pinned
        revision just before it), the last until the sentence's own ``until``: a revision
        pinned after the lines were written (one between the newest dated revision and the
        draft, say) is cited with the text of the revision before it until
        ``cite --check --fix`` gives it lines of its own."""
        from compare.pin import load_pins

        revisions = sorted(self.at, key=release_order)
        pinned = [r.name for r in load_pins().revisions]

        def until(i: int) -> str | None:
            if i == len(revisions) - 1:
                until_: str | None = self.window.get("until")
                return until_
            nxt = release_order(revisions[i + 1])
            before = [r for r in pinned if release_order(revisions[i]) <= release_order(r)]
            before = [r for r in before if release_order(r) < nxt]
            return max(before, key=release_order) if before else revisions[i]

        return [
            {"cite": self.cite(rev), "quote": self.quote, "from": rev, "until": until(i)}
            for i, rev in enumerate(revisions)
        ]


def sentences_file(folder: Path) -> Path:
    """The sentence file of a scenario folder: its own ``_sentences.yaml``, else the shipped."""
    own = folder / "_sentences.yaml"
    return own if own.is_file() else SENTENCES_FILE


def load_sentences(path: Path = SENTENCES_FILE) -> dict[str, Sentence]:
    stat = path.stat()
    return _load(path, stat.st_mtime_ns, stat.st_size)


@cache
def _load(path: Path, _mtime: int, _size: int) -> dict[str, Sentence]:
    data = load_yaml(path)
    check_schema(data, SENTENCES_SCHEMA, path, remember=True)
    assert isinstance(data, dict)
    found: dict[str, Sentence] = {}
    for name, raw in data.items():
        window = dict(raw["revisions"])
        for rev in raw["at"]:
            until = window["until"]
            at = release_order(rev)
            if at < release_order(window["from"]) or (
                until is not None and at > release_order(until)
            ):
                raise CompareError(
                    f"{path}: key {name}.at.{rev}: outside the sentence's window"
                    f" {window['from']} … {until or 'now'}",
                    "widen its revisions, or drop the line of a revision the sentence is not in",
                )
        found[name] = Sentence(name, raw["page"], raw["quote"], window, dict(raw["at"]))
    return found


def _overlaps(ref: dict[str, Any], window: dict[str, Any] | None) -> bool:
    """Whether a ref's window meets the window the check plays in (None: every revision)."""
    if not window:
        return True
    ends = (ref.get("until"), window.get("until"))
    key = release_order
    return (ends[1] is None or key(ref["from"]) <= key(ends[1])) and (
        ends[0] is None or key(window["from"]) <= key(ends[0])
    )


def expand_refs(
    raw: list[Any], plays: dict[str, Any] | None, sentences: dict[str, Sentence], where: str
) -> tuple[list[dict[str, Any]], tuple[str, ...]]:
    """A check's ``refs`` as the judge reads them, and the sentence names they used.

    A named sentence gives its refs at the revisions the check plays (``plays``); ``at: REV``
    with ``from``/``until`` cites that one revision's text for the window given (a sentence
    of a later revision about behaviour at earlier ones). A ``{cite, quote, …}`` entry is a
    literal ref and is kept as it is.
    """
    out: list[dict[str, Any]] = []
    names: list[str] = []
    for j, ref in enumerate(raw):
        if isinstance(ref, dict) and "cite" in ref:
            out.append(ref)
            continue
        name = ref if isinstance(ref, str) else ref["sentence"]
        sentence = sentences.get(name)
        if sentence is None:
            raise CompareError(
                f"{where}.refs.{j}: no sentence named {name!r}",
                "name a sentence of scenarios/_sentences.yaml, or add it there (page, quote,"
                " revisions, at)",
            )
        names.append(name)
        extra: dict[str, Any] = {}
        if isinstance(ref, dict):
            if "supports" in ref:
                extra["supports"] = list(ref["supports"])
            if "transport" in ref:  # a sentence of one transport's page
                extra["transport"] = ref["transport"]
        if isinstance(ref, dict) and "at" in ref:
            if ref["at"] not in sentence.at:
                raise CompareError(
                    f"{where}.refs.{j}: sentence {name} has no lines at {ref['at']}",
                    f"cite one of its revisions: {', '.join(sorted(sentence.at))}",
                )
            window = {"from": ref["from"], "until": ref.get("until")}
            out.append(
                {"cite": sentence.cite(ref["at"]), "quote": sentence.quote, **window, **extra}
            )
            continue
        out += [r | extra for r in sentence.refs() if _overlaps(r, plays)]
    return out, tuple(names)


def fix_lines(path: Path, moved: dict[tuple[str, str], str]) -> int:
    """Rewrite ``at`` entries of the sentence file at ``path``: (name, revision) → new lines.

    Edited as text inside each entry's own YAML value (comments, order and quoting stay), the
    page of a moved page kept; written atomically. Returns how many entries changed.
    """
    from ruamel.yaml import YAML
    from ruamel.yaml.nodes import MappingNode, ScalarNode

    from compare._atomic import write_text

    text = path.read_text("utf-8")
    yaml = YAML(typ="safe", pure=True)
    yaml.version = (1, 2)
    root = yaml.compose(text)

    def get(node: Any, key: str) -> Any:
        if isinstance(node, MappingNode):
            return next((v for k, v in node.value if k.value == key), None)
        return None

    spans: list[tuple[int, int, str]] = []
    for (name, revision), lines in moved.items():
        node = get(get(get(root, name), "at"), revision)
        if not isinstance(node, ScalarNode):
            continue
        page, colon, _ = str(node.value).rpartition(":")
        value = f"{page}{colon}{lines}"
        spans.append((node.start_mark.index, node.end_mark.index, json.dumps(value)))
    for start, end, new in sorted(spans, reverse=True):
        text = text[:start] + new + text[end:]
    if spans:
        write_text(path, text)
    return len(spans)
