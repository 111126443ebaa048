"""``python -m pegasos_rs`` runs the command line (same as ``pegasos-rs``)."""

import sys

from pegasos_rs.cli import run

sys.exit(run())
