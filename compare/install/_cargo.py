"""crates.io clients: a host program of ours in Rust, built from its committed Cargo.lock.

An SDK published as a crate cannot be "installed" and driven from outside: the client is a
program that links it. Its sources live in ``compare/hosts/<target>/`` (Cargo.toml
with exact ``=`` requirements, Cargo.lock committed); ``tools install`` builds it with
``cargo build --locked`` and copies the binary to
``tools/hosts/<target>/bin/host``, the path the target's launch line names. The same goes
for an SDK's server side (a ``server`` target such as ``rust-sdk-server``): a program of ours
linking the SDK, from its own folder.

- The build is skipped when the stamp beside the binary holds the sha256 of the host's
  sources, its lock and the compiler's version: the cache is keyed by the lock.
- Every host builds into one cargo target folder, ``tools/hosts/.cargo-target``: a crate
  that two hosts lock at the same version with the same features is compiled once, not once
  per host (the hosts' locks are resolved from one another, so most crates are shared). A
  rebuild after a source or lock change stays incremental. Cargo locks that folder for a
  whole build, so builds of two hosts take turns; ours holds a lock of its own on it from
  the build until the binary is copied out, because every host's binary is called ``host``
  and the next build would overwrite ``debug/host``. The per-host ``target/`` of earlier
  layouts (``tools/hosts/<target>/target``) is removed after a build.
- Cargo keeps its own home (``CARGO_HOME``, default ``~/.cargo`` of the real home, not the
  installers' scratch home): downloaded crates are shared and content-checked by cargo, and
  the citation form ``crate:NAME@VER/path`` reads their sources there.
- Offline: ``cargo fetch --locked`` first; when the registry cannot be reached the build runs
  with ``--offline`` from the crates already downloaded.

``tools lock`` sets the SDK's requirement to the target's exact version (``cargo add``) and
re-resolves the whole lock (``cargo generate-lockfile``); commit both files.

Which crates pins are hosts of ours (``is_binary``): a target whose kind is ``sdk-host``,
and any other target with a host folder of ours, ``compare/hosts/<target>/Cargo.toml``. A
crate that *is* the program (a server such as ``rust-mcp-filesystem``: kind ``server``, no
folder of ours) needs no host: ``cargo install --locked --version X NAME`` builds its own
binaries from the Cargo.lock published inside the crate (the registry's checksum of the
``.crate`` covers that lock, so the exact version pins every dependency; there is no lock of
ours to commit). It goes into ``tools/crates/<crate>/`` (``--root``: ``bin/``, its scratch
``target/`` removed once built), never into ``~/.cargo/bin``; cargo sees the scratch
home like every installer, and its real ``CARGO_HOME`` for the shared download cache. Targets
pinning the same crate and version share one install. The stamp beside ``bin/`` holds the
crate, its version and the compiler's version; when the registry cannot be reached the same
install is retried ``--offline`` from the crates already downloaded.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path

from compare._atomic import write_bytes, write_text
from compare._errors import CompareError
from compare.install._pins import Pin
from compare.install._run import require, run

#: Where the host programs' sources are (one folder per target id).
HOSTS_SRC = Path(__file__).resolve().parent.parent / "hosts"
STAMP = ".mcp-compare-stamp"
#: Every Rust program is built with cargo's dev profile (no ``--release``): what the matrix
#: reads is what the program says on the wire, which the optimiser does not change, and an
#: optimised build costs twice the compile (measured 2026-12-05, quiet 2-core machine:
#: rust-mcp-filesystem 0.4.5 108 s wall / 203 CPU-s with --release, 58 s / 104 CPU-s dev; the Rust
#: SDK host 70 s / 127 CPU-s against 43 s / 73 CPU-s), on every fresh machine and in CI.
#: The profile is in each stamp, so a program built with another one is built again.
PROFILE = "dev"
#: The folder of the cargo target directory that profile's binaries land in.
PROFILE_DIR = "debug"
#: The dev profile without debug information or incremental state, neither of which a run
#: reads: they tripled the target folders (1.5 GB for the four Rust programs) and a CI
#: machine ran out of disk with them (2026-12-05). Cargo reads both from the environment.
BUILD_ENV = {"CARGO_PROFILE_DEV_DEBUG": "0", "CARGO_INCREMENTAL": "0"}
#: What a stamp records of the build: a program built with another profile or other settings
#: is built again.
BUILD = "dev debug=0"
_CARGO_HINT = "install a Rust toolchain (rustup or Debian's cargo); the hosts are built with it"


def source_dir(target: str, hosts: Path | None = None) -> Path:
    """The host's crate: ``compare/hosts/<target>/``."""
    return (hosts or HOSTS_SRC) / target


