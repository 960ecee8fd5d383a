"""What the target files pin: one package per target, read through the engine's loader."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from compare.exchange._targets import load_targets


@dataclass(frozen=True)
class Pin:
    """One exact package a target needs, plus the exact extras installed beside it."""

    target: str
    registry: str
    name: str
    version: str
    extras: tuple[str, ...] = ()
    #: The target's kind: a crates pin of an ``sdk-host``, or of a target with a host folder of
    #: ours (``compare/hosts/<target>/Cargo.toml``), is a host of ours; any other a program.
    kind: str = ""
    #: npm only: ``own`` installs into ``tools/npm/<target>/`` (``package.tree``), and
    #: ``node`` is the Node.js version installed there beside it (``package.node``).
    tree: str = ""
    node: str = ""

    @property
    def spec(self) -> str:
        """The requirement as the registry's own client writes it."""
        sep = "==" if self.registry == "pypi" else "@"
        return f"{self.name}{sep}{self.version}"


def canonical(name: str) -> str:
    """PyPI's normalised project name (PEP 503), so ``Foo_Bar`` and ``foo-bar`` compare equal."""
    return re.sub(r"[-_.]+", "-", name).lower()


def load_pins(targets_dir: Path | None = None) -> list[Pin]:
    """Every target's package, in target order; targets without one (cited, command) are skipped."""
    pins: list[Pin] = []
    for target in load_targets(targets_dir):
        package = target.package
        if not package:
            continue
        raw = target.raw.get("package", {})
        extras = tuple(str(x) for x in raw.get("extras", []))
        pins.append(
            Pin(
                target.id,
                package["registry"],
                package["name"],
                package["version"],
                extras,
                target.kind,
                str(raw.get("tree", "")),
                str(raw.get("node", "")),
            )
        )
    return pins
