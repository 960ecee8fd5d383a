"""The cargo builder on a tiny crate of its own: build, skip by stamp, rebuild on change, the
offline fallback, and the clear errors for a lock that does not match the target. Then the
crate installed as a program (``cargo install --locked``), from a registry of one vendored
crate that replaces crates.io in a cargo home of the test's own.

The crates have no dependencies, so every build here is real (cargo and rustc run) and needs
no registry; the pin names the crate itself, which its own Cargo.lock lists like any dependency.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from compare._errors import CompareError
from compare.install import _cargo
from compare.install._pins import Pin

MAIN = 'fn main() {{ println!("{word}"); }}\n'


def tiny_host(hosts: Path, version: str = "0.1.0", word: str = "one", name: str = "tiny") -> Path:
    src = hosts / name
    (src / "src").mkdir(parents=True, exist_ok=True)
    (src / "Cargo.toml").write_text(
        f'[package]\nname = "{name}"\nversion = "{version}"\nedition = "2021"\n\n'
        '[[bin]]\nname = "host"\npath = "src/main.rs"\n',
        encoding="utf-8",
    )
    (src / "Cargo.lock").write_text(
        f'version = 4\n\n[[package]]\nname = "{name}"\nversion = "{version}"\n',
        encoding="utf-8",
    )
    (src / "src" / "main.rs").write_text(MAIN.format(word=word), encoding="utf-8")
    return src


PIN = Pin("tiny", "crates", "tiny", "0.1.0")


def debug_sections(program: Path) -> list[str]:
    """The ``.debug_*`` section names of a 64-bit little-endian ELF file, read from its
    section headers (the bytes ".debug_info" also occur as a string inside std's symbolizer,
    so a search of the whole file says nothing)."""
    data = program.read_bytes()
    assert data[:4] == b"\x7fELF" and data[4] == 2 and data[5] == 1, "not an ELF64 LE file"
    shoff = int.from_bytes(data[0x28:0x30], "little")
    size, count, names = (int.from_bytes(data[o : o + 2], "little") for o in (0x3A, 0x3C, 0x3E))
    headers = [data[shoff + i * size : shoff + (i + 1) * size] for i in range(count)]
    table = int.from_bytes(headers[names][0x18:0x20], "little")
    found = []
    for header in headers:
        start = table + int.from_bytes(header[0:4], "little")
        name = data[start : data.index(b"\0", start)].decode("ascii", "replace")
        if name.startswith(".debug_"):
            found.append(name)
    return found


def ran(tools: Path, target: str = "tiny") -> str:
    done = subprocess.run(
        [str(_cargo.binary(tools, target))], capture_output=True, text=True, check=True
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
    assert (_cargo.target_dir(tools) / _cargo.PROFILE_DIR).is_dir()  # kept: shared deps
    # built without debug information (BUILD_ENV reached cargo): nothing a run reads, and
    # most of a target folder's disk
    assert not debug_sections(_cargo.binary(tools, "tiny"))
    assert not (tools / "hosts" / "tiny" / "target").exists()  # the shared one, not its own
    assert "already installed" in _cargo.install(PIN, tools, hosts)
    (src / "src" / "main.rs").write_text(MAIN.format(word="two"), encoding="utf-8")
    assert "built" in _cargo.install(PIN, tools, hosts)
    assert ran(tools) == "two"


@pytest.mark.clients
def test_two_hosts_built_at_once_share_the_target_folder_and_keep_their_own_binary(
    tmp_path: Path,
) -> None:
    """Both hosts' binaries are called ``host`` in one target folder: each build keeps the
    folder until its binary is copied out, so neither host gets the other's program."""
    from concurrent.futures import ThreadPoolExecutor

    hosts, tools = tmp_path / "hosts", tmp_path / "tools"
    tiny_host(hosts, word="first", name="first")
    tiny_host(hosts, word="second", name="second")
    legacy = tools / "hosts" / "second" / "target" / "release"
    legacy.mkdir(parents=True)  # a per-host target folder of the older layout
    pins = [Pin(n, "crates", n, "0.1.0", kind="sdk-host") for n in ("first", "second")]
    with ThreadPoolExecutor(max_workers=2) as pool:
        done = list(pool.map(lambda pin: _cargo.install(pin, tools, hosts), pins))
    assert all(" built with " in line for line in done), done
    assert ran(tools, "first") == "first" and ran(tools, "second") == "second"
    assert sorted(p.name for p in (tools / "hosts").iterdir()) == [
        _cargo.SHARED_TARGET,
        "first",
        "second",
    ]
    assert not legacy.parent.exists()  # removed once the host is built in the shared one


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

    pins = [p for p in load_pins() if p.registry == "crates" and not _cargo.is_binary(p)]
    assert pins, "no crates host shipped"
    for pin in pins:
        assert _cargo.locked_version(_cargo.source_dir(pin.target), pin.name) == pin.version


