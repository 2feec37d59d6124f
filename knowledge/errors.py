"""The one error tree: everything this package raises on purpose, in the four kinds the edges act on.

The MCP layer and the CLI translate by kind, once (server/errors.py). Anything else that
escapes a tool is a bug: logged with its traceback, never dressed up as a tool error.
Third-party exceptions (gitpython, httpx, sqlite, filelock) are translated where they
are caught, with `raise ... from exc`, so tool code never sees them.

    VllmQuantMcpError
    ├── InvalidInputError (ValueError)     the caller can fix it: a malformed tag, pattern, name, file
    │                                      (a ValueError so pydantic validators report it as a field error)
    ├── NotFoundError (LookupError)        well formed, but no such tag, release, file, symbol, GPU, issue
    ├── UnavailableError                   a service or the cache could not answer now: retry, or go offline
    └── InternalError                      our own data or code is wrong (a query that does not load, a
                                           knowledge file that does not validate); also the private
                                           control-flow signals of a module, so none escapes as a builtin

Each module defines its own subclasses (SourceError, UnknownTagError, ...) under one of
these four; tests/test_error_tree.py walks the package and fails on any that is not.
"""

from __future__ import annotations

__all__ = [
    "ChecksumError",
    "InternalError",
    "InvalidInputError",
    "LockTimeoutError",
    "NetworkError",
    "NotAVllmTreeError",
    "NotFoundError",
    "RegistryUnavailableError",
    "ReleaseNotFoundError",
    "SourceError",
    "UnavailableError",
    "UnsafeInputError",
    "VllmQuantMcpError",
]


class VllmQuantMcpError(Exception):
    """Base of every error this package raises on purpose."""


class InvalidInputError(VllmQuantMcpError, ValueError):
    """Input a smarter call would have got right; the message names the bad value and the fix."""


class NotFoundError(VllmQuantMcpError, LookupError):
    """A well-formed name that nothing here knows; the message lists the nearest known ones."""


class UnavailableError(VllmQuantMcpError):
    """A remote service or the local cache could not answer now; nothing in the cache was damaged."""


class InternalError(VllmQuantMcpError):
    """Our own bundled data or code is wrong; a bug to report, not something the caller can fix."""


# -- where a tree at a tag comes from ---------------------------------------------------------------------


class UnsafeInputError(InvalidInputError):
    """A remote, path or URL that git or the filesystem could read as an option, a transport or an escape."""


class NotAVllmTreeError(InvalidInputError):
    """A directory given as a source holds no vLLM package."""


class SourceError(UnavailableError):
    """A source could not provide the tree now: git missing, a damaged local repository, a broken download."""


class NetworkError(SourceError):
    """The git remote or the package index could not be reached; nothing in the cache changed."""


class ReleaseNotFoundError(NotFoundError):
    """The remote or index answered, but has no such release (or no file we can read)."""

    def __init__(self, message: str, suggestions: list[str] | None = None) -> None:
        self.suggestions = suggestions or []
        hint = f" Nearest releases there: {', '.join(self.suggestions)}." if self.suggestions else ""
        super().__init__(message + hint)


class ChecksumError(SourceError):
    """A downloaded file does not match the sha256 the index published; the download is discarded."""


# -- the local cache ----------------------------------------------------------------------------------------


class LockTimeoutError(UnavailableError):
    """Another process kept the refresh lock of a tag longer than we were willing to wait."""


class CacheReadOnlyError(UnavailableError):
    """The cache folder cannot be written (a read-only mount, permissions): nothing was changed in it."""


class RegistryUnavailableError(UnavailableError):
    """A cached registry is corrupt or stale and there is neither a cached tree nor a bundled copy."""
