"""Pipeline stage `pin`: the spec files every later stage reads, fetched and sha256-verified.

Other stages use only :func:`load_pins`, :func:`pinned_path`, :func:`pinned_text`,
:func:`upstream_link` and :func:`release_order` (the one order of revisions, the pins');
the rest is for the ``mcp-compare pin`` commands.
"""

from typing import TYPE_CHECKING

from compare._lazy import exports

if TYPE_CHECKING:  # imported on first use at run time (compare._lazy)
    from compare.pin._access import pinned_path, pinned_text, upstream_link
    from compare.pin._add import AddReport, add_files, add_revision
    from compare.pin._bump import BumpReport, bump
    from compare.pin._fetch import PinReport, fetch, spec_cache, verify
    from compare.pin._pins import PinnedFile, Pins, Revision, load_pins, pins_file, release_order

__all__ = [
    "AddReport",
    "BumpReport",
    "PinReport",
    "PinnedFile",
    "Pins",
    "Revision",
    "add_files",
    "add_revision",
    "bump",
    "fetch",
    "load_pins",
    "pinned_path",
    "pinned_text",
    "pins_file",
    "release_order",
    "spec_cache",
    "upstream_link",
    "verify",
]

if not TYPE_CHECKING:
    __getattr__, __dir__ = exports(__name__)
