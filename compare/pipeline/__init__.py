"""``mcp-compare compare``: the whole pipeline in one process, each stage skipped while its
inputs and outputs are unchanged (``compare._stamp``).

pin verify → models → diff → run → rows → cite --check → render → export → site. Nine Python
start-ups and a full ``mkdocs build`` for a checkout where nothing changed cost tens of
seconds; one process that asks each stage's stamp first costs a few stat calls.
"""

from typing import TYPE_CHECKING

from compare._lazy import exports

if TYPE_CHECKING:  # imported on first use at run time (compare._lazy)
    from compare.pipeline._stages import STAGES, Outcome, Selection, run_pipeline

__all__ = ["STAGES", "Outcome", "Selection", "run_pipeline"]

if not TYPE_CHECKING:
    __getattr__, __dir__ = exports(__name__)
