"""The ``mcp-compare`` command: a thin shell that mounts each stage's commands.

Each stage owns ``compare/<stage>/cli.py`` with a ``register(app)`` function; this module
only wires them together and turns :class:`CompareError` into a clean message and exit code.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import typer

from compare import __version__
from compare._console import HELP_MARKUP, labelled, make_console
from compare._errors import CompareError

app = typer.Typer(
    name="mcp-compare",
    help="What each MCP spec revision says about a feature, and what real implementations do.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=HELP_MARKUP,
    # Plain help stops at 80 columns by default, cutting each command's summary short even
    # in a wide terminal; it still fits a narrow one.
    context_settings={"max_content_width": 120},
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(__version__)
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(
        False,
        "--version",
        help="Print the version and exit.",
        callback=_print_version,
        is_eager=True,
    ),
) -> None:
    """Commands of each pipeline stage; `make compare` runs them in order."""


#: Commands that need only their own module: ``mcp-compare compare`` skips in milliseconds
#: when nothing changed, so it does not pay for importing every stage.
_LIGHT = {"compare": "compare.pipeline.cli"}


def _tools_installed() -> bool:
    """``mcp-compare tools install`` (as ``make tools`` runs it) with its stamp still holding:
    say so and stop before any stage is imported (importing the exchange stage alone costs
    more than the check)."""
    if sys.argv[1:] != ["tools", "install"]:
        return False
    from compare import _lock, _paths
    from compare.pipeline._tools import skipped

    # An install in progress elsewhere may be rewriting what the stamp describes: wait for
    # it through the full command instead of answering from the stamp.
    if _lock.is_held_elsewhere(_paths.tools_dir()) or not skipped():
        return False
    print("tools install: skipped (unchanged inputs)", flush=True)
    return True


def _register_stages() -> None:
    # Imported here so `mcp-compare peer` (on every cell's critical path) pays only for what
    # it uses; see compare/exchange/cli.py.
    import importlib

    first = sys.argv[1:2]
    if first and first[0] in _LIGHT:
        importlib.import_module(_LIGHT[first[0]]).register(app)
        return

    from compare.check import cli as check_cli
    from compare.cite import cli as cite_cli
    from compare.diff import cli as diff_cli
    from compare.exchange import cli as exchange_cli
    from compare.install import cli as install_cli
    from compare.models import cli as models_cli
    from compare.pin import cli as pin_cli
    from compare.pipeline import cli as pipeline_cli
    from compare.rows import cli as rows_cli
    from compare.site import cli as site_cli

    for stage in (
        pin_cli,
        models_cli,
        diff_cli,
        install_cli,
        exchange_cli,
        rows_cli,
        cite_cli,
        site_cli,
        pipeline_cli,
        check_cli,
    ):
        stage.register(app)


def _user_error(err: BaseException) -> CompareError:
    """A :class:`CompareError` as it is; an ``OSError`` a user fixes (a full disk, a
    read-only or foreign folder) raised by a write that bypassed ``compare._atomic`` (a
    folder renamed into place, a copy) as one naming the path. Any other ``OSError`` is a bug
    of ours and keeps its traceback."""
    if isinstance(err, CompareError):
        return err
    from compare._atomic import USER_ERRNOS, storage_error

    if not isinstance(err, OSError) or err.errno not in USER_ERRNOS:
        raise err
    return storage_error(err, Path(str(err.filename or "(unnamed file)")))


def main() -> None:
    """Entry point of the console script.

    Click's standalone mode already turns usage errors into a message and exit code 2;
    :class:`CompareError` passes through it untouched and is printed here the same way.
    """
    from compare._guard import Interrupted, exit_interrupted, handle_signals

    # No pydantic plugin is part of this tool, and looking for one reads the entry points of
    # every installed distribution: tens of milliseconds in each command that loads a
    # revision's models. A maintainer who wants a plugin's hooks sets the variable to the
    # empty string.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    if sys.argv[1:2] in (["compare"], ["run"], ["merge"]) or sys.argv[1:3] == ["tools", "install"]:
        # Commands that play cells or install: a signal stops them promptly and cleanly,
        # from here on (stage imports included).
        handle_signals()
    elif signal.getsignal(signal.SIGINT) == signal.SIG_DFL:
        signal.signal(signal.SIGINT, signal.default_int_handler)  # see __main__.py
    try:
        if _tools_installed():
            return
        _register_stages()
        app()
    except Interrupted as stopped:
        exit_interrupted(stopped)
    except (CompareError, OSError) as caught:
        err = _user_error(caught)
        console = make_console(stderr=True)
        # Plain text: messages name user paths and peer output, never markup.
        console.print(labelled("error:", "bold red", err.message), highlight=False, soft_wrap=True)
        if err.hint:
            console.print(labelled("hint:", "yellow", err.hint), highlight=False, soft_wrap=True)
        sys.exit(err.exit_code)


def script() -> None:
    """The ``mcp-compare`` console script: :func:`main`, then an exit without the
    interpreter's module teardown (``compare._exit.leave``). Tests call :func:`main`, which
    ends the normal way."""
    from compare._exit import leave

    try:
        main()
    except SystemExit as ended:
        leave(ended.code)
    leave(0)
