"""``mcp-compare run --shard I/N``: a deterministic share of the selected cells per machine.

Every machine of a CI matrix computes the same assignment from the same selection, so the N
shards together hold each cell exactly once, whatever order the target and scenario files are
read in: the cells are sorted before they are dealt out. Dealing is round-robin over one
sequence that lists, target by target, the cells that will run (those whose scenario declares
the longest waits first, then by label) and only then the cells that cannot ("not run,
because …", nearly free): each target's cells, its slow and its fast ones, spread over every
shard, and the costly cells are spread before the free ones fill the gaps.
Not-run cells are still dealt out, so the merged tree is as complete as a serial run's.
"""

from __future__ import annotations

import re

from compare._errors import CompareError
from compare.play._cells import Cell

_SHARD = re.compile(r"\s*(\d+)\s*/\s*(\d+)\s*")


def parse_shard(text: str) -> tuple[int, int]:
    """``"2/5"`` -> ``(2, 5)``; anything else (0, I > N, not numbers) is a CompareError."""
    match = _SHARD.fullmatch(text)
    hint = "--shard I/N with 1 <= I <= N, e.g. --shard 1/4 … --shard 4/4"
    if not match:
        raise CompareError(f"--shard {text!r} is not of the form I/N", hint)
    index, count = int(match.group(1)), int(match.group(2))
    if count < 1 or not 1 <= index <= count:
        raise CompareError(f"--shard {text!r}: I must be between 1 and N (N at least 1)", hint)
    return index, count


def declared_waits(cell: Cell) -> float:
    """The scenario's declared waits (``observe_s``): the part of a cell's cost known before
    it runs, the same for every client."""
    steps = [*cell.scenario.steps, *(cell.scenario.raw.get("upstream_steps") or [])]
    return sum(float(s.get("observe_s", 0)) for s in steps if isinstance(s, dict))


def _order(cells: list[Cell]) -> list[Cell]:
    """The dealing order: per target (sorted), its playable cells, longest declared waits
    first, then by label; then every not-run cell by label."""
    playable = sorted(
        (c for c in cells if c.not_run_reason() is None),
        key=lambda c: (c.target.id, -declared_waits(c), c.label),
    )
    idle = sorted((c for c in cells if c.not_run_reason() is not None), key=lambda c: c.label)
    return playable + idle


def shard_cells(cells: list[Cell], index: int, count: int) -> list[Cell]:
    """The cells of shard ``index`` (1-based) of ``count``, in the order of ``cells``."""
    if count < 1 or not 1 <= index <= count:
        raise CompareError(f"shard {index}/{count} does not exist", "use 1 <= I <= N")
    mine = {id(c) for k, c in enumerate(_order(cells)) if k % count == index - 1}
    return [c for c in cells if id(c) in mine]