def out_dir(tools: Path, target: str) -> Path:
    return tools / "hosts" / target


#: The cargo target folder every host builds into, under ``tools/hosts/`` (a dot name, so it
#: is never taken for a target id's folder).
SHARED_TARGET = ".cargo-target"


def target_dir(tools: Path) -> Path:
    """The one cargo target folder of all the hosts: ``{tools}/hosts/.cargo-target``."""
    return tools / "hosts" / SHARED_TARGET


@contextlib.contextmanager
def _building(folder: Path) -> Iterator[float]:
    """Hold the shared target folder from a host's build until its binary is copied out;
    yields the seconds spent waiting for another host's turn. An exclusive ``flock`` on the
    folder's own descriptor: one per call, so threads of one install exclude one another as
    processes do, and the kernel drops it however the holder ends."""
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        start = time.monotonic()
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield time.monotonic() - start
    finally:
        os.close(fd)  # closing the last descriptor of the lock releases it


def binary(tools: Path, target: str) -> Path:
    """The built host, as the target's launch line names it: ``{tools}/hosts/<id>/bin/host``."""
    return out_dir(tools, target) / "bin" / "host"


def cargo_env() -> dict[str, str]:
    """Cargo's and rustup's homes from the real home, which the installers' scratch home hides."""
    home = Path.home()
    env: dict[str, str] = {}
    for name, default in (("CARGO_HOME", ".cargo"), ("RUSTUP_HOME", ".rustup")):
        value = os.environ.get(name) or str(home / default)
        if name == "CARGO_HOME" or Path(value).is_dir():
            env[name] = value
    return env


