"""Go clients: a host program of ours per Go library, built from committed module files.

A Go library is measured through a small host program (``compare/hosts/<target>/``:
``main.go``, ``go.mod``, ``go.sum``). ``go.mod`` requires the library at the exact version the
target file pins and ``go.sum`` holds the hash of every module in the build, so those two files
are the lock: ``tools install`` builds the host into ``tools/hosts/<target>/bin/host`` with
``-mod=readonly`` (the go command then refuses to change or extend them), and ``tools lock``
re-resolves them with ``go get`` + ``go mod tidy``.

The build is skipped when ``tools/hosts/<target>/build.json`` records the sha256 of the same
module files, host sources and Go version: the cache is keyed by the lock. The module cache
and the build cache are the user's own (``go env`` read with the real home, as npm's and pip's
caches are), so once they are warm a build needs no network; the toolchain is the machine's
own (``GOTOOLCHAIN=local`` unless the environment names another), never a download.

``build.json`` also names the directory of the pinned module in the module cache, which is
where ``go:MODULE@VERSION/path`` citations are read from (``compare.cite``).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

from compare._atomic import write_json
from compare._errors import CompareError
from compare.install._home import install_env
from compare.install._pins import Pin
from compare.install._run import run

#: The host programs' sources, shipped beside the target files.
HOSTS = Path(__file__).resolve().parents[1] / "hosts"
RECORD = "build.json"
_GO_HINT = "install Go (https://go.dev/doc/install) or put its bin folder on PATH"
_REQUIRE = re.compile(r"^\s*(?:require\s+)?(?P<mod>\S+)\s+(?P<ver>v\S+)", re.MULTILINE)


def source_dir(target: str) -> Path:
    return HOSTS / target


def build_dir(tools: Path, target: str) -> Path:
    return tools / "hosts" / target


def binary(tools: Path, target: str) -> Path:
    """The built host: what a Go target's launch line names as ``{tools}/hosts/<id>/bin/host``."""
    return build_dir(tools, target) / "bin" / "host"


def _go() -> str:
    found = shutil.which("go") or next(
        (p for p in ("/usr/local/go/bin/go", "/usr/lib/go/bin/go") if os.access(p, os.X_OK)), None
    )
    if not found:
        raise CompareError("go was not found on PATH", _GO_HINT)
    return found


def _user_go_env() -> dict[str, str]:
    """GOMODCACHE, GOCACHE and GOENV as the go command sees them from the user's real home."""
    try:
        out = subprocess.run(
            [_go(), "env", "-json", "GOMODCACHE", "GOCACHE", "GOENV"],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        ).stdout
        found = json.loads(out)
    except (OSError, subprocess.SubprocessError, ValueError) as err:
        raise CompareError(f"`go env` failed: {err}", _GO_HINT) from None
    return {k: str(v) for k, v in found.items() if v}


def go_env(tools: Path, *, readonly: bool) -> dict[str, str]:
    """The environment for one go command: the installers' scratch home, the user's caches."""
    env = install_env(tools)
    env.update(_user_go_env())
    env.setdefault("GOTOOLCHAIN", "local")
    flags = env.get("GOFLAGS", "").split()
    flags = [f for f in flags if not f.startswith("-mod=")]
    if readonly:
        flags.append("-mod=readonly")
    env["GOFLAGS"] = " ".join(flags)
    return env


def required(go_mod: str) -> dict[str, str]:
    """Module path -> version for every ``require`` line of a go.mod text."""
    found: dict[str, str] = {}
    in_block = False
    for line in go_mod.splitlines():
        text = line.split("//", 1)[0].strip()
        if text.startswith("require ("):
            in_block = True
            continue
        if in_block and text == ")":
            in_block = False
            continue
        if in_block or text.startswith("require "):
            m = _REQUIRE.match(text)
            if m:
                found[m["mod"]] = m["ver"]
    return found


def _sources(target: str) -> list[Path]:
    src = source_dir(target)
    for name in ("go.mod", "go.sum"):
        if not (src / name).is_file():
            raise CompareError(
                f"{src / name} is missing",
                "run: mcp-compare tools lock, then commit the host's go.mod and go.sum",
            )
    return [src / "go.mod", src / "go.sum", *sorted(src.glob("*.go"))]


