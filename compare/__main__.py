"""Allow ``python -m compare`` as an alias of the ``mcp-compare`` console script."""

from compare.cli import main

main()
