"""Write the playthrough files of tests/playthroughs/ again (after a deliberate change of the
rules, the bots or the event texts; review the diff before committing it).

    python scripts/regen_playthroughs.py            # every setting
    python scripts/regen_playthroughs.py NAME ...   # some (file stems)
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from playthrough_helpers import SETTINGS, path_of, text_of  # noqa: E402


def main(names: list[str]) -> int:
    unknown = [n for n in names if n not in SETTINGS]
    if unknown:
        print(f"unknown playthrough(s): {', '.join(unknown)} (known: {', '.join(SETTINGS)})")
        return 2
    for name in names or list(SETTINGS):
        path = path_of(name)
        path.parent.mkdir(parents=True, exist_ok=True)
        text = text_of(name)
        old = path.read_text() if path.is_file() else None
        path.write_text(text)
        print(f"{path}: {'unchanged' if old == text else 'written'} ({text.count(chr(10))} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
