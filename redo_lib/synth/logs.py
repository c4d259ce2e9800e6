"""The generator's redo threads: one archived-log series per thread, one SCN clock for all.

* :class:`Clock` hands out (SCN, sub-SCN) pairs and the wall clock. SCNs are global, so the records
  of RAC threads interleave by SCN; ``bump`` gives a fresh SCN (each statement, each commit, each log
  switch and each LWN that would otherwise share the SCN of the previous LWN's last record).
* :class:`ThreadLog` writes the records of one thread through ``format.writer.LogWriter``. It
  switches to the next sequence when the next record would push the file past ``log_size`` (and on
  demand), names files ``<thread>_<seq>_<resetlogs>.arc``, and starts a new LWN after each commit
  (LGWR writes at commit) and whenever the clock's time moves (all records of an LWN share its
  time). Every record SCN lies in [its LWN SCN, next LWN SCN) and in [first SCN, next SCN) of its
  log (redo-format §1.5, §3.3).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, final

from redo_lib.format.model import ChangeVector
from redo_lib.format.writer import LogFileSpec, LogWriter, WriterLayout, WrittenLog, write_change_vector
from redo_lib.scn import Rba
from redo_lib.synth.scenario import Settings

__all__ = ["Clock", "Placed", "ThreadLog", "log_name"]


def log_name(thread: int, sequence: int, resetlogs_id: int) -> str:
    """Archived log name ``<thread>_<seq>_<resetlogs>.arc``."""
    return f"{thread}_{sequence}_{resetlogs_id}.arc"


class Clock:
    """Global SCN and wall clock."""

    def __init__(self, scn: int, time: dt.datetime) -> None:
        self.scn = scn
        self.subscn = 0
        self.time = time

    def bump(self) -> int:
        """Move to a fresh SCN; returns it."""
        self.scn += 1
        self.subscn = 0
        return self.scn

    def take(self) -> tuple[int, int]:
        self.subscn += 1
        return self.scn, self.subscn

    def advance(self, seconds: int) -> None:
        self.time += dt.timedelta(seconds=seconds)


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Placed:
    """Where a record went: thread, log sequence, RBA, SCN, sub-SCN and LWN time."""

    thread: int
    sequence: int
    rba: Rba
    scn: int
    subscn: int
    time: dt.datetime


class ThreadLog:
    """The archived logs of one redo thread."""

    def __init__(self, folder: Path, settings: Settings, thread: int, clock: Clock) -> None:
        self._folder = folder
        self._settings = settings
        self.thread = thread
        self._clock = clock
        self._layout = WriterLayout(settings.big_endian, settings.block_size, settings.compat_version)
        self._max_blocks = settings.log_size // settings.block_size
        self._sequence = 0
        self._file: BinaryIO | None = None
        self._writer: LogWriter | None = None
        self._flush = True
        self.written: list[tuple[Path, WrittenLog]] = []
        self._closed_bytes = 0
        self._open(clock.scn)

    @property
    def layout(self) -> WriterLayout:
        return self._layout

    @property
    def sequence(self) -> int:
        return self._sequence

    def _open(self, first_scn: int) -> None:
        s = self._settings
        self._sequence += 1
        path = self._folder / log_name(self.thread, self._sequence, s.resetlogs_id)
        spec = LogFileSpec(
            thread=self.thread,
            sequence=self._sequence,
            resetlogs_id=s.resetlogs_id,
            dbid=s.dbid,
            db_name=s.db_name,
            compat_version=s.compat_version,
            block_size=s.block_size,
            big_endian=s.big_endian,
            first_scn=first_scn,
            first_time=self._clock.time,
            online_log_blocks=max(self._max_blocks, 2048),
        )
        self._file = path.open("wb")
        self._writer = LogWriter(self._file, spec)
        self._path = path
        self._records = 0
        self._flush = True

    def _close(self) -> None:
        assert self._writer is not None and self._file is not None
        next_scn = self._clock.bump()
        summary = self._writer.close(next_scn=next_scn, next_time=self._clock.time)
        self._file.close()
        self.written.append((self._path, summary))
        self._closed_bytes += summary.nab * self._settings.block_size
        self._writer = None
        self._file = None

    @property
    def bytes_written(self) -> int:
        """Bytes of this thread's logs so far (closed logs plus the open one)."""
        open_bytes = self._writer.block_count * self._settings.block_size if self._writer is not None else 0
        return self._closed_bytes + open_bytes

    @property
    def switches(self) -> int:
        return len(self.written)

    def switch(self) -> None:
        """Log switch: close the current log at a fresh SCN and open the next sequence."""
        self._close()
        self._open(self._clock.scn)

    def close(self) -> None:
        if self._writer is not None:
            self._close()

    def abort(self) -> None:
        """Close the open file as it is (after an error: the log is incomplete)."""
        if self._file is not None:
            self._file.close()
        self._writer = None
        self._file = None

    def flush(self) -> None:
        """The next record starts a new LWN (LGWR wrote at commit)."""
        self._flush = True

    def write(self, vectors: list[ChangeVector], *, vld: int = 0x01) -> Placed:
        """Append one record (its vectors numbered in order) at the clock's SCN and time."""
        assert self._writer is not None
        encoded = [write_change_vector(self._layout, v) for v in vectors]
        length = 24 + sum(len(e) for e in encoded)
        clock = self._clock
        new_lwn = self._flush or self._writer.opens_lwn(length, clock.time)
        if self._records and self._writer.blocks_needed(length, new_lwn=new_lwn) > self._max_blocks:
            self.switch()
            new_lwn = True
        if new_lwn and self._records and self._writer.last_scn >= clock.scn:
            clock.bump()
        scn, subscn = clock.take()
        rba = self._writer.append(
            scn=scn, subscn=subscn, vectors=encoded, time=clock.time, vld=vld, new_lwn=new_lwn
        )
        self._records += 1
        self._flush = False
        return Placed(
            thread=self.thread, sequence=self._sequence, rba=rba, scn=scn, subscn=subscn, time=clock.time
        )
