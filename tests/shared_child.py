"""One child process that runs several tests' code, one block at a time.

Tests that must not run their code in the test session's process (it sends itself
SIGINT, or an abort would take the session down) but need no fresh interpreter per
case share one child per test module: starting Python with numpy, scipy,
scikit-learn and pegasos_rs costs about a second, often more than the case.

``SharedChild.run(code)`` sends ``code`` to the child, which executes it in a fresh
namespace (after the ``prologue`` given to the constructor) and answers when it is
done; ``run`` returns what the block printed and fails, with the child's traceback,
when it raised (``SystemExit`` and ``KeyboardInterrupt`` included: they end that
block, not the child). If the child died (an abort, a crash), ``run`` fails with its
exit status and the end of its standard error, and the next ``run`` starts a new
child. Each case is checked separately, by the test that sent it.

Run as a script, this module is the child's side: it reads one JSON request per line
on its standard input and writes one JSON answer per line on the file descriptor
given as its argument; the blocks' own output goes to its standard output and error,
files the parent reads.
"""

from __future__ import annotations

import gc
import json
import linecache
import os
import select
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent


class SharedChild:
    """A child interpreter running code blocks on request (see the module doc).

    ``prologue`` runs before each block, in its namespace; ``env`` is the child's
    environment (this process' by default); the folder of this module is put first
    on its ``PYTHONPATH``, so that the tests' helper modules import.
    """

    def __init__(self, prologue: str = "", env: dict[str, str] | None = None) -> None:
        self.prologue = prologue
        env = dict(os.environ if env is None else env)
        env["PYTHONPATH"] = os.pathsep.join(
            [str(HERE), *[p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]]
        )
        self.env = env
        self._proc: subprocess.Popen | None = None

    def __enter__(self) -> SharedChild:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _start(self) -> None:
        self.close()
        answers_read, answers_write = os.pipe()
        # Anonymous files under the temporary directory: a block's output is what
        # they gained while it ran.
        self._stdout = tempfile.TemporaryFile()
        self._stderr = tempfile.TemporaryFile()
        try:
            self._proc = subprocess.Popen(
                [sys.executable, str(Path(__file__).resolve()), str(answers_write)],
                stdin=subprocess.PIPE,
                stdout=self._stdout,
                stderr=self._stderr,
                pass_fds=(answers_write,),
                env=self.env,
                text=True,
            )
        finally:
            os.close(answers_write)
        self._answers = os.fdopen(answers_read, "r")

    def close(self) -> None:
        """End the child (it exits when its standard input closes)."""
        if self._proc is None:
            return
        proc, self._proc = self._proc, None
        try:
            proc.stdin.close()
            proc.wait(timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait()
        self._answers.close()
        self._stdout.close()
        self._stderr.close()

    def run(self, code: str, timeout: float = 600) -> str:
        """Run ``code`` in the child; return what it printed (standard output).
        Fails when it raised, when the child died, or after ``timeout`` seconds."""
        if self._proc is None or self._proc.poll() is not None:
            self._start()
        assert self._proc is not None and self._proc.stdin is not None
        out_from, err_from = self._stdout.seek(0, 2), self._stderr.seek(0, 2)
        try:
            self._proc.stdin.write(json.dumps({"code": self.prologue + code}) + "\n")
            self._proc.stdin.flush()
        except BrokenPipeError:
            pass  # it died: the answer below is end of file
        ready, _, _ = select.select([self._answers], [], [], timeout)
        if not ready:
            self._proc.kill()
            self.close()
            raise AssertionError(f"the child did not answer within {timeout} s")
        line = self._answers.readline()
        out, err = self._output(self._stdout, out_from), self._output(self._stderr, err_from)
        if not line:
            status = self._proc.wait()
            self.close()
            raise AssertionError(f"the child died (exit status {status}):\n{err[-3000:]}")
        error = json.loads(line)["error"]
        assert error is None, f"{error}\nstandard error:\n{err[-3000:]}"
        return out

    @staticmethod
    def _output(f, start: int) -> str:
        f.seek(start)
        return f.read().decode(errors="replace")


def _serve(answer_fd: int) -> None:
    """The child's loop: run each requested block, answer with its traceback or
    None."""
    answers = os.fdopen(answer_fd, "w")
    for number, request in enumerate(sys.stdin):
        code = json.loads(request)["code"]
        name = f"<block {number}>"
        linecache.cache[name] = (len(code), None, code.splitlines(True), name)
        error = None
        try:
            exec(compile(code, name, "exec"), {"__name__": "__main__"})
        except BaseException:  # SystemExit and KeyboardInterrupt end the block only
            error = traceback.format_exc()
        gc.collect()  # the block's functions keep its namespace (and arrays) alive
        sys.stdout.flush()
        sys.stderr.flush()
        answers.write(json.dumps({"error": error}) + "\n")
        answers.flush()


if __name__ == "__main__":
    _serve(int(sys.argv[1]))
