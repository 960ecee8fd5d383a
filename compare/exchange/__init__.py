"""The data that says what is played and how it is graded, and its loaders.

``targets/`` (what each implementation is and how it is launched), ``scenarios/`` (what is
sent, what each check grades, the named sentences and the gate grades), their JSON Schemas,
and the loaders that read them (``_targets``, ``_scenarios``, ``_yaml``); ``cli.py`` holds the
``run``, ``merge`` and ``peer`` commands.

Where a verdict is reached (issue 22 item 6): cells are played by ``compare.play`` against
``compare.peer`` (or by the scripted client ``compare.peer.client``) and the SDK host
programs of ``compare/hosts/``; transcripts are judged by ``compare.judge``; the tools are
installed by ``compare.install``. No package re-exports another's names: import each from
its module (``compare.exchange._targets.load_targets``), so importing any one module never
starts a cycle through a package's ``__init__``.
"""
