"""``pegasos-rs demo``: both solvers on every problem, and the explanation's numbers
are the problem's own."""

from __future__ import annotations

import re

import numpy as np
import pytest
from conftest import make_problem
from pegasos_rs import PegasosClassifier
from pegasos_rs.cli import main
from pegasos_rs.cli._demo import choose_alpha, sparse_text_like


def test_demo_prints_both_solvers_per_problem_and_explains_the_ceiling(capsys):
    # --alpha given: a C at which LIBLINEAR is quick on the small sparse problem.
    assert main(["demo", "--quick", "--alpha", "1e-5", "--passes", "3"]) == 0
    out = capsys.readouterr().out
    rows = re.findall(r"^  (pegasos-rs, 3 averaged passes|LIBLINEAR.*?)\s+1e-05\s+"
                      r"([\d.]+)\s+([\d.]+)$", out, re.M)  # fmt: skip
    assert [r[0].startswith("pegasos-rs") for r in rows] == [True, False] * 3
    assert all(0.5 < float(acc) <= 1 for _, acc, _ in rows)
    for heading in ("What the columns mean", "Why these settings", "Why the sparse"):
        assert heading in out
    assert all(len(line) <= 80 for line in out.splitlines())
    # The ceiling is the planted rule's test accuracy: 1 - the test rows' flip rate.
    _, y, y_planted, _ = sparse_text_like(20_000, 20_000, 40, np.random.RandomState(0))
    ceiling = np.mean(y[16_000:] == y_planted[16_000:])
    assert 0.94 < ceiling < 0.96
    text = " ".join(out.split())
    assert f"the rule itself scores {ceiling:.4f} on the test rows" in text


def test_sparse_problem_flips_five_percent_of_the_planted_labels():
    X, y, y_planted, w = sparse_text_like(5000, 300, 10, np.random.RandomState(1))
    assert X.shape == (5000, 300)
    np.testing.assert_allclose(np.sqrt(X.multiply(X).sum(axis=1)), 1.0)
    score = X @ w
    np.testing.assert_array_equal(y_planted, np.where(score > np.median(score), 1, -1))
    assert 0.04 < np.mean(y != y_planted) < 0.06


def test_choose_alpha_takes_the_best_validation_accuracy():
    X, y = make_problem(n_samples=600, n_features=10, seed=4)
    alphas = (10.0, 1e-3)  # 10: w is held in a ball of radius 0.3, far too small
    chosen = choose_alpha(X, y, 3, alphas)
    scores = {
        a: PegasosClassifier(alpha=a, max_iter=3, random_state=0).fit(X[:480], y[:480])
        .score(X[480:], y[480:])
        for a in alphas
    }  # fmt: skip
    assert scores[1e-3] > scores[10.0]
    assert chosen == 1e-3


@pytest.mark.parametrize("args", [["--passes", "0"], ["--alpha", "-1"], ["--alpha", "nan"]])
def test_demo_refuses_settings_that_cannot_train(args, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["demo", *args])
    assert exit_.value.code == 2
    assert "must be a finite number > 0" in capsys.readouterr().err


def test_demo_names_its_passes_flag_and_counts_one_pass():
    """The explanation names the flag as it is typed (``demo --passes``), and a
    one-pass run says "1 pass"."""
    from argparse import Namespace

    from pegasos_rs.cli._demo import _explanation, solver_label

    text = " ".join(_explanation(Namespace(alpha=1e-5, passes=1), 0.0).split())
    assert "pegasos-rs demo --passes" in text
    assert "1 pass the error" in text and "1 passes" not in text
    assert solver_label(1) == "pegasos-rs, 1 averaged pass"
    assert solver_label(10) == "pegasos-rs, 10 averaged passes"