def _check_pin(pin: Pin) -> None:
    go_mod = source_dir(pin.target) / "go.mod"
    got = required(go_mod.read_text(encoding="utf-8")).get(pin.name)
    if got != pin.version:
        raise CompareError(
            f"{go_mod} requires {pin.name} {got or '(nothing)'}, the target pins {pin.version}",
            "run: mcp-compare tools lock, then commit the host's go.mod and go.sum",
        )


def _version(tools: Path) -> str:
    return run([_go(), "version"], tools=tools, what="go version").strip()


def stamp(pin: Pin, tools: Path) -> str:
    """sha256 of what the build depends on: module files, host sources, Go version, target."""
    digest = hashlib.sha256(f"{pin.target}\0{pin.name}@{pin.version}\0".encode())
    digest.update(_version(tools).encode())
    for path in _sources(pin.target):
        data = path.read_bytes()
        digest.update(f"\0{path.name}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def read_record(tools: Path, target: str) -> dict[str, object] | None:
    """The build record of a host, or None when there is none (or it is unreadable)."""
    try:
        value = json.loads((build_dir(tools, target) / RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def installed_version(tools: Path, target: str, name: str) -> str | None:
    """The version of ``name`` the built host was built with, or None when it is not built."""
    record = read_record(tools, target)
    if record is None or record.get("module") != name or not binary(tools, target).is_file():
        return None
    version = record.get("version")
    return version if isinstance(version, str) else None


def _fresh(pin: Pin, tools: Path, digest: str) -> bool:
    record = read_record(tools, pin.target)
    if record is None or record.get("stamp") != digest:
        return False
    return binary(tools, pin.target).is_file() and Path(str(record.get("dir"))).is_dir()


def install(pin: Pin, tools: Path) -> str:
    """Build one Go target's host from its committed go.mod/go.sum; returns what was done."""
    _check_pin(pin)
    digest = stamp(pin, tools)
    if _fresh(pin, tools, digest):
        return f"{pin.target}: already installed (host built with {pin.name}@{pin.version})"
    start = time.monotonic()
    env = go_env(tools, readonly=True)
    src, out = source_dir(pin.target), binary(tools, pin.target)
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(".host.partial")
    build = [_go(), "build", "-trimpath", "-o", str(partial), "."]
    run(build, tools=tools, cwd=src, env=env, what=f"{pin.target}: go build")
    listed = run(
        [_go(), "list", "-m", "-json", pin.name],
        tools=tools,
        cwd=src,
        env=env,
        what=f"{pin.target}: go list -m {pin.name}",
    )
    module = json.loads(listed)
    if module.get("Version") != pin.version or not module.get("Dir"):
        raise CompareError(
            f"{pin.target}: the build used {pin.name} {module.get('Version')}, "
            f"the target pins {pin.version}",
            "run: mcp-compare tools lock, then commit the host's go.mod and go.sum",
        )
    os.replace(partial, out)
    seconds = round(time.monotonic() - start, 1)
    record = {
        "target": pin.target,
        "module": pin.name,
        "version": pin.version,
        "dir": module["Dir"],
        "stamp": digest,
        "go": _version(tools),
        "build_seconds": seconds,
    }
    write_json(build_dir(tools, pin.target) / RECORD, record)
    return f"{pin.target}: built {pin.name}@{pin.version} into {out} in {seconds} s"


def lock(pin: Pin, tools: Path) -> str:
    """Re-resolve the host's modules around the pinned version; rewrite go.mod and go.sum."""
    src = source_dir(pin.target)
    if not (src / "go.mod").is_file():
        raise CompareError(f"{src / 'go.mod'} is missing", "create the host module first")
    env = go_env(tools, readonly=False)
    what = f"{pin.target}: go get {pin.spec}"
    run([_go(), "get", pin.spec], tools=tools, cwd=src, env=env, what=what)
    run([_go(), "mod", "tidy"], tools=tools, cwd=src, env=env, what=f"{pin.target}: go mod tidy")
    _check_pin(pin)
    count = len(required((src / "go.mod").read_text(encoding="utf-8")))
    return f"{pin.target}: locked {pin.spec} ({count} modules required in go.mod)"
