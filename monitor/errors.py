"""Error types. Pure code raises these; the entry point decides to skip, retry or stop.

Every message a user can see names the input (file, line, dialog, turn, field) and what to do.
"""

from __future__ import annotations


class MonitorError(Exception):
    """Root of every error agent-monitor raises on purpose."""


class PermanentError(MonitorError):
    """Bad input that will never succeed: count it, report it, skip it."""


class RetryableError(MonitorError):
    """A transient fault (network, broker): back off and try again."""


class InputError(PermanentError):
    """A dialog, pair or report file that does not match its format.

    `where` names the place (file, line, dialog, turn, field) so the message is actionable.
    """

    def __init__(self, where: str, message: str) -> None:
        super().__init__(f"{where}: {message}")
        self.where = where
        self.message = message


class ModelError(PermanentError):
    """The embedding model is missing or unreadable."""


class ConfigError(PermanentError):
    """A configuration file or flag is invalid."""


class Overloaded(RetryableError):
    """Too much is waiting (conversations queued for scoring): refuse new input for now, retry later.

    The receivers answer 429 with `Retry-After` (OTLP/HTTP) or RESOURCE_EXHAUSTED with RetryInfo
    (OTLP/gRPC); both are retryable under the OTLP specification.
    """

    def __init__(self, message: str, retry_after_s: float) -> None:
        super().__init__(message)
        self.message = message
        self.retry_after_s = retry_after_s
