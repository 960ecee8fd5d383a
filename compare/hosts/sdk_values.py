"""What the Python hosts whose library speaks the official SDK's 2.x types (``mcp_types``)
share for a scripted session (hosts/README.md): a completion reference built from a plan's
request. (A value as JSON and an error's code are in ``host_plan.py``, for every host.)

Said once here so that each host holds only the calls of its own library. Imported from the
host's venv, where ``mcp_types`` is the SDK's own (py-sdk, fastmcp).
"""

from __future__ import annotations

import mcp_types


def reference(
    ref: dict[str, str],
) -> mcp_types.PromptReference | mcp_types.ResourceTemplateReference:
    """A plan's completion reference as the SDK's type: a prompt by name, a resource template
    by its URI template."""
    if ref["type"] == "ref/prompt":
        return mcp_types.PromptReference(type="ref/prompt", name=ref["name"])
    return mcp_types.ResourceTemplateReference(type="ref/resource", uri=ref["name"])
