"""Which Dask cluster a call runs on, and how a fit puts its values there.

``client=`` when given; otherwise the current ``distributed.Client`` (the one made
by ``Client(...)`` or entered with ``with Client(...)``); otherwise a
``LocalCluster`` of worker processes sized to the machine, started for the call
and closed after it. Nothing here schedules by itself: all of it is Dask's.
:func:`scatter` puts a fit's own values on the workers.
"""

from __future__ import annotations

import contextlib
import logging

import distributed


def current_client():
    """The current ``distributed.Client``, or ``None``."""
    try:
        return distributed.default_client()
    except ValueError:
        return None


@contextlib.contextmanager
def cluster(client=None):
    """Yield the client to run on (see the module doc)."""
    if client is not None:
        if not isinstance(client, distributed.Client):
            raise TypeError(f"client must be a distributed.Client, got {type(client).__name__}")
        yield client
        return
    found = current_client()
    if found is not None:
        yield found
        return
    with (
        distributed.LocalCluster(
            processes=True, dashboard_address=":0", silence_logs=logging.ERROR
        ) as local,
        distributed.Client(local, set_as_default=False) as own,
    ):
        yield own


def scatter(client, values: list) -> list:
    """Futures of ``values`` on the workers, each under a key of its own.

    ``client.scatter`` names data by its hash unless told otherwise, so equal
    values scattered by two fits on one client (the same in-memory arrays, equal
    models) would share a key; the release of one fit's future can reach the
    scheduler after the other fit's scatter of the same value, and take it from
    the other (whose tasks then fail with "lost dependencies"). A fit releases its
    futures when it ends, fails or stops at Ctrl-C: what it scatters is its own."""
    return client.scatter(list(values), broadcast=False, hash=False)
