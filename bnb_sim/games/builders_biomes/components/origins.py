"""Where each part of merged component data came from: the files, and which file set each key
(for error messages, and so that a range applies only to the value it was written for)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field


@dataclass
class Origins:
    """Which file each part of the merged data came from, for error messages.

    ``files[0]`` is the base file (the default file or a complete file). ``paths`` maps a
    dotted key to the index of the override file that set it (a value or a whole new
    sub-table); ``unrestated`` maps a table to the override that changed its values without
    restating its provenance, with the keys it changed.
    """

    files: list[str]
    paths: dict[str, int] = field(default_factory=dict)
    unrestated: dict[str, tuple[int, list[str]]] = field(default_factory=dict)
    ranges: list = field(default_factory=list)  # the files' [[ranges]] (bnb_sim.estimates)
    # the file that last *changed* each key (restating a value as it was changes nothing):
    # a range applies only to the value it was written for
    changed: dict[str, int] = field(default_factory=dict)

    def file_for(self, key: str, blame: Iterable[str] = ()) -> str:
        """The file to name for a problem at ``key`` (and at the extra ``blame`` keys)."""
        best = -1
        for k in (key, *blame):
            parts = k.split(".") if k else []
            found = None
            for n in range(len(parts), 0, -1):
                idx = self.paths.get(".".join(parts[:n]))
                if idx is not None:
                    found = idx
                    break
            if found is None:  # a total: blame the last file that touched anything below it
                prefix = k + "." if k else ""
                found = max((i for p, i in self.paths.items() if p.startswith(prefix)), default=-1)
            best = max(best, found)
        return self.files[best] if best >= 0 else self.files[0]
