"""Cells overlap their waits, never their start-ups (``compare.play._schedule``): a run keeps
``--jobs`` cells in flight, but a cell holds one of the machine's start slots from its launch
until its client has spoken, and only as many cells hold one as there are slots.

The slots are lock files every process shares; each test points ``MCP_COMPARE_SLOTS`` at a
folder of its own, so that the suite's other workers do not take part.
"""

from __future__ import annotations

import fcntl
import itertools
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from _revisions import revisions

from compare.exchange._scenarios import load_scenarios
from compare.play import _harness, _schedule
from compare.play._cells import plan_cells
from compare.play._harness import RunSettings, run_cells

from .fakes import fake_target


@pytest.fixture(autouse=True)
def _own_slots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pinned_spec: Path) -> None:
    monkeypatch.setenv("MCP_COMPARE_SLOTS", str(tmp_path / "slots"))
    monkeypatch.setenv("MCP_COMPARE_CACHE", str(pinned_spec))
    monkeypatch.setattr(_schedule, "_playing", 0)
    # The machine's own load is not what these tests are about (the busy-machine test sets
    # its own reading).
    monkeypatch.setattr(_schedule._METER, "idle_cores", lambda: 99.0)


def _slot(spoke: bool = False, *, whole: bool = False, limit_s: float = 60) -> _schedule.StartSlot:
    return _schedule.StartSlot(lambda: spoke, whole=whole, limit_s=limit_s)


def _taken_in_thread(slot: _schedule.StartSlot, count: int) -> threading.Event:
    got = threading.Event()

    def take() -> None:
        slot.take(count)
        got.set()

    threading.Thread(target=take, daemon=True).start()
    return got


def test_a_second_cell_waits_for_the_one_slot_and_gets_it_when_it_is_given_back() -> None:
    first, second = _slot(), _slot()
    first.take(1)
    got = _taken_in_thread(second, 1)
    assert not got.wait(0.3)  # the only slot is held
    first.finish()
    assert got.wait(10)
    second.finish()
    third = _slot()
    third.take(1)  # free again once released
    third.finish()


def test_two_slots_let_two_cells_start_at_once() -> None:
    first, second = _slot(), _slot()
    first.take(2)
    assert _taken_in_thread(second, 2).wait(10)
    first.finish()
    second.finish()


def test_a_slot_held_by_a_process_that_dies_is_free_again(tmp_path: Path) -> None:
    """A killed run cannot keep a core: the kernel drops a dead process's lock."""
    folder = _schedule.slots_dir()
    folder.mkdir(parents=True)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, os, sys, time\n"
            f"fd = os.open({str(folder / 'slot-0.lock')!r}, os.O_RDWR | os.O_CREAT)\n"
            "fcntl.flock(fd, fcntl.LOCK_EX)\n"
            "print('held', flush=True)\n"
            "time.sleep(60)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        mine = _slot()
        got = _taken_in_thread(mine, 1)
        assert not got.wait(0.3)
        holder.kill()
        assert got.wait(10)
        mine.finish()
    finally:
        holder.kill()
        holder.wait()


def test_a_slot_is_given_back_once_the_client_has_spoken_or_its_time_is_up() -> None:
    spoken = _slot(spoke=True)
    spoken.take(1)
    spoken._looked_at = 0.0
    spoken.poll()
    assert _slot_is_free()
    silent = _slot(spoke=False, limit_s=0.05)
    silent.take(1)
    silent.poll()
    assert not _slot_is_free()
    time.sleep(0.1)
    silent.poll()  # past its limit: given back although the client never spoke
    assert _slot_is_free()


def test_a_command_line_client_holds_its_slot_for_the_whole_cell() -> None:
    cli = _slot(spoke=True, whole=True, limit_s=0.0)
    cli.take(1)
    cli.poll()
    assert not _slot_is_free()
    cli.finish()
    assert _slot_is_free()


