"""Where batch work runs: a local thread pool, or Ray tasks across a cluster (extra ``riko[ray]``).

Only pure computation leaves the writer: a Dream job's provider call and parse, or one batch
of passage embeddings. Each task gets its inputs (a bounded transcript, a list of texts) and
returns a value (FILE-protocol text and its parse, a vector matrix); it never opens the scope.
The process that submitted it applies every result under the scope's one writer, through the
same authority rules, job rows and audits as a local run, so both give the same candidates,
pages and audits. A task whose worker dies is retried by Ray; its result is applied once,
because the writer applies one result per job id and the job's rows are keyed by that id.

    >>> with open_executor("ray", address=None) as ex:      # doctest: +SKIP
    ...     mem.dream(executor=ex)
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import numpy as np

from .errors import ConfigError
from .dense.providers import make_embedding_provider
from .recall.engine import build_index

if TYPE_CHECKING:
    from .context import ScopeContext

__all__ = ["EXECUTORS", "LocalExecutor", "ParallelPassages", "RayExecutor", "embedding_spec", "open_executor",
           "parallel_index"]

EXECUTORS = ("local", "ray")
_TASK_RETRIES = 3


class LocalExecutor:
    """A thread pool of ``workers``; the default for local runs."""

    name = "local"

    def __init__(self, workers: int = 1) -> None:
        self.workers = int(workers)
        self._pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="riko-batch")

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        return self._pool.submit(fn, *args)

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        """Stop the pool (also what the Dream runner calls at the end of a run)."""
        self._pool.shutdown(wait=wait, cancel_futures=cancel_futures)

    def close(self) -> None:
        self._pool.shutdown(wait=True)


def _call(fn: Callable[..., Any], *args: Any) -> Any:
    return fn(*args)


class RayExecutor:
    """Ray tasks, each a ``concurrent.futures.Future``; joins a running cluster or starts a local one.

    ``address`` is a Ray cluster address (``"auto"``, ``"ray://host:10001"``); None joins the
    cluster this process already initialised, else starts a local one (``num_cpus`` wide).
    A task whose worker process dies is retried up to three times by Ray.
    """

    name = "ray"

    def __init__(self, address: str | None = None, *, num_cpus: int | None = None) -> None:
        try:
            import ray
        except ImportError:
            raise ConfigError("executor", "the ray executor needs the extra: pip install 'riko[ray]'") from None
        self._ray = ray
        self._owns = not ray.is_initialized()
        if self._owns:
            try:
                ray.init(address=address, num_cpus=num_cpus if address is None else None,
                         include_dashboard=False, log_to_driver=False, configure_logging=False)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                self._owns = False
                raise ConfigError("address", f"could not join the Ray cluster at {address!r}: {exc}") from None
        self.workers = max(1, int(ray.cluster_resources().get("CPU", 1)))
        self._task = ray.remote(max_retries=_TASK_RETRIES, num_cpus=1)(_call)
        self._pending: set[Any] = set()
        self._lock = threading.Lock()

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        ref = self._task.remote(fn, *args)
        with self._lock:
            self._pending.add(ref)
        future: Future[Any] = ref.future()
        future.add_done_callback(self._forget(ref))
        return future

    def _forget(self, ref: Any) -> Callable[[Future[Any]], None]:
        def done(_future: Future[Any]) -> None:
            with self._lock:
                self._pending.discard(ref)

        return done

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        """Cancel tasks still queued when asked; the cluster itself stays up until :meth:`close`."""
        if cancel_futures:
            with self._lock:
                refs, self._pending = list(self._pending), set()
            for ref in refs:
                self._ray.cancel(ref)

    def close(self) -> None:
        """Leave the cluster when this executor started it."""
        self.shutdown(cancel_futures=True)
        if self._owns and self._ray.is_initialized():
            self._ray.shutdown()
        self._owns = False


@contextmanager
def open_executor(kind: Any, *, address: str | None = None, workers: int = 1) -> Iterator[Any]:
    """An executor for ``kind`` (``"local"``, ``"ray"`` or an executor object), closed on exit
    when it was made here."""
    if not isinstance(kind, str):
        yield kind
        return
    if kind not in EXECUTORS:
        raise ConfigError("executor", f"unknown executor {kind!r}; choose one of {', '.join(EXECUTORS)}")
    if address is not None and kind != "ray":
        raise ConfigError("address", "a cluster address needs --executor ray")
    made: Any = RayExecutor(address) if kind == "ray" else LocalExecutor(workers)
    try:
        yield made
    finally:
        made.close()


# -- embedding batches ---------------------------------------------------------------------------
def embedding_spec(config: Any) -> dict[str, Any]:
    """The configured embedding provider as plain settings, rebuilt inside each worker process."""
    return {"name": config.embedding_provider, "dimension": config.embedding_dimension,
            "endpoint": config.embedding_endpoint, "model": config.embedding_model,
            "credential_ref": config.embedding_credential_ref, "timeout_ms": config.embedding_timeout_ms}


_WORKER_PROVIDERS: dict[tuple[Any, ...], Any] = {}
_WORKER_GUARD = threading.Lock()


def _embed_batch(spec: Mapping[str, Any], texts: Sequence[str]) -> np.ndarray:
    """One embedding batch in a worker; the provider (and its model) is built once per process."""

    key = tuple(sorted(spec.items()))
    with _WORKER_GUARD:
        provider = _WORKER_PROVIDERS.get(key)
        if provider is None:
            settings = dict(spec)
            provider = _WORKER_PROVIDERS[key] = make_embedding_provider(settings.pop("name"), **settings)
    if provider is None:
        raise ConfigError("embedding_provider", "is off in the worker's settings")
    return np.asarray(provider.embed_passages(list(texts)), dtype=np.float32)


class ParallelPassages:
    """An embedding provider whose passage batches run on an executor; queries stay local.

    The dense index hands it all batches of a build at once (``embed_passage_batches``) and
    gets them back in order, so validation, reuse by text hash and promotion are unchanged.
    """

    def __init__(self, inner: Any, spec: Mapping[str, Any], executor: Any) -> None:
        self.inner = inner
        self.spec = dict(spec)
        self.executor = executor
        self.model = inner.model
        self.dimension = int(inner.dimension)

    def __repr__(self) -> str:
        return f"ParallelPassages({self.inner!r}, executor={self.executor.name})"

    def embed_query(self, text: str) -> np.ndarray:
        return self.inner.embed_query(text)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self.executor.submit(_embed_batch, self.spec, list(texts)).result()

    def embed_passage_batches(self, batches: Sequence[Sequence[str]]) -> Iterator[np.ndarray]:
        """Submit every batch, then yield the matrices in batch order."""
        futures = [self.executor.submit(_embed_batch, self.spec, list(batch)) for batch in batches]
        try:
            for future in futures:
                yield future.result()
        finally:
            for future in futures:
                future.cancel()


def parallel_index(ctx: "ScopeContext", executor: Any = None, *, address: str | None = None, progress: bool = True,
                   force: bool = False) -> dict[str, Any]:
    """``mem.index``: build the dense generation here, with passage batches on ``executor`` when given."""

    if executor is None or executor == "local" and address is None:
        return build_index(ctx, progress=progress, force=force)
    spec = embedding_spec(ctx.config)
    settings = dict(spec)
    inner = make_embedding_provider(settings.pop("name"), **settings)
    if inner is None:
        raise ConfigError("embedding_provider", "is off; set it to deterministic, local, local-fast or "
                                                "openai-compatible to build a dense index")
    with open_executor(executor, address=address) as chosen:
        return build_index(ctx, progress=progress, force=force, provider=ParallelPassages(inner, spec, chosen))
