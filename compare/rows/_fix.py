"""``cite --fix``: rewrite the line numbers of moved row citations, at their place only.

The area file is edited as text, not re-dumped from YAML, so comments, quoting, key order and
wrapping stay exactly as the author wrote them. This stage knows the file's structure: the
YAML is composed into nodes (which know where in the text each value starts and ends) and the
citation's node is found from its row and field; ``compare.cite.fix_one`` then rewrites
``source:OLD`` to ``source:NEW`` inside that node alone. The write is atomic.

The scenarios' named sentences are rewritten by the exchange stage, which owns their file
(:func:`fix_sentences`); a literal ``{cite, quote}`` ref of a test fixture is not rewritten.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from compare._atomic import write_text
from compare._errors import CompareError
from compare._paths import PROJECT_ROOT
from compare.cite import Edit, apply_edits, fix_one, relocated
from compare.rows._evidence import Checked, Report


@dataclass(frozen=True)
class Fix:
    """One rewrite: in ``file``, ``old`` became ``new`` in ``count`` citations."""

    file: str
    old: str
    new: str
    count: int


def _path(file: str) -> Path:
    path = Path(file)
    return path if path.is_absolute() else PROJECT_ROOT / path


def _get(node: Node, key: str) -> Node | None:
    if isinstance(node, MappingNode):
        for k, v in node.value:
            if isinstance(k, ScalarNode) and k.value == key:
                return v  # type: ignore[no-any-return]
    return None


def _row(root: Node, row_id: str) -> Node | None:
    rows = _get(root, "rows")
    for row in rows.value if isinstance(rows, SequenceNode) else []:
        rid = _get(row, "id")
        if isinstance(rid, ScalarNode) and rid.value == row_id:
            return row  # type: ignore[no-any-return]
    return None


def _placed_node(root: Node, checked: Checked) -> ScalarNode | None:
    """The node holding the citation at ``row`` / ``field`` (``sources[2].contradicted_by``)."""
    node = _row(root, checked.row)
    for token in re.findall(r"\[\d+\]|[^.\[\]]+", checked.field):
        if node is None:
            return None
        if token.startswith("["):
            index = int(token[1:-1])
            items = node.value if isinstance(node, SequenceNode) else []
            node = items[index] if index < len(items) else None
        else:
            node = _get(node, token)
    if isinstance(node, MappingNode):  # an entry written as {cite: …, context: …}
        node = _get(node, "cite")
    if isinstance(node, ScalarNode) and node.value == checked.ref:
        return node
    return None


def _scalars(node: Node) -> list[ScalarNode]:
    if isinstance(node, ScalarNode):
        return [node]
    if isinstance(node, MappingNode):
        return [s for _, v in node.value for s in _scalars(v)]
    if isinstance(node, SequenceNode):
        return [s for v in node.value for s in _scalars(v)]
    return []


def _movable(checked: Checked) -> bool:
    r = checked.result
    return checked.origin == "area" and r is not None and relocated(r) is not None


def _edits(text: str, file: str, moved: list[Checked]) -> list[Edit]:
    """One edit per moved citation, each inside the YAML value that holds it."""
    yaml = YAML(typ="safe", pure=True)
    yaml.version = (1, 2)
    try:
        root = yaml.compose(text)
    except YAMLError as err:
        raise CompareError(
            f"{file}: not valid YAML: {err}", "fix the syntax, then re-run"
        ) from None
    edits: list[Edit] = []
    for checked in moved:
        assert checked.result is not None  # _movable
        node = _placed_node(root, checked) if root is not None else None
        # If the field path cannot be followed, fall back to the scalars whose whole value is
        # this citation (never to a substring of prose).
        nodes = [node] if node else [s for s in _scalars(root) if s.value == checked.ref]
        for n in nodes:
            edit = fix_one(text, n.start_mark.index, n.end_mark.index, checked.result)
            if edit is not None:
                edits.append(edit)
    return edits


def fix_moved(report: Report) -> list[Fix]:
    """Apply every ``moved`` row citation of ``report`` to its area file, at its place only,
    and every moved sentence to the sentence file."""
    by_file: dict[str, list[Checked]] = {}
    for checked in report.checked:
        if _movable(checked):
            by_file.setdefault(checked.file, []).append(checked)
    fixes: list[Fix] = []
    for file, moved in by_file.items():
        path = _path(file)
        text = path.read_text("utf-8")
        edits = list({e.start: e for e in _edits(text, file, moved)}.values())
        counts = Counter((text[e.start : e.end], e.new) for e in edits)
        fixes += [Fix(file, old, new, n) for (old, new), n in counts.items()]
        if edits:
            write_text(path, apply_edits(text, edits))
    return fixes + fix_sentences(report)


def fix_sentences(report: Report) -> list[Fix]:
    """Rewrite the ``at`` lines of every moved sentence, in the sentence file that holds it
    (``compare/exchange/scenarios/_sentences.yaml``: the exchange stage edits its own file)."""
    from compare.judge._sentences import fix_lines

    by_file: dict[str, dict[tuple[str, str], str]] = {}
    for c in report.checked:
        moved = relocated(c.result) if c.origin == "sentence" and c.result else None
        if moved is not None and c.check is not None:
            revision = c.field.removeprefix("at.")
            by_file.setdefault(c.file, {})[(c.check, revision)] = moved[1].rpartition(":")[2]
    fixes: list[Fix] = []
    for file, lines in by_file.items():
        fix_lines(_path(file), lines)
        fixes += [Fix(file, f"{n} at {r}", new, 1) for (n, r), new in lines.items()]
    return fixes
