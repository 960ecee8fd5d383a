"""Target files: the shipped ones load, malformed ones fail naming the file and the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from compare._errors import CompareError
from compare.exchange._targets import (
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
  argv: ["{node_bin:demo}", "--server", "{server}", "{variant_args}"]
variants: {roots: [], no-roots: ["--no-roots"]}
files:
  - path: "{home}/.demo/settings.json"
    format: json
    content: {mcpServers: {peer: {command: "{server}", cwd: "{workspace}"}}}
ends: harness
timeout_s: 30
"""


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
        variant_args=["--no-roots"],
    )
    assert exp.argv(target.argv) == [
        "/t/node_modules/.bin/demo",
        "--server",
        "/py peer.py --plan '/c d/plan.json'",
        "--no-roots",
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
        (('"{variant_args}"', '"x{variant_args}"'), "launch.argv.3"),
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
        'variants: {roots: [], no-roots: ["--no-roots"]}', "variants: {roots: [no]}"
    )
    target = load_target_file(_write(tmp_path, text))
    assert target.variants == {"roots": ["no"]}


def test_command_template_target() -> None:
    target = command_target("my-client --server {server} --flag")
    assert target.kind == "command"
    assert target.version.startswith("cmd-")
    with pytest.raises(CompareError):
        command_target("my-client 'unclosed")
