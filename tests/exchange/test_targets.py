"""Target files: the shipped ones load, malformed ones fail naming the file and the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from compare._errors import CompareError
from compare.exchange._targets import (
    TARGETS_DIR,
    Expansion,
    command_target,
    load_target_file,
    load_targets,
)

GOOD = """\
id: demo
name: Demo client
kind: cli
package: {registry: npm, name: demo-cli, version: 1.2.3}
launch:
  argv: ["{node_bin:demo}", "--server", "{server}", "--plan", "{host_plan}"]
variants: [roots, no-roots]
files:
  - path: "{home}/.demo/settings.json"
    format: json
    content: {mcpServers: {peer: {command: "{server}", cwd: "{workspace}"}}}
ends: harness
timeout_s: 30
"""


#: A lacked kind of request, said as a target file says it.
NO_CALL = "{why: no call sends it at all, source: src/client.js:10}"


def _write(tmp_path: Path, text: str, name: str = "demo.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_shipped_targets_load() -> None:
    targets = load_targets()
    assert "command" in {t.id for t in targets}


def test_good_target_parses_and_expands(tmp_path: Path) -> None:
    target = load_target_file(_write(tmp_path, GOOD))
    assert target.version == "1.2.3"
    assert target.variant_names() == ["roots", "no-roots"]
    exp = Expansion(
        server_argv=["/py", "peer.py", "--plan", "/c d/plan.json"],
        workspace=Path("/w"),
        home=Path("/h"),
        tools=Path("/t"),
        hosts=Path("/hosts"),
        control=Path("/ctl"),
        cell=Path("/cell"),
        host_plan=Path("/cell/host-plan.json"),
    )
    assert exp.argv(target.argv) == [
        "/t/node_modules/.bin/demo",
        "--server",
        "/py peer.py --plan '/c d/plan.json'",
        "--plan",
        "/cell/host-plan.json",
    ]
    content = exp.value(target.files[0]["content"])
    assert content["mcpServers"]["peer"]["cwd"] == "/w"


@pytest.mark.parametrize(
    ("mutation", "key"),
    [
        (("version: 1.2.3", "version: ^1.2"), "package.version"),
        (("kind: cli", "kind: browser"), "kind"),
        (("timeout_s: 30", "timeout_s: -1"), "timeout_s"),
        (('"--server", ', '"--server", "{srv}", '), "launch.argv.2"),
        (('"{host_plan}"', '"{host_plan}", "{variant_args}"'), "launch.argv.5"),
        (("variants: [roots, no-roots]", "variants: [roots, rots]"), "variants.1"),
        (("variants: [roots, no-roots]", "variants: [roots, roots]"), "variants.1"),
        (("variants: [roots, no-roots]", "variants: {roots: []}"), "variants"),
        (("ends: harness\n", "ends: harness\nlacks: {logging: {why: x, source: y}}\n"), "lacks"),
        (
            ("ends: harness\n", "ends: harness\nalways_declares: {tasks: {why: x, source: y}}\n"),
            "always_declares",
        ),
        (
            ("ends: harness\n", f"ends: harness\nlacks: {{complete: {NO_CALL}}}\n"),
            "lacks.complete: a request kind",
        ),
        (("variants: [roots, no-roots]\n", ""), "variants"),
        (('path: "{home}/', 'path: "/etc/'), "files.0.path"),
        (("ends: harness\n", "ends: harness\nsurprise: 1\n"), "(top level)"),
    ],
)
def test_malformed_target_names_file_and_key(
    tmp_path: Path, mutation: tuple[str, str], key: str
) -> None:
    old, new = mutation
    assert old in GOOD
    path = _write(tmp_path, GOOD.replace(old, new))
    with pytest.raises(CompareError) as err:
        load_target_file(path)
    assert str(path) in err.value.message
    assert key in err.value.message


def test_id_must_match_file_name(tmp_path: Path) -> None:
    with pytest.raises(CompareError, match="does not match the file name"):
        load_target_file(_write(tmp_path, GOOD, name="other.yaml"))


def test_garbage_yaml_is_a_clean_error(tmp_path: Path) -> None:
    path = _write(tmp_path, "id: [unclosed\n  : :")
    with pytest.raises(CompareError, match="not valid YAML"):
        load_target_file(path)


def test_duplicate_key_is_rejected(tmp_path: Path) -> None:
    path = _write(tmp_path, GOOD + "timeout_s: 40\n")
    with pytest.raises(CompareError, match="not valid YAML"):
        load_target_file(path)


def test_yaml_12_keeps_no_as_string(tmp_path: Path) -> None:
    text = GOOD.replace(
        "variants: [roots, no-roots]",
        "variants: [roots, {plain: {base: roots, options: {form: no}}}]",
    )
    target = load_target_file(_write(tmp_path, text))
    assert target.variants["plain"]["options"] == {"form": "no"}


def test_command_template_target() -> None:
    target = command_target("my-client --server {server} --flag")
    assert target.kind == "command"
    assert target.version.startswith("cmd-")
    with pytest.raises(CompareError):
        command_target("my-client 'unclosed")


def test_server_command_template_is_filled_only_by_command(pinned_spec: Path) -> None:
    """``server-command`` is a template until ``--command`` fills it: never planned alone,
    a clear error when asked for without a command, a server target versioned by its line."""
    from compare.exchange._scenarios import load_scenarios
    from compare.play._cells import plan_cells
    from compare.play._run import select

    shipped = {t.id: t for t in load_targets()}
    template = shipped["server-command"]
    assert template.is_template and template.side == "server"
    assert plan_cells([template], load_scenarios(), ["2025-11-25"]) == []
    with pytest.raises(CompareError, match="server-command target needs --command"):
        select(["server-command"], None, None)
    cells, _commit, _known = select(
        ["server-command"], ["server-asks"], ["2025-11-25"], None, "my-server --stdio {workspace}"
    )
    assert [c.target.id for c in cells] == ["server-command"]
    filled = cells[0].target
    assert filled.kind == "server" and not filled.is_template
    assert filled.argv == ["my-server", "--stdio", "{workspace}"]
    assert filled.version.startswith("cmd-")
    other = command_target("another-server", side="server")
    assert other.version != filled.version
    # the client template is untouched by a server command, and the other way round
    cells, _c, _k = select(["command"], ["handshake"], ["2025-11-25"], None, "my-client {server}")
    assert cells and all(c.target.kind == "command" for c in cells)


def test_a_proxy_target_is_its_own_side_and_must_start_the_peer(tmp_path: Path) -> None:
    """A proxy plays only proxy scenarios, and its launch line must carry the peer's command
    (the upstream it relays to); without it the proxy would have nothing behind it."""
    proxy = GOOD.replace("kind: cli", "kind: proxy").replace("ends: harness", "ends: self")
    target = load_target_file(_write(tmp_path, proxy))
    assert (target.kind, target.side) == ("proxy", "proxy")
    files = proxy[proxy.index("files:") : proxy.index("ends:")]
    alone = proxy.replace('"--server", "{server}", ', "").replace(files, "")
    with pytest.raises(CompareError, match="the peer is never started"):
        load_target_file(_write(tmp_path, alone))
    shipped = [t for t in load_targets() if t.kind == "proxy"]
    assert shipped and all(t.side == "proxy" and t.package for t in shipped)


def test_always_declares_is_read_and_needs_variants(tmp_path: Path) -> None:
    """What an SDK declares unasked is data the host contract test reads; like ``lacks``,
    it only means something for a target whose host is given a plan."""
    said = "always_declares: {roots: {why: its session always registers one, source: s.py:1}}\n"
    target = load_target_file(
        _write(tmp_path, GOOD.replace("ends: harness\n", "ends: harness\n" + said))
    )
    assert target.always_declares == {
        "roots": {"why": "its session always registers one", "source": "s.py:1"}
    }
    bare = GOOD.replace("variants: [roots, no-roots]\n", "").replace(
        ', "--plan", "{host_plan}"', ""
    )
    with pytest.raises(CompareError, match="always_declares"):
        load_target_file(
            _write(tmp_path, bare.replace("ends: harness\n", "ends: harness\n" + said))
        )


def test_a_selection_reads_only_the_files_it_names(tmp_path: Path, pinned_spec: Path) -> None:
    """``run -t ID -s ID`` reads those two files, so a broken file elsewhere does not stop a
    single cell; asking for everything still reads (and refuses) it, and an unknown id is
    named with every id the folders hold."""
    from compare.exchange._scenarios import SCENARIOS_DIR
    from compare.play._run import select

    targets, scenarios = tmp_path / "targets", tmp_path / "scenarios"
    targets.mkdir()
    scenarios.mkdir()
    (targets / "ts-sdk.yaml").write_bytes((TARGETS_DIR / "ts-sdk.yaml").read_bytes())
    (targets / "broken.yaml").write_text("id: broken\nname: [\n", encoding="utf-8")
    (scenarios / "handshake.yaml").write_bytes((SCENARIOS_DIR / "handshake.yaml").read_bytes())
    (scenarios / "broken.yaml").write_text("id: broken\n", encoding="utf-8")
    dirs = {"targets_dir": targets, "scenarios_dir": scenarios}

    cells, _commit, _known = select(["ts-sdk"], ["handshake"], ["2025-11-25"], **dirs)
    assert {(c.target.id, c.scenario.id) for c in cells} == {("ts-sdk", "handshake")}
    with pytest.raises(CompareError, match=r"broken\.yaml"):
        select(None, ["handshake"], ["2025-11-25"], **dirs)
    with pytest.raises(CompareError, match=r"broken\.yaml"):
        select(["ts-sdk"], None, ["2025-11-25"], **dirs)
    with pytest.raises(CompareError, match="unknown scenario: nope") as caught:
        select(["ts-sdk"], ["nope"], None, **dirs)
    assert caught.value.hint == "known scenarios: broken, handshake"
    with pytest.raises(CompareError, match="unknown target: nope") as caught:
        select(["nope"], ["handshake"], None, **dirs)
    assert caught.value.hint == "known targets: broken, ts-sdk"


HTTP_SERVER = """\
id: web
name: A server over HTTP
kind: server
package: {registry: npm, name: web-server, version: 1.0.0}
transports: {host: http, host_url: "http://127.0.0.1:{port}/mcp"}
env: {PORT: "{port}"}
launch:
  argv: ["{node_bin:web-server}", http]
