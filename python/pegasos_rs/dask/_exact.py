"""Exact mode: the in-memory solver's iterates, with the rows left on the cluster.

The examples Pegasos draws do not depend on ``w``, so the client draws them with
the same seeded generator as the in-memory solver (from the number of rows, and
the class sizes for balanced sampling), asks each block's worker for its drawn
rows, and takes the steps itself (``pegasos_rs._core.StreamedLinearFit``). A fit
of T steps of k examples reads T·k rows, whatever m is.

Rounds: the draws of a round are grouped by block and each worker, in one task
for the blocks it holds, returns their distinct rows once (with the position of
every draw among them). Moving the rows to the client is what a fit spends most
on (the steps are cheaper than the transfer), so the next round's rows travel
while the client runs the current round's steps: a helper thread gathers them
(``fit.run`` releases the GIL). A round is sized to about ``round_bytes`` of rows,
so the client holds at most two rounds of rows plus the model, O(d · classes).
Where each block lives is asked once per fit, not every round.

Sums over the whole training set (the mean weighted loss at zero that sets the
projection radius, the squared row norms a fresh fit of a squared loss starts
from, the objective for ``tol`` and ``verbose``) are taken in row order, block
after block, with the partial sum passed from one block's task to the next: the
in-memory solver adds the same numbers in the same order, so the bits agree.

The problems are those of one-vs-rest classification, the one problem of a
regression (``data.classes`` None), or the one joint problem of the
Crammer-Singer multiclass SVM (``params["multi_class"] == "crammer_singer"``,
drawing over all rows): the fetched rows come with class codes, or with real
targets.
"""

from __future__ import annotations

import time
from concurrent.futures import CancelledError, ThreadPoolExecutor
from itertools import pairwise

import numpy as np
import scipy.sparse as sp
from distributed import KilledWorker

from pegasos_rs import _core, _progress
from pegasos_rs._validation import as_rust_matrix
from pegasos_rs.dask import _blocks
from pegasos_rs.dask._cluster import scatter

#: Draws per problem and round at most (the index arrays stay small).
_MAX_ROUND_DRAWS = 1 << 20


class _Rounds:
    """Fetching the rows of drawn examples from the blocks that hold them."""

    def __init__(self, data, balanced: bool, problems: int):
        self.data = data
        #: Rounds fetched, and bytes of requests sent and rows received.
        self.rounds = self.sent = self.received = 0
        self.client = data.client
        #: The worker holding each block, asked once: a round's tasks go there (or
        #: anywhere, when it has left: dask then recomputes the block elsewhere).
        self.holders = self.client.who_has(data.blocks)
        self.balanced = balanced
        rows = np.diff(data.offsets)
        k = 0 if data.classes is None else data.classes.size
        # Positive class of each binary problem: class 1 of two, else class p.
        self.positive = [1] if k == 2 else list(range(k))
        if balanced:
            self.cum = []
            for c in self.positive[:problems]:
                pos = data.counts[:, c]
                self.cum.append(
                    (
                        np.concatenate([[0], np.cumsum(pos)]),
                        np.concatenate([[0], np.cumsum(rows - pos)]),
                    )
                )

    def _locate(self, p: int, keys: np.ndarray):
        """Block, request kind, key within the block and class code of each draw."""
        if not self.balanced:
            block = np.searchsorted(self.data.offsets, keys, side="right") - 1
            return block, np.zeros(keys.size, np.int8), keys - self.data.offsets[block], 0
        positive = keys >= 0
        rank = np.where(positive, keys, -keys - 1)
        pos_cum, neg_cum = self.cum[p]
        block = np.where(
            positive,
            np.searchsorted(pos_cum, rank, side="right") - 1,
            np.searchsorted(neg_cum, rank, side="right") - 1,
        )
        local = rank - np.where(positive, pos_cum[block], neg_cum[block])
        return block, np.where(positive, 1, 2).astype(np.int8), local, self.positive[p]

    def submit(self, keys: list[np.ndarray]):
        """Ask the workers for the rows of these draws (one array per problem)."""
        located = [self._locate(p, k) for p, k in enumerate(keys)]
        block = np.concatenate([b for b, _, _, _ in located])
        kind = np.concatenate([t for _, t, _, _ in located])
        key = np.concatenate([k for _, _, k, _ in located]).astype(np.int64)
        code = np.concatenate([np.full(k.size, c, dtype=np.uint32) for (_, _, k, c) in located])
        order = np.argsort(block, kind="stable")
        blocks, starts = np.unique(block[order], return_index=True)
        ends = np.append(starts[1:], order.size)
        # One task per worker, for all the blocks it holds: a round costs two task
        # round trips on two workers, not one per block.
        futures = [self.data.blocks[b] for b in blocks]
        groups: dict = {}
        for b, f, lo, hi in zip(blocks, futures, starts, ends, strict=True):
            where = self.holders.get(f.key) or (None,)
            groups.setdefault(where[0], []).append((int(b), order[lo:hi]))
        requests = []
        for addr, items in groups.items():
            # Where the blocks are, preferably; anywhere when their holder is unknown
            # (a worker just died: dask recomputes them from their source).
            placement = {} if addr is None else {"workers": [addr], "allow_other_workers": True}
            future = self.client.submit(
                _blocks.take_many,
                [self.data.blocks[b] for b, _ in items],
                self.data.classes,
                [(kind[sel], key[sel], code[sel]) for _, sel in items],
                self.data.dtype,
                pure=False,
                **placement,
            )
            requests.append((np.concatenate([sel for _, sel in items]), future, items[0][0]))
        sizes = [k.size for k in keys]
        self.rounds += 1
        self.sent += int(kind.nbytes + key.nbytes + code.nbytes)
        return requests, sizes

    def collect(self, pending):
        """The rows of a submitted round: ``(X, codes, sample_weight, drawn)`` (a
        regression's targets in place of the codes)."""
        requests, sizes = pending
        parts = gather(self.data, [f for _, f, _ in requests], [b for _, _, b in requests])
        self.received += sum(_nbytes(m) for part in parts for m in part)
        X, codes, sw, pos = _blocks.stack(parts, self.data.sparse)
        position = np.empty(sum(sizes), dtype=np.int64)
        position[np.concatenate([sel for sel, _, _ in requests])] = pos
        cuts = np.cumsum([0, *sizes])
        drawn = [position[a:b] for a, b in pairwise(cuts)]
        return X, codes, sw, drawn


