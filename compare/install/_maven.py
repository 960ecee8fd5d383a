"""Maven-built SDK hosts: a host program of ours on the JVM, built against a pinned SDK.

A target with ``package.registry: maven`` names ``group:artifact`` and an exact version. Its host
sources live in ``compare/hosts/<target>/``: ``pom.xml`` (that dependency at that
version, nothing resolved by range), ``deps.lock`` (written by ``tools lock``: every jar of the
resolved closure with its sha256) and the host's ``.java`` or ``.kt`` files. ``tools install``
then builds ``tools/hosts/<target>/``:

- ``lib/``: the closure, by ``mvn dependency:copy-dependencies`` (``-o`` first when the local
  repository already holds the pinned artifact, so a warm machine needs no network), checked
  jar by jar against ``deps.lock``, so a re-published or re-resolved jar is caught;
- ``classes/``: plain ``javac`` on Java sources; for Kotlin, ``mvn compile`` with the Kotlin
  compiler plugin the POM pins (the compiler comes from the same registry);
- ``sources/``: the SDK's own ``-sources.jar`` files where Central serves them, which also puts
  them in the local repository, where ``maven:`` citations are read from;
- ``bin/host``: the launcher the target's ``launch.argv`` names.

The build is skipped when the stamp holds the sha256 of the POM, the lock and the sources.
Maven keeps its downloads in the user's local repository (``~/.m2/repository`` of the real
home, or ``$MCP_COMPARE_M2_REPO``), passed explicitly since the installers' home is moved.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

from compare._atomic import write_text
from compare._errors import CompareError
from compare._paths import m2_repository
from compare.install._pins import Pin
from compare.install._run import require, run

#: Host sources, one folder per Maven target (``compare/hosts/<target>/``).
HOSTS_SRC = Path(__file__).resolve().parents[1] / "hosts"
LOCK_NAME = "deps.lock"
STAMP = ".mcp-compare-stamp"
MVN_HINT = "install Maven and a JDK >= 17 (e.g. apt-get install maven openjdk-17-jdk-headless)"
_POM_NS = "{http://maven.apache.org/POM/4.0.0}"
LAUNCHER = """#!/bin/sh
# Written by `mcp-compare tools install`: runs the {target} host on its pinned classpath.
here=$(cd "$(dirname "$0")/.." && pwd)
# C1 only and the serial collector: a short-lived client starts faster and competes less for
# the machine's two cores with the peer it talks to; neither changes what goes on the wire.
exec java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp "$here/classes:$here/lib/*" {main} "$@"
"""


def host_dir(tools: Path, target: str) -> Path:
    return tools / "hosts" / target


def _coordinates(pin: Pin) -> tuple[str, str]:
    group, sep, artifact = pin.name.partition(":")
    if not sep or not group or not artifact or ":" in artifact:
        raise CompareError(
            f"{pin.target}: maven package {pin.name!r} is not group:artifact",
            "write e.g. io.modelcontextprotocol.sdk:mcp",
        )
    return group, artifact


def pom_pins(pom: Path) -> dict[str, str]:
    """``group:artifact`` -> version of each direct dependency the POM declares."""
    try:
        root = ET.parse(pom).getroot()
    except (OSError, ET.ParseError) as err:
        raise CompareError(f"cannot read {pom}: {err}", "fix the POM") from None
    found: dict[str, str] = {}
    for dep in root.iter(f"{_POM_NS}dependency"):
        parts = [dep.findtext(f"{_POM_NS}{k}", "").strip() for k in ("groupId", "artifactId")]
        found[":".join(parts)] = dep.findtext(f"{_POM_NS}version", "").strip()
    return found


def _check_pom(pin: Pin, src: Path) -> Path:
    _coordinates(pin)
    pom = src / "pom.xml"
    if not pom.is_file():
        raise CompareError(f"{pin.target}: {pom} is missing", "add the host's pom.xml")
    declared = pom_pins(pom).get(pin.name)
    if declared != pin.version:
        raise CompareError(
            f"{pom} pins {pin.name} at {declared or 'nothing'}, the target file at {pin.version}",
            "make the POM's <version> and the target's package.version the same",
        )
    return pom


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _jar_hashes(lib: Path) -> dict[str, str]:
    return {jar.name: _sha256(jar) for jar in sorted(lib.glob("*.jar"))}


def read_lock(path: Path) -> dict[str, str]:
    """``deps.lock``: one ``<jar file name> <sha256>`` line per jar; ``#`` starts a comment."""
    found: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, digest = line.partition(" ")
            found[name] = digest.strip()
    return found


