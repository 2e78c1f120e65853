"""Old import path of :mod:`riko.stores.relocation` (the store floor owns the database now)."""

import sys

from .stores import relocation as _moved
from .stores.relocation import *  # noqa: F403  (the public names, for type checkers)

sys.modules[__name__] = _moved
