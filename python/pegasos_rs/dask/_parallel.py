"""Parallel mode: iterative parameter mixing (McDonald, Hall, Mann 2010; Zinkevich,
Weimer, Smola, Li 2010) of Pegasos runs.

Round r starts every partition's local solver at the shared iterate ``(w, b)``
after ``t`` steps; each runs one pass over its own rows (``ceil(n_b / k)`` steps of
sizes ``1/(alpha (t + s))``, on the worker that holds it, sampling with its own
seeded stream), and the new shared iterate is the row-weighted mean of the
results: ``w = sum_b n_b w_b / n``, summed pairwise on the cluster, so the client
only ever holds one iterate, O(d · classes). The step counter advances by the
row-weighted mean number of local steps, so a round counts as one pass.

The mean of the partitions' iterates inherits their convergence with a variance
lowered by averaging; it is not the in-memory solver's sequence. ``max_iter`` is
the number of rounds (with ``max_steps``, enough rounds for that many steps);
``average=True`` returns the mean of all local iterates of the last half of the
rounds (each round's local means, mixed); ``tol`` stops on the objective,
evaluated after every round by sums over the partitions in parallel.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from pegasos_rs import _core, _progress
from pegasos_rs.dask import _blocks
from pegasos_rs.dask._cluster import scatter
from pegasos_rs.dask._exact import gather, placements, zero_loss_sums

_GOLDEN = 0x9E3779B97F4A7C15


def _tree_sum(data, futures):
    """The sum of the futures' arrays, added pairwise on the cluster."""
    while len(futures) > 1:
        pairs = [futures[i : i + 2] for i in range(0, len(futures), 2)]
        futures = [
            data.client.submit(_blocks.add, *p, pure=False) if len(p) == 2 else p[0] for p in pairs
        ]
    return gather(data, futures, [0])[0]


def _model(v, bias, params):
    """``(coef, intercept)`` of iterates ``(v, bias)``: the intercept is the bias,
    or ``B`` times the bias-multiplier weight (``LinearState::write_last_iterate``)."""
    coef = np.ascontiguousarray(v[:, :-1])
    if not params["fit_intercept"]:
        return coef, np.zeros(v.shape[0])
    if params["intercept_scaling"] is None:
        return coef, bias.copy()
    return coef, bias + params["intercept_scaling"] * v[:, -1]


