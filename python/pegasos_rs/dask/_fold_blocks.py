"""What a cross-validated search asks of each block, on the worker that holds it.

A fold is a set of global rows; each task gets, for every fold, the local indices
(increasing) of its rows that lie in this block, and works on those rows only
(:func:`fold_rows`): the sums a fold's fits start from and their objective, taken
in row order block after block as :func:`pegasos_rs.dask._exact.chain` runs them,
and the decision values of the fold's models on its held-out rows.
"""

from __future__ import annotations

import numpy as np

from pegasos_rs import _core
from pegasos_rs._validation import as_rust_matrix, buffer
from pegasos_rs.dask._blocks import Block, _examples, full_matrix


def labels_and_weights(block: Block):
    """The block's labels and sample weights (``None`` when unweighted)."""
    return block.labels, block.sample_weight


def largest_squared_norm(block: Block, dtype: str) -> float:
    """``max_i ||x_i||^2`` over the block's rows (0 for an empty block), as the
    in-memory search computes it (without the bias feature)."""
    # Imported here: the other tasks' workers need not import the search's
    # scikit-learn machinery.
    from pegasos_rs import _search

    return _search.largest_squared_norm(full_matrix(block, dtype), False, None)


def fold_rows(X, y, labels: dict, ids: np.ndarray):
    """Rows ``ids`` of the block's matrix ``X``, targets ``y`` and weights in
    ``labels`` (the layout of ``_blocks._examples``), with ``class_weight``
    left as it is."""
    sw = labels.get("sample_weight")
    sub = {**labels, "sample_weight": None if sw is None else sw[ids]}
    return X[ids], y[ids], sub


def first_step_chain(block: Block, classes, class_weights, dtype, params: dict, ids, acc):
    """Continue each fold's per-problem sums a fresh fit of a squared loss starts
    from (``_blocks.first_step_chain``) over the fold's rows in this block:
    ``class_weights[f]``, ``ids[f]`` and ``acc[f]`` are fold ``f``'s."""
    X = full_matrix(block, dtype)
    out = []
    for weights, rows, sums in zip(class_weights, ids, acc, strict=True):
        y, labels = _examples(block, classes, weights)
        X_f, y_f, labels_f = fold_rows(X, y, labels, rows)
        out.append(_core.first_step_sums(as_rust_matrix(X_f), y_f, labels_f, params, sums))
    return out


def loss_chain(block: Block, classes, class_weights, dtype, models, loss: dict, ids, acc):
    """Continue the per-problem loss sums of every model of every fold over the
    fold's rows in this block (the objective ``tol`` reads): ``models[f][a]`` is
    ``(coef, intercept)`` and ``acc[f][a]`` its sums."""
    X = full_matrix(block, dtype)
    out = []
    for weights, fold_models, rows, fold_acc in zip(class_weights, models, ids, acc, strict=True):
        y, labels = _examples(block, classes, weights)
        X_f, y_f, labels_f = fold_rows(X, y, labels, rows)
        matrix = as_rust_matrix(X_f)
        out.append(
            [
                None
                if model is None
                else _core.loss_sums(
                    matrix,
                    y_f,
                    labels_f,
                    buffer(model[0], np.float64),
                    buffer(model[1], np.float64),
                    sums,
                    loss,
                    False,
                )
                for model, sums in zip(fold_models, fold_acc, strict=True)
            ]
        )
    return out


def decisions(block: Block, dtype, models, ids):
    """The decision values of fold ``f``'s models on the fold's held-out rows
    ``ids[f]`` of this block, bit for bit as ``decision_function`` computes them,
    each row read once for all the models: ``models[f]`` is ``(coef_t,
    intercept)`` of all the fold's models stacked, ``coef_t`` feature-major (shape
    (n_features, n_models * outputs)); ``out[f]`` of shape (rows, n_models *
    outputs)."""
    matrix = as_rust_matrix(full_matrix(block, dtype))
    return [
        _core.decision_function_rows(
            matrix,
            buffer(rows, np.int64),
            buffer(coef_t, np.float64),
            buffer(intercept, np.float64),
            1,
        )
        for (coef_t, intercept), rows in zip(models, ids, strict=True)
    ]


def correct_counts(block: Block, dtype, models, ids, classes, n_outputs: int):
    """Per fold and model, how many of the fold's held-out rows in this block the
    model predicts right (as ``predict`` decides: the sign of one output, class 1
    when positive; else the first largest output); ``models`` and ``ids`` as
    :func:`decisions` takes them."""
    codes = np.searchsorted(classes, block.labels)
    out = []
    for values, rows in zip(decisions(block, dtype, models, ids), ids, strict=True):
        truth = codes[rows]
        per_model = values.reshape(rows.size, values.shape[1] // n_outputs, n_outputs)
        if n_outputs == 1:
            predicted = (per_model[:, :, 0] > 0).astype(np.intp)
        else:
            predicted = np.argmax(per_model, axis=2)
        out.append(np.count_nonzero(predicted == truth[:, None], axis=0).tolist())
    return out