def locked_version(src: Path, name: str) -> str | None:
    """The version of crate ``name`` in the host's Cargo.lock (None when absent or unreadable)."""
    try:
        data = tomllib.loads((src / "Cargo.lock").read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return None
    versions = [p.get("version") for p in data.get("package", []) if p.get("name") == name]
    return str(versions[0]) if len(versions) == 1 else None


def _sources(src: Path) -> list[Path]:
    """Every file the build reads from the host folder (Cargo.toml, Cargo.lock, src/**)."""
    files = [src / "Cargo.toml", src / "Cargo.lock"]
    files += sorted(p for p in (src / "src").rglob("*") if p.is_file())
    return files


def digest(src: Path, toolchain: str) -> str:
    """sha256 of the host's sources, its lock and the compiler: what the stamp holds."""
    h = hashlib.sha256(f"rustc\0{toolchain}\0".encode())
    for path in _sources(src):
        data = path.read_bytes()
        h.update(f"{path.relative_to(src).as_posix()}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest()


def _stamp(tools: Path, target: str) -> dict[str, str]:
    try:
        value = json.loads((out_dir(tools, target) / STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}


def installed_version(tools: Path, target: str, name: str) -> str | None:
    """The SDK version the built host links (from its stamp), or None when not built."""
    stamp = _stamp(tools, target)
    if stamp.get("crate") != name or not binary(tools, target).is_file():
        return None
    return stamp.get("version")


def _cargo(tools: Path, src: Path, *args: str, what: str) -> str:
    cargo = require("cargo", _CARGO_HINT)
    argv = [cargo, *args, "--manifest-path", str(src / "Cargo.toml")]
    return run(argv, tools=tools, cwd=src, what=what, extra_env={**cargo_env(), **BUILD_ENV})


def _check_lock(pin: Pin, src: Path) -> None:
    got = locked_version(src, pin.name)
    if got != pin.version:
        raise CompareError(
            f"{src / 'Cargo.lock'} locks {pin.name} {got or 'nowhere'}, the target pins "
            f"{pin.version}",
            "run: mcp-compare tools lock, then commit Cargo.toml and Cargo.lock",
        )


def install(pin: Pin, tools: Path, hosts: Path | None = None) -> str:
    """Build one crates.io target's host from its committed lock; returns what was done."""
    src = source_dir(pin.target, hosts)
    for name in ("Cargo.toml", "Cargo.lock"):
        if not (src / name).is_file():
            raise CompareError(
                f"{src / name} is missing", "the host's crate must be committed with its lock"
            )
    _check_lock(pin, src)
    rustc = require("rustc", _CARGO_HINT)
    toolchain = run([rustc, "--version"], tools=tools, what="rustc", extra_env=cargo_env()).strip()
    key = digest(src, toolchain)
    out = out_dir(tools, pin.target)
    have = _stamp(tools, pin.target)
    built_alike = have.get("sha256") == key and have.get("profile") == BUILD
    if built_alike and binary(tools, pin.target).is_file():
        return f"{pin.target}: already installed (built host)"
    shared = target_dir(tools)
    mode = "--locked"
    try:
        _cargo(tools, src, "fetch", "--locked", what=f"{pin.target}: cargo fetch")
    except CompareError:
        mode = "--offline"  # the registry is unreachable: build from the crates already here
    with _building(shared) as waited:
        _cargo(
            tools,
            src,
            "build",
            "--profile",
            PROFILE,
            "--locked",
            *(["--offline"] if mode == "--offline" else []),
            "--target-dir",
            str(shared),
            what=f"{pin.target}: cargo build --profile {PROFILE} ({mode})",
        )
        built = shared / PROFILE_DIR / "host"  # every host's binary is called host: copy it now
        write_bytes(binary(tools, pin.target), built.read_bytes())
        shutil.copymode(built, binary(tools, pin.target))
    shutil.rmtree(out / "target", ignore_errors=True)  # a per-host target of older layouts
    stamp = {"sha256": key, "crate": pin.name, "version": pin.version, "rustc": toolchain}
    stamp["profile"] = BUILD
    write_text(out / STAMP, json.dumps(stamp, indent=2) + "\n")
    offline = " offline" if mode == "--offline" else ""
    turn = f" (waited {waited:.0f}s for another host's build)" if waited >= 1 else ""
    return f"{pin.target}: built{offline} with {pin.name} {pin.version} from Cargo.lock{turn}"


def lock(pin: Pin, tools: Path, hosts: Path | None = None) -> str:
    """Require the target's exact SDK version and re-resolve the host's whole Cargo.lock."""
    src = source_dir(pin.target, hosts)
    if not (src / "Cargo.toml").is_file():
        raise CompareError(f"{src / 'Cargo.toml'} is missing", "the host's crate is committed")
    what = f"{pin.target}: cargo add {pin.name}@={pin.version}"
    _cargo(tools, src, "add", f"{pin.name}@={pin.version}", what=what)
    _cargo(tools, src, "generate-lockfile", what=f"{pin.target}: cargo generate-lockfile")
    _check_lock(pin, src)
    count = len(tomllib.loads((src / "Cargo.lock").read_text(encoding="utf-8")).get("package", []))
    return f"{pin.target}: locked {count} crates"


#: Where crates installed as programs live, relative to the tools folder (one folder each).
CRATES = "crates"


def is_binary(pin: Pin, hosts: Path | None = None) -> bool:
    """A crates pin installed as the crate's own program: no host of ours links it, because
    the target is not an SDK's client host and has no folder ``compare/hosts/<target>/`` with
    a Cargo.toml (an SDK's server side has one, and is built like a client host). A pin whose
    kind is unknown (made by hand, not from a target) keeps the older meaning, a host."""
    if pin.registry != "crates" or pin.kind in ("", "sdk-host"):
        return False
    return not (source_dir(pin.target, hosts) / "Cargo.toml").is_file()


def crate_root(tools: Path, name: str) -> Path:
    """Where one crate is installed (``--root``): ``{tools}/crates/<crate>/`` (its bin/)."""
    return tools / CRATES / name


def _crate_stamp(tools: Path, name: str) -> dict[str, str]:
    try:
        value = json.loads((crate_root(tools, name) / STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}


def _binaries(tools: Path, name: str) -> list[str]:
    folder = crate_root(tools, name) / "bin"
    return sorted(p.name for p in folder.iterdir() if p.is_file()) if folder.is_dir() else []


def installed_binary_version(tools: Path, name: str) -> str | None:
    """The version of crate ``name`` installed as a program (from its stamp), or None."""
    stamp = _crate_stamp(tools, name)
    if stamp.get("crate") != name or not _binaries(tools, name):
        return None
    return stamp.get("version")


def _cargo_install(tools: Path, pin: Pin, root: Path, *, offline: bool) -> None:
    cargo = require("cargo", _CARGO_HINT)
    argv = [cargo, "install", "--locked", "--force", "--profile", PROFILE, "--version", pin.version]
    argv += ["--root", str(root), "--target-dir", str(root / "target")]
    argv += [*(["--offline"] if offline else []), pin.name]
    mode = " --offline" if offline else ""
    what = f"{pin.target}: cargo install --locked{mode} {pin.name}@{pin.version}"
    run(argv, tools=tools, cwd=root, what=what, extra_env={**cargo_env(), **BUILD_ENV})


def install_binary(pin: Pin, tools: Path) -> str:
    """Install one crate as a program at its pinned version; returns what was done."""
    rustc = require("rustc", _CARGO_HINT)
    toolchain = run([rustc, "--version"], tools=tools, what="rustc", extra_env=cargo_env()).strip()
    root = crate_root(tools, pin.name)
    want = {"crate": pin.name, "version": pin.version, "rustc": toolchain, "profile": BUILD}
    have = _crate_stamp(tools, pin.name)
    if {k: have.get(k) for k in want} == want and _binaries(tools, pin.name):
        return f"{pin.target}: already installed ({pin.name} {pin.version})"
    root.mkdir(parents=True, exist_ok=True)
    offline = False
    try:
        _cargo_install(tools, pin, root, offline=False)
    except CompareError as online:
        # The registry may be unreachable: the same build from the crates already downloaded.
        offline = True
        try:
            _cargo_install(tools, pin, root, offline=True)
        except CompareError:
            raise online from None
    # The build's own folder is scratch once bin/ holds the program: a new version is a new
    # build anyway, and on a fresh machine (CI) the folder was only disk (720 MB).
    shutil.rmtree(root / "target", ignore_errors=True)
    stamp = {**want, "binaries": " ".join(_binaries(tools, pin.name))}
    write_text(root / STAMP, json.dumps(stamp, indent=2) + "\n")
    how = " offline" if offline else ""
    return f"{pin.target}: installed{how} {pin.name} {pin.version} (cargo install --locked)"


def install_binaries(pins: list[Pin], tools: Path) -> str:
    """Every crate-as-program pin, one install per crate and version (targets share it)."""
    done: dict[tuple[str, str], str] = {}
    for pin in pins:
        key = (pin.name, pin.version)
        if key not in done:
            done[key] = install_binary(pin, tools)
    return "; ".join(done.values()) if done else "crates: nothing to install"


def lock_binary(pin: Pin) -> str:
    """Nothing of ours to re-resolve: ``--locked`` uses the lock published inside the crate."""
    return f"{pin.target}: {pin.name} {pin.version} builds from the crate's own Cargo.lock"
