"""Progress of long command-line work (``stats``, ``decode``, ``synth``) on a terminal, with rich.

:class:`Progress` draws a bar (or, with no known total, a pulsing bar with the elapsed time) on
standard error when it is a terminal, and writes nothing at all otherwise: piped or redirected
output, cron jobs, CI and Airflow task logs stay clean. ``enabled=True`` forces it (the commands'
``--progress``). Layer "top": only the command line uses it.
"""

from __future__ import annotations

import sys
from types import TracebackType
from typing import Any, Literal, TextIO


class Progress:
    """One task's progress: ``with Progress("decode", total=n, unit="blocks") as p: p.update(k)``.

    ``unit="bytes"`` shows sizes and a transfer rate; any other unit shows ``done/total unit``."""

    def __init__(
        self,
        description: str,
        total: float | None = None,
        *,
        unit: str = "",
        stream: TextIO | None = None,
        enabled: bool | None = None,
    ) -> None:
        self._stream = stream if stream is not None else sys.stderr
        self.enabled = _is_terminal(self._stream) if enabled is None else enabled
        self._description = description
        self._total = total
        self._unit = unit
        self._bar: Any = None
        self._task: Any = None

    def __enter__(self) -> Progress:
        if not self.enabled:
            return self
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            DownloadColumn,
            MofNCompleteColumn,
            TaskProgressColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
            TransferSpeedColumn,
        )
        from rich.progress import Progress as RichProgress

        columns: list[Any] = [
            TextColumn("[bold]{task.description}"),
            BarColumn(bar_width=30),
            TaskProgressColumn(),
        ]
        if self._unit == "bytes":
            columns += [DownloadColumn(), TransferSpeedColumn()]
        elif self._unit:
            columns += [MofNCompleteColumn(), TextColumn(self._unit)]
        columns += [TimeElapsedColumn(), TimeRemainingColumn()]
        # forced onto a stream that is no terminal (--progress into a file): the bar, without colours
        colours: Literal["auto"] | None = "auto" if _is_terminal(self._stream) else None
        console = Console(file=self._stream, force_terminal=True, color_system=colours)
        self._bar = RichProgress(*columns, console=console, transient=False, refresh_per_second=8)
        self._bar.start()
        self._task = self._bar.add_task(self._description, total=self._total)
        return self

    def update(self, completed: float, *, total: float | None = None, description: str | None = None) -> None:
        """Set how much is done (and, when it becomes known, the total)."""
        if self._bar is None:
            return
        changes: dict[str, Any] = {"completed": completed}
        if total is not None:
            changes["total"] = total
        if description is not None:
            changes["description"] = description
        self._bar.update(self._task, **changes)

    def advance(self, amount: float = 1) -> None:
        if self._bar is not None:
            self._bar.advance(self._task, amount)

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._bar is None:
            return
        if kind is None and self._total is not None:
            self._bar.update(self._task, completed=self._total)
        self._bar.stop()
        self._bar = None


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or replaced stream
        return False