#: Maven's JVM with C1 only and the serial collector, as the hosts' launchers run theirs: a
#: short build spends most of its CPU compiling its own bytecode, and a Kotlin compile of a
#: host took half the CPU this way (12 CPU-s, not 24, measured on 2 cores).
_MAVEN_OPTS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
#: kotlin-maven-plugin compiles in Maven's own JVM, not in a Kotlin daemon of its own: the
#: daemon is a second JVM (up to a 6 GB heap) that outlives the build by two hours idle, and
#: the CPU it spends is nobody's child, so no measure of the install saw it.
_NO_DAEMON = "-Dkotlin.compiler.daemon=false"


def _mvn(pom: Path, tools: Path, *goal: str, offline: bool, what: str) -> str:
    argv = [require("mvn", MVN_HINT), "-q", "-B", *(["-o"] if offline else [])]
    argv += ["-f", str(pom), f"-Dmaven.repo.local={m2_repository()}", _NO_DAEMON, *goal]
    return run(argv, tools=tools, what=what, extra_env={"MAVEN_OPTS": _MAVEN_OPTS})


def _mvn_warm(pin: Pin, pom: Path, tools: Path, *goal: str, what: str) -> None:
    """Run a goal offline first when the pinned artifact is already local, else online."""
    group, artifact = _coordinates(pin)
    local = m2_repository() / group.replace(".", "/") / artifact / pin.version
    if (local / f"{artifact}-{pin.version}.pom").is_file():
        try:
            _mvn(pom, tools, *goal, offline=True, what=f"{what} (offline)")
            return
        except CompareError:
            pass  # something is not local yet: go online
    _mvn(pom, tools, *goal, offline=False, what=what)


def _copy_deps(pin: Pin, pom: Path, tools: Path, lib: Path) -> None:
    """The closure into ``lib`` (a fresh folder: a failed offline try leaves nothing)."""
    shutil.rmtree(lib, ignore_errors=True)
    goal = ("dependency:copy-dependencies", f"-DoutputDirectory={lib}")
    _mvn_warm(pin, pom, tools, *goal, what=f"{pin.target}: mvn copy-dependencies")


def _copy_sources(pin: Pin, pom: Path, tools: Path, out: Path) -> list[str]:
    """The SDK group's ``-sources.jar`` files that Central serves (none is an error)."""
    group, _ = _coordinates(pin)
    goal = (
        "dependency:copy-dependencies",
        "-Dclassifier=sources",
        f"-DincludeGroupIds={group}",
        "-Dmdep.failOnMissingClassifierArtifact=false",
        f"-DoutputDirectory={out}",
    )
    # Offline first (a warm repository has them); online when that found none. A failure
    # costs nothing but the citations, which then read "unavailable": the host needs no sources.
    for offline in (True, False):
        shutil.rmtree(out, ignore_errors=True)
        try:
            _mvn(pom, tools, *goal, offline=offline, what=f"{pin.target}: mvn sources")
        except CompareError:
            continue
        found = sorted(p.name for p in out.glob("*.jar"))
        if found:
            return found
    return []


def _sources(src: Path) -> list[Path]:
    """The host program: ``.java`` files (compiled by javac) or ``.kt`` files (by the POM)."""
    return sorted([*src.glob("*.java"), *src.glob("*.kt")])


