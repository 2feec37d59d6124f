"""Log records with URL credentials hidden, whatever logger made them (ours, httpx, gitpython, the MCP SDK).

Apart from echo.py so that the quick paths (a CLI grep) quote and clip without importing logging.
"""

from __future__ import annotations

import logging

from .echo import redact

__all__ = ["RedactingFilter", "redact_logging"]


class RedactingFilter(logging.Filter):
    """Redacts every record a handler emits, whatever logger (ours, httpx, gitpython, the SDK) made it."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        if record.exc_info and record.exc_info[1] is not None:
            record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
        return True


def redact_logging() -> None:
    """Put the filter on every handler the root logger has now, and on logging's last resort (the CLI's stderr)."""
    for handler in [*logging.getLogger().handlers, logging.lastResort]:
        if handler is not None and not any(isinstance(f, RedactingFilter) for f in handler.filters):
            handler.addFilter(RedactingFilter())
