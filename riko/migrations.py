"""Old import path of :mod:`riko.stores.migrations` (the store floor owns the database now)."""

import sys

from .stores import migrations as _moved
from .stores.migrations import *  # noqa: F403  (the public names, for type checkers)

sys.modules[__name__] = _moved
