"""Entry point: ``python -I -S .../peer/client --plan PLAN.json`` (what the harness runs).

With ``-I`` only this folder is on ``sys.path``; it is removed and the folder above the peer
is appended after the standard library, so the client is imported as ``peer.client`` and its
relative imports reach the peer's recorder (see the peer's own ``__main__``).
"""

import os
import sys

if __package__:
    from ._main import main
else:
    _HERE = os.path.dirname(os.path.abspath(__file__))
    if sys.path and os.path.abspath(sys.path[0]) == _HERE:
        del sys.path[0]
    _PEER = os.path.dirname(_HERE)
    sys.path.append(os.path.dirname(_PEER))
    _NAME = os.path.basename(_PEER) + "." + os.path.basename(_HERE) + "._main"
    main = __import__(_NAME, fromlist=["main"]).main

if __name__ == "__main__":
    code = main()
    sys.stderr.flush()
    os._exit(code)
