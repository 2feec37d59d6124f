"""What of a caller's value, or of our own configuration, may be shown back: clipped, and with credentials hidden.

Two leaks this closes. A message that quotes a bad argument in full hands a 100 KB tag
back to the model that sent it (every error naming user input quotes it through `clip`).
A URL with `user:password@` in it (an index mirror, a GitHub Enterprise API, a git remote)
would reach MCP clients, logs and the registry's stored `source.origin`: `redact` is
applied at each of those edges and before anything is stored. The URL's credentials are
still used where they are meant to be (httpx and git read them from the URL itself). The
log records' side is in redacted_logs.py: importing logging would cost every CLI grep.
"""

from __future__ import annotations

import re

__all__ = ["CLIP", "clip", "redact"]

CLIP = 60  # characters of a bad value an error quotes: enough to recognise it, too few to echo a payload

# scheme://user:pass@host, scheme://token@host; the userinfo runs to the last @ before the first / ? # or whitespace
# (a password may hold an @: `user:p@ss@host`).
_USERINFO = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*://)[^/?#\s]*@")
# Query parameters that carry a credential: OAuth and API tokens, GitLab's private_token, Google's key, and a
# presigned S3 URL's signature and credential (X-Amz-*, case as AWS writes it or not).
_SECRET_PARAM = re.compile(
    r"(?P<name>[?&](?:access_token|token|private_token|api_key|apikey|key|password|sig|signature"
    r"|x-amz-signature|x-amz-credential|x-amz-security-token)=)[^&#\s]+",
    re.IGNORECASE,
)


def clip(value: object, limit: int = CLIP, *, quote: bool = True) -> str:
    """`repr(value)` (or `str` without `quote`) cut to `limit` characters with how much was left out, credentials
    hidden."""
    text = redact(repr(value) if quote else str(value))
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit:,} more characters)"


def redact(text: str) -> str:
    """The text with URL userinfo and secret-bearing query parameters replaced by `***`."""
    return _SECRET_PARAM.sub(r"\g<name>***", _USERINFO.sub(r"\g<scheme>***@", text))
