"""The maintainers' pages: how to add a target, a scenario, an area or a revision, how a verdict
is decided, and the files the stages hand each other.

The manual used to be prose in the README and CONTRACTS.md, and prose about a vocabulary drifts
from the code that defines it. So what these pages list is read, at render time, from where it
is defined: the verdicts, their order and meanings from the exchange's verdict vocabulary, the
row states and their promises from the rows stage, the gate grades from the gates file, the
"not run, because …" reasons from the target files, the keys of each data file from its JSON
Schema, and the contracts from ``compare._contracts`` (whose schemas are published beside the
pages). Only the explanation around them is written in the templates.
"""

from __future__ import annotations

import importlib
import inspect
import json
import pkgutil
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from compare._contracts import CONTRACTS, Contract, contract
from compare.judge._verdicts import SEVERITY, VERDICT_SYMBOLS, VERDICTS
from compare.rows._state import CITED_STATES, STATE_LABELS, STATE_PROMISES, STATE_SYMBOLS
from compare.site._escape import Md, code, esc
from compare.site._symbols import SymbolUse
from compare.site._words import WORDS, word

if TYPE_CHECKING:
    from compare.site._render import Renderer

#: (page, template, title), in the order of the site's navigation.
PAGES: tuple[tuple[str, str, str], ...] = (
    ("index", "index", "Maintaining mcp-compare"),
    ("running", "running", "Running the comparison"),
    ("add-target", "add-target", "Add a target"),
    ("add-scenario", "add-scenario", "Add a scenario"),
    ("add-area", "add-area", "Add an area"),
    ("add-revision", "add-revision", "When a new spec revision lands"),
    ("verdicts", "verdicts", "How a verdict is decided"),
    ("citations", "citations", "Citations"),
    ("contracts", "contracts", "Stage contracts"),
    ("site", "site", "The site"),
    ("tests", "tests", "Tests and measurements"),
)
SIDES = ("client", "server", "proxy")


@dataclass(frozen=True)
class Key:
    """One top-level key of a data file, as its schema describes it."""

    name: str
    required: bool
    kind: str
    description: str


def _kind(schema: dict[str, Any]) -> str:
    if "enum" in schema:
        return " · ".join(json.dumps(v) for v in schema["enum"])
    if "const" in schema:
        return json.dumps(schema["const"])
    kind = schema.get("type")
    if isinstance(kind, list):
        return " or ".join(str(k) for k in kind)
    if kind:
        return str(kind)
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[-1]
    return "see the schema" if any(k in schema for k in ("oneOf", "anyOf")) else "any"


def schema_keys(name: str) -> list[Key]:
    """The top-level keys of contract ``name``'s schema, required ones first."""
    schema = contract(name).load_schema()
    required = set(schema.get("required") or [])
    keys = [
        Key(key, key in required, _kind(sub), str(sub.get("description") or ""))
        for key, sub in (schema.get("properties") or {}).items()
    ]
    return sorted(keys, key=lambda k: not k.required)


@dataclass(frozen=True)
class State:
    """One word of a vocabulary: its data name, symbol, the site's word and what it means."""

    name: str
    symbol: str
    word: str
    meaning: str
    label: str = ""


def verdicts() -> list[State]:
    """Every verdict a cell or check can have, with the symbol and meaning the exchange gives."""
    return [
        State(v, VERDICT_SYMBOLS[v][0], word("verdict", v), VERDICT_SYMBOLS[v][1]) for v in VERDICTS
    ]


def severity() -> list[str]:
    """The verdicts from worst to least bad, as the judge and the rows order them."""
    return [word("verdict", v) for v in SEVERITY]


def row_states() -> list[State]:
    """Every state of a row's implementation column, with the promise the rows stage makes."""
    return [
        State(s, STATE_SYMBOLS[s], word("status", s), promise, STATE_LABELS.get(s, s))
        for s, promise in STATE_PROMISES.items()
    ]


def cited_states() -> list[str]:
    return [word("status", s) for s in CITED_STATES]


def gate_grades(renderer: Renderer) -> list[tuple[str, str, str, str]]:
    """(side, outcome, grade, meaning) of every gate outcome, from the gates file."""
    from compare.exchange._scenarios import gates

    out = []
    for side in SIDES:
        for outcome, grade in gates(side).items():
            out.append((side, outcome, word("verdict", grade["verdict"]), grade["means"]))
    return out


