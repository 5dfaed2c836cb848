"""The `kh` command line: a thin door onto the same services as REST and MCP.

`main` hands the arguments to the root group (cli/root.py, Typer), except for `kh index build
VAULT [--json]`, which runs without it: that command runs after every save (the plugin, hooks, CI),
and Typer's argument handling imports Pydantic and builds its validators, about as much time as
the incremental build of a one-line edit itself (docs/benchmarks.md).
Exit codes: 0 ok, 1 the check failed or was refused, 2 usage or input error.
"""

from __future__ import annotations

import sys


def _exit_now() -> None:
    """Ends the plain `kh index build` without the interpreter's teardown: freeing the build's
    objects one by one (the stamps and listings of 10,000 notes) costs ~10 ms that the operating
    system does at once. Everything it wrote is closed by then (the lock released, the files
    renamed into place); only the standard streams are still buffered."""
    import os

    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def main() -> None:
    from ..errors import HarnessError

    try:
        if sys.argv[1:3] == ["index", "build"]:
            import gc

            gc.disable()  # the plain build's imports and build leave no garbage cycle worth collecting (~5 ms)
            from .index_build import run_plain_index_build

            if run_plain_index_build(sys.argv[3:]):
                _exit_now()
            gc.enable()
        from .root import app

        app()  # click handles its own usage errors (exit 2)
    except HarnessError as exc:
        print(f"kh: {exc.message}", file=sys.stderr)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:  # as click answers Ctrl-C in the commands it runs
        print("\nAborted!", file=sys.stderr)
        sys.exit(1)
    except OSError as exc:  # the file system refused (read-only vault, permissions, disk full)
        where = f" ({exc.filename})" if exc.filename else ""
        print(f"kh: {exc.strerror or type(exc).__name__}{where}.", file=sys.stderr)
        sys.exit(1)
