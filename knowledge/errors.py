"""Errors raised while fetching vLLM trees and keeping registries, translated once at the boundary.

Tool code never sees a gitpython, httpx or filelock exception: each source and the
store raise one of these instead, with a message that names the bad value and says
what to do next.

    VllmQuantMcpError
    ├── SourceError                  a tree at a tag could not be obtained
    │   ├── UnsafeInputError         a remote, path or URL looks like a git option or transport (also ValueError)
    │   ├── NotAVllmTreeError        a directory that holds no vllm/__init__.py (also ValueError)
    │   ├── NetworkError             the git remote or package index did not answer
    │   ├── ReleaseNotFoundError     the remote or index has no such tag / no usable file (also LookupError)
    │   └── ChecksumError            a download does not match the index's sha256
    └── StoreError                   the local cache could not be read or written
        ├── LockTimeoutError         another refresh of the same tag held the lock too long
        └── RegistryUnavailableError a cached registry is unusable and nothing can rebuild it

Malformed or unknown tags raise knowledge.tags.InvalidTagError / UnknownTagError,
which stay plain ValueError / LookupError so they can be raised before any I/O.
"""

from __future__ import annotations

__all__ = [
    "ChecksumError",
    "LockTimeoutError",
    "NetworkError",
    "NotAVllmTreeError",
    "RegistryUnavailableError",
    "ReleaseNotFoundError",
    "SourceError",
    "StoreError",
    "UnsafeInputError",
    "VllmQuantMcpError",
]


class VllmQuantMcpError(Exception):
    """Base of every error this package raises on purpose."""


class SourceError(VllmQuantMcpError):
    """A vLLM tree at a tag could not be obtained from a source."""


class UnsafeInputError(SourceError, ValueError):
    """User input that git or the filesystem could read as an option, a transport or an escape."""


class NotAVllmTreeError(SourceError, ValueError):
    """A directory given as a source holds no vLLM package."""


class NetworkError(SourceError):
    """The git remote or the package index could not be reached; nothing in the cache changed."""


class ReleaseNotFoundError(SourceError, LookupError):
    """The remote or index answered, but has no such release (or no file we can read)."""

    def __init__(self, message: str, suggestions: list[str] | None = None) -> None:
        self.suggestions = suggestions or []
        hint = f" Nearest releases there: {', '.join(self.suggestions)}." if self.suggestions else ""
        super().__init__(message + hint)


class ChecksumError(SourceError):
    """A downloaded file does not match the sha256 the index published."""


class StoreError(VllmQuantMcpError):
    """The local registry/tree cache could not be read or written."""


class LockTimeoutError(StoreError):
    """Another process kept the refresh lock of a tag longer than we were willing to wait."""


class RegistryUnavailableError(StoreError):
    """A cached registry is corrupt or stale and there is neither a cached tree nor a bundled copy."""
