"""What hosting refuses, as SpecvizError subclasses with messages that name the setting and what is allowed."""

from __future__ import annotations

from specviz.core.errors import SpecvizError


class ServeError(SpecvizError):
    """Hosting could not start or keep running (a missing program, a busy port, a process that died)."""


class ServeConfigError(ServeError, ValueError):
    """A hosting setting is malformed: an address, a port, a number of workers, a cookie name."""


class NginxMissingError(ServeError):
    """nginx is not installed: the message says what to install."""
