"""Playing cells: launch a target against the peer (or the scripted client),
keep every byte either side sent, and store the cell with its verdict.

The judging is ``compare.judge``'s; what is played is the data of ``compare.exchange``.
Import modules directly (``compare.play._harness``): this package re-exports nothing.
"""
