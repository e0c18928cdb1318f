"""The documentation is self-contained: rule IDs and source keys resolve inside the repository.

* every source key that the default component data cites (and ``bnb components show``
  prints) is documented in docs/sources.md and explained by the command itself;
* every rule ID cited by the code, the tests and the component data is in
  docs/rules-reference.md;
* no user-facing text points outside the repository, and every relative link of the docs
  resolves.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bnb_sim.games.builders_biomes.components import load_components
from bnb_sim.sources import SOURCES, cited_keys

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
RULE_ID = re.compile(r"\bR-(?:SETUP|TURN|CUBE|EXPLORE|BUILD|FIGHT|WEAPON|SCORE|END|FM|HV)-\d+\b")


@pytest.fixture(scope="module")
def rows():
    return load_components().provenance_rows()


def _documented_keys() -> list[str]:
    """The keys of the tables in docs/sources.md (first column, in backticks)."""
    text = (DOCS / "sources.md").read_text()
    return re.findall(r"^\| `([A-Z][A-Z0-9-]*)` \|", text, flags=re.M)


def test_every_cited_source_key_is_documented(rows):
    documented = set(_documented_keys())
    for r in rows:
        keys = cited_keys(r["note"])
        assert keys, f"{r['key']}: the note cites no source key: {r['note']!r}"
        for key in keys:
            assert key in SOURCES, f"{r['key']}: undocumented key {key!r} in {r['note']!r}"
            assert key in documented, f"{key} is not in docs/sources.md"


def test_known_values_cite_a_source_and_estimates_an_estimate_rule(rows):
    for r in rows:
        keys = cited_keys(r["note"])
        if r["provenance"] == "known":
            assert any(not k.startswith("EST-") for k in keys), r
        else:
            assert any(k.startswith("EST-") for k in keys), r


def test_docs_table_and_code_list_the_same_keys():
    assert _documented_keys() == list(SOURCES)


def test_cited_keys_ignores_rule_ids_and_quoted_code():
    note = "RUST MOB_SPIDER_EXTURN: 1 heart, 2 XP; RULES R-FIGHT-2..4, E5; RB"
    assert cited_keys(note) == ["RUST", "RULES", "RB"]
    assert cited_keys("EST-1, EST-2: tier order; GEEKDAD counted 5") == [
        "EST-1",
        "EST-2",
        "GEEKDAD",
    ]


def test_components_show_explains_every_key_it_prints(rows, capsys):
    from bnb_sim.cli import main

    main(["components", "show"])
    out = capsys.readouterr().out
    legend = out.split("Source keys (docs/sources.md)\n", 1)[1]
    for key in {k for r in rows for k in cited_keys(r["note"])}:
        assert re.search(rf"^  {re.escape(key)} +\S", legend, flags=re.M), key


def test_every_cited_rule_id_is_in_the_rules_reference():
    reference = set(RULE_ID.findall((DOCS / "rules-reference.md").read_text()))
    assert len(reference) >= 30
    texts = [p.read_text() for p in (ROOT / "bnb_sim").rglob("*.py")]
    texts += [p.read_text() for p in (ROOT / "tests").glob("*.py")]
    texts += [(ROOT / "bnb_sim" / "data" / name).read_text()
              for name in ("builders_biomes.toml", "heroes_village.toml")]  # fmt: skip
    texts += [p.read_text() for p in DOCS.glob("*.md")] + [(ROOT / "README.md").read_text()]
    cited = {m for text in texts for m in RULE_ID.findall(text)}
    assert cited - reference == set()


def test_the_rules_reference_holds_all_three_parts():
    """One reference for both games: Part 3 (Heroes of the Village) with every R-HV ID."""
    text = (DOCS / "rules-reference.md").read_text()
    assert "will be added here" not in text
    for part in ("## Part 1", "## Part 2", "## Part 3"):
        assert part in text
    part3 = text[text.index("## Part 3") :]
    assert all(f"**R-HV-{n}**" in part3 for n in range(1, 12))


def _user_facing_files() -> list[Path]:
    files = [ROOT / "README.md", *DOCS.glob("*.md")]
    for folder, patterns in (
        ("bnb_sim", ("*.py", "*.toml", "*.html")),
        ("scripts", ("*.py",)),
        ("examples", ("*.toml", "*.md", "*.py")),
    ):
        for pattern in patterns:
            files += (ROOT / folder).rglob(pattern)
    return files


@pytest.mark.parametrize(
    "needle", ["../shared", "RULES.md", "ENGINEERING.md", "components-research"]
)
def test_nothing_points_outside_the_repository(needle):
    hits = [
        f"{p.relative_to(ROOT)}:{n}"
        for p in _user_facing_files()
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if needle in line
    ]
    assert hits == []


def test_relative_links_of_the_docs_resolve():
    link = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
    broken = []
    for page in [ROOT / "README.md", *DOCS.glob("*.md")]:
        for target in link.findall(page.read_text()):
            if "://" in target:
                continue
            if not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)} -> {target}")
    assert broken == []


def test_docs_cite_design_notes_that_exist():
    """Docstrings cite docs/design.md by section (or subsection) title: every such title
    exists."""
    titles = set(re.findall(r"^###? (.+)$", (DOCS / "design.md").read_text(), flags=re.M))
    cite = re.compile(r'docs/design\.md, "([^"]+)"')
    cited = set()
    for p in _user_facing_files() + list((ROOT / "tests").glob("*.py")):
        cited |= set(cite.findall(re.sub(r"\s+", " ", p.read_text())))
    assert cited and cited <= titles, cited - titles
