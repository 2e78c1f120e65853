"""Files that hold raw conversation are private to their owner: folders 0700, files 0600.

Modes are set on what riko creates; a folder that already existed (a root the user chose) is
left as it is, and every folder riko creates under it is private.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["DIR_MODE", "FILE_MODE", "private_dir", "private_file", "private_tree"]

DIR_MODE = 0o700
FILE_MODE = 0o600


def private_dir(path: str | os.PathLike[str]) -> Path:
    """Create ``path`` and any missing parents, each one riko creates with mode 0700."""
    target = Path(path)
    missing = []
    for folder in (target, *target.parents):
        if folder.exists():
            break
        missing.append(folder)
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=DIR_MODE)
        except FileExistsError:
            continue
        os.chmod(folder, DIR_MODE)  # mkdir's mode passes through the umask
    return target


def private_file(path: str | os.PathLike[str]) -> None:
    """Make an existing file readable and writable by its owner only."""
    try:
        os.chmod(path, FILE_MODE)
    except FileNotFoundError:
        pass


def private_tree(path: str | os.PathLike[str]) -> None:
    """Folders 0700 and files 0600 under ``path`` (an export riko just wrote)."""
    root = Path(path)
    if root.is_dir():
        os.chmod(root, DIR_MODE)
        for dirpath, dirnames, filenames in os.walk(root):
            for name in dirnames:
                os.chmod(Path(dirpath) / name, DIR_MODE)
            for name in filenames:
                os.chmod(Path(dirpath) / name, FILE_MODE)
    elif root.exists():
        os.chmod(root, FILE_MODE)
