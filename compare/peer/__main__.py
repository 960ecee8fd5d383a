"""Entry point for both ways of starting the peer.

``python -I -S .../peer --plan …`` (what the harness runs): with ``-I`` only this folder is on
``sys.path``, not its parent, so the folder is imported as the package ``peer`` from a path
entry appended *after* the standard library (a file beside it can never shadow a stdlib
module). ``python -m compare.peer --plan …``: already a package, import it directly.
"""

import os
import sys

if __package__:
    from ._main import main
else:
    _HERE = os.path.dirname(os.path.abspath(__file__))
    if sys.path and os.path.abspath(sys.path[0]) == _HERE:
        del sys.path[0]  # the folder's modules are reached only through the package name
    sys.path.append(os.path.dirname(_HERE))
    main = __import__(os.path.basename(_HERE) + "._main", fromlist=["main"]).main

if __name__ == "__main__":
    code = main()
    sys.stderr.flush()
    os._exit(code)