def test_shipped_hosts_of_one_sdk_depend_on_the_same_crates_alike() -> None:
    """Hosts of one SDK (its client and its server side) name the same dependencies with the
    same features and lock them at the same versions: in the shared target folder every crate
    is then compiled once for all of them. One feature more on one side changes a crate's
    build, and with it every crate that depends on it, so the second host's build took ~90 s
    instead of ~10 s on CI's 2 cores."""
    import tomllib

    from compare.install import load_pins

    by_sdk: dict[tuple[str, str], list[str]] = {}
    for pin in load_pins():
        if pin.registry == "crates" and not _cargo.is_binary(pin):
            by_sdk.setdefault((pin.name, pin.version), []).append(pin.target)

    def crates(target: str) -> tuple[object, set[tuple[str, str]]]:
        src = _cargo.source_dir(target)
        manifest = tomllib.loads((src / "Cargo.toml").read_text(encoding="utf-8"))
        own = manifest["package"]["name"]
        lock = tomllib.loads((src / "Cargo.lock").read_text(encoding="utf-8"))
        locked = {(p["name"], p["version"]) for p in lock["package"] if p["name"] != own}
        return manifest["dependencies"], locked

    shared = [targets for targets in by_sdk.values() if len(targets) > 1]
    assert shared, "no SDK with two crates hosts shipped"
    for first, *rest in shared:
        for other in rest:
            assert crates(other) == crates(first), (first, other)


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


def vendored_registry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, word: str = "tiny") -> Pin:
    """A cargo home whose crates.io is one vendored crate, ``tinybin`` 0.1.0 (with the
    Cargo.lock it publishes), and the pin of a server target naming it."""
    crate = tmp_path / "vendor" / "tinybin-0.1.0"
    (crate / "src").mkdir(parents=True)
    (crate / "Cargo.toml").write_text(
        '[package]\nname = "tinybin"\nversion = "0.1.0"\nedition = "2021"\n', encoding="utf-8"
    )
    (crate / "Cargo.lock").write_text(
        'version = 4\n\n[[package]]\nname = "tinybin"\nversion = "0.1.0"\n', encoding="utf-8"
    )
    (crate / "src" / "main.rs").write_text(MAIN.format(word=word), encoding="utf-8")
    (crate / ".cargo-checksum.json").write_text('{"files":{},"package":null}', encoding="utf-8")
    home = tmp_path / "cargo-home"
    home.mkdir()
    (home / "config.toml").write_text(
        '[source.crates-io]\nreplace-with = "vendored"\n\n'
        f'[source.vendored]\ndirectory = "{tmp_path / "vendor"}"\n',
        encoding="utf-8",
    )
    monkeypatch.setenv("CARGO_HOME", str(home))
    return Pin("tinybin-server", "crates", "tinybin", "0.1.0", kind="server")


def ran_program(tools: Path) -> str:
    program = _cargo.crate_root(tools, "tinybin") / "bin" / "tinybin"
    return subprocess.run([str(program)], capture_output=True, text=True, check=True).stdout.strip()


@pytest.mark.clients
def test_a_crate_program_installs_into_the_tools_folder_then_skips_by_stamp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pin = vendored_registry(tmp_path, monkeypatch)
    tools = tmp_path / "tools"
    assert _cargo.installed_binary_version(tools, "tinybin") is None
    assert _cargo.install_binary(pin, tools) == (
        "tinybin-server: installed tinybin 0.1.0 (cargo install --locked)"
    )
    assert ran_program(tools) == "tiny"
    assert _cargo.installed_binary_version(tools, "tinybin") == "0.1.0"
    root = _cargo.crate_root(tools, "tinybin")
    assert not (root / "target").exists()  # the build's scratch folder is gone
    assert not debug_sections(root / "bin" / "tinybin")
    assert "already installed" in _cargo.install_binary(pin, tools)
    # a stamp of another version (or compiler) is not this install: it runs again
    stamp = root / _cargo.STAMP
    stamp.write_text(stamp.read_text(encoding="utf-8").replace("0.1.0", "0.0.9"), "utf-8")
    assert _cargo.installed_binary_version(tools, "tinybin") == "0.0.9"
    assert "installed tinybin 0.1.0" in _cargo.install_binary(pin, tools)