def _slot_is_free() -> bool:
    """Whether slot 0 can be locked now, tried once and given straight back. (A probe that
    waited in a thread stayed in the queue after it gave up and could take the slot from the
    next probe: a CI run under load saw it.)"""
    folder = _schedule.slots_dir()
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder / "slot-0.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(fd)  # closing drops the lock, if it was taken
    return True


def test_a_recording_has_spoken_at_its_second_line(tmp_path: Path) -> None:
    recording = tmp_path / "transcript.jsonl"
    spoke = _schedule.recording_spoke(recording)
    assert not spoke()  # no file yet
    recording.write_bytes(b'{"dir": "in"}\n')
    assert not spoke()
    recording.write_bytes(b'{"dir": "in"}\n{"dir": "out"}\n')
    assert spoke()


def test_cells_in_flight_overlap_their_waits_but_start_one_slot_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cells of a scenario with a 2 s quiet window, all in flight and one start slot:
    the slots' holding times never overlap, while the cells' lives do; the verdicts are the
    serial run's."""
    held: list[tuple[float, float]] = []
    lives: list[tuple[float, float]] = []
    lock = threading.Lock()
    real_take, real_release = _schedule.StartSlot.take, _schedule.StartSlot.release
    real_client = _harness._run_client

    def take(self: _schedule.StartSlot, count: int) -> None:
        real_take(self, count)
        self._test_taken = time.monotonic()  # type: ignore[attr-defined]

    def release(self: _schedule.StartSlot) -> None:
        taken = getattr(self, "_test_taken", None)
        if self._fd is not None and taken is not None:
            with lock:
                held.append((taken, time.monotonic()))
        real_release(self)

    def client(*args: object) -> dict[str, object]:
        began = time.monotonic()
        try:
            return real_client(*args)  # type: ignore[arg-type]
        finally:
            with lock:
                lives.append((began, time.monotonic()))

    monkeypatch.setattr(_schedule.StartSlot, "take", take)
    monkeypatch.setattr(_schedule.StartSlot, "release", release)
    monkeypatch.setattr(_harness, "_run_client", client)
    known = revisions()
    scenarios = [s for s in load_scenarios() if s.id == "unknown-notification"]
    cells = plan_cells([fake_target("good", ends="self")], scenarios, known)
    played = [c for c in cells if c.not_run_reason() is None]
    assert len(played) >= 4

    def settings(name: str, starts: int | None) -> RunSettings:
        return RunSettings(tmp_path / name, "test", known, starts=starts)

    overlapped = run_cells(cells, settings("overlapped", 1), jobs=len(cells))
    assert len(held) == len(played)
    spans = sorted(held)
    assert all(a[1] <= b[0] for a, b in itertools.pairwise(spans)), spans
    most = max(sum(1 for b, e in lives if b <= start < e) for start, _ in lives)
    assert most > 1, lives  # the waits did overlap
    serial = run_cells(cells, settings("serial", None), jobs=1)
    assert [v["verdict"] for v in overlapped] == [v["verdict"] for v in serial]
    assert {v["verdict"] for v in serial} - {"not-run"}, serial


def test_a_cell_starts_on_a_busy_machine_only_when_no_other_cell_of_the_run_plays(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A free slot is not enough while the machine has no idle CPU, unless the run would
    otherwise stop: then one cell plays at a time."""
    idle = {"cores": 0.1}
    monkeypatch.setattr(_schedule._METER, "idle_cores", lambda: idle["cores"])
    first = _slot()
    first.take(2)  # alone: starts although the machine is busy
    second = _slot()
    got = _taken_in_thread(second, 2)
    assert not got.wait(0.3)  # a slot is free, but the machine is busy and a cell plays
    idle["cores"] = 1.5
    assert got.wait(10)
    first.finish()
    second.finish()
    assert _schedule._playing == 0


def test_the_meter_reads_idle_cores_from_the_machine() -> None:
    meter = _schedule._Meter()
    assert meter.idle_cores() is None  # one reading is no window yet
    time.sleep(_schedule.IDLE_WINDOW_S + 0.05)
    idle = meter.idle_cores()
    assert idle is not None and 0 <= idle <= (os.cpu_count() or 1)
