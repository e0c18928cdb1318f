"""Errors a user can cause (bad flags, files, specs, plugin output).

The CLI turns every :class:`BnbError` into one line on stderr and exit code 2, with no
traceback. Library callers get an ordinary exception with the same one-line message.
"""

from __future__ import annotations


class BnbError(Exception):
    """A problem with the user's input; the message is one line that names the bad part."""

    exit_code = 2


class ComponentError(BnbError, ValueError):
    """A component file is unreadable or invalid; names the file, the key and the problem."""

    def __init__(self, file: str, key: str, problem: str):
        self.file = file
        self.key = key
        self.problem = problem
        where = f"{file}: " if file else ""
        at = f"key '{key}': " if key else ""
        super().__init__(f"components: {where}{at}{problem}")


class SpecError(BnbError, ValueError):
    """A weapon-pile spec, policy spec or similar string is malformed."""


class PolicyError(BnbError):
    """A policy is unknown, misconfigured, or returned an illegal decision."""


class RunError(BnbError):
    """A run directory is missing, not a run, corrupt, or would be overwritten."""


class ArgumentTypeError(BnbError, TypeError):
    """A Python API argument has the wrong type (a ``TypeError`` that is also a BnbError)."""
