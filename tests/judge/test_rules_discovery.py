"""Rule modules are found, not listed (issue 22 item 4): every public module of the rules
package registers its rules on import, a module that fails to import stops the judge with its
name, and a rule name registered twice is refused instead of silently replacing the first.
"""

from __future__ import annotations

import pkgutil
import sys
from pathlib import Path

import pytest

from compare._errors import CompareError
from compare.judge import rules as _rules
from compare.judge.rules import MODULES, RULES, discover
from compare.judge.rules._registry import Outcome, rule


def test_every_public_module_of_the_rules_package_is_imported() -> None:
    public = {m.name for m in pkgutil.iter_modules(_rules.__path__) if not m.name.startswith("_")}
    assert {m.__name__.rsplit(".", 1)[1] for m in MODULES} == public
    # the generic rules are among them, found like every other module
    assert {"request-answered", "result-valid", "capability-declared", "notification-sent"} <= set(
        RULES
    )


def _package(tmp_path: Path, name: str, files: dict[str, str]) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "__init__.py").write_text("", encoding="utf-8")
    for file, text in files.items():
        (folder / file).write_text(text, encoding="utf-8")
    return folder


def test_a_module_that_fails_to_import_is_a_clear_error_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _package(
        tmp_path,
        "rulespkg_broken",
        {"alpha.py": "FOUND = True\n", "beta.py": "import no_such_module_here\n"},
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(CompareError) as err:
        discover([str(folder)], "rulespkg_broken")
    assert "judge rule module rulespkg_broken.beta failed to import" in err.value.message
    assert "ModuleNotFoundError" in err.value.message
    assert err.value.hint is not None and "beta.py" in err.value.hint
    for name in [n for n in sys.modules if n.startswith("rulespkg_broken")]:
        del sys.modules[name]


def test_private_modules_are_not_imported_as_rule_modules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _package(
        tmp_path,
        "rulespkg_private",
        {"alpha.py": "FOUND = True\n", "_helpers.py": "raise RuntimeError('never imported')\n"},
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    found = discover([str(folder)], "rulespkg_private")
    assert [m.__name__ for m in found] == ["rulespkg_private.alpha"]
    for name in [n for n in sys.modules if n.startswith("rulespkg_private")]:
        del sys.modules[name]


def test_a_rule_name_registered_twice_is_refused() -> None:
    def again(ctx: object) -> Outcome:
        return Outcome("x", "")

    again.__module__ = "some.other.module"
    first = RULES["request-answered"]
    with pytest.raises(CompareError, match="judge rule 'request-answered' is registered twice"):
        rule("request-answered", ("x",))(again)  # type: ignore[arg-type]
    assert RULES["request-answered"] is first
