"""Build the shipped lexicon from Princeton WordNet 3.0. Build time only (`.ci/build-lexicon`); I/O.

In: the WordNet database folder (Debian `wordnet-base`: /usr/share/wordnet/data.noun, data.adj,
cntlist.rev, in the wndb(5) format), the `airportsdata` package and Babel's copy of the Unicode CLDR. Out:
`monitor/data/lexicon.json` and `monitor/data/airports.tsv`, read at run time by `monitor.compare.lexicon`,
and `monitor/data/calendar.tsv` (the day words, weekday names, month names and long date pattern of
`CALENDAR_LANGUAGES`), read by
`monitor.compare.spoken`, and `monitor/data/currencies.tsv` (currencies' names in those languages), read by
`monitor.compare.lexicon`; the runtime never needs WordNet, nltk, airportsdata or Babel.

Kept: noun synsets of the lexicographer files that tool arguments and replies are about (business,
time, travel, places, people, quantities, artifacts, communication …), the attested adjective and
verb synsets (verbs for synonyms and antonyms only: `buy` / `sell`, `book` / `reserve`; with the
irregular forms of `verb.exc`, `sold` → `sell`).
For each kept synset: its lemmas (lower case, `_` as space), each lemma's sense number where it is
not 1 (`index.*`: how common that sense of the word is), its parents (hypernyms and instance
hypernyms, as opaque ids: two synsets with a common parent are siblings), for adjective satellites the
head of their cluster, and the antonym pairs between kept synsets. Output is deterministic (sorted), so
`--check` can prove the committed file is what WordNet gives.

Why not nltk's WordNet reader: nltk 3.10 reads Debian's files only after three workarounds (its path
sandbox refuses /usr/share/wordnet unless copied under an allowed root; Debian ships no `lexnames`
file; `map_wn` then insists on nltk's own downloaded corpus). wndb(5) is a short documented format.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_WORDNET = Path("/usr/share/wordnet")
DATA = Path(__file__).resolve().parents[1] / "data"
OUT = DATA / "lexicon.json"
AIRPORTS_OUT = DATA / "airports.tsv"
CALENDAR_OUT = DATA / "calendar.tsv"
CURRENCIES_OUT = DATA / "currencies.tsv"
#: the day the currencies in use are taken on (`build_currencies`): fixed, so that the output is the CLDR's alone
CURRENCIES_ON = "2025-01-01"
#: the languages whose day words (`내일`, `i morgon`, `pojutrze`), weekday names (`torsdag`, `金曜日`) and
#: dates (`30 de agosto`, `8월 30일`) users and agents are read in: the languages of customer service most
#: agents speak, in the scripts `spoken` reads
CALENDAR_LANGUAGES = ("en", "zh", "ja", "ko", "de", "fr", "es", "pt", "it", "nl", "sv", "da", "nb", "fi", "pl",
                      "cs", "sk", "hu", "ro", "el", "tr", "ru", "uk", "id", "vi")  # fmt: skip
_AIRPORT_WORDS = re.compile(
    r"\s+(?:international|intl|regional|municipal|airport|airfield|aerodrome)\b.*$", re.I
)

#: Nouns of these lexicographer files are all kept: places, natural objects such as continents, and
#: times. The siblings that matter most there (Sydney/Melbourne, Tuesday/Thursday) are rare in running
#: text, so attestation would drop them.
ALWAYS_FILES = {15, 17, 28}
#: WordNet 3.0 lexicographer file numbers (lexnames(5WN)) of the nouns kept when attested.
NOUN_FILES = {
    4: "noun.act",
    6: "noun.artifact",
    7: "noun.attribute",
    10: "noun.communication",
    11: "noun.event",
    14: "noun.group",
    15: "noun.location",
    17: "noun.object",
    18: "noun.person",
    21: "noun.possession",
    23: "noun.quantity",
    24: "noun.relation",
    26: "noun.state",
    28: "noun.time",
}
_MARKER = re.compile(r"\((?:a|p|ip)\)$")


@dataclass
class _Synset:
    key: str  # "n00012345" / "a00012345" (satellites live in data.adj: key "a…")
    lemmas: list[str]
    parents: list[str] = field(default_factory=list)
    similar: list[str] = field(default_factory=list)
    antonyms: list[str] = field(default_factory=list)
    satellite: bool = False


def read_attested(path: Path) -> frozenset[tuple[str, int, int, int]]:
    """Senses tagged at least once in WordNet's semantic concordance (`cntlist.rev`: sense key, sense
    number, count), as (lemma, synset type number, lexicographer file, lex id)."""
    senses = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        key, _number, count = line.split()
        lemma, rest = key.split("%", 1)
        ss_type, lex_file, lex_id = rest.split(":")[:3]
        if int(count) > 0:
            senses.add((lemma, int(ss_type), int(lex_file), int(lex_id)))
    return frozenset(senses)


_SS_TYPE = {"n": 1, "v": 2, "a": 3, "r": 4, "s": 5}


def read_data_file(
    path: Path, file_pos: str, attested: frozenset[tuple[str, int, int, int]], every: bool = False
) -> list[_Synset]:
    """Parse one wndb data file (`data.noun`, `data.adj`): synsets with the pointers the lexicon uses.
    A synset is kept when one of its senses is attested (or, for nouns, it is a place or a time)."""
    synsets = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if not line or line.startswith(" "):  # the licence header lines start with two spaces
            continue
        fields = line.split(" | ", 1)[0].split()
        offset, lex_file, ss_type = fields[0], int(fields[1]), fields[2]
        if file_pos == "n" and lex_file not in NOUN_FILES and not every:
            continue
        w_cnt = int(fields[3], 16)
        words = fields[4 : 4 + 2 * w_cnt : 2]
        lex_ids = [int(x, 16) for x in fields[5 : 5 + 2 * w_cnt : 2]]
        if (
            not every
            and not (file_pos == "n" and lex_file in ALWAYS_FILES)
            and not any(
                (_MARKER.sub("", w).casefold(), _SS_TYPE[ss_type], lex_file, i) in attested
                for w, i in zip(words, lex_ids, strict=True)
            )
        ):
            continue
        lemmas = sorted({_MARKER.sub("", w).replace("_", " ").casefold() for w in words})
        at = 4 + 2 * w_cnt
        p_cnt = int(fields[at])
        s = _Synset(key=f"{file_pos}{offset}", lemmas=lemmas, satellite=ss_type == "s")
        for i in range(p_cnt):
            symbol, target, pos = fields[at + 1 + 4 * i : at + 4 + 4 * i]
            target_key = f"{'a' if pos in 'as' else pos}{target}"
            if symbol in ("@", "@i"):
                s.parents.append(target_key)
            elif symbol == "&":
                s.similar.append(target_key)
            elif symbol == "!":
                s.antonyms.append(target_key)
        synsets.append(s)
    return synsets


def build(wordnet: Path) -> dict[str, object]:
    """The lexicon document (see module docstring); ids are indexes into `synsets`."""
    attested = read_attested(wordnet / "cntlist.rev")
    nouns = read_data_file(wordnet / "data.noun", "n", attested)
    adjectives = read_data_file(wordnet / "data.adj", "a", attested)
    verbs = read_data_file(wordnet / "data.verb", "v", attested) if (wordnet / "data.verb").is_file() else []
    for verb in verbs:  # synonyms and antonyms only: two kinds of one act are often the same act told
        verb.parents = []  # otherwise (`ship` / `send`), so verbs are nobody's siblings
    kept = {s.key: s for s in nouns + adjectives + verbs}
    # every ancestor of a kept noun is kept too, whatever its file: relatedness is measured through them
    all_nouns = {s.key: s for s in read_data_file(wordnet / "data.noun", "n", attested, every=True)}
    todo = [p for s in nouns for p in s.parents]
    while todo:
        key = todo.pop()
        if key not in kept and key in all_nouns:
            kept[key] = all_nouns[key]
            todo.extend(all_nouns[key].parents)
    order = sorted(kept)
    index = {k: i for i, k in enumerate(order)}
    parent_ids: dict[str, int] = {}  # parents outside the kept set get ids after the kept synsets

    def pid(key: str) -> int:
        if key in index:
            return index[key]
        return parent_ids.setdefault(key, len(order) + len(parent_ids))

    for key in order:  # numbered in a fixed order, not in the order of first use
        for p in kept[key].parents:
            if p not in index:
                pid(p)
    parent_ids = {k: len(order) + i for i, k in enumerate(sorted(parent_ids))}
    synsets = []
    for key in order:
        s = kept[key]
        head = next((t for t in s.similar if t in index), None) if s.satellite else None
        synsets.append(
            {
                "l": s.lemmas,
                **({"p": sorted(pid(p) for p in s.parents)} if s.parents else {}),
                **({"h": index[head]} if head is not None else {}),
            }
        )
    antonyms = sorted(
        {
            (min(index[s.key], index[a]), max(index[s.key], index[a]))
            for s in kept.values()
            for a in s.antonyms
            if a in index
        }
    )
    ranks = read_sense_ranks(wordnet)
    for key in order:
        s = kept[key]
        r = [ranks.get((lemma, key), 1) for lemma in s.lemmas]
        if any(x > 1 for x in r):
            synsets[index[key]]["r"] = r
    verb_lemmas = {lemma for v in verbs for lemma in v.lemmas}
    return {
        "source": "Princeton WordNet 3.0 (Debian wordnet-base), see lexicon.LICENSE",
        "noun_files": sorted(NOUN_FILES.values()),
        "inflections": read_exceptions(wordnet / "verb.exc", verb_lemmas),
        "synsets": synsets,
        "antonyms": [list(p) for p in antonyms],
    }


def read_sense_ranks(wordnet: Path) -> dict[tuple[str, str], int]:
    """(lemma, synset key) → the sense's number for that lemma (1 = its most frequent sense), from the
    `index.*` files, which list each lemma's synsets in that order. Missing files give no ranks."""
    ranks: dict[tuple[str, str], int] = {}
    for name, pos in (("index.noun", "n"), ("index.adj", "a"), ("index.verb", "v")):
        path = wordnet / name
        if not path.is_file():
            continue
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            if not line or line.startswith(" "):
                continue
            fields = line.split()
            lemma, synset_cnt = fields[0].replace("_", " ").casefold(), int(fields[2])
            for rank, offset in enumerate(fields[len(fields) - synset_cnt :], start=1):
                ranks.setdefault((lemma, f"{pos}{offset}"), rank)
    return ranks


