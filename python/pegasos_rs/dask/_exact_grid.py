"""Exact mode for a grid: every (fold, alpha) fit of a search, the rows left on the
cluster and each drawn row fetched once for all the alphas of its fold.

Pegasos draws its examples independently of ``w``: with one seed, the fits of one
fold for different ``alpha`` draw the same rows in the same order. Each fit is a
``pegasos_rs._core.StreamedLinearFit`` on the fold's training rows (its draws are
indices among them, mapped to global rows through the fold's ``train`` array), so
its model is the in-memory fit's on those rows, bit for bit, as in
:mod:`pegasos_rs.dask._exact`. The fits of a fold that run the same steps in a
pass form a group: the group's draws are asked of every member (each advances its
own generator; they agree) and fetched once, with every other group's of the round
in one request per worker (a row drawn by several folds travels once), and every
member steps on them. The next round's rows travel while this round's steps run.

The sums over a fold's training rows that a fit starts from, and its objective
when ``tol`` asks for it, are taken in row order, block after block, over the
fold's rows (:mod:`pegasos_rs.dask._fold_blocks`); a fold whose training rows are
not in increasing order (a shuffling splitter) is summed in row order, so its
squared losses' start and ``tol``'s objective may differ from the in-memory fit's
in the last bits (the draws and steps do not).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from itertools import pairwise
from typing import TYPE_CHECKING, Any

import numpy as np

from pegasos_rs import _core
from pegasos_rs._validation import as_rust_matrix
from pegasos_rs.dask import _fold_blocks
from pegasos_rs.dask._cluster import scatter
from pegasos_rs.dask._exact import _MAX_ROUND_DRAWS, _Progress, _Rounds, gather, placements

if TYPE_CHECKING:
    from collections.abc import Callable


@dataclass
class FoldPlan:
    """One fold of a grid: its rows and the fits of its alphas."""

    train: np.ndarray  #: global training rows, in the order the fits see them
    test: np.ndarray  #: global held-out rows
    class_weight: np.ndarray  #: the class weights of the fold's fits
    fits: list = field(default_factory=list)  #: one StreamedLinearFit per alpha
    running: list = field(default_factory=list)  #: whether each fit still runs


def local_ids(data, rows: np.ndarray) -> list[np.ndarray]:
    """The rows of ``rows`` in each block, as increasing local indices."""
    if rows.size > 1 and not np.all(rows[1:] >= rows[:-1]):
        rows = np.sort(rows)
    cuts = np.searchsorted(rows, data.offsets)
    return [
        (rows[a:b] - data.offsets[i]).astype(np.int64) for i, (a, b) in enumerate(pairwise(cuts))
    ]


def start_sums(data, folds: list[FoldPlan], params: dict):
    """Per fold, the sums a fresh fit of a squared loss starts from (``None`` for
    a loss that starts at step 1), taken over the fold's training rows."""
    if not _core.starts_late(params["loss"]):
        return [None] * len(folds)
    params = {**params, "check_input": data.checked}
    ids = [local_ids(data, f.train) for f in folds]
    per_block = [[fold_ids[b] for fold_ids in ids] for b in range(len(data.blocks))]
    initial = [[(0.0, 0.0, 0.0, 0.0)] * data.n_problems for _ in folds]
    return _chain_per_block(
        data,
        _fold_blocks.first_step_chain,
        per_block,
        initial,
        data.classes,
        [f.class_weight for f in folds],
        data.dtype,
        params,
    )


def _chain_per_block(data, func, per_block, initial, *args):
    """:func:`pegasos_rs.dask._exact.chain` with each block's own row indices
    (``per_block[b]``, scattered with the block's task)."""
    client = data.client
    acc = initial
    for block, ids, place in zip(
        data.blocks, per_block, placements(data, data.blocks), strict=True
    ):
        acc = client.submit(func, block, *args, ids, acc, pure=False, **place)
    return gather(data, [acc], [len(data.blocks) - 1])[0]