def _digest(src: Path) -> str:
    h = hashlib.sha256()
    for path in sorted([src / "pom.xml", src / LOCK_NAME, *_sources(src)]):
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def installed_version(tools: Path, target: str, name: str | None = None) -> str | None:
    """The version the last successful build of the target's host was made against, or None."""
    try:
        data = json.loads((host_dir(tools, target) / STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    version = data.get("version") if isinstance(data, dict) else None
    return str(version) if version else None


def _stamp(tools: Path, target: str) -> dict[str, object]:
    try:
        data = json.loads((host_dir(tools, target) / STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def install(pin: Pin, tools: Path, src_root: Path | None = None) -> str:
    """Build one Maven target's host from its committed POM and lock; returns what was done."""
    src = (src_root or HOSTS_SRC) / pin.target
    pom = _check_pom(pin, src)
    lock = src / LOCK_NAME
    if not lock.is_file():
        raise CompareError(f"{lock} is missing", "run: mcp-compare tools lock, then commit it")
    out = host_dir(tools, pin.target)
    digest = _digest(src)
    if _stamp(tools, pin.target).get("digest") == digest and (out / "bin" / "host").is_file():
        return f"{pin.target}: already installed (host built with {pin.name}@{pin.version})"
    _copy_deps(pin, pom, tools, out / "lib")
    want, got = read_lock(lock), _jar_hashes(out / "lib")
    if want != got:
        changed = sorted(set(want.items()) ^ set(got.items()))
        raise CompareError(
            f"{pin.target}: the resolved jars differ from {lock}: "
            + ", ".join(name for name, _ in changed[:6]),
            "run: mcp-compare tools lock (the POM changed), then commit deps.lock",
        )
    _compile(pin, src, out, tools)
    sources = _copy_sources(pin, pom, tools, out / "sources")
    stamp = {"digest": digest, "package": pin.name, "version": pin.version, "sources": sources}
    write_text(out / STAMP, json.dumps(stamp, indent=1) + "\n")
    return f"{pin.target}: built {pin.name}@{pin.version} ({len(got)} jars)"


def _compile(pin: Pin, src: Path, out: Path, tools: Path) -> None:
    """Java sources go through plain javac; Kotlin ones through the POM's compiler plugin.

    Either way the classes land in ``classes/`` and ``bin/host`` runs the first file's main
    class (a Kotlin file's top-level ``main`` lives in the class ``<File>Kt``).
    """
    files = _sources(src)
    if not files:
        raise CompareError(f"{pin.target}: no .java or .kt file in {src}", "add the host program")
    classes = out / "classes"
    shutil.rmtree(classes, ignore_errors=True)
    if files[0].suffix == ".kt":
        build = out / "build"
        shutil.rmtree(build, ignore_errors=True)
        goal = ("compile", f"-Dhost.build={build}")
        _mvn_warm(pin, src / "pom.xml", tools, *goal, what=f"{pin.target}: mvn compile")
        (build / "classes").rename(classes)
        shutil.rmtree(build, ignore_errors=True)
        main = files[0].stem + "Kt"
    else:
        javac = require("javac", MVN_HINT)
        argv = [javac, "-encoding", "UTF-8", "-nowarn", "-d", str(classes)]
        argv += ["-cp", f"{out / 'lib'}/*", *map(str, files)]
        run(argv, tools=tools, what=f"{pin.target}: javac")
        main = files[0].stem
    launcher = out / "bin" / "host"
    write_text(launcher, LAUNCHER.format(target=pin.target, main=main))
    launcher.chmod(0o755)


def lock(pin: Pin, tools: Path, src_root: Path | None = None) -> str:
    """Resolve the POM afresh (online) and write ``deps.lock`` from the jars it brought."""
    src = (src_root or HOSTS_SRC) / pin.target
    pom = _check_pom(pin, src)
    lib = host_dir(tools, pin.target) / "lib"
    shutil.rmtree(lib, ignore_errors=True)
    _mvn(
        pom,
        tools,
        "dependency:copy-dependencies",
        f"-DoutputDirectory={lib}",
        offline=False,
        what=f"{pin.target}: mvn copy-dependencies",
    )
    hashes = _jar_hashes(lib)
    header = (
        f"# generated by `mcp-compare tools lock` for target {pin.target} "
        f"({pin.name}@{pin.version}); do not edit.\n"
        "# Every jar of the resolved closure and its sha256; `tools install` checks them.\n"
    )
    body = "".join(f"{name} {digest}\n" for name, digest in hashes.items())
    write_text(src / LOCK_NAME, header + body)
    (host_dir(tools, pin.target) / STAMP).unlink(missing_ok=True)
    return f"{pin.target}: locked {len(hashes)} jars"
