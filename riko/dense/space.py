"""The vector space every embedding provider shares: the dimension bounds and unit-length rows."""

from __future__ import annotations

import numpy as np

__all__ = ["MIN_DIMENSION", "MAX_DIMENSION", "normalize_rows"]

MIN_DIMENSION = 8
MAX_DIMENSION = 4096


def normalize_rows(matrix: np.ndarray) -> np.ndarray:
    """Return ``matrix`` as float32 with every non-zero row scaled to unit length."""
    out = np.asarray(matrix, dtype=np.float32)
    if out.ndim == 1:
        norm = float(np.linalg.norm(out))
        return out / norm if norm > 0 else out.copy()
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return np.divide(out, norms, out=np.zeros_like(out), where=norms > 0)
