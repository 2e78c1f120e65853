"""Old import path of :mod:`riko.stores.warehouse` (the store floor owns the database now)."""

import sys

from .stores import warehouse as _moved
from .stores.warehouse import *  # noqa: F403  (the public names, for type checkers)

sys.modules[__name__] = _moved
