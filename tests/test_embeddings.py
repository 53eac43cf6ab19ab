"""Embeddings: the offline default model and an OpenAI-compatible endpoint over real HTTP."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import numpy as np
import pytest

from core.errors import ConfigError, EmbeddingError
from harness.upstream import UpstreamStub
from proxy.memory.embeddings import (
    MINILM_MODEL_ID,
    EmbeddingService,
    MiniLMOnnxEmbedder,
    OpenAIEmbeddingsEmbedder,
    Vectors,
    build_embedder,
)
from proxy.settings import Settings


@pytest.fixture(scope="module")
def minilm() -> MiniLMOnnxEmbedder:
    return MiniLMOnnxEmbedder()


def test_minilm_vectors_are_normalised_and_meaningful(minilm: MiniLMOnnxEmbedder) -> None:
    vectors = minilm.embed(
        [
            "This repo uses pnpm as its package manager.",
            "Which package manager does the project use?",
            "I had pasta for dinner.",
        ]
    )
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    related, unrelated = float(vectors[0] @ vectors[1]), float(vectors[0] @ vectors[2])
    assert related > unrelated + 0.2
    assert minilm.model_id == MINILM_MODEL_ID


def test_batching_does_not_change_vectors(minilm: MiniLMOnnxEmbedder) -> None:
    texts = ["short", "a much longer sentence that pads the batch to more tokens than the first one"]
    together = minilm.embed(texts)
    alone = np.vstack([minilm.embed([t]) for t in texts])
    assert np.allclose(together, alone, atol=1e-4)


def test_service_batches_concurrent_callers_and_caches(minilm: MiniLMOnnxEmbedder) -> None:
    calls: list[int] = []

    class Counting:
        model_id, dims = minilm.model_id, minilm.dims

        def embed(self, texts: Sequence[str]) -> Vectors:
            calls.append(len(texts))
            return minilm.embed(texts)

    async def run() -> None:
        service = EmbeddingService(Counting())
        results = await asyncio.gather(*(service.embed_one(f"text number {i}") for i in range(20)))
        assert len(results) == 20
        assert sum(calls) == 20 and len(calls) < 20  # callers shared model calls
        before = len(calls)
        await service.embed_one("text number 3")
        assert len(calls) == before  # served from the cache

    asyncio.run(run())


def test_openai_compatible_endpoint(upstream: UpstreamStub) -> None:
    embedder = OpenAIEmbeddingsEmbedder(upstream.url, "stub-embedder", api_key="sk-emb")
    vectors = embedder.embed(["alpha", "beta"])
    assert vectors.shape == (2, 8) and embedder.dims == 8
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    again = embedder.embed(["beta"])
    assert np.allclose(vectors[1], again[0])  # order restored from the response's indexes
    assert upstream.requests[-1].headers["authorization"] == "Bearer sk-emb"
    assert embedder.model_id.endswith("#stub-embedder")


def test_endpoint_failures_are_embedding_errors(upstream: UpstreamStub) -> None:
    with pytest.raises(EmbeddingError):
        OpenAIEmbeddingsEmbedder(upstream.url, "not-an-embedder").embed(["x"])


def test_embedder_is_chosen_from_settings() -> None:
    settings = Settings.from_sources(env={"MNEMO_EMBEDDING_URL": "http://127.0.0.1:9/v1"})
    with pytest.raises(ConfigError, match="embedding model"):
        build_embedder(settings.embedding_url, settings.embedding_model, settings.embedding_api_key)