ends: self
timeout_s: 30
"""


def test_a_server_over_http_takes_its_port_from_argv_or_env(tmp_path: Path) -> None:
    """Its port placeholder may sit in its environment (PORT=...) as well as on its launch
    line; it plays only the scenarios that require http, and a server has no upstream."""
    target = load_target_file(_write(tmp_path, HTTP_SERVER, "web.yaml"))
    assert target.serves_http and target.side == "server"
    in_argv = HTTP_SERVER.replace('env: {PORT: "{port}"}\n', "").replace(", http]", ", '{port}']")
    assert load_target_file(_write(tmp_path, in_argv, "web.yaml")).serves_http
    no_port = HTTP_SERVER.replace('{PORT: "{port}"}', "{}")
    with pytest.raises(CompareError, match=r"lacks \{port\}"):
        load_target_file(_write(tmp_path, no_port, "web.yaml"))
    upstream = HTTP_SERVER.replace("host: http,", "host: http, upstream: http,")
    with pytest.raises(CompareError, match="a server has no upstream"):
        load_target_file(_write(tmp_path, upstream, "web.yaml"))
    client = GOOD.replace("ends: harness", "transports: {host: http}\nends: harness")
    with pytest.raises(CompareError, match="only a proxy or a server"):
        load_target_file(_write(tmp_path, client))


def test_only_servers_over_http_play_the_http_scenarios() -> None:
    from compare.exchange._scenarios import load_scenarios
    from compare.play._cells import plan_cells

    targets = [t for t in load_targets() if t.id in ("server-everything", "server-everything-http")]
    cells = plan_cells(targets, load_scenarios(), ["2025-11-25"])
    by_target: dict[str, set[str]] = {}
    for cell in cells:
        by_target.setdefault(cell.target.id, set()).add(cell.scenario.id)
    assert by_target["server-everything-http"] == {"server-http-session"}
    assert "server-http-session" not in by_target["server-everything"]
    assert "server-ping" in by_target["server-everything"]


def test_a_server_command_that_names_its_port_is_played_over_http() -> None:
    http = command_target("my-server --listen 127.0.0.1:{port}", side="server")
    assert http.serves_http and http.transports["host_url"] == "http://127.0.0.1:{port}/mcp"
    assert not command_target("my-server --stdio", side="server").serves_http


def test_a_server_given_by_its_url_is_started_by_no_one_and_plays_everything() -> None:
    """``check --server http://localhost:8000/mcp``: a server the user already runs. It is
    probed at 127.0.0.1 only, versioned by its URL, and plays every server scenario over
    HTTP, as a server that names {port} does in a check."""
    from compare.exchange._scenarios import load_scenarios
    from compare.play._cells import plan_cells

    url = command_target("http://localhost:8000/mcp", side="server")
    assert url.external and url.argv == [] and url.version.startswith("url-")
    assert url.transports["host_url"] == "http://127.0.0.1:8000/mcp"
    port = command_target("my-server --port {port}", side="server")
    assert port.plays_all_over_http and not port.external
    scenarios = load_scenarios()
    server_side = {s.id for s in scenarios if s.side == "server"}
    for target in (url, port):
        played = {c.scenario.id for c in plan_cells([target], scenarios, ["2025-11-25"])}
        assert played == server_side
    for bad, why in [
        ("https://127.0.0.1:8000/mcp", "only http://"),
        ("http://192.0.2.1:8000/mcp", "not 127.0.0.1"),
        ("http://127.0.0.1/mcp", "names no port"),
    ]:
        with pytest.raises(CompareError, match=why):
            command_target(bad, side="server")


def test_a_target_file_with_a_fixed_port_has_no_launch_line(tmp_path: Path) -> None:
    fixed = HTTP_SERVER.replace("{port}/mcp", "8000/mcp").replace('env: {PORT: "{port}"}\n', "")
    with pytest.raises(CompareError, match="launch"):
        load_target_file(_write(tmp_path, fixed, "web.yaml"))
    running = fixed.split("launch:")[0] + "ends: self\ntimeout_s: 30\n"
    assert load_target_file(_write(tmp_path, running, "web.yaml")).external


def test_a_client_that_names_url_connects_to_our_server_over_http(tmp_path: Path) -> None:
    """``{url}`` is where a client connects: such a client starts no server of ours, and
    only a client may name it."""
    client = command_target("my-client --connect {url}")
    assert client.connects_by_url and not command_target("my-client {server}").connects_by_url
    server = HTTP_SERVER.replace("http]", "http, '{url}']")
    with pytest.raises(CompareError, match="only a client target names it"):
        load_target_file(_write(tmp_path, server, "web.yaml"))


def test_a_stdio_scenario_is_not_run_over_http() -> None:
    """How a client ends the stdio server it started means nothing to a client handed a
    URL; a server played over HTTP is not asked it either."""
    from compare.exchange._scenarios import load_scenarios
    from compare.play._cells import plan_cells

    shutdown = [s for s in load_scenarios() if s.id == "client-shutdown"]
    (cell,) = plan_cells([command_target("my-client {url}")], shutdown, ["2025-11-25"])
    assert "about the stdio transport" in str(cell.not_run_reason())
    (stdio,) = plan_cells([command_target("my-client {server}")], shutdown, ["2025-11-25"])
    assert stdio.not_run_reason() is None
