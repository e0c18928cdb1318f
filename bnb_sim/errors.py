"""Errors a user can cause (bad flags, files, specs, plugin output).

The CLI turns every :class:`BnbError` into one line on stderr and exit code 2, with no
traceback. Library callers get an ordinary exception with the same one-line message.
"""

from __future__ import annotations

#: the characters ``str.splitlines`` breaks a line at, and how a message shows each
_LINE_BREAKS = {c: repr(c)[1:-1] for c in "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"}


class BnbError(Exception):
    """A problem with the user's input; the message is one line that names the bad part.

    One line whatever the input: a message that quotes a value given with a line break in
    it (``method="\\n"``) shows the break escaped, as ``repr`` would."""

    exit_code = 2

    def __str__(self) -> str:
        text = super().__str__()
        if len(text.splitlines()) <= 1 and not text.endswith(tuple(_LINE_BREAKS)):
            return text
        return "".join(_LINE_BREAKS.get(c, c) for c in text)


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