def _nbytes(a) -> int:
    if a is None:
        return 0
    if sp.issparse(a):
        return int(a.data.nbytes + a.indices.nbytes + a.indptr.nbytes)
    return int(a.nbytes)


def gather(data, futures, blocks):
    """``client.gather(futures)`` (the i-th computed from block ``blocks[i]``); a
    block whose data died with a worker and cannot be recomputed (data scattered
    from a client has no source to re-read) raises ``RuntimeError`` naming it; Ctrl-C
    raises ``KeyboardInterrupt`` within 0.1 s."""
    try:
        return data.ctrl_c.gather(data.client, futures)
    except (CancelledError, KilledWorker) as e:
        lost = [i for i, f in enumerate(data.blocks) if f.status != "finished"]
        lost += [b for f, b in zip(futures, blocks, strict=True) if f.status != "finished"]
        bad = (lost or blocks)[0]
        raise RuntimeError(
            f"{data.names[bad]} was lost with a worker and could not be recomputed from its "
            f"source ({type(e).__name__}: {e}); the model is unchanged"
        ) from e


def placements(data, blocks) -> list[dict]:
    """Where each block's tasks run: on the worker that holds the block (and keeps
    its parsed rows, :mod:`pegasos_rs.dask._kept`), else anywhere. Without it the
    scheduler may run a task where its other input is (the previous block's sums,
    the scattered model) and move the block there, to be parsed again."""
    holders = data.client.who_has(blocks)
    where = []
    for b in blocks:
        addr = holders.get(b.key) or ()
        where.append({"workers": [addr[0]], "allow_other_workers": True} if addr else {})
    return where


def per_block(data, func, *args) -> list:
    """``[func(block, *args) for block in data.blocks]``, each on the worker that
    holds its block, gathered in block order."""
    place = placements(data, data.blocks)
    futures = [
        data.client.submit(func, b, *args, pure=False, **where)
        for b, where in zip(data.blocks, place, strict=True)
    ]
    return gather(data, futures, list(range(len(futures))))


def chain(data, func, *args, initial=-0.0, problems=None, **kwargs):
    """Run ``func(block, *args, acc, **kwargs)`` over the blocks in row order, each
    task continuing the previous one's per-problem sums (from ``initial``; -0.0,
    the neutral element of ``+``, as the in-memory solver's sums start), one per
    problem (``problems``, by default ``data.n_problems``)."""
    client = data.client
    acc = [initial] * (data.n_problems if problems is None else problems)
    for block, place in zip(data.blocks, placements(data, data.blocks), strict=True):
        acc = client.submit(func, block, *args, acc, pure=False, **kwargs, **place)
    return gather(data, [acc], [len(data.blocks) - 1])[0]


