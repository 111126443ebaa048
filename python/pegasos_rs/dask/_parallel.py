"""Parallel mode (iterative parameter mixing); see PegasosClassifier."""

from __future__ import annotations


def fit(data, params, solver, class_weight, *, n_threads, round_bytes, callback):
    raise NotImplementedError("parallel mode")
