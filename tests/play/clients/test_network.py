"""Nothing leaves the machine: every connect() a client makes goes to loopback or a local socket.

Each CLI target plays one roots-list cell through the real harness with its launch (and setup)
commands wrapped in ``strace -f -e trace=connect,execve``; the trace is read back from the cell
folder. ``--seccomp-bpf`` has the kernel stop a client only at those two calls, not at every
call it makes: the same trace, at half the CPU. The target entries point every endpoint the
clients were seen to use (model APIs, plugin installs, plugin syncs) at a closed local port;
this is what proves it, per client.
A machine without strace (or one that forbids ptrace) fails here with that reason.
"""

from __future__ import annotations

import copy
import json
import re
import shutil
from pathlib import Path

import pytest

from compare.play._run import run, select

from .conftest import CLI_BINS, target_entry

pytestmark = pytest.mark.clients

#: One connect() line of strace: the address family and the address, whatever the protocol.
CONNECT = re.compile(r"connect\(\d+, \{sa_family=(AF_\w+)(.*?)\}, \d+\)")
IPV4 = re.compile(r'inet_addr\("([0-9.]+)"\)')
IPV6 = re.compile(r'inet_pton\(AF_INET6, "([0-9a-fA-F:.]+)"')


def _traced(raw: dict[str, object], strace: str) -> dict[str, object]:
    """The entry with its launch and setup commands run under strace, traces in the cell."""
    data = copy.deepcopy(raw)
    wrap = [strace, "-f", "--seccomp-bpf", "-qq", "-s", "400", "-e", "trace=connect,execve", "-o"]
    launch = data["launch"]
    assert isinstance(launch, dict)
    launch["argv"] = [*wrap, "{cell}/strace-launch.txt", *launch["argv"]]
    setup = data.get("setup") or []
    assert isinstance(setup, list)
    data["setup"] = [[*wrap, f"{{cell}}/strace-setup-{i}.txt", *cmd] for i, cmd in enumerate(setup)]
    return data


def off_machine(trace: str) -> list[str]:
    """connect() calls to anything but loopback or a local (unix/netlink) socket."""
    bad = []
    for family, rest in CONNECT.findall(trace):
        if family in ("AF_UNIX", "AF_NETLINK", "AF_UNSPEC"):
            continue
        v4, v6 = IPV4.search(rest), IPV6.search(rest)
        if v4 and v4.group(1).startswith("127."):
            continue
        if v6 and v6.group(1) in ("::1", "::ffff:127.0.0.1"):
            continue
        bad.append(f"{family}{rest}")
    return bad


def test_off_machine_reads_strace_lines() -> None:
    """The parser itself: loopback and unix sockets pass, a DNS server and port 443 do not."""
    trace = "\n".join(
        [
            '1 connect(3, {sa_family=AF_UNIX, sun_path="/var/run/nscd/socket"}, 110) = -1',
            '1 connect(4, {sa_family=AF_INET, sin_port=htons(9), sin_addr=inet_addr("127.0.0.1")}'
            ", 16) = -1 ECONNREFUSED",
            '1 connect(5, {sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("10.0.0.53")}'
            ", 16) = 0",
            "1 connect(6, {sa_family=AF_INET6, sin6_port=htons(443), sin6_flowinfo=htonl(0), "
            'inet_pton(AF_INET6, "2606:4700::1", &sin6_addr), sin6_scope_id=0}, 28) = -1',
        ]
    )
    found = off_machine(trace)
    assert len(found) == 2 and "10.0.0.53" in found[0] and "2606:4700::1" in found[1]


@pytest.mark.parametrize("target", list(CLI_BINS))
def test_no_connection_leaves_the_machine(
    target: str, cli_tools: Path, isolated: Path, tmp_path: Path
) -> None:
    strace = shutil.which("strace")
    if strace is None:
        pytest.fail(
            "strace is missing, so the clients' connections cannot be watched; "
            "install it (apt-get install strace)"
        )
    entry = target_entry(target)
    folder = tmp_path / "traced-targets"
    folder.mkdir()
    (folder / f"{target}.yaml").write_text(
        json.dumps(_traced(entry.raw, strace), ensure_ascii=False), encoding="utf-8"
    )
    cells, commit, revisions = select([target], ["roots-list"], ["2025-06-18"], targets_dir=folder)
    results = isolated / "results"
    (verdict,) = run(cells, commit, revisions, results=results, tools=cli_tools)
    assert verdict["verdict"] not in ("error", "not-run"), verdict["reason"]
    cell = cells[0].folder(results)
    traces = sorted(cell.glob("strace-*.txt"))
    assert any(p.name == "strace-launch.txt" for p in traces), sorted(cell.iterdir())
    text = "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in traces)
    # The trace followed the client's children: the peer it started is in it.
    assert "compare/peer" in text, text[:2000]
    assert off_machine(text) == []
