"""``python -m riko.ingest.worker TASKS.json``: parse log files for a parallel ingest.

Run as a plain subprocess (not multiprocessing), so the caller's ``__main__`` is never
re-imported. Each task's batches are spilled to Arrow IPC files; its result is pickled to
``<prefix>.result`` (renamed into place when complete), in task order.
"""

from __future__ import annotations

import json
import os
import pickle
import sys
import traceback

from .parse import parse_file_to_spill


def main(task_file: str) -> int:
    with open(task_file, encoding="utf-8") as f:
        spec = json.load(f)
    for task in spec["tasks"]:
        prefix = task["spill_prefix"]
        try:
            result: object = parse_file_to_spill(
                task["path"], task["start_offset"], task["start_line"], spec["max_text_chars"], spec["scope_key"],
                spec["now_ms"], spec["watermarks"], spec["classify"], prefix,
            )
        except Exception:  # reported to the writer, which reads the file itself instead
            result = {"error": traceback.format_exc(limit=5)}
        tmp = f"{prefix}.result.tmp"
        with open(tmp, "wb") as out:
            pickle.dump(result, out, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, f"{prefix}.result")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
