"""Raw-URI judging of roots: each classic encoding mistake gets its own outcome."""

from __future__ import annotations

import pytest

from compare.judge._uri import judge_file_uri

WS = "/tmp/mcpc-x/web #staging é"
GOOD = "file:///tmp/mcpc-x/web%20%23staging%20%C3%A9"


@pytest.mark.parametrize(
    ("uri", "outcome"),
    [
        (GOOD, "encoded"),
        (GOOD.lower().replace("file:///tmp/mcpc-x/web", "file:///tmp/mcpc-x/web"), "encoded"),
        (GOOD + "/", "encoded"),
        ("file:///tmp/mcpc-x/web #staging é", "hash-unencoded"),
        ("file:///tmp/mcpc-x/web%20#staging%20%C3%A9", "hash-unencoded"),
        ("file:///tmp/mcpc-x/web %23staging %C3%A9", "space-unencoded"),
        ("file:///tmp/mcpc-x/web%20%23staging%20é", "non-ascii-raw"),
        ("file://host/tmp/mcpc-x/web%20%23staging%20%C3%A9", "host-authority"),
        ("file://localhost/tmp/mcpc-x/web%20%23staging%20%C3%A9", "localhost-authority"),
        ("file:/tmp/mcpc-x/web%20%23staging%20%C3%A9", "no-authority"),
        (GOOD + "?x=1", "query"),
        ("file:tmp/mcpc-x/web", "relative"),
        ("/tmp/mcpc-x/web%20%23staging%20%C3%A9", "not-file"),
        ("https://example.com/x", "not-file"),
        ("file:///tmp/mcpc-x/other", "wrong-path"),
        ("file:///tmp/mcpc-x/web%20%23staging%20%E9", "invalid-uri"),
        ("file:///tmp/mcpc-x/web%20%23staging%20%C3%A9%", "invalid-uri"),
        ("file:///tmp/mcpc-x/web%20%23staging%20e%CC%81", "wrong-path"),
    ],
)
def test_uri_outcome(uri: str, outcome: str) -> None:
    assert judge_file_uri(uri, WS)[0] == outcome


def test_hash_unencoded_reports_the_truncated_path() -> None:
    outcome, why = judge_file_uri("file:///tmp/mcpc-x/web%20#staging%20%C3%A9", WS)
    assert outcome == "hash-unencoded"
    assert "/tmp/mcpc-x/web " in why


def test_raw_hash_in_another_folders_uri_is_wrong_path_not_misencoded() -> None:
    """Regression: fastmcp's second roots/list repeated only the first root (raw '#'); the
    added folder was missing, yet it was reported as listed-but-misencoded."""
    first_root = "file:///tmp/mcpc-x/web%20#staging%20%C3%A9"
    outcome, why = judge_file_uri(first_root, WS + "/added root ü")
    assert outcome == "wrong-path"
    assert "added root" in why


@pytest.mark.parametrize(
    ("uri", "outcome"),
    [
        ("file:///tmp/mcpc-x/web%20%23staging%20\ud800", "invalid-uri"),
        ("file://file://\ud800", "host-authority"),
        ("file:///tmp/mcpc-x/web%20\ud800#staging", "wrong-path"),
    ],
)
def test_a_lone_surrogate_is_judged_not_raised(uri: str, outcome: str) -> None:
    # Found by tests/fuzz/test_fuzz_judge.py: a client's JSON "\ud800" escape in a root's URI
    # made the percent-decoder raise UnicodeEncodeError, so the check became a rule failure
    # (an error cell) instead of a finding about the URI.
    assert judge_file_uri(uri, WS)[0] == outcome