def test_targets_of_one_crate_share_one_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[str] = []

    def install(pin: Pin, tools: Path) -> str:
        seen.append(pin.target)
        return f"{pin.target}: installed"

    monkeypatch.setattr(_cargo, "install_binary", install)
    pins = [
        Pin("a", "crates", "tool", "1.0.0", kind="server"),
        Pin("b", "crates", "tool", "1.0.0", kind="server"),
        Pin("c", "crates", "other", "2.0.0", kind="cli"),
    ]
    assert _cargo.install_binaries(pins, tmp_path) == "a: installed; c: installed"
    assert seen == ["a", "c"]


@pytest.mark.clients
def test_an_unreachable_registry_installs_the_program_offline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pin = vendored_registry(tmp_path, monkeypatch)
    real = _cargo._cargo_install
    seen: list[bool] = []

    def cargo_install(tools: Path, pin: Pin, root: Path, *, offline: bool) -> None:
        seen.append(offline)
        if not offline:
            raise CompareError("cargo install failed: registry unreachable", None)
        real(tools, pin, root, offline=offline)

    monkeypatch.setattr(_cargo, "_cargo_install", cargo_install)
    assert "installed offline tinybin 0.1.0" in _cargo.install_binary(pin, tmp_path / "tools")
    assert seen == [False, True]
    assert ran_program(tmp_path / "tools") == "tiny"


def test_a_failed_offline_retry_reports_the_registry_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def cargo_install(tools: Path, pin: Pin, root: Path, *, offline: bool) -> None:
        raise CompareError("offline: no cached crate" if offline else "registry unreachable", None)

    monkeypatch.setattr(_cargo, "_cargo_install", cargo_install)
    pin = Pin("t", "crates", "tinybin", "0.1.0", kind="server")
    with pytest.raises(CompareError, match="registry unreachable"):
        _cargo.install_binary(pin, tmp_path / "tools")
    assert not (_cargo.crate_root(tmp_path / "tools", "tinybin") / _cargo.STAMP).exists()


def test_an_sdk_host_or_a_target_with_a_host_folder_is_a_host_of_ours(tmp_path: Path) -> None:
    hosts = tmp_path / "hosts"
    tiny_host(hosts, name="sdk-server")
    assert not _cargo.is_binary(Pin("rust-sdk", "crates", "rmcp", "3.11.0", kind="sdk-host"))
    assert not _cargo.is_binary(Pin("tiny", "crates", "tiny", "0.1.0"))  # made by hand
    server = Pin("s", "crates", "rust-mcp-filesystem", "0.4.5", kind="server")
    assert _cargo.is_binary(server) and _cargo.is_binary(server, hosts)  # no folder of ours
    ours = Pin("sdk-server", "crates", "rmcp", "3.11.0", kind="server")
    assert not _cargo.is_binary(ours, hosts)  # compare/hosts/<target>/Cargo.toml: built by us
    assert _cargo.is_binary(ours, tmp_path / "elsewhere")
    assert not _cargo.is_binary(Pin("s", "npm", "x", "1.0.0", kind="server"))


def test_shipped_targets_sort_into_hosts_and_programs() -> None:
    """The SDK's server side is a host of ours; a published server crate stays a program."""
    from compare.install import load_pins

    pins = {p.target: p for p in load_pins() if p.registry == "crates"}
    assert not _cargo.is_binary(pins["rust-sdk"]) and not _cargo.is_binary(pins["rust-sdk-server"])
    programs = [p for p in pins.values() if p.name == "rust-mcp-filesystem"]
    assert programs and all(_cargo.is_binary(p) for p in programs)


def test_shipped_crate_programs_launch_the_installed_binary() -> None:
    """A crates target that is not a host names its program where ``install_binary`` puts
    it, so an installed tools folder runs exactly the pinned crate's binary."""
    from compare.exchange._targets import load_targets

    programs = [
        t
        for t in load_targets()
        if (t.package or {}).get("registry") == "crates"
        and not (t.package or {}).get("installed_by")
    ]  # a target installed by another (its HTTP mode) runs that one's program
    programs = [t for t in programs if _cargo.is_binary(Pin(t.id, "crates", "", "", kind=t.kind))]
    assert programs, "no crate program shipped"
    for target in programs:
        name = target.package["name"] if target.package else ""
        assert target.argv[0].startswith(f"{{tools}}/{_cargo.CRATES}/{name}/bin/"), target.id