def zero_loss_sums(data, class_weight, loss: dict, joint: bool = False):
    """Per-problem sums of weighted losses at zero, in row order (``None`` when
    every weight is 1 and ``loss`` is a margin loss: ``L0`` is then ``l(0)``); with
    ``joint``, the one sum of the Crammer-Singer problem's weights."""
    unit = not data.weighted and np.all(class_weight == 1.0)
    if data.classes is not None and unit:
        return None
    sums = chain(
        data,
        _blocks.zero_loss_chain,
        data.classes,
        class_weight,
        loss,
        problems=1 if joint else None,
        joint=joint,
    )
    return np.asarray(sums, dtype=np.float64)


def first_step_sums(data, params: dict, class_weight, solver):
    """Per-problem sums a fresh fit of a loss that starts late (a squared loss)
    starts from, in row order as the in-memory solver takes them (``None`` when
    ``solver`` continues a fit, or for a loss that starts at step 1). Reads every
    row once."""
    if len(solver) or not _core.starts_late(params["loss"]):
        return None
    params = {**params, "check_input": data.checked}
    return chain(
        data,
        _blocks.first_step_chain,
        data.classes,
        class_weight,
        data.dtype,
        params,
        initial=(0.0, 0.0, 0.0, 0.0),
    )


def fit(data, params: dict, solver, class_weight, *, n_threads, round_bytes, callback, seed):
    """Run the fit of ``params`` on ``data``, continuing ``solver``; returns what
    ``pegasos_rs._core.fit_linear`` returns and leaves the final state in ``solver``
    (``solver`` is untouched when the fit raises). ``seed`` is unused: the draws
    follow ``params["seed"]`` and the solver's streams. ``class_weight`` is None
    for a regression."""
    joint = params.get("multi_class") == "crammer_singer"
    labels: dict = {
        "zero_loss_sums": zero_loss_sums(data, class_weight, params["loss"], joint),
        "first_step_sums": first_step_sums(data, params, class_weight, solver),
    }
    if data.classes is not None:
        labels["n_classes"] = int(data.classes.size)
        labels["class_weight"] = class_weight
        labels["class_counts"] = data.counts.sum(axis=0).astype(np.uint64)
    one_class = bool(params.get("one_class"))
    if one_class and params["projection"]:
        [largest] = chain(data, _blocks.one_class_sq_norm_chain, data.dtype, initial=0.0)
        labels["one_class_sq_norm"] = float(largest)
    fit = _core.StreamedLinearFit(solver, params, data.n_rows, data.n_features, labels, n_threads)
    sample = _OneClassSample(data, fit) if one_class else None
    k = params["batch_size"]
    problems = fit.n_problems
    rounds = _Rounds(data, params["sampling_name"] == "balanced", problems)
    report = _Progress(callback)

    def run(X, y, sw, drawn, _keys):
        fit.run(as_rust_matrix(X), y, sw, drawn)

    with _Passes(data, fit, rounds, k, round_bytes, report) as passes:
        while True:
            steps = np.asarray(fit.next_pass(), dtype=np.int64)
            if not steps.any():
                break
            pass_no = passes.run(steps, run)
            if sample is not None:
                sample.reset(rounds)
            losses = rho = None
            if fit.wants_objective:
                coef, intercept = fit.models()
                if one_class and params["fit_intercept"]:
                    # As in memory: measured with the best offset of its weights.
                    rho = one_class_offset(data, coef, params["alpha"])
                    intercept = np.array([1.0 - rho])
                # The model goes to the cluster once, not with every block's task.
                [model] = scatter(data.client, [(coef, intercept)])
                losses = chain(
                    data,
                    _blocks.loss_chain,
                    data.classes,
                    class_weight,
                    data.dtype,
                    model,
                    params["loss"],
                    problems=problems,
                    joint=joint,
                )
                report("objective", pass_no, int(steps.max()), int(steps.max()), rounds)
            _show(fit.end_pass(losses, rho))
    result = fit.finish(solver)
    if one_class and params["fit_intercept"]:
        result["intercept"] = np.array([-one_class_offset(data, result["coef"], params["alpha"])])
    return result


