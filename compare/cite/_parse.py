"""Citation references: ``path:line “quote”`` and ``path:start-end``, parsed into parts.

The curly quotes are the house syntax (they rarely occur inside code or JSON, so the quote
boundary is unambiguous); straight double quotes are accepted for keyboards without them.
The source part says what kind of thing is cited, because each kind is verified differently:

- ``schema/…``, ``docs/…``, ``seps/…`` — the spec at its pinned commit (``compare.pin``);
- ``npm:<package>@<version>/<path>`` — a package installed in the project's tools folder;
- ``pypi:<package>@<version>/<path>`` — a package installed in one of the tools venvs;
- ``go:<module>@<version>/<path>`` — a Go module a built host was built with (its folder in
  the Go module cache, as ``tools/hosts/<target>/build.json`` names it);
- ``crate:<name>@<version>/<path>`` — a crate's sources as cargo unpacked them when it built
  a host program (``$CARGO_HOME/registry/src/*/<name>-<version>/``);
- ``gh:<owner>/<repo>@<commit>/<path>`` — an upstream repository at a commit;
- ``maven:<group>:<artifact>@<version>/<path>`` — a file in that artifact's sources jar, read
  from the local Maven repository (``tools install`` fetches it for a Maven host's SDK).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Literal

from compare._errors import CompareError

SourceKind = Literal["spec", "npm", "pypi", "crate", "gh", "go", "maven"]

# ASCII digits only: ``\d`` would also take other scripts' digits (``:١٢``), which ``int`` reads
# as 12, so ``location`` would name a line the text does not spell and ``cite --fix`` could
# never find it there.
_LOCATION = re.compile(r"^(?P<source>\S.*?):(?P<start>[0-9]+)(?:-(?P<end>[0-9]+))?$")
_NPM = re.compile(r"^npm:(?P<pkg>(?:@[^/@\s]+/)?[^/@\s]+)@(?P<ver>[^/\s]+)/(?P<path>\S+)$")
_PYPI = re.compile(r"^pypi:(?P<pkg>[^/@\s]+)@(?P<ver>[^/\s]+)/(?P<path>\S+)$")
# A module path has slashes of its own; its version starts with v (go:example.com/m@v1.2.3/f.go).
_GO = re.compile(r"^go:(?P<pkg>[^/@\s][^@\s]*)@(?P<ver>v[^/\s]+)/(?P<path>\S+)$")
_CRATE = re.compile(r"^crate:(?P<pkg>[A-Za-z0-9_-]+)@(?P<ver>[0-9][^/\s]*)/(?P<path>\S+)$")
_GH = re.compile(
    r"^gh:(?P<owner>[^/@\s]+)/(?P<repo>[^/@\s]+)@(?P<commit>[0-9a-f]{7,40})/(?P<path>\S+)$"
)
_MAVEN = re.compile(r"^maven:(?P<pkg>[^:/@\s]+:[^:/@\s]+)@(?P<ver>[^/\s]+)/(?P<path>\S+)$")
_SPEC = re.compile(r"^(?:schema|docs|seps)/\S+$")

_FORMS = (
    "`path:LINE “quote”` or `path:START-END [“quote”]`, where path is a spec path "
    "(schema/…, docs/…, seps/…), npm:PKG@VERSION/path, pypi:PKG@VERSION/path, "
    "go:MODULE@VERSION/path or "
    "crate:NAME@VERSION/path or "
    "gh:OWNER/REPO@COMMIT/path or maven:GROUP:ARTIFACT@VERSION/path"
)


@dataclass(frozen=True)
class Citation:
    """One parsed reference. ``package``/``version`` name the package or repository."""

    ref: str
    kind: SourceKind
    source: str  # everything before ``:line`` — the text ``cite --fix`` keeps
    path: str  # path inside the spec, package or repository
    start: int
    end: int
    quote: str | None
    package: str | None = None
    version: str | None = None
    #: Written as a range (``path:5-5`` is a range of one line, citable without a quote).
    ranged: bool = False

    @property
    def location(self) -> str:
        """``source:start`` or ``source:start-end``, as written — the part ``cite --fix``
        finds and rewrites."""
        if self.end == self.start and not self.ranged:
            return f"{self.source}:{self.start}"
        return f"{self.source}:{self.start}-{self.end}"


def _split_quote(text: str) -> tuple[str, str | None]:
    text = text.strip()
    if text.endswith("”"):
        opening = text.find("“")
        if opening == -1:
            raise CompareError(f"citation {text!r}: closing ” without opening “", f"use {_FORMS}")
        return text[:opening].rstrip(), text[opening + 1 : -1]
    if text.endswith('"'):
        opening = text.find('"')
        if opening == len(text) - 1:
            raise CompareError(f'citation {text!r}: closing " without opening "', f"use {_FORMS}")
        return text[:opening].rstrip(), text[opening + 1 : -1]
    return text, None


def parse_citation(text: str, *, bare_line: bool = False) -> Citation:
    """Parse one reference; anything else is a :class:`CompareError` naming the forms.

    A claim must quote the words it rests on, so a single line without a quote is refused —
    unless ``bare_line``: a place shown or linked rather than claimed (``cite REF`` during
    review, a check's ``cite:`` or a diff position on the site) is ``path:LINE`` alone.
    """
    if not isinstance(text, str) or not text.strip():
        raise CompareError(f"empty or non-text citation: {text!r}", f"use {_FORMS}")
    location, quote = _split_quote(text)
    if quote is not None and not quote.strip():
        raise CompareError(f"citation {text!r} has an empty quote", "quote the words you rely on")
    match = _LOCATION.match(location)
    if not match:
        raise CompareError(f"citation {text!r} has no :LINE or :START-END", f"use {_FORMS}")
    source = match["source"]
    start = int(match["start"])
    end = int(match["end"]) if match["end"] else start
    if match["start"] != str(start) or (match["end"] and match["end"] != str(end)):
        raise CompareError(
            f"citation {text!r}: a line number with a leading zero",
            "write line numbers as plain numbers (path:7, not path:07)",
        )
    if start < 1 or end < start:
        raise CompareError(
            f"citation {text!r}: line range {start}-{end} is empty or starts before line 1",
            "lines count from 1 and END must not be before START",
        )
    if quote is None and match["end"] is None and not bare_line:
        raise CompareError(
            f"citation {text!r} names one line but quotes nothing",
            "add the words you rely on: path:LINE “quote” (a bare range path:START-END is fine)",
        )
    base = Citation(
        ref=text.strip(),
        kind="spec",
        source=source,
        path=source,
        start=start,
        end=end,
        quote=quote,
        ranged=match["end"] is not None,
    )
    for form in (_NPM, _PYPI, _CRATE, _GO, _GH, _MAVEN):
        found = form.match(source)
        named = found and (found.groupdict().get("pkg") or f"{found['owner']}/{found['repo']}")
        if named and any(part in {".", ".."} for part in named.lstrip("@").split("/")):
            raise CompareError(f"citation {text!r}: a package or repository named . or ..", _FORMS)
    if m := _NPM.match(source):
        return replace(base, kind="npm", path=m["path"], package=m["pkg"], version=m["ver"])
    if m := _PYPI.match(source):
        return replace(base, kind="pypi", path=m["path"], package=m["pkg"], version=m["ver"])
    if m := _CRATE.match(source):
        return replace(base, kind="crate", path=m["path"], package=m["pkg"], version=m["ver"])
    if m := _GO.match(source):
        return replace(base, kind="go", path=m["path"], package=m["pkg"], version=m["ver"])
    if m := _GH.match(source):
        repo = f"{m['owner']}/{m['repo']}"
        return replace(base, kind="gh", path=m["path"], package=repo, version=m["commit"])
    if m := _MAVEN.match(source):
        if any(part in {".", ".."} for part in m["path"].split("/")):
            raise CompareError(f"citation {text!r}: a path with . or .. parts", _FORMS)
        return replace(base, kind="maven", path=m["path"], package=m["pkg"], version=m["ver"])
    if source.startswith(("npm:", "pypi:", "crate:", "gh:", "go:", "maven:")):
        raise CompareError(f"citation {text!r}: malformed {source.split(':')[0]} source", _FORMS)
    if _SPEC.match(source) and ".." not in source.split("/"):
        return base
    raise CompareError(f"citation {text!r}: unknown source {source!r}", f"use {_FORMS}")
