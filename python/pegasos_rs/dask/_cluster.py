"""Which Dask cluster a call runs on.

``client=`` when given; otherwise the current ``distributed.Client`` (the one made
by ``Client(...)`` or entered with ``with Client(...)``); otherwise a
``LocalCluster`` of worker processes sized to the machine, started for the call
and closed after it. Nothing here schedules or communicates by itself: all of it
is Dask's.
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
