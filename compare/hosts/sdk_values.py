"""What the Python hosts whose library speaks the official SDK's types (``mcp_types``) share
for a scripted session (hosts/README.md): its values as JSON, a completion reference built
from a plan's request, and the JSON-RPC code of an error the server answered with.

Said once here so that each host holds only the calls of its own library. Imported from the
host's venv, where ``mcp_types`` is the SDK's own (py-sdk, fastmcp).
"""

from __future__ import annotations

from typing import Any

import mcp_types


def dump(value: Any) -> Any:
    """An SDK value as JSON, by the SDK's own serializer (pydantic, wire names)."""
    return value.model_dump(mode="json", by_alias=True, exclude_none=True)


def reference(
    ref: dict[str, str],
) -> mcp_types.PromptReference | mcp_types.ResourceTemplateReference:
    """A plan's completion reference as the SDK's type: a prompt by name, a resource template
    by its URI template."""
    if ref["type"] == "ref/prompt":
        return mcp_types.PromptReference(type="ref/prompt", name=ref["name"])
    return mcp_types.ResourceTemplateReference(type="ref/resource", uri=ref["name"])


def error_code(err: BaseException) -> int | None:
    """The JSON-RPC code of an error the server answered with (the SDK's MCPError keeps it in
    ``error.code``); None for any other failure."""
    code = getattr(getattr(err, "error", None), "code", None)
    return code if isinstance(code, int) else None
