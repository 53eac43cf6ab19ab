"""One exception tree for Mnemo. Foreign errors are mapped once, at the boundary, with ``from exc``."""


class MnemoError(Exception):
    """Base of every error Mnemo raises on purpose."""


class ConfigError(MnemoError):
    """Settings, flags or files that cannot be used as given."""


class StoreError(MnemoError):
    """The memory store failed; the proxy fails open on these."""


class StoreUnavailable(StoreError):
    """The store could not be reached or did not answer in time."""


class EmbeddedStoreError(StoreError):
    """The embedded Valkey + RediSearch server could not be started."""


class EmbeddingModelMismatch(StoreError):
    """The index holds vectors of another embedding model than the configured one."""


class EmbeddingError(MnemoError):
    """The embedding model or endpoint failed."""


class BadRequest(MnemoError):
    """The caller's request cannot be processed; answered as a 400 in the caller's API shape."""

    def __init__(self, message: str, *, param: str | None = None, status_code: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.param = param
        self.status_code = status_code