def run(data, folds: list[FoldPlan], *, batch_size: int, round_bytes, loss: dict, callback):
    """Run every fit of ``folds`` to its end (see the module doc)."""
    rounds = _Rounds(data, False, 0)
    report = _Progress(callback)
    n_problems = folds[0].fits[0].n_problems
    with ThreadPoolExecutor(1, thread_name_prefix="pegasos-rs-rows") as fetcher:
        pass_no = 0
        while True:
            groups = _groups(folds)
            if not groups:
                break
            pass_no += 1
            per_round = max(
                1, int(round_bytes / max(1.0, data.row_bytes) / (batch_size * n_problems))
            )
            per_round = max(1, per_round // len(groups))
            per_round = min(per_round, max(1, _MAX_ROUND_DRAWS // batch_size))
            total = max(int(g.left.max()) for g in groups)
            done = 0

            def next_round(per_round=per_round, groups=groups):
                keys: list[np.ndarray] = []
                plan = []
                for g in groups:
                    if not g.left.any():
                        continue
                    now = np.minimum(g.left, per_round)
                    g.left -= now
                    counts = [int(s) * batch_size for s in now]
                    fold = folds[g.fold]
                    members = []
                    lead = None
                    for a in g.members:
                        drawn = fold.fits[a].draw(counts)
                        if lead is None or not all(
                            np.array_equal(x, y) for x, y in zip(drawn, lead[1], strict=True)
                        ):
                            lead = (len(keys), drawn)
                            keys.extend(fold.train[d] for d in drawn)
                        members.append((a, lead[0]))
                    plan.append((g.fold, members, int(now.max())))
                return fetcher.submit(rounds.collect, rounds.submit(keys)), plan

            pending = next_round()
            while pending is not None:
                fetched, plan = pending
                X, y, sw, drawn = fetched.result()
                pending = next_round() if any(g.left.any() for g in groups) else None
                matrix = as_rust_matrix(X)
                for f, members, _ in plan:
                    for a, at in members:
                        folds[f].fits[a].run(matrix, y, sw, drawn[at : at + n_problems])
                data.ctrl_c.check()
                done += max(n for _, _, n in plan)
                report("train", pass_no, done, total, rounds)
            losses = _objectives(data, folds, groups, loss)
            for g in groups:
                for a in g.members:
                    fit = folds[g.fold].fits[a]
                    fit.end_pass(None if losses is None else losses[g.fold][a])
            if losses is not None:
                report("objective", pass_no, total, total, rounds)
    return [[fit.finish(_core.LinearSolverState()) for fit in f.fits] for f in folds]


@dataclass
class _Group:
    """Fits of one fold running the same steps in a pass."""

    fold: int
    members: list[int]
    left: np.ndarray  #: steps each problem has still to run in this pass


def _groups(folds: list[FoldPlan]) -> list[_Group]:
    """The groups of this pass (starting it: ``next_pass`` of every running fit)."""
    groups: list[_Group] = []
    for f, fold in enumerate(folds):
        by_steps: dict[bytes, _Group] = {}
        for a, fit in enumerate(fold.fits):
            if not fold.running[a]:
                continue
            steps = np.asarray(fit.next_pass(), dtype=np.int64)
            if not steps.any():
                fold.running[a] = False
                continue
            g = by_steps.setdefault(steps.tobytes(), _Group(f, [], steps.copy()))
            g.members.append(a)
        groups.extend(by_steps.values())
    return groups


def _objectives(data, folds: list[FoldPlan], groups: list[_Group], loss: dict):
    """Per fold and fit, the loss sums of its model over the fold's training rows
    (``None`` when no fit of this pass wants its objective)."""
    wanted = [[False] * len(f.fits) for f in folds]
    for g in groups:
        for a in g.members:
            wanted[g.fold][a] = folds[g.fold].fits[a].wants_objective
    if not any(any(w) for w in wanted):
        return None
    models = [
        [fit.models() if w else None for fit, w in zip(f.fits, wf, strict=True)]
        for f, wf in zip(folds, wanted, strict=True)
    ]
    [models_future] = scatter(data.client, [models])
    ids = [local_ids(data, f.train) for f in folds]
    per_block = [[fold_ids[b] for fold_ids in ids] for b in range(len(data.blocks))]
    initial = [[[-0.0] * data.n_problems for _ in f.fits] for f in folds]
    return _chain_per_block(
        data,
        _fold_blocks.loss_chain,
        per_block,
        initial,
        data.classes,
        [f.class_weight for f in folds],
        data.dtype,
        models_future,
        loss,
    )


def held_out_decisions(data, folds: list[FoldPlan], results, *, counts: bool = False):
    """Per fold and alpha, the decision values of the fit's model on the fold's
    held-out rows, in the order of ``test`` (computed where the rows are, all the
    fold's models on each row at once); with ``counts``, only how many of them
    the model predicts right (nothing of size ``m`` travels)."""
    n_outputs = int(np.atleast_2d(results[0][0]["coef"]).shape[0])
    models = [
        (
            np.ascontiguousarray(np.vstack([np.atleast_2d(r["coef"]) for r in fold]).T),
            np.concatenate([np.atleast_1d(r["intercept"]) for r in fold]),
        )
        for fold in results
    ]
    [models_future] = scatter(data.client, [models])
    ids = [local_ids(data, f.test) for f in folds]
    func: Callable[..., Any] = _fold_blocks.correct_counts if counts else _fold_blocks.decisions
    extra: tuple = (data.classes, n_outputs) if counts else ()
    client = data.client
    futures = [
        client.submit(
            func,
            block,
            data.dtype,
            models_future,
            [fold_ids[b] for fold_ids in ids],
            *extra,
            pure=False,
            **place,
        )
        for b, (block, place) in enumerate(
            zip(data.blocks, placements(data, data.blocks), strict=True)
        )
    ]
    parts = gather(data, futures, list(range(len(data.blocks))))
    if counts:
        return [np.sum([p[f] for p in parts], axis=0).astype(np.int64) for f in range(len(folds))]
    out = []
    for f, fold in enumerate(folds):
        # Gathered in increasing row order; put back in the order of ``test``.
        where = np.argsort(fold.test, kind="stable")
        values = np.concatenate([p[f] for p in parts])
        ordered = np.empty_like(values)
        ordered[where] = values
        out.append([ordered[:, a * n_outputs : (a + 1) * n_outputs] for a in range(len(fold.fits))])
    return out
