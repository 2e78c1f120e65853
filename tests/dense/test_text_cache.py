"""The on-disk passage-vector cache: shards on real files, a deterministic provider behind it."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

import riko
from riko.dense.providers import DeterministicProvider
from riko.dense.store import text_key
from riko.dense.text_cache import CachedProvider, PassageCache, default_cache_dir
from riko.errors import ProviderError
from riko.recall.engine import build_index, retrieve


class CountingProvider(DeterministicProvider):
    """The deterministic provider, recording every batch it is asked to embed."""

    def __init__(self, dimension: int = 32) -> None:
        super().__init__(dimension)
        self.batches: list[list[str]] = []

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        self.batches.append(list(texts))
        return super().embed_passages(texts)

    @property
    def passages(self) -> int:
        return sum(len(b) for b in self.batches)


class BrokenProvider(CountingProvider):
    """Answers the first ``good`` batches, then fails like a provider that went away."""

    def __init__(self, good: int, shape: tuple[int, int] | None = None) -> None:
        super().__init__()
        self.good, self.shape = good, shape

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        if len(self.batches) >= self.good:
            if self.shape is not None:
                self.batches.append(list(texts))
                return np.zeros(self.shape, dtype=np.float32)
            raise ProviderError("unavailable", "embedding endpoint went away")
        return super().embed_passages(texts)


TEXTS = ["Emi: I adopted a cat called Miso", "Paola: the Netflix show was great", "user: 我在南锣鼓巷买了花瓶"]


def shards(directory: Path) -> list[Path]:
    return sorted(directory.rglob("shard-*.npz"))


def test_cached_vectors_equal_the_provider_and_a_second_run_embeds_nothing(tmp_path: Path) -> None:
    direct = DeterministicProvider(32).embed_passages(TEXTS)
    first = CachedProvider(CountingProvider(), tmp_path)
    assert (first.model, first.dimension) == ("deterministic-local-v1", 32)
    np.testing.assert_allclose(first.embed_passages(TEXTS), direct, rtol=0, atol=1e-6)
    assert first.embedded == 3 and first.inner.passages == 3
    assert len(shards(tmp_path)) == 1 and shards(tmp_path)[0].parent == tmp_path / "deterministic-local-v1" / "32"

    again = CachedProvider(CountingProvider(), tmp_path)  # a new process would start like this
    np.testing.assert_allclose(again.embed_passages(list(reversed(TEXTS))), direct[::-1], rtol=0, atol=1e-6)
    assert again.embedded == 0 and again.inner.batches == []
    assert len(again.cache) == 3
    np.testing.assert_allclose(again.embed_query(TEXTS[0]), DeterministicProvider(32).embed_query(TEXTS[0]))


def test_only_missing_distinct_texts_reach_the_provider_in_bounded_batches(tmp_path: Path) -> None:
    cached = CachedProvider(CountingProvider(), tmp_path, batch_size=2)
    cached.embed_passages(TEXTS[:1])
    texts = [TEXTS[0], "a", "b", "a", "c", "b", TEXTS[0]]
    out = cached.embed_passages(texts)
    assert sorted(t for batch in cached.inner.batches[1:] for t in batch) == ["a", "b", "c"]
    assert all(len(batch) <= 2 for batch in cached.inner.batches)
    assert cached.embedded == 4
    np.testing.assert_allclose(out, DeterministicProvider(32).embed_passages(texts), rtol=0, atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1.0, rtol=1e-6)
    assert cached.embed_passages([]).shape == (0, 32)
    with pytest.raises(TypeError):
        cached.embed_passages("one string")  # type: ignore[arg-type]


def test_models_and_dimensions_are_separate_spaces(tmp_path: Path) -> None:
    CachedProvider(CountingProvider(32), tmp_path).embed_passages(TEXTS)
    other = CachedProvider(CountingProvider(64), tmp_path)
    assert other.embed_passages(TEXTS).shape == (3, 64) and other.embedded == 3
    foreign = PassageCache(tmp_path, "another/model:v2", 32)
    assert foreign.get(TEXTS) == [None, None, None]
    foreign.put(TEXTS[:1], np.ones((1, 32)))
    assert foreign.path == tmp_path / "another_model_v2" / "32"
    assert PassageCache(tmp_path, "deterministic-local-v1", 32).get(TEXTS[:1])[0] is not None
    with pytest.raises(ValueError, match="dimension 32"):
        foreign.put(TEXTS, np.ones((3, 31)))


def test_a_failing_provider_keeps_the_batches_it_answered(tmp_path: Path) -> None:
    broken = CachedProvider(BrokenProvider(good=1), tmp_path, batch_size=2)
    with pytest.raises(ProviderError):
        broken.embed_passages(["a", "b", "c", "d"])
    kept = PassageCache(tmp_path, "deterministic-local-v1", 32).get(["a", "b", "c", "d"])
    assert [v is not None for v in kept] == [True, True, False, False]

    wrong = CachedProvider(BrokenProvider(good=0, shape=(1, 32)), tmp_path / "w", batch_size=2)
    with pytest.raises(ProviderError, match="shape"):
        wrong.embed_passages(["x", "y"])
    assert shards(tmp_path / "w") == []


def test_damaged_and_foreign_shards_are_skipped_not_fatal(tmp_path: Path) -> None:
    good = CachedProvider(CountingProvider(), tmp_path)
    good.embed_passages(TEXTS[:2])
    space = tmp_path / "deterministic-local-v1" / "32"
    whole = shards(tmp_path)[0].read_bytes()
    (space / "shard-torn.npz").write_bytes(whole[: len(whole) // 2])
    (space / "shard-garbage.npz").write_bytes(b"not a zip at all")
    np.savez(space / "shard-wrong-dim.npz", keys=np.array([text_key(good.model, TEXTS[2])]),
             vectors=np.ones((1, 7), dtype=np.float32))
    np.savez(space / "shard-no-keys.npz", vectors=np.ones((1, 32), dtype=np.float32))
    (space / ".shard-123-abc.npz.tmp").write_bytes(b"a writer was killed here")

    fresh = CachedProvider(CountingProvider(), tmp_path)
    out = fresh.embed_passages(TEXTS)
    assert fresh.inner.batches == [[TEXTS[2]]]  # only the text no sound shard holds
    assert sorted(fresh.cache.skipped) == ["shard-garbage.npz", "shard-no-keys.npz", "shard-torn.npz",
                                           "shard-wrong-dim.npz"]
    np.testing.assert_allclose(out, DeterministicProvider(32).embed_passages(TEXTS), rtol=0, atol=1e-6)
    fresh.embed_passages(TEXTS)
    assert len(fresh.cache.skipped) == 4  # each bad file is looked at once


def test_shards_written_by_another_process_are_picked_up(tmp_path: Path) -> None:
    reader = CachedProvider(CountingProvider(), tmp_path)
    reader.embed_passages(TEXTS[:1])
    script = textwrap.dedent(f"""
        from riko.dense.providers import DeterministicProvider
        from riko.dense.text_cache import CachedProvider
        CachedProvider(DeterministicProvider(32), {str(tmp_path)!r}).embed_passages({TEXTS[1:]!r})
    """)
    subprocess.run([sys.executable, "-c", script], check=True, timeout=120)
    assert len(shards(tmp_path)) == 2
    reader.embed_passages(TEXTS)
    assert reader.embedded == 1  # the other process's two texts came from its shard


def test_default_cache_dir_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("RIKO_VECTOR_CACHE", str(tmp_path / "v"))
    assert default_cache_dir() == tmp_path / "v"
    monkeypatch.delenv("RIKO_VECTOR_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "xdg" / "riko" / "vectors"


def test_a_second_scope_builds_its_dense_generation_from_the_cache(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text("".join(
        f'{{"schemaVersion":1,"sessionId":"s","seq":{i},"time":{1_700_000_000_000 + i},"type":"user/message",'
        f'"data":{{"message":{{"role":"user","source":{{"kind":"user"}},'
        f'"content":[{{"type":"text","text":"{text}"}}]}}}}}}\n' for i, text in enumerate(TEXTS)), encoding="utf-8")
    config = {"embedding_provider": "deterministic", "embedding_dimension": 32, "recall_vector_enabled": True}
    results = []
    for name in ("one", "two"):
        provider = CachedProvider(CountingProvider(), tmp_path / "cache")
        with riko.open(tmp_path / name, preset="retrieval", config=config) as mem:
            mem.ingest([log], preset="retrieval", progress=False)
            stats = build_index(mem.context, progress=False, provider=provider)
            frame = retrieve(mem.context, "Miso the cat", k=3, provider=provider, channels=["dense"])
            results.append(frame.select("session_id", "seq").rows())
        assert stats["status"] == "built" and stats["count"] == 3
        assert provider.embedded == (3 if name == "one" else 0)
    assert results[0] == results[1] and results[0][0] == ("s", 0)
