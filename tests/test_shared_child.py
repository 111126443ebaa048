"""The child that several tests share (``shared_child``) reports each block's
failure to the test that sent it, and a child that died is replaced."""

from __future__ import annotations

import pytest
from shared_child import SharedChild


@pytest.fixture
def child():
    with SharedChild("import os, signal, sys\n") as c:
        yield c


def test_a_block_returns_its_output_and_runs_in_a_fresh_namespace(child):
    assert child.run("x = 1\nprint('out', x)\nprint('err', file=sys.stderr)") == "out 1\n"
    assert child.run("print('x' in globals())") == "False\n"


@pytest.mark.parametrize(
    "code, message",
    [
        ("raise ValueError('boom')", "ValueError: boom"),
        ("raise SystemExit('gone')", "SystemExit: gone"),
        ("os.kill(os.getpid(), signal.SIGINT)", "KeyboardInterrupt"),
    ],
)
def test_a_block_that_raises_fails_and_the_child_stays(child, code, message):
    pid = child.run("print(os.getpid())")
    with pytest.raises(AssertionError, match=message):
        child.run(code)
    assert child.run("print(os.getpid())") == pid


def test_a_child_that_dies_fails_its_block_and_is_replaced(child):
    pid = child.run("print(os.getpid())")
    with pytest.raises(AssertionError, match=r"died \(exit status -6\):\n.*last words"):
        child.run("print('last words', file=sys.stderr, flush=True)\nos.abort()")
    assert child.run("print(os.getpid())") != pid


def test_a_block_that_does_not_answer_in_time_fails(child):
    with pytest.raises(AssertionError, match=r"did not answer within 0\.2 s"):
        child.run("signal.pause()", timeout=0.2)
    assert child.run("print('again')") == "again\n"
