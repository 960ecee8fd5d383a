"""Pipeline stage `models`: typed pydantic models per spec revision, and validation with them.

Other stages use :func:`validate_line` and :func:`validate_as` (returning a
:class:`Validation`); :func:`generate_models` is behind ``mcp-compare models``; the diff
stage walks schemas with :func:`definitions` and :func:`refs`; :func:`first_modern` is the era
boundary (the first pinned revision without ``initialize``) for the exchange.
"""

from typing import TYPE_CHECKING

from compare._lazy import exports

if TYPE_CHECKING:  # imported on first use at run time (compare._lazy)
    from compare.models._era import first_modern, has_initialize
    from compare.models._files import models_dir, module_path
    from compare.models._generate import ModelsReport, generate_models
    from compare.models._load import SchemaIndex, model_class, models_module, schema_index
    from compare.models._schema import definitions, refs
    from compare.models._validate import Issue, Kind, Validation, validate_as, validate_line

__all__ = [
    "Issue",
    "Kind",
    "ModelsReport",
    "SchemaIndex",
    "Validation",
    "definitions",
    "first_modern",
    "generate_models",
    "has_initialize",
    "model_class",
    "models_dir",
    "models_module",
    "module_path",
    "refs",
    "schema_index",
    "validate_as",
    "validate_line",
]

if not TYPE_CHECKING:
    __getattr__, __dir__ = exports(__name__)
