"""One word per idea on every page, and the glossary of the terms of art the pages use.

The stages keep their own vocabularies (a cell's verdict is ``pass``, a row's state for an
implementation is ``supported``; ``informational`` and ``observed`` name one idea at two
levels). A reader should meet one word for one idea, so every state the site prints goes
through :func:`word`: the data keeps its names, classes and anchors keep them too (tests and
tools read those), and only the visible word is unified here, in one table.

A state this table does not know (a verdict a newer stage adds, such as ``unstable``) is
shown as its own name with dashes as spaces, so a merge never prints a blank.
"""

from __future__ import annotations

#: kind → state → the word a reader sees. Verdicts and row states that mean the same share it.
WORDS: dict[str, dict[str, str]] = {
    "verdict": {
        "pass": "pass",
        "non-strict": "non-strict",
        "fail": "fail",
        "informational": "observed",
        "not-exercised": "not exercised",
        "not-run": "not run",
        "error": "error",
        "unstable": "unstable",
    },
    "status": {
        "supported": "pass",
        "non-strict": "non-strict",
        "partial": "partial",
        "not-supported": "fail",
        "observed": "observed",
        "not-exercised": "not exercised",
        "error": "error",
        "not-run": "not run",
        "cited": "cited",
        "unknown": "no data",
        "n-a": "n/a",
        "unstable": "unstable",
    },
    # One square of an area's table: the answer a reader sees (compare.site._answer).
    "answer": {
        "yes": "yes",
        "non-strict": "non-strict",
        "partial": "partial",
        "no": "no",
        "observed": "observed",
        "not-tested": "not tested",
        "n-a": "n/a",
        "cited": "cited",
        "unstable": "unstable",
        "error": "error",
    },
    "probe": {
        "allowed": "allowed",
        "refused": "refused",
        "failed": "failed",
        "no-answer": "no answer",
        "skipped": "skipped",
    },
}


def word(kind: str, state: str) -> str:
    """The one word a page prints for ``state`` of ``kind`` (``supported`` → ``pass``)."""
    known = WORDS.get(kind, {})
    return known.get(state) or state.replace("-", " ")


#: Terms of art → a one-line meaning; every page gets them as hover titles (``abbr``) wherever
#: the term occurs in its text, so a reader never has to leave the page to learn one.
GLOSSARY: dict[str, str] = {
    "non-strict": (
        "accepted, but not what the spec asks for to the letter: a SHOULD not followed, "
        "never a MUST broken"
    ),
    "observed": "recorded behaviour the spec leaves open; never counted as a pass or a fail",
    "n/a": "cannot apply: the row's check is played against another kind of implementation",
    "not run": "could apply but was not measured; the reason is given beside it",
    "unstable": "the outcome differed between plays of the same cell",
    "cited": "not run here; what is shown rests on quoted lines of the implementation's source",
    "MRTR": (
        "multi round-trip requests (2026-07-28): a server asks the client for input inside "
        "the result of a call (InputRequiredResult) instead of sending its own request"
    ),
    "SEP": "Specification Enhancement Proposal: a proposed change to the MCP specification",
    "InputRequiredResult": (
        "the 2026-07-28 result that asks the client for more input (e.g. its roots) before a "
        "call can finish"
    ),
    "SHOULD era": "the revisions in which the behaviour was a SHOULD, not yet a MUST",
    "variant": (
        "one way of configuring the same implementation (e.g. with roots declared or not); "
        "written ~name"
    ),
    "leg": (
        "one side of a proxy's connection: host (our client above the proxy) or upstream "
        "(our server below it)"
    ),
    "cell": "one implementation × variant × scenario × spec revision, with its wire log",
    "scenario": "a scripted exchange the harness plays against an implementation",
    "value": "how much getting this right matters to users (high, medium, low; our judgement)",
    "effort": "how much work it is for an implementer (high, medium, low; our judgement)",
    "risk": "what goes wrong when it is done wrong (high, medium, low; our judgement)",
    "enforcement matrix": (
        "a server's file tools probed inside and outside the roots it was given; a refusal "
        "outside is correct"
    ),
}


#: The terms distinctive enough to be marked wherever they occur in a page's text (``abbr``);
#: ordinary words of the glossary (value, cell, leg …) get their title where a template uses
#: them as a term (table headers, labels), not in every sentence.
AUTO = ("non-strict", "n/a", "MRTR", "SEP", "InputRequiredResult", "SHOULD era")


def abbreviations() -> str:
    """The distinctive terms as Markdown ``abbr`` definitions, appended to each page."""
    lines = []
    for term in AUTO:
        meaning = GLOSSARY[term]
        clean = meaning.replace("]", ")").replace("[", "(")
        lines.append(f"*[{term}]: {clean}")
    return "\n".join(lines) + "\n"


def term(name: str, shown: str | None = None) -> str:
    """``name`` as HTML with its glossary meaning as the hover title (plain text if unknown)."""
    from compare.site._escape import esc

    text = esc(shown if shown is not None else name)
    meaning = GLOSSARY.get(name)
    if meaning is None:
        return text
    return f'<abbr title="{esc(meaning)}">{text}</abbr>'
