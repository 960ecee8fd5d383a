"""Allow ``python -m compare`` as an alias of the ``mcp-compare`` console script."""

import signal

# A Ctrl-C while the command is still being imported ends it quietly (nothing has started
# yet); compare.cli.main() then installs the handler its command needs.
signal.signal(signal.SIGINT, signal.SIG_DFL)

from compare.cli import script  # noqa: E402

script()
