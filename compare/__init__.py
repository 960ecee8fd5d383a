"""mcp-compare: what each MCP spec revision says, and what implementations do on the wire.

The package is laid out as the pipeline it runs, one subpackage per stage:
``pin`` → ``models`` (+ ``diff``) → ``exchange`` → ``rows`` (+ ``cite``) → ``site``.
Each stage reads the previous stage's data from disk and writes its own.
"""

__version__ = "0.1.0"
