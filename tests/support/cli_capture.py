"""The command line run in-process, its exit code and both streams captured."""

from __future__ import annotations

import contextlib
import io

from riko.cli.main import main


def run(*argv: str) -> tuple[int, str, str]:
    """``riko ARGV…`` as the shell would see it: ``(exit code, stdout, stderr)``."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()
