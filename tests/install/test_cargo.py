"""The cargo builder on a tiny crate of its own: build, skip by stamp, rebuild on change, the
offline fallback, and the clear errors for a lock that does not match the target.

The crate has no dependencies, so every build here is real (cargo and rustc run) and needs no
registry; the pin names the crate itself, which its own Cargo.lock lists like any dependency.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from compare._errors import CompareError
from compare.install import _cargo
from compare.install._pins import Pin

MAIN = 'fn main() {{ println!("{word}"); }}\n'


def tiny_host(hosts: Path, version: str = "0.1.0", word: str = "one") -> Path:
    src = hosts / "tiny"
    (src / "src").mkdir(parents=True, exist_ok=True)
    (src / "Cargo.toml").write_text(
        f'[package]\nname = "tiny"\nversion = "{version}"\nedition = "2021"\n\n'
        '[[bin]]\nname = "host"\npath = "src/main.rs"\n',
        encoding="utf-8",
    )
    (src / "Cargo.lock").write_text(
        f'version = 4\n\n[[package]]\nname = "tiny"\nversion = "{version}"\n', encoding="utf-8"
    )
    (src / "src" / "main.rs").write_text(MAIN.format(word=word), encoding="utf-8")
    return src


PIN = Pin("tiny", "crates", "tiny", "0.1.0")


def ran(tools: Path) -> str:
    done = subprocess.run(
        [str(_cargo.binary(tools, "tiny"))], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


@pytest.mark.clients
def test_build_then_skip_then_rebuild_on_a_source_change(tmp_path: Path) -> None:
    hosts, tools = tmp_path / "hosts", tmp_path / "tools"
    src = tiny_host(hosts)
    assert _cargo.installed_version(tools, "tiny", "tiny") is None
    assert _cargo.install(PIN, tools, hosts) == "tiny: built with tiny 0.1.0 from Cargo.lock"
    assert ran(tools) == "one"
    assert _cargo.installed_version(tools, "tiny", "tiny") == "0.1.0"
    assert (tools / "hosts" / "tiny" / "target" / "release").is_dir()  # kept: incremental
    assert "already installed" in _cargo.install(PIN, tools, hosts)
    (src / "src" / "main.rs").write_text(MAIN.format(word="two"), encoding="utf-8")
    assert "built" in _cargo.install(PIN, tools, hosts)
    assert ran(tools) == "two"


@pytest.mark.clients
def test_unreachable_registry_builds_offline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hosts, tools = tmp_path / "hosts", tmp_path / "tools"
    tiny_host(hosts)
    real = _cargo._cargo
    seen: list[tuple[str, ...]] = []

    def cargo(tools: Path, src: Path, *args: str, what: str) -> str:
        seen.append(args)
        if args[0] == "fetch":
            raise CompareError("cargo fetch failed: registry unreachable", None)
        return real(tools, src, *args, what=what)

    monkeypatch.setattr(_cargo, "_cargo", cargo)
    assert "built offline" in _cargo.install(PIN, tools, hosts)
    assert "--offline" in seen[-1] and "--locked" in seen[-1]
    assert ran(tools) == "one"


def test_a_lock_that_does_not_pin_the_version_says_to_lock(tmp_path: Path) -> None:
    hosts = tmp_path / "hosts"
    tiny_host(hosts, version="0.2.0")
    with pytest.raises(CompareError) as err:
        _cargo.install(PIN, tmp_path / "tools", hosts)
    assert "locks tiny 0.2.0" in err.value.message and "pins 0.1.0" in err.value.message
    assert err.value.hint and "tools lock" in err.value.hint


def test_a_missing_lock_is_a_clear_error(tmp_path: Path) -> None:
    hosts = tmp_path / "hosts"
    (tiny_host(hosts) / "Cargo.lock").unlink()
    with pytest.raises(CompareError) as err:
        _cargo.install(PIN, tmp_path / "tools", hosts)
    assert "Cargo.lock is missing" in err.value.message


def test_the_stamp_key_covers_sources_lock_and_compiler(tmp_path: Path) -> None:
    src = tiny_host(tmp_path / "hosts")
    key = _cargo.digest(src, "rustc 1.95.0")
    assert _cargo.digest(src, "rustc 1.95.0") == key
    assert _cargo.digest(src, "rustc 1.96.0") != key
    (src / "src" / "extra.rs").write_text("// more\n", encoding="utf-8")
    assert _cargo.digest(src, "rustc 1.95.0") != key


def test_cargo_keeps_the_real_home_under_the_scratch_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CARGO_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert _cargo.cargo_env()["CARGO_HOME"] == str(tmp_path / ".cargo")
    monkeypatch.setenv("CARGO_HOME", "/elsewhere/cargo")
    assert _cargo.cargo_env()["CARGO_HOME"] == "/elsewhere/cargo"


def test_shipped_rust_host_lock_pins_the_target_version() -> None:
    """The committed Cargo.lock and the target file agree (what install checks first)."""
    from compare.install import load_pins

    pins = [p for p in load_pins() if p.registry == "crates"]
    assert pins, "no crates target shipped"
    for pin in pins:
        assert _cargo.locked_version(_cargo.source_dir(pin.target), pin.name) == pin.version


@pytest.mark.clients
def test_lock_on_a_copy_of_the_rust_host_keeps_its_pins(tmp_path: Path) -> None:
    """``tools lock`` (cargo add NAME@=VER, then generate-lockfile) on the shipped host."""
    import shutil

    from compare.install import load_pins

    pin = next(p for p in load_pins() if p.target == "rust-sdk")
    hosts = tmp_path / "hosts"
    shutil.copytree(_cargo.source_dir("rust-sdk"), hosts / "rust-sdk")
    assert _cargo.lock(pin, tmp_path / "tools", hosts).startswith("rust-sdk: locked ")
    manifest = (hosts / "rust-sdk" / "Cargo.toml").read_text(encoding="utf-8")
    assert f'{pin.name} = {{ version = "={pin.version}"' in manifest
    assert _cargo.locked_version(hosts / "rust-sdk", pin.name) == pin.version
