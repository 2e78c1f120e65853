"""Old import path of :mod:`riko.stores.locks` (the store floor owns the file locks now)."""

import sys

from .stores import locks as _moved
from .stores.locks import *  # noqa: F403  (the public names, for type checkers)

sys.modules[__name__] = _moved