def not_run_reasons(renderer: Renderer) -> list[tuple[str, str, str]]:
    """(target, scenario, reason) for every scenario a target file says it cannot play."""
    out = []
    for name, raw in sorted(renderer.data.targets.items()):
        for scenario, reason in sorted((raw.get("not_run") or {}).items()):
            out.append((name, str(scenario), str(reason)))
    return out


def shipped(renderer: Renderer, kind: str) -> list[tuple[str, str, str]]:
    """(id, kind or side, title) of the shipped targets (``kind="target"``) or scenarios."""
    if kind == "target":
        return [
            (name, str(raw.get("kind") or ""), str(raw.get("name") or name))
            for name, raw in sorted(renderer.data.targets.items())
        ]
    return [
        (name, str(raw.get("side") or "client"), str(raw.get("title") or name))
        for name, raw in sorted(renderer.data.scenarios.items())
    ]


def rules_used(renderer: Renderer) -> list[tuple[str, list[str]]]:
    """Each rule the shipped scenarios' checks name, with the scenarios that use it."""
    used: dict[str, set[str]] = {}
    for name, raw in renderer.data.scenarios.items():
        for check in raw.get("checks") or []:
            if isinstance(check, dict) and check.get("rule"):
                used.setdefault(str(check["rule"]), set()).add(name)
    return [(rule, sorted(names)) for rule, names in sorted(used.items())]


def surfaces() -> list[tuple[str, list[tuple[str, str | Md]]]]:
    """(package, [(name, first line of its docstring)]) for every stage package of ``compare``
    that declares the names other stages may use (``__all__``), in file-name order.

    Found, not listed: a package added or moved shows up here without an edit."""
    import compare

    out = []
    for info in sorted(pkgutil.iter_modules(compare.__path__), key=lambda i: i.name):
        if not info.ispkg:
            continue
        module = importlib.import_module(f"compare.{info.name}")
        names = getattr(module, "__all__", None)
        if not names:
            continue
        out.append(
            (f"compare.{info.name}", [(n, _summary(getattr(module, n, None))) for n in names])
        )
    return out


#: Inline code in a docstring: ``x``, or a Sphinx role such as :func:`x`.
_INLINE = re.compile(r"``(.+?)``|:[a-z]+:`~?(.+?)`")


def _summary(value: object) -> str | Md:
    """A function's or class's first docstring paragraph, its inline code shown as code; a
    constant says what kind of value it is."""
    if inspect.isfunction(value) or inspect.isclass(value):
        doc = (inspect.getdoc(value) or "").split("\n\n", 1)[0].replace("\n", " ").strip()
        parts, last = [], 0
        for found in _INLINE.finditer(doc):
            parts += [esc(doc[last : found.start()]), code(found.group(1) or found.group(2))]
            last = found.end()
        return Md("".join([*parts, esc(doc[last:])]))
    kind = type(value).__name__
    return "a type" if kind.startswith("_") else f"a constant ({kind})"


def published(entry: Contract) -> str:
    """Where the site publishes the contract's schema, relative to the maintainers' pages."""
    return f"schemas/{entry.name}.schema.json"


def pipeline_order() -> list[str]:
    """The stages ``mcp-compare compare`` runs, in its order."""
    from compare.pipeline import STAGES

    return list(STAGES)


def add_pages(renderer: Renderer) -> None:
    """Render every maintainers' page and publish the contracts' schemas beside them."""
    context: dict[str, Any] = {
        "stages": pipeline_order(),
        "pages": [(f"{slug}.md", title) for slug, _, title in PAGES],
        "contracts": CONTRACTS,
        "published": published,
        "keys": schema_keys,
        "verdicts": verdicts(),
        "severity": severity(),
        "row_states": row_states(),
        "cited_states": cited_states(),
        "gates": gate_grades(renderer),
        "not_run": not_run_reasons(renderer),
        "shipped": lambda kind: shipped(renderer, kind),
        "rules_used": rules_used(renderer),
        "surfaces": surfaces(),
        "words": [(kind, list(table.items())) for kind, table in WORDS.items()],
    }
    for slug, template, title in PAGES:
        # A page of its own symbol record: these pages explain every state, and the legend
        # lists only the states the comparison's pages show.
        renderer.page(
            f"maintainers/{slug}.md",
            f"maintainers/{template}.md.j2",
            symbols=SymbolUse(),
            title=title,
            **context,
        )
    for entry in CONTRACTS:
        renderer.files[f"maintainers/{published(entry)}"] = entry.schema_path.read_bytes()