def fit_budget(data, fit, batch_size: int, *, round_bytes: int, callback) -> dict:
    """Run a budgeted kernel fit (``pegasos_rs._core.StreamedBudgetFit``, a fresh
    one) on ``data`` round by round; returns what ``pegasos_rs._core.
    fit_kernel_budget`` returns. The steps read the drawn rows and the budget's
    points only: nothing is summed over the training set."""
    rounds = _Rounds(data, False, fit.n_problems)

    def run(X, y, sw, drawn, keys):
        fit.run(as_rust_matrix(X), y, sw, drawn, keys)

    with _Passes(data, fit, rounds, batch_size, round_bytes, _Progress(callback)) as passes:
        while True:
            steps = np.asarray(fit.next_pass(), dtype=np.int64)
            if not steps.any():
                break
            passes.run(steps, run)
            _show(fit.end_pass())
    return fit.finish()


def _show(lines: list[str]) -> None:
    """A pass's verbose lines, to the progress reporter of the fit (if any)."""
    reporter = _progress.current()
    if reporter is not None and lines:
        reporter.update(0, 0, None, lines, False)


class _Passes:
    """Running a fit's passes round by round: one helper thread gathers the next
    round's rows while the client takes the current round's steps (see the module
    doc); a context manager (the thread)."""

    def __init__(self, data, fit, rounds: _Rounds, k: int, round_bytes: int, report):
        self.data, self.fit, self.rounds, self.k, self.report = data, fit, rounds, k, report
        per_round = max(1, int(round_bytes / max(1.0, data.row_bytes) / (k * fit.n_problems)))
        self.per_round = min(per_round, max(1, _MAX_ROUND_DRAWS // k))
        self.pass_no = 0
        self.fetcher = ThreadPoolExecutor(1, thread_name_prefix="pegasos-rs-rows")

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.fetcher.shutdown(wait=True)

    def run(self, steps: np.ndarray, run) -> int:
        """Take the pass of ``steps[p]`` steps of each problem ``p``: each round's
        draws (``fit.draw``) fetched, then ``run(X, y, sample_weight, drawn,
        keys)`` on them (``drawn[p]`` the rows of ``X`` of problem ``p``'s draws,
        ``keys[p]`` their training rows). Returns the pass's number."""
        self.pass_no += 1
        left = steps.copy()
        done = 0
        total = int(steps.max())
        fit, rounds, k = self.fit, self.rounds, self.k

        def next_round():
            now = np.minimum(left, self.per_round)
            left[:] -= now
            keys = fit.draw([int(s) * k for s in now])
            return self.fetcher.submit(rounds.collect, rounds.submit(keys)), int(now.max()), keys

        pending = next_round()
        while pending is not None:
            fetched, n_steps, keys = pending
            X, y, sw, drawn = fetched.result()
            # The next round's rows move while this round's steps run.
            pending = next_round() if left.any() else None
            run(X, y, sw, drawn, keys)
            self.data.ctrl_c.check()
            done += n_steps
            self.report("train", self.pass_no, done, total, rounds)
        return self.pass_no


class _OneClassSample:
    """The one-class SVM's rows whose scores reset the bias after each pass (as the
    in-memory solver resets it): fetched once, at the first reset."""

    def __init__(self, data, fit):
        self.fit = fit
        self.ids = fit.one_class_sample()
        self.rows = None

    def reset(self, rounds) -> None:
        if self.ids.size == 0:
            return
        if self.rows is None:
            X, _, sw, [position] = rounds.collect(rounds.submit([self.ids]))
            self.rows = (X[position], None if sw is None else sw[position])
        X, sw = self.rows
        self.fit.one_class_reset(as_rust_matrix(X), sw)


def one_class_offset(data, coef, nu: float) -> float:
    """The one-class SVM's exact offset ``rho`` for the weights ``coef``: the
    weighted ``nu``-quantile of the scores of all rows of positive weight, scored
    on the workers and ranked in row order (the in-memory solver's numbers)."""
    [model] = scatter(data.client, [np.asarray(coef, dtype=np.float64).reshape(1, -1)])
    parts = per_block(data, _blocks.one_class_scores, data.dtype, model)
    scores = np.concatenate([s for s, _ in parts])
    weights = np.concatenate([w for _, w in parts])
    return _core.one_class_offset(scores, weights, float(nu))


class _Progress:
    """Calls ``callback(info)`` after each round (see ``PegasosClassifier.fit``)."""

    def __init__(self, callback):
        self.callback = callback
        self.started = time.perf_counter()

    def __call__(self, stage: str, pass_no: int, done: int, total: int, rounds) -> None:
        if self.callback is not None:
            self.callback(
                {
                    "stage": stage,
                    "pass": pass_no,
                    "steps": done,
                    "steps_in_pass": total,
                    "seconds": time.perf_counter() - self.started,
                    "rounds": rounds.rounds,
                    "bytes_sent": rounds.sent,
                    "bytes_received": rounds.received,
                }
            )
