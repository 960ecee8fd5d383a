"""``mcp-compare check``: an implementer's own client or server, played by the matrix's peer,
judge and sentences into a folder of its own, and reported for a terminal, a browser and CI.

Nothing here judges: the cells are the exchange stage's, the row states the rows stage's
rule. This stage only chooses the cells of one program, keeps them out of the published
results, and writes what they say in four forms (``_report``, ``_html``, ``_junit``,
``_terminal``).
"""
