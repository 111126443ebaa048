"""Docstring text public objects share, written once and filled into each docstring.

A line of a docstring that holds only ``{name}``, ``name`` a key of
:data:`FRAGMENTS`, is replaced by that fragment, indented as the line was. The text
then reads (and renders in Sphinx / numpydoc, which see the filled ``__doc__``) as
if it had been written in place; a fragment may end mid-sentence, the docstring
going on with the next line.
"""

from __future__ import annotations

import re
from typing import TypeVar

_T = TypeVar("_T")

_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")

#: The named fragments, unindented.
FRAGMENTS = {
    "random_state": """\
random_state : int, RandomState instance or None, default=None
    Seed. The same int gives bit-identical models on every platform and thread
    count.""",
    # The classes go on with what ``probability`` keeps bit for bit, and its cost.
    "probability_platt": """\
Also fit class probabilities (:meth:`predict_proba`,
:meth:`predict_log_proba`) by Platt scaling, as ``SVC(probability=True)``:
``fit`` trains a copy of the estimator on each training part of a stratified
5-fold split of the data (shuffled with ``random_state``; as many folds as
the smallest class has examples when that is fewer than 5, at least 2), fits
Platt's sigmoid to the held-out decision values of each one-vs-rest problem
(see :meth:`predict_proba`; ``sample_weight`` weighs both the folds' fits and
the sigmoids' likelihood, as in ``CalibratedClassifierCV``), then trains the
model on all the data as without ``probability``, so""",
    "platt_attributes": """\
probA_, probB_ : ndarray of shape (1,) or (n_classes,)
    Platt's sigmoid ``1 / (1 + exp(probA_ f + probB_))`` of each class's score
    (one for two classes, whose positive class is ``classes_[1]``; one per class
    otherwise). Only with ``probability=True``.""",
    # Early stopping (pegasos_rs._early_stopping), the linear and kernel estimators.
    "early_stopping": """\
early_stopping : bool, default=False
    Hold out ``validation_fraction`` of the training rows (stratified by class
    for a classifier, at least one row of each class; drawn with
    ``random_state``), train on the others, score
    the model on the held-out rows after every pass (its ``score``: the accuracy
    of each binary problem on its own labels, R^2 for a regression, weighted by
    ``sample_weight``), and stop once that score has not improved by at least
    ``tol`` (1e-3 when ``tol`` is None) for ``n_iter_no_change`` passes, as
    scikit-learn's ``SGDClassifier`` does. The model returned is the one of the
    last pass run; the scores are in ``validation_scores_``. Until the rule
    stops it, the model is, bit for bit, the fit on the other rows alone (a
    kernel's ``gamma="scale"`` is computed on all the rows given). Not
    with ``partial_fit`` (one pass on the rows it is given), nor with
    ``check_input=False``.
validation_fraction : float, default=0.1
    The share of the training rows held out with ``early_stopping``, in (0, 1).""",
    # The kernel estimators' budget of support vectors (solvers::kernel_budget).
    "budget": """\
budget : int or None, default=None
    At most this many support vectors per binary problem (>= 2): budgeted SGD
    (Wang, Crammer and Vucetic, JMLR 2012). A step then costs ``budget`` kernel
    values per drawn row, whatever the number of rows, and prediction
    ``budget`` per problem and row. When a step adds one too many, the budget is
    kept by ``budget_maintenance``. The support vectors are then points, not
    training rows: ``support_vectors_`` holds them (dense), ``support_`` their
    training rows, -1 for a merged point. With a budget no fit reaches, the model
    is the one without a budget (up to the rounding of the kernel values). Not with
    ``kernel="precomputed"``, ``early_stopping``, or the losses whose run starts
    late (``squared_hinge``, ``modified_huber``, ``squared_epsilon_insensitive``).
    One-vs-one pairs, as one-vs-rest problems, keep budgets of their own. None: no
    budget.
budget_maintenance : {"merge", "remove", "project"}, default="merge"
    ``"merge"`` (rbf only): the support vector of smallest coefficient is merged
    with the partner of the same sign that changes the model least, into a point
    on the segment between them (golden-section search); ``"remove"``: it is
    dropped; ``"project"`` (a positive semi-definite kernel: not ``"sigmoid"``,
    nor ``"poly"`` with ``coef0 < 0``): the support vector whose projection onto
    the span of the others changes the model least is projected onto it (the
    others' coefficients take its part exactly), and a row already in the support
    vectors' span (a repeated row, or one whose distance to it rounding cannot
    tell from zero) is projected onto it rather than added. Each
    binary problem then keeps the inverse of its support vectors' kernel matrix,
    ``budget**2`` floats (32 MB for a budget of 2,000), and a step that adds a
    support vector costs about ``budget**2`` operations more. Merging and
    projection keep far more of the model than removal (the simplest, which loses
    the most); projection works with every positive semi-definite kernel and its
    support vectors stay training rows.""",
    "validation_scores": """\
validation_scores_ : list of ndarray of shape (n_iter,)
    With ``early_stopping``: the held-out score after each pass of the last
    ``fit``, one array per binary problem (one for two classes or a
    regression, each problem stopping by its own score).""",
    "notes_threads": """\
Long calls release the GIL and stop within about 50 ms of Ctrl-C with
``KeyboardInterrupt``. A ``fit`` or ``partial_fit`` that raises (Ctrl-C or an
error) leaves the estimator exactly as it was before the call, solver state
included, so a later warm start continues as if the call had not happened. Input
arrays are read in place while the GIL is released: they must not be modified by
another thread during a call (if they are, the call raises or returns wrong
numbers; every index is checked). One fitted estimator may predict from several
threads at once.""",
    # The feature maps (pegasos_rs.kernel_approximation).
    "map_verbose": """\
verbose : int, default=0
    Report the progress of long calls (rows transformed) on
    :data:`sys.stderr`, every few seconds.""",
    "notes_maps": """\
``fit`` and ``transform`` release the GIL and stop within about 50 ms of Ctrl-C
with ``KeyboardInterrupt``; a ``fit`` that raises leaves the map as it was.
Input arrays must not be modified by another thread during a call.""",
    "map_fit_parameters": """\
Parameters
----------
X : {array-like, sparse matrix} of shape (n_samples, n_features)
y : ignored

Returns
-------
self""",
    # The foreign model readers (pegasos_rs.io.foreign_models).
    "reader_parameters": """\
Parameters
----------
text : str
    The file's contents.
where : str
    The file's name, for error messages.""",
    # The foreign models' predict.
    "foreign_predict_parameters": """\
Parameters
----------
X : {array-like, sparse matrix} of shape (n_samples, n_features)
n_jobs : int, default=None
    Threads (-1: all cores).

Returns
-------
labels : ndarray of shape (n_samples,)""",
}


def filled(obj: _T) -> _T:
    """Replace the placeholder lines of ``obj.__doc__`` by their fragments.

    Parameters
    ----------
    obj : class or function
        Its docstring is rewritten in place (nothing happens without one, as
        under ``python -OO``).

    Returns
    -------
    obj
        The same object.
    """
    doc = obj.__doc__
    if doc is None:
        return obj
    lines = []
    for line in doc.split("\n"):
        match = _PLACEHOLDER.fullmatch(line.strip())
        if match is None:
            lines.append(line)
            continue
        indent = line[: len(line) - len(line.lstrip())]
        fragment = FRAGMENTS[match.group(1)]  # a misspelt name fails at import
        lines += [indent + text if text else text for text in fragment.split("\n")]
    obj.__doc__ = "\n".join(lines)
    return obj
