"""A proxy cell's wire log says which leg each line travelled; other cells read as before."""

from __future__ import annotations

from compare.site._cells import _entry
from compare.site._render import _wire_line


def test_a_proxy_line_names_its_leg_and_a_second_upstream_connection() -> None:
    host = _entry({"n": 3, "t": 0.5, "dir": "in", "raw": "{}", "leg": "host", "conn": 1}, 0)
    up2 = _entry({"n": 4, "t": 0.6, "dir": "out", "raw": "{}", "leg": "upstream", "conn": 2}, 0)
    assert (host.leg, host.dir) == ("host", "in")
    assert up2.leg == "upstream#2"
    assert " host " in _wire_line(host) and " upstream#2 " in _wire_line(up2)


def test_a_line_without_a_leg_renders_as_before() -> None:
    plain = _entry({"n": 3, "t": 0.5, "dir": "in", "raw": "{}"}, 0)
    harness = _entry({"n": 1, "t": 0.0, "dir": "note", "raw": "{}", "leg": "harness"}, 0)
    assert plain.leg == "" and harness.leg == ""
    assert _wire_line(plain) == "   3   0.5000 → {}"