def fit(data, params: dict, solver, class_weight, *, n_threads, round_bytes, callback, seed):
    """Train ``params`` on ``data`` by parameter mixing, continuing ``solver``'s
    iterates; returns what ``pegasos_rs._core.fit_linear`` returns and leaves the
    final iterates in ``solver``. ``class_weight`` is None for a regression."""
    client = data.client
    n, d = data.n_rows, data.n_features
    k = params["batch_size"]
    problems = data.n_problems
    sums = zero_loss_sums(data, class_weight, params["loss"])
    zero_loss = np.asarray(
        _core.mean_zero_losses(params["loss"], n, problems, None if sums is None else list(sums))
    )
    if len(solver):
        (v, bias), t = solver.iterates()
        t = int(max(t))
    else:
        v, bias = np.zeros((problems, d + 1)), np.zeros(problems)
        # One step counter for all problems: the latest start any of them needs.
        t = max(_first_steps(data, params, class_weight)) - 1
    rows = np.diff(data.offsets)
    blocks = [b for b, m in zip(data.blocks, rows, strict=True) if m > 0]
    where = placements(data, blocks)
    local_steps = np.ceil(rows / k)
    per_round = float((rows * local_steps).sum() / n)
    if params["max_steps"] is None:
        rounds = int(params["max_iter"])
    else:
        rounds = max(1, math.ceil(params["max_steps"] / per_round))
    average, average_start = params["average"], params["average_start"]
    suffix_from = rounds // 2 + 1
    avg_v, avg_b, avg_count = np.zeros_like(v), np.zeros_like(bias), 0
    tol, patience = params["tol"], params["n_iter_no_change"]
    best, stale, objective, done, converged = math.inf, 0, None, 0, False
    started = time.perf_counter()
    sent = received = 0
    for r in range(1, rounds + 1):
        averaging = (
            (average == "suffix" and r >= suffix_from)
            or (average == "from" and t + per_round >= average_start)
            or average == "weighted"
        )
        start = {"v": v, "bias": bias, "t": t, "zero_loss": zero_loss, "average": averaging}
        [start] = scatter(client, [start])
        parts = [
            client.submit(
                _blocks.mix_round,
                block,
                data.classes,
                class_weight,
                data.dtype,
                params,
                start,
                (seed + _GOLDEN * (r * len(data.blocks) + i + 1)) % (1 << 64),
                pure=False,
                **place,
            )
            for i, (block, place) in enumerate(zip(blocks, where, strict=True))
        ]
        total = _tree_sum(data, parts)
        data.ctrl_c.check()
        sent += int(v.nbytes + bias.nbytes + zero_loss.nbytes)
        received += sum(int(a.nbytes) for a in total)
        v, bias = total[0] / n, total[1] / n
        t += round(per_round)
        done = r
        if averaging:
            # The mean of every local iterate of the round, as the in-memory solver
            # averages every iterate (not only the mixed ones).
            # "weighted" (partial_fit): each round's mean iterate weighs its step t.
            weight = t if average == "weighted" else 1
            avg_v += weight * total[2] / n
            avg_b += weight * total[3] / n
            avg_count += weight
        if callback is not None:
            callback(
                {
                    "stage": "round",
                    "pass": r,
                    "steps": r,
                    "steps_in_pass": rounds,
                    "seconds": time.perf_counter() - started,
                    "rounds": r,
                    "bytes_sent": sent,
                    "bytes_received": received,
                }
            )
        if tol is None and not params["verbose"]:
            continue
        objective = _objective(
            data, class_weight, params, *_model(*_current(v, bias, avg_v, avg_b, avg_count), params)
        )
        reporter = _progress.current()
        if params["verbose"] and reporter is not None:
            line = (
                f"round {r}/{rounds}: objective {objective.max():.6e}, t {t}, "
                f"{time.perf_counter() - started:.2f}s"
            )
            reporter.update(0, 0, None, [line], False)
        if tol is not None:
            worst = float(objective.max())
            stale = stale + 1 if worst > best - tol * abs(best) else 0
            best = min(best, worst)
            if stale >= patience:
                converged = True
                break
    coef, intercept = _model(*_current(v, bias, avg_v, avg_b, avg_count), params)
    solver.set_iterates(v, bias, [t] * problems, seed)
    objs = [None] * problems if objective is None else [float(o) for o in objective]
    return {
        "coef": coef,
        "intercept": intercept,
        "n_iter": [done] * problems,
        "t": [t] * problems,
        "objective": objs,
        "converged": [None if tol is None else converged] * problems,
    }


def _current(v, bias, avg_v, avg_b, count) -> tuple[Any, Any]:
    if count:
        return avg_v / count, avg_b / count
    return v, bias


def _first_steps(data, params, class_weight) -> list[int]:
    """Per problem, the step a fresh run starts at (1 but for the squared losses):
    from the rows' sums taken on the partitions in parallel, added on the client."""
    if not _core.starts_late(params["loss"]):
        return [1] * data.n_problems
    client = data.client
    checked = {**params, "check_input": data.checked}
    parts = [
        client.submit(
            _blocks.first_step_chain,
            b,
            data.classes,
            class_weight,
            data.dtype,
            checked,
            [(0.0, 0.0, 0.0, 0.0)] * data.n_problems,
            pure=False,
            **place,
        )
        for b, place in zip(data.blocks, placements(data, data.blocks), strict=True)
    ]
    sums = np.asarray(gather(data, parts, list(range(len(parts)))), dtype=np.float64)
    # Per problem: the blocks' sums added, their largest term and weight kept.
    added, largest = sums[:, :, :2].sum(axis=0), sums[:, :, 2:].max(axis=0)
    merged = [
        (float(a[0]), float(a[1]), float(m[0]), float(m[1]))
        for a, m in zip(added, largest, strict=True)
    ]
    return _core.first_steps(params, merged)


def _objective(data, class_weight, params, coef, intercept):
    """Per-problem primal objective of ``(coef, intercept)``: loss sums over the
    blocks in parallel, added on the client."""
    client = data.client
    [model] = scatter(client, [(coef, intercept)])
    problems = coef.shape[0]
    parts = [
        client.submit(
            _blocks.loss_chain,
            b,
            data.classes,
            class_weight,
            data.dtype,
            model,
            params["loss"],
            [-0.0] * problems,
            pure=False,
            **place,
        )
        for b, place in zip(data.blocks, placements(data, data.blocks), strict=True)
    ]
    loss = np.sum(gather(data, parts, list(range(len(parts)))), axis=0)
    reg = np.zeros(problems)
    if params["fit_intercept"] and params["intercept_scaling"] is not None:
        reg = (intercept / params["intercept_scaling"]) ** 2
    norm = np.einsum("ij,ij->i", coef, coef) + reg
    return 0.5 * params["alpha"] * norm + loss / data.n_rows
