"""Link-producing helpers the templates call: every claim on a page points at its evidence.

A status links to its cell page, a where-it-exists state to its revision page, a citation to
the upstream file at the pinned commit and line with its verification status beside it.
All text that came from data is escaped here; what these helpers return is trusted ``Md``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from compare.site._cells import Cell
from compare.site._escape import Md, code, esc, link, slug, spec_quote
from compare.site._inputs import Citation, Row, SiteData
from compare.site._matrix import citation_status, cite_target
from compare.site._symbols import SYMBOLS, SymbolUse
from compare.site._text import reader_text, schema_only


@dataclass
class Links:
    """Helpers bound to one render (its data and its symbol record) and one page depth."""

    data: SiteData
    symbols: SymbolUse
    root: str = ""  # "" for top-level pages, "../" one folder down

    def at(self, root: str) -> Links:
        """The same helpers for a page at another depth."""
        return Links(self.data, self.symbols, root)

    # pages -------------------------------------------------------------------------------
    def cell_href(self, cell: Cell) -> str:
        """A cell page: written as HTML directly (``compare.site._evidence``), so linked as
        the HTML file it is."""
        return f"{self.root}cells/{cell.slug}.html"

    def cell(self, cell: Cell, text: str | None = None) -> Md:
        """The cell's verdict (or ``text``) linking to the cell page."""
        shown = esc(text) if text is not None else self.symbols.sym("verdict", cell.verdict)
        return link(shown, self.cell_href(cell))

    def cell_compact(self, cell: Cell) -> Md:
        """The cell's verdict symbol alone (its word as the hover title), linking to its page."""
        return link(self.symbols.compact("verdict", cell.verdict), self.cell_href(cell))

    def check(self, cell: Cell, check_id: str, outcome: str, verdict: str) -> Md:
        """A check's outcome word with its verdict's symbol, linking to the check on its page."""
        shown = self.symbols.sym("verdict", verdict, outcome or verdict)
        return link(shown, f"{self.cell_href(cell)}#check-{slug(check_id)}")

    def impl(self, name: str) -> Md:
        """An implementation by the name a reader knows it by; its id is the hover title."""
        info = self.data.impl_info.get(name) or self.data.targets.get(name) or {}
        shown = str(info.get("name") or name)
        page = self.root + self.data.impl_page(name)
        if shown == name:
            return link(code(name), page)
        return Md(f'[{esc(shown)}]({page} "{slug(name)}")')

    def revision(self, rev: str, text: object = None) -> Md:
        return link(esc(rev) if text is None else text, f"{self.root}revisions/{slug(rev)}.md")

    def area_href(self, area: str) -> str:
        """An area's page: ``<area>.md``, named after the area file's ``area``."""
        return f"{self.root}{slug(area)}.md"

    def row_anchor(self, row: Row) -> str:
        return slug(row.id)

    def row(self, row: Row) -> Md:
        return link(esc(row.id), f"{self.area_href(row.area)}#{self.row_anchor(row)}")

    # states ------------------------------------------------------------------------------
    def sym(self, kind: str, state: str, label: str = "") -> Md:
        return self.symbols.sym(kind, state, label)

    def where_state(self, row: Row, rev: str) -> str:
        """The row's where state at ``rev``; a change that leaves the wire as it was (only an
        envelope field or a ``$ref`` moved) reads ``schema-only``, not ``changed``."""
        state = row.where.get(rev, "unknown")
        if state == "changed" and schema_only(row.where_changes.get(rev, [])):
            return "schema-only"
        return state

    def where(self, row: Row, rev: str) -> Md:
        """A row's where-it-exists state at ``rev``, linking to that revision's page."""
        state = self.where_state(row, rev)
        shown = self.sym("where", state)
        if rev in row.deprecated:
            shown = Md(f"{shown} {self.sym('where', 'deprecated')}")
        return link(shown, self.where_href(row, rev))

    def where_href(self, row: Row, rev: str) -> str:
        """The revision page, at the row's first schema item defined there (each item has
        its anchor in the item list), else at the row's area's section."""
        page = f"{self.root}revisions/{slug(rev)}.md"
        present = row.where_present.get(rev) or []
        return f"{page}#item-{slug(present[0])}" if present else f"{page}#{slug(row.area)}"

    def where_compact(self, row: Row) -> Md:
        """One linked symbol per revision (for the dense area table), titled with its state."""
        if not row.where:
            return Md("not computed")
        marks = []
        for rev in self.data.revisions:
            state = self.where_state(row, rev)
            self.sym("where", state)  # recorded for the legend
            mark = SYMBOLS["where"].get(state, ("•", ""))[0]
            if rev in row.deprecated:
                self.sym("where", "deprecated")
                mark += SYMBOLS["where"]["deprecated"][0]
            title = re.sub(r"[^a-z0-9 .-]", "", f"{slug(rev)} {state}".lower())
            marks.append(f'[{mark}]({self.where_href(row, rev)} "{title}")')
        return Md("&nbsp;".join(marks))

    def ref(self, cite: str) -> Md:
        """A spec reference carried by a check (``path:line``): linked, not re-verified here."""
        where = cite_target(cite, self.data.repository, self.data.commit)
        label = code(f"{where.file}:{where.lines}" if where.lines else where.file)
        shown = link(label, where.link) if where.link else label
        return Md(f"{shown} “{spec_quote(where.quote)}”") if where.quote else shown

    def cells_for(self, rels: list[str]) -> list[Cell]:
        by_rel = self.data.cells_by_rel
        return [by_rel[r] for r in rels if r in by_rel]

    def status(self, row: Row, impl: str) -> Md:
        """A row's state for one implementation, linking to its evidence.

        The first evidence cell's page when the state was computed from verdicts; otherwise
        the row's own section, where the reason, note and citations behind it are listed.
        """
        st = row.status.get(impl)
        if st is None:
            return self.sym("status", "unknown")
        label = st.label if st.state == "error" else ""  # an error's label counts the errors
        shown = self.sym("status", st.state, label)
        if st.cited_state and st.cited_state != "unknown":
            shown = Md(f"{shown}: {self.sym('status', st.cited_state)}")
        cells = self.cells_for(st.cells)
        if cells:
            return link(shown, self.cell_href(cells[0]))
        return link(shown, f"{self.area_href(row.area)}#{self.row_anchor(row)}")

    def source(self, path: object, line: object) -> Md:
        """A schema position found by the diff stage: a link, not a claim needing a quote."""
        where = cite_target(f"{path}:{line}", self.data.repository, self.data.commit)
        label = code(f"{where.file}:{where.lines}")
        return link(label, where.link) if where.link else label

    # citations ---------------------------------------------------------------------------
    def cite(self, ref: str | Citation) -> Md:
        """``source · file:lines`` linked upstream, the quote, and the verification status."""
        result = ref if isinstance(ref, Citation) else citation_status(self.data, ref)
        where = cite_target(result.ref, self.data.repository, self.data.commit)
        href = result.link or where.link
        label = f"{where.file}:{where.lines}" if where.lines else where.file
        parts = [
            esc(result.provenance or where.source),
            link(code(label), href) if href else code(label),
        ]
        if where.quote:
            parts.append(Md(f"“{spec_quote(where.quote)}”"))
        parts.append(Md(f"**{self.sym('citation', result.status)}**"))
        if result.detail and result.status not in ("verified",):
            parts.append(Md(f"({esc(reader_text(result.detail))})"))
        if result.open_question:
            parts.append(Md("*quoted from an open question of an SEP, not normative text*"))
        if result.context:
            parts.append(Md(f"context: {code(result.context)}"))
        return Md(" · ".join(parts))