def read_exceptions(path: Path, lemmas: set[str]) -> dict[str, str]:
    """Irregular verb forms (`verb.exc`: `sold sell`) of the verbs kept, form → lemma."""
    if not path.is_file():
        return {}
    forms = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        form, *bases = line.split()
        base = next((b.replace("_", " ") for b in bases if b.replace("_", " ") in lemmas), None)
        if base is not None and form not in lemmas:
            forms[form.replace("_", " ")] = base
    return dict(sorted(forms.items()))


def serialize(doc: dict[str, object]) -> str:
    """One synset a line: compact, and a regenerated file diffs readably."""
    synsets = doc["synsets"]
    assert isinstance(synsets, list)
    head = {k: v for k, v in doc.items() if k not in ("synsets", "antonyms")}
    lines = ["{", *(f"{json.dumps(k)}: {json.dumps(v)}," for k, v in head.items()), '"synsets": [']
    lines += [
        json.dumps(s, separators=(",", ":")) + ("," if i < len(synsets) - 1 else "")
        for i, s in enumerate(synsets)
    ]
    lines += ["],", f'"antonyms": {json.dumps(doc["antonyms"], separators=(",", ":"))}', "}"]
    return "\n".join(lines) + "\n"


def build_airports() -> str:
    """IATA code → the names it goes by, from `airportsdata` (MIT): `LHR\tlondon heathrow airport|london
    heathrow|heathrow`. A name two airports share (a city's name) is left out: it names neither."""
    import airportsdata  # build time only: the `lexicon` extra

    forms: dict[str, set[str]] = {}
    for code, a in airportsdata.load("IATA").items():
        name, city = a["name"].casefold(), a["city"].casefold()
        core = _AIRPORT_WORDS.sub("", name).strip()
        names = {name, core}
        if city and not core.startswith(city):
            names.add(f"{city} {core}")
        if city and core.startswith(city + " "):
            names.add(core[len(city) + 1 :])
        forms[code] = {" ".join(re.sub(r"[^\w\s]+", " ", n).split()) for n in names} - {city, ""}
    count: dict[str, int] = {}
    for names in forms.values():
        for n in names:
            count[n] = count.get(n, 0) + 1
    lines = [
        f"{code}\t{'|'.join(sorted(n for n in names if count[n] == 1))}"
        for code, names in sorted(forms.items())
    ]
    header = f"# IATA code -> names, from airportsdata {airportsdata.__version__} (MIT, see airports.LICENSE)"
    return "\n".join([header, *lines]) + "\n"


