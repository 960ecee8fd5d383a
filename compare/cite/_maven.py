"""``maven:GROUP:ARTIFACT@VERSION/path`` citations: a file inside the artifact's sources jar.

A Maven host's SDK is a set of jars; what a reader can check a claim against is the source
the publisher shipped beside them, ``<artifact>-<version>-sources.jar``. ``tools install``
asks Maven for those jars, which leaves them in the local repository (``~/.m2/repository`` or
``$MCP_COMPARE_M2_REPO``); this reader opens the jar there, at exactly the cited version.

When the jar is absent the source is unavailable and not offline-verifiable: the registry
these machines reach does not serve a sources jar for every release, and then no install can
fix it, so it is reported like an upstream repository without a clone, never as verified.
"""

from __future__ import annotations

import zipfile

from compare._paths import m2_repository
from compare.cite._parse import Citation
from compare.cite._sources import Source, split_lines


def sources_jar_name(artifact: str, version: str) -> str:
    return f"{artifact}-{version}-sources.jar"


def maven_source(cit: Citation, start: int | None = None, end: int | None = None) -> Source:
    """The cited file's lines from the local sources jar, or why they cannot be read."""
    assert cit.package and cit.version
    group, _, artifact = cit.package.partition(":")
    provenance = f"maven {cit.package}:{cit.version} (sources jar)"
    folder = m2_repository() / group.replace(".", "/") / artifact / cit.version
    jar = folder / sources_jar_name(artifact, cit.version)
    if not jar.is_file():
        reason = (
            f"source unavailable: no {jar.name} in {folder} (`mcp-compare tools install` "
            "fetches it where the registry serves one)"
        )
        return Source(None, provenance, None, reason, False)
    try:
        with zipfile.ZipFile(jar) as archive:
            data = archive.read(cit.path)
    except KeyError:
        return Source(None, provenance, None, f"{cit.path} is not in {jar.name}", True)
    except (OSError, zipfile.BadZipFile) as err:
        return Source(None, provenance, None, f"cannot read {jar}: {err}", True)
    return Source(split_lines(data.decode("utf-8", errors="replace")), provenance, None, None, True)
