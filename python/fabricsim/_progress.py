"""Progress reporting: a callable, or a tqdm-like bar (anything with ``update``)."""

from __future__ import annotations

from typing import Any, Callable, Optional

Progress = Any  # Callable[[float, Optional[float]], None], or an object with update() and total


def run_callback(progress: Progress) -> Optional[Callable[[float, Optional[float]], None]]:
    """What the native run calls now and then with ``(simulated_ns, end_ns)``: ``progress``
    itself when it is a function; for a bar, one that moves it to the simulated time in
    microseconds (``end_ns`` is None for a run that goes on until its work is done)."""
    if progress is None:
        return None
    if not hasattr(progress, "update"):
        return progress  # type: ignore[no-any-return]
    bar = progress
    shown = [0.0]

    def move(now_ns: float, end_ns: Optional[float]) -> None:
        if end_ns is not None and getattr(bar, "total", None) is None:
            bar.total = round(end_ns / 1e3, 3)
        now_us = round(now_ns / 1e3, 3)
        bar.update(now_us - shown[0])
        shown[0] = now_us

    return move


def count_callback(progress: Progress, total: int) -> Optional[Callable[[int], None]]:
    """What a sweep calls after each finished run with the count done so far: ``progress(done,
    total)`` for a function; a bar is given its total and moved by one."""
    if progress is None:
        return None
    if hasattr(progress, "update"):
        bar = progress
        if getattr(bar, "total", None) is None:
            bar.total = total
        return lambda done: bar.update(1)
    return lambda done: progress(done, total)