def build_calendar() -> str:
    """`language, kind, value, word` lines from the CLDR (via Babel): each language's words for the days
    around today (`day`, the offset: `-2` … `2`: `i förrgår` … `i övermorgon`), its weekday names
    (`weekday`, Monday 0) and month names (`month`, January 1) — the wide forms, as a date says them and as
    they stand alone (`sierpnia`, `sierpień`) — and how a date is written in full (`date`, value 0: the long
    date pattern, `d 'de' MMMM 'de' y`)."""
    import babel  # build time only: the `lexicon` extra
    from babel import Locale

    lines = [
        f"# day words and weekday names, from the Unicode CLDR in Babel {babel.__version__} (see calendar.LICENSE)",
        "# language\tkind\tvalue\tword",
    ]
    for language in CALENDAR_LANGUAGES:
        locale = Locale.parse(language)
        days = dict(locale._data["date_fields"]["day"]["relative"])  # CLDR's `relative-type-N`
        for offset in sorted(days):
            lines.append(f"{language}\tday\t{offset}\t{days[offset]}")
        for width in ("format", "stand-alone"):
            for index, name in sorted(locale.days[width]["wide"].items()):
                lines.append(f"{language}\tweekday\t{index}\t{name}")
        for width in ("format", "stand-alone"):
            for index, name in sorted(locale.months[width]["wide"].items()):
                lines.append(f"{language}\tmonth\t{index}\t{name}")
        lines.append(f"{language}\tdate\t0\t{locale.date_formats['long'].pattern}")
    return "\n".join(dict.fromkeys(lines)) + "\n"  # a name both widths give, once


