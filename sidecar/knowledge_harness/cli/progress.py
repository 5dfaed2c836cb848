"""Progress of long CLI work on stderr: a bar at a terminal, one plain line per step otherwise
(logs and CI keep a readable trace; stdout stays the command's answer)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager

Progress = Callable[[int, int, str], None]


@contextmanager
def progress_reporter(action: str) -> Iterator[Progress]:
    """Yields `progress(done, total, item)`, called before each item starts. The bar (and rich)
    appear at the first call only: work that reports nothing costs nothing."""
    if not sys.stderr.isatty():

        def line(done: int, total: int, item: str) -> None:
            print(f"{action} {done + 1}/{total}: {item}", file=sys.stderr, flush=True)

        yield line
        return
    with ExitStack() as stack:
        bar: Progress | None = None

        def draw(done: int, total: int, item: str) -> None:
            nonlocal bar
            if bar is None:
                bar = _bar(stack, action)
            bar(done, total, item)

        yield draw


def _bar(stack: ExitStack, action: str) -> Progress:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
    from rich.progress import Progress as Bar

    bar = stack.enter_context(
        Bar(
            TextColumn(f"{action}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.description}"),
            transient=True,
            console=Console(stderr=True),
            redirect_stdout=False,
        )
    )
    task = bar.add_task("", total=None)

    def update(done: int, total: int, item: str) -> None:
        bar.update(task, completed=done, total=total, description=item)

    return update
