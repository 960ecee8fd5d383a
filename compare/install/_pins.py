"""What the target files pin: one package per target, read through the engine's loader."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from compare._errors import CompareError
from compare.exchange._targets import Target, load_targets


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
    targets = load_targets(targets_dir)
    by_id = {t.id: t for t in targets}
    for target in targets:
        package = target.package
        if not package:
            continue
        raw = target.raw.get("package", {})
        if raw.get("installed_by"):  # another target's install (its HTTP mode): not twice
            _check_installed_by(target.id, raw, by_id)
            continue
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


def _check_installed_by(target: str, raw: dict[str, object], by_id: dict[str, Target]) -> None:
    """``installed_by`` names a target that installs the very same package."""
    other = by_id.get(str(raw["installed_by"]))
    same = (
        other is not None
        and other.package
        and all(other.package.get(k) == raw.get(k) for k in ("registry", "name", "version"))
    )
    if not same:
        raise CompareError(
            f"target {target}: package.installed_by {raw['installed_by']!r} is no target that"
            " installs the same registry, name and version",
            "name the target whose install this one runs, with its package copied exactly",
        )