def build_currencies() -> str:
    """`code, names` lines from the CLDR (via Babel): each currency some territory has as legal tender on
    `CURRENCIES_ON`, by its names in each of `CALENDAR_LANGUAGES` — the display name and its plural forms, as
    an amount says them (`Swiss francs`, `швейцарских франков`, `dolary australijskie`, `澳大利亚元`), folded.
    What a user names a currency by, where a call takes its ISO code (`currency: "CHF"`)."""
    import unicodedata
    from datetime import date

    import babel  # build time only: the `lexicon` extra
    from babel import Locale
    from babel.numbers import get_currency_name, get_territory_currencies

    on = date.fromisoformat(CURRENCIES_ON)
    codes = sorted(
        {
            c
            for t in Locale("en").territories
            for c in get_territory_currencies(str(t), start_date=on, tender=True)
        }
    )
    names: dict[str, set[str]] = {}
    for language in CALENDAR_LANGUAGES:
        for code in codes:
            for count in (None, 1, 2, 5, 1.5):  # the plural categories: one, few, many, other
                name = unicodedata.normalize(
                    "NFKC", get_currency_name(code, count, locale=language)
                ).casefold()
                if name != code.casefold() and len(name) >= 3:
                    names.setdefault(code, set()).add(" ".join(name.split()))
    lines = [
        f"# ISO 4217 code -> its names, from the Unicode CLDR in Babel {babel.__version__} (see calendar.LICENSE)",
        "# code\tname|name|…",
        *(f"{code}\t{'|'.join(sorted(names[code]))}" for code in sorted(names)),
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--wordnet", type=Path, default=DEFAULT_WORDNET, help="WordNet dict folder")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--airports-out", type=Path, default=AIRPORTS_OUT)
    ap.add_argument("--calendar-out", type=Path, default=CALENDAR_OUT)
    ap.add_argument("--currencies-out", type=Path, default=CURRENCIES_OUT)
    ap.add_argument("--check", action="store_true", help="fail if --out differs from what WordNet gives")
    args = ap.parse_args(argv)
    if not (args.wordnet / "data.noun").is_file():
        print(
            f"{args.wordnet}/data.noun not found: install Debian's wordnet-base (.ci/build-lexicon)",
            file=sys.stderr,
        )
        return 2
    outputs = [
        (args.out, serialize(build(args.wordnet))),
        (args.airports_out, build_airports()),
        (args.calendar_out, build_calendar()),
        (args.currencies_out, build_currencies()),
    ]
    differ = 0
    for path, text in outputs:
        if args.check:
            same = path.is_file() and path.read_text(encoding="utf-8") == text
            print(f"{path}: {'matches' if same else 'DIFFERS FROM'} its sources")
            differ += not same
        else:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path}: {len(text.encode())} bytes")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
