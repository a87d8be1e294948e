"""How people say dates, times and numbers that a tool receives in another form. Pure.

`spoken_keys(text, today)` gives the typed-fact keys (as `compare/evidence` indexes them) that a user's
words mean beyond what `facts.extract_facts` reads on its own:
- dates relative to the conversation's date: `today`, `tonight`, `tomorrow`, `yesterday`, `last night`,
  `the day after tomorrow`, weekdays (`Sunday`, `this Friday`, `next Tuesday` — both the coming one and
  the one a week later, as people mean either —, `last Monday`), `the 3rd` (this month's or next month's),
  `in 3 days`, `in two weeks`; Chinese 今天 / 今晚 / 明天 / 后天 / 昨天 / 昨晚, 周X / 星期X / 礼拜X, with 这 /
  本 / 下 / 上, a day said without its month (13号, 15日: this month's or next month's); German weekdays
  (`am Freitag`, `nächsten Dienstag`); holidays on a fixed day by name, the coming one (五一 May 1, 国庆
  October 1, 元旦, 圣诞, `Christmas Eve`, `New Year's Day`, `Halloween`); the day words and weekday names
  of the 25 languages of `monitor/data/calendar.tsv` (from the Unicode CLDR: `après-demain`, `übermorgen`,
  `내일`, `i morgon`, `pojutrze`, `明後日`; `jeudi`, `quinta-feira`, `torsdag`, `금요일`), French, Spanish,
  Italian and Portuguese ones also without their accents (`apres-demain`, `sabado`), a weekday as the
  coming one or the one after.
  Not `next week`: its seven days would each be a stated date that a reply's date up to nine days off is
  taken for a slip of (grounding blind set 4: `August 1` after `the surgery is next week`);
- the days a Chinese month's day lists after it (`10月18号、19号`: October 19 too);
- `day_months(text)`: dates written with their month's name as the table's languages write them, read
  from its month names and long date patterns (the CLDR's: `30 de agosto de 2025`, `31. Mai`, `piątek, 21
  listopada`, `augusztus 30.`, `8월 30일`), as `md:` keys and, with the year, `date:` keys;
- times said in words or as a bare hour: `half past two`, `quarter to eight`, `five o'clock`, `after 5`,
  `at 7` — as `clock:` keys, the time of day on a 12-hour dial (`17:00` and `5:00` are one clock key), so
  a value `17:00` is grounded by `after 5` and a reply's `6:00` by a result's `18:00`;
- numbers in words: `five hundred`, `twenty-five`, `one thousand two hundred` (`facts` reads single
  number words only);
- email addresses dictated: `john dot smith at gmail dot com`, French `point` / `arobase`, Spanish `punto`
  / `arroba`.

`clock_key(hour, minute)` and `digits_of(text)` are the shared spellings of those keys.
"""

from __future__ import annotations

import calendar
import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

from dateutil.easter import easter

from monitor.compare.hints import DIGIT, fold, holds_any, stems_of, unaccented
from monitor.compare.textcache import short_cached


def any_of(words: Iterable[str]) -> str:
    """A regex alternation of these words, escaped, the longest first (`après-demain` before `demain`)."""
    return "|".join(sorted((re.escape(w) for w in words), key=len, reverse=True))


_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
WEEKDAY_NAMES = tuple(w.title() for w in _WEEKDAYS)  # Monday first, as `date.weekday()` counts
_ZH_WEEKDAYS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
_DAY_WORDS = {
    "today": (0,), "tonight": (0,), "this morning": (0,), "this afternoon": (0,), "this evening": (0,),
    "tomorrow": (1,), "day after tomorrow": (2,), "yesterday": (-1,), "last night": (-1,),
    "day before yesterday": (-2,),
}  # fmt: skip
_ZH_DAY_WORDS = {
    "今天": 0,
    "今晚": 0,
    "今日": 0,
    "明天": 1,
    "明晚": 1,
    "明日": 1,
    "后天": 2,
    "昨天": -1,
    "昨晚": -1,
    "前天": -2,
}
#: the day words the calendar table's words do not cover, or that mean something else alone: French `hier`
#: only with its part of the day (German `hier` is `here`), German and Dutch `morgen` in lower case only
#: (`Morgen` is the morning) and not after `heute` (`heute morgen`: this morning), Spanish `mañana` not
#: after an article (`por la mañana`, `esta mañana`) nor in the table's `pasado mañana`
_EU_DAY_WORDS = {"ce soir": 0, "hier soir": -1, "hier matin": -1}
_EU_DAY_WORD = re.compile(
    r"(?i)(?<![\w'-])("
    + any_of(_EU_DAY_WORDS)
    + r")(?![\w'-])|(?<![\w-])(?<!heute )(?<!gestern )(?-i:(morgen))(?![\w-])"
    r"|(?<![\w-])(?<!la )(?<!esta )(?<!cada )(?<!una )(?<!pasado )(mañana)(?![\w-])"
)
_EU_DAY_WORD_STEMS = ("soir", "hier", "morgen", "mañana")
#: holidays on a fixed day (month, day), said by name: the coming one (五一 is May 1, 国庆 October 1)
_HOLIDAYS = {
    "元旦": (1, 1), "五一": (5, 1), "劳动节": (5, 1), "国庆": (10, 1), "国庆节": (10, 1), "平安夜": (12, 24),
    "圣诞": (12, 25), "圣诞节": (12, 25), "christmas eve": (12, 24), "christmas": (12, 25),
    "christmas day": (12, 25), "new year's eve": (12, 31), "new year's day": (1, 1), "halloween": (10, 31),
    "valentine's day": (2, 14),
}  # fmt: skip
#: holidays that move with Easter, by name: days from Easter Sunday (`dateutil.easter`, western)
_EASTER_DAYS = {
    "good friday": -2, "holy saturday": -1, "easter saturday": -1, "easter sunday": 0, "easter day": 0,
    "easter monday": 1, "ascension day": 39, "whit sunday": 49, "pentecost": 49, "whit monday": 50,
    "karfreitag": -2, "karsamstag": -1, "ostersonntag": 0, "ostermontag": 1, "pfingstmontag": 50,
    "vendredi saint": -2, "lundi de pâques": 1, "viernes santo": -2, "domingo de pascua": 0,
    "venerdì santo": -2, "pasquetta": 1, "goede vrijdag": -2, "paasmaandag": 1, "tweede paasdag": 1,
    "sexta-feira santa": -2, "domingo de páscoa": 0, "复活节": 0, "耶稣受难日": -2,
}  # fmt: skip
#: (month, weekday, nth) of holidays on a weekday of a month: US Thanksgiving, the fourth Thursday of November
_NTH_WEEKDAY = {"thanksgiving": (11, 3, 4), "thanksgiving day": (11, 3, 4), "感恩节": (11, 3, 4)}
_NAMED_DAYS = {**dict.fromkeys(_HOLIDAYS, "fixed"), **dict.fromkeys(_EASTER_DAYS, "easter"),
               **dict.fromkeys(_NTH_WEEKDAY, "nth")}  # fmt: skip
_ZH_NUMERALS = "一二三四五六七八九十零〇两百千万第"


#: English names as words; Chinese ones not inside other numerals (一五一十 is no May 1)
_HOLIDAY = re.compile(
    r"(?i)(?<![\w'])("
    + any_of(h for h in _NAMED_DAYS if h.isascii())
    + rf")(?![\w'])|(?<![{_ZH_NUMERALS}])("
    + any_of(h for h in _NAMED_DAYS if not h.isascii())
    + rf")(?![{_ZH_NUMERALS}])"
)
_HOLIDAY_STEMS = (
    "元旦",
    "五一",
    "劳动",
    "国庆",
    "平安夜",
    "圣诞",
    "christmas",
    "new year",
    "halloween",
    "valentine",
    "easter",
    "good friday",
    "holy saturday",
    "ascension",
    "whit",
    "pentecost",
    "karfreitag",
    "karsamstag",
    "oster",
    "pfingst",
    "santo",
    "pâques",
    "pascua",
    "pasquetta",
    "goede vrijdag",
    "paasmaandag",
    "paasdag",
    "páscoa",
    "复活节",
    "受难日",
    "thanksgiving",
    "感恩节",
)
_DAY_WORD = re.compile(r"(?i)\b(" + "|".join(sorted(_DAY_WORDS, key=len, reverse=True)) + r")\b")
_ZH_DAY_WORD = re.compile("|".join(_ZH_DAY_WORDS))
_WEEKDAY = re.compile(r"(?i)\b(?:(this|next|last|coming)\s+)?(" + "|".join(_WEEKDAYS) + r")s?\b")
_ZH_WEEKDAY = re.compile("(这|本|下下|下|上)?(?:个)?(?:周|星期|礼拜)([一二三四五六日天])")
_DE_WEEKDAYS = ("montag", "dienstag", "mittwoch", "donnerstag", "freitag", "samstag", "sonntag")
#: After a German word that makes it a day (`am Freitag`, `nächsten Dienstag`): not `Guy Montag`.
_DE_WEEKDAY = re.compile(
    r"(?i)\b(am|bis|ab|diesen|kommenden|nächsten|naechsten|übernächsten|letzten|vergangenen)\s+("
    + "|".join(_DE_WEEKDAYS)
    + r"|sonnabend)\b"
)
_DE_WHICH = {
    "nächsten": "next", "naechsten": "next", "übernächsten": "after next", "letzten": "last",
    "vergangenen": "last",
}  # fmt: skip
#: the months' first three letters, January first (`_MONTHS.index(…) + 1` is a month's number)
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
#: `the 3rd` (not `the 3rd of May`: a full date, which `facts` reads)
_DAY_OF_MONTH = re.compile(
    rf"(?i)\bthe\s+(\d{{1,2}})(?:st|nd|rd|th)\b(?!\s+(?:of\s+)?(?:{'|'.join(_MONTHS)}))"
)
#: a Chinese day of the month said without its month (`改到13号`, `15日`): this month's or next month's;
#: only where what follows is a time of day, a connector or the end (not 2号航站楼, 5号线, 7日内, 3日游)
_ZH_DAY_OF_MONTH = re.compile(
    r"(?<![月\d])(\d{1,2})\s*(?:号|日)(?=$|[\s，。、,.!！?？；;：:到至和或与前后的吧呢啊可行能晚早上下中午凌傍])"
)
_IN_UNITS = re.compile(
    r"(?i)\bin\s+(\d+|a|an|one|two|three|four|five|six|seven|ten|fourteen)\s+(day|week)s?\b"
)
_HALF_QUARTER = re.compile(
    r"(?i)\b(half|quarter)\s+(past|to|after)\s+(\d{1,2}|"
    r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b"
)
_OCLOCK = re.compile(
    r"(?i)\b(\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s+o['’]?clock\b"
)
#: what a number before it counts, so that it is no hour (`9 to 11 people`, `alle 2 Wochen`, `3 nuits`)
_UNITS_AFTER = (
    r"days?|nights?|weeks?|months?|years?|people|persons?|guests?|bags?|items?|minutes?|hours?|Tage[n]?|Wochen|"
    r"Monate[n]?|Jahre[n]?|Nächte|jours?|nuits?|semaines?|mois|ans|d[ií]as|noches|semanas|meses|años|giorni|notti|"
    r"settimane|anni|dagen|nachten|weken|jaar|km|miles|euros?|€|\$"
)
_BARE_HOUR = re.compile(
    r"(?i)\b(?:at|after|before|around|by|from|until|till|between|about|past|a\s+las|a\s+la|à|vers|um|gegen|"
    r"alle|às|om)\s+(\d{1,2})(?![\d:,%]|\.\d)"
    rf"(?!\s*(?:{_UNITS_AFTER}))"
)  # `around 10.`, `a las 8`, `um 8`; not `at 10.5`, not `alle 2 Wochen`
#: a range of bare hours (`say 9 to 11`, `10-12`): both are times of day, not `9 to 11 people`
_HOUR_RANGE = re.compile(
    r"(?i)(?<![\d:.,$€£¥#-])\b(\d{1,2})\s*(?:to|–|-|until|till)\s*(\d{1,2})(?![\d:,%]|\.\d)"
    rf"(?!\s*(?:{_UNITS_AFTER}|of\s+us|players|kids|pm|am|[a-z]))"
)
#: before a range, what makes it no hours (`April 3-5`, `aged 4 to 7`)
_NOT_HOURS_BEFORE = re.compile(
    r"(?i)(?:\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?|\baged?|\bages|\bsizes?|"
    r"\bpages?|\brooms?|\bgrades?|\bnr\.?|\bno\.?)\s*$"
)
_SMALL = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30,
    "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "a": 1, "an": 1,
}  # fmt: skip
_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000}
_NUMBER_RUN = re.compile(
    r"(?i)\b(?:(?:"
    + "|".join(k for k in _SMALL if len(k) > 2)
    + "|"
    + "|".join(_SCALES)
    + r")(?:[\s-]+(?:and\s+)?|\b))+"
)

#: what a match of each pattern cannot be without, in the case-folded text (`hints`)
_DAY_WORD_STEMS = stems_of(_DAY_WORDS)
#: Portuguese weekdays as people say them, without `-feira` (`na terça ou quarta`): after a word that
#: makes them a day and before one that does (a mark, `ou`, `às 10`, `de manhã`, `da próxima semana`), as
#: the same words are ordinals too (`a quarta sessão`, `na segunda opção`)
_PT_WEEKDAYS = ("segunda", "terca", "quarta", "quinta", "sexta")
_PT_WEEKDAY = re.compile(
    r"(?i)\b(?:na|à|ou|e|até|próxima|proxima|nesta|esta|desta|dia)\s+(segunda|terça|terca|quarta|quinta|sexta)\b"
    r"(?=\s*(?:$|[,.;:!?)]|ou\b|e\b|às?\b|ao\b|de\s+manhã|de\s+tarde|à\s+tarde|à\s+noite|da\s+|desta|dessa|"
    r"que\s+vem|pela|por\s+volta|\d))"
)
_PT_WEEKDAY_STEMS = ("segunda", "terça", "terca", "quarta", "quinta", "sexta")
_DE_WEEKDAY_STEMS = ("tag", "mittwoch", "sonnabend")  # montag … sonntag end in `tag`
_NUMBER_RUN_STEMS = stems_of([*(k for k in _SMALL if len(k) > 2), *_SCALES])


CALENDAR_PATH = Path(__file__).resolve().parents[1] / "data" / "calendar.tsv"
#: read by their own rules, not the calendar table's: English and Chinese day words and weekdays (`this`,
#: `next`, 下周) and German weekdays (after `am`, `nächsten`: `Guy Montag` is no day) are skipped by
#: language (`_calendar`); these words, in every form, by this list: German and Dutch `morgen`, Spanish
#: `mañana` (`_EU_DAY_WORD`), French `hier`
_OWN_RULES = frozenset(("morgen", "mañana", "manana", "hier"))
#: weekday names that are everyday words of their own language more often than days: Indonesian `minggu`
#: (a week), Romanian `luni` (months), Greek `τρίτη` (third), Russian `среда` (an environment), Turkish
#: `salı` folded (`sali`: Italian `sali al secondo piano`, go up), Vietnamese `thứ hai` … `thứ bảy` (the
#: ordinals second … seventh)
_NOT_DAYS = frozenset(("minggu", "luni", "τρίτη", "среда", "sali", "thứ hai", "thứ ba", "thứ tư", "thứ năm",
                       "thứ sáu", "thứ bảy"))  # fmt: skip
#: the languages whose words are also read without their accents, as people type them (`sabado`,
#: `apres-demain`); not Romanian `maine` or Turkish `dun`, which are English names and words
_UNACCENTED = frozenset(("fr", "es", "it", "pt"))
#: a table word in a script written without spaces between words (Chinese, Japanese, Korean's particles
#: joined to the word: `내일은`), looked for anywhere in a text
_UNSPACED = re.compile(r"[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
#: a word of a spaced script, as the table's words are split: `après-demain`, `l'altro`, `п'ятниця`
_TABLE_TOKEN = re.compile(r"[^\W\d_]+(?:['-][^\W\d_]+)*")


def _plain(text: str) -> str:
    """A text as the table's words are looked for in it: folded, each apostrophe one (`’`, `ʼ`: `'`)."""
    return fold(text).replace("’", "'").replace("ʼ", "'")


@short_cached(maxsize=1_024)  # asked twice in a row of each text: a small cache serves
def _tokens(text: str) -> tuple[str, frozenset[str]]:
    """`_plain(text)` and its tokens (`_TABLE_TOKEN`): read once for both tables (days, weekdays)."""
    low = _plain(text)
    return low, frozenset(_TABLE_TOKEN.findall(low))


@dataclass(frozen=True)
class _Words:
    """Words of the calendar table and the value each says (a day's offset from today, a weekday's index):
    those of spaced scripts by their longest token (one set lookup a text, then a check of the phrase),
    those of unspaced ones as they are; phrases and longer words first, and a word inside one found is not
    read again (`depois de amanhã` says no `amanhã`, 一昨日 no 昨日)."""

    anchored: dict[str, tuple[tuple[re.Pattern[str] | None, int], ...]]
    unspaced: tuple[tuple[str, int], ...]  # the longest first

    def said(self, text: str) -> list[int]:
        """The values of the table's words this text says."""
        low, words = _tokens(text)
        out: set[int] = set()
        tokens = words & self.anchored.keys()
        blanked = False
        for token in tokens:  # phrases first, each blanked out of the text once found
            for phrase, v in self.anchored[token]:
                if phrase is not None and phrase.search(low):
                    out.add(v)
                    low, blanked = phrase.sub(" ", low), True
        for token in set(_TABLE_TOKEN.findall(low)) & tokens if blanked else tokens:
            out.update(v for phrase, v in self.anchored[token] if phrase is None)
        if not low.isascii():
            for word, v in self.unspaced:
                if word in low:
                    out.add(v)
                    low = low.replace(word, " ")
        return sorted(out)


def _forms(word: str, typed_plain: bool) -> set[str]:
    """A table word as `_plain` makes it, and also without its accents (`sábado`: `sabado`) when its language
    is typed so (`typed_plain`)."""
    low = _plain(word)
    if not typed_plain:
        return {low}
    return {low, unaccented(low)}


def _words(pairs: Iterable[tuple[str, int, bool]]) -> _Words:
    anchored: dict[str, list[tuple[re.Pattern[str] | None, int]]] = {}
    unspaced: dict[str, int] = {}
    for word, value, typed_plain in pairs:
        for form in _forms(word, typed_plain) - _OWN_RULES - _NOT_DAYS:
            if _UNSPACED.search(form):  # `내일`, `明日`: two characters are a word
                unspaced[form] = value
                continue
            if len(form) < 3:  # Hungarian `ma` (today) is everybody's syllable
                continue
            tokens = _TABLE_TOKEN.findall(form)
            phrase = None if len(tokens) == 1 else re.compile(rf"(?<![\w'-]){re.escape(form)}(?![\w'-])")
            anchored.setdefault(max(tokens, key=len), []).append((phrase, value))
    longest = tuple(sorted(unspaced.items(), key=lambda kv: -len(kv[0])))
    return _Words({k: tuple(v) for k, v in anchored.items()}, longest)


def _calendar() -> tuple[_Words, _Words, dict[int, tuple[str, ...]]]:
    """The table's day words and weekday names (`lexicon_build.build_calendar`), but for the languages
    and words read by their own rules (`_OWN_RULES`); and each weekday's names in every language. The
    Scandinavian `i morgon`, `i dag` are also read as they are often written, joined (`imorgon`, `idag`)."""
    days: list[tuple[str, int, bool]] = []
    weekdays: list[tuple[str, int, bool]] = []
    names: dict[int, list[str]] = {}
    for line in CALENDAR_PATH.read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        language, kind, value, word = line.split("\t")
        if kind not in ("day", "weekday"):  # months and date patterns: `_date_forms`
            continue
        typed_plain = language in _UNACCENTED
        if kind == "weekday":
            names.setdefault(int(value), []).extend(sorted(_forms(word, typed_plain) - _NOT_DAYS))
        if language in ("en", "zh") or (kind == "weekday" and language == "de"):
            continue
        joined = language in ("sv", "da", "nb") and word.startswith("i ")
        for written in (word, word.replace(" ", "", 1)) if joined else (word,):
            (days if kind == "day" else weekdays).append((written, int(value), typed_plain))
    return _words(days), _words(weekdays), {i: tuple(dict.fromkeys(n)) for i, n in names.items()}


#: read at import, as the patterns are compiled: a first user message pays no start-up
_DAY_TABLE, _WEEKDAY_TABLE, _WEEKDAY_NAMES = _calendar()

#: the languages whose written dates `day_months` does not read from the table: English (`facts` and
#: `evidence._month_days` read its many forms: `May 18th`, `the 3rd of May`, `Aug 20`), Chinese and
#: Japanese (`facts` reads 年月日)
_OWN_DATES = frozenset(("en", "zh", "ja"))
#: a CLDR date pattern's parts: a quoted literal (`'de'`), a field (`d`, `MMMM`, `y`), other literals
_CLDR_PART = re.compile(r"'[^']*'|([a-zA-Z])\1*|[^'a-zA-Z]+")


def _cldr_literal(part: str) -> str:
    """A literal of a date pattern as a regex: spaces may be left out or doubled, a dot or a comma left
    out (`30 августа`, `8월30일`); a quoted word is as written (`de`)."""
    if part.startswith("'"):
        return re.escape(part.strip("'"))
    return "".join(
        r"\s*" if c.isspace() else rf"{re.escape(c)}?" if c in ".," else re.escape(c) for c in part
    )


def _cldr_regex(pattern: str) -> str | None:
    """A language's long date pattern (`d 'de' MMMM 'de' y`, `y년 MMMM d일`) as a regex of its day and
    month, with the year and the literals between optional on its side, and what follows the day or month
    that ends the date too (Korean `일`; a dot, as everywhere, optional). Groups `d@`, `m@`, `y@` (`@` for
    the pattern's number); the month's names, and what comes before them, left as `{names}`, `{before}`.
    None for a pattern of other fields (a weekday's `EEEE`) or with the year between day and month."""
    parts = [m.group(0) for m in _CLDR_PART.finditer(pattern)]
    fields = {k: p[0] for k, p in enumerate(parts) if p[0].isascii() and p[0].isalpha()}
    if sorted(fields.values()) != ["M", "d", "y"] or "MMMM" not in parts:
        return None
    first, last = min(k for k, f in fields.items() if f != "y"), max(k for k, f in fields.items() if f != "y")
    year = next(k for k, f in fields.items() if f == "y")
    if first < year < last:
        return None
    read = {  # a day not of an id (`ORD-30`, `#12`), its ordinal's mark (`1er`, `1º`); a month's name as a
        # word (`{before}`: after no letter, or after no digit when the names start with one: `2025년12월`)
        "d": r"(?<![\d.,:/#])(?<![^\W\d_]-)(?P<d@>[0-3]?\d)(?!\d)(?:er|º|°|ª)?",
        "M": r"{before}(?P<m@>{names})(?![^\W\d_])",
        "y": r"(?P<y@>(?:19|20)\d\d)(?!\d)",
    }

    def run(ks: range) -> str:
        return "".join(read[fields[k]] if k in fields else _cldr_literal(parts[k]) for k in ks)

    core = run(range(first, last + 1))
    if year > last:  # `30 de agosto [de 2025]`
        return f"{core}(?:{run(range(last + 1, year + 1))})?"
    # `[2025년 ]8월 30일`, `[2025. ]augusztus 30[.]`: what ends the date too (`8월 3박` is no day), a dot optional
    return f"(?:{run(range(year, first))})?{core}{run(range(last + 1, len(parts)))}"


@dataclass(frozen=True)
class _DateForms:
    """The written dates of the table's languages: one regex of every distinct long date pattern
    (`_cldr_regex`), each with the month names of the languages that write it, and every name's month."""

    pattern: re.Pattern[str] | None
    shapes: int
    months: dict[str, int]
    #: the words of the names (`août`; `tháng` of `tháng 8`, `월` of `8월`): a text holds one before the
    #: pattern's scan is worth its cost (a set lookup of its words is a tenth of it)
    words: frozenset[str]

    def read(self, text: str) -> list[tuple[int, int, int | None, str]]:
        """(month, day, year or None, as written) of each date the text writes."""
        if self.pattern is None or DIGIT.search(text) is None:
            return []
        if self.words.isdisjoint(_LETTERS.findall(fold(text))):
            return []
        out = []
        for m in self.pattern.finditer(text):
            i = next(k for k in range(self.shapes) if m[f"d{k}"] is not None)
            month, year = self.months.get(_plain(m[f"m{i}"])), m[f"y{i}"]
            if month is not None:
                out.append((month, int(m[f"d{i}"]), int(year) if year else None, m.group(0)))
        return out


_LETTERS = re.compile(r"[^\W\d_]+")


def _date_forms() -> _DateForms:
    """The table's month names (a name two languages give different months, left out) and long date
    patterns, but for `_OWN_DATES`; French, Spanish, Italian and Portuguese names also without their
    accents (`aout`, `marco`). Languages that write dates alike share one alternative of the regex."""
    names: dict[str, set[int]] = {}
    by_language: dict[str, list[str]] = {}
    patterns: dict[str, str] = {}
    for line in CALENDAR_PATH.read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        language, kind, value, word = line.split("\t")
        if language in _OWN_DATES or kind not in ("month", "date"):
            continue
        if kind == "date":
            patterns[language] = word
            continue
        forms = _forms(word, language in _UNACCENTED)
        for form in forms:
            names.setdefault(form, set()).add(int(value))
        # as written too: folding decomposes some letters (Greek `Μαΐου`), and the scan reads the text as is
        by_language.setdefault(language, []).extend((*forms, word.lower()))
    months = {name: next(iter(found)) for name, found in names.items() if len(found) == 1}
    shapes: dict[str, set[str]] = {}
    for language, written in sorted(patterns.items()):
        if (shape := _cldr_regex(written)) is not None:
            shapes.setdefault(shape, set()).update(
                n for n in by_language.get(language, ()) if months.get(_plain(n)) is not None
            )
    alternatives = [
        shape.replace("@", str(i))
        .replace("{before}", r"(?<!\d)" if all(n[0].isdigit() for n in found) else r"(?<![^\W\d_])")
        .replace("{names}", any_of(found))
        for i, (shape, found) in enumerate((s, f) for s, f in shapes.items() if f)
    ]
    regex = re.compile("(?i)" + "|".join(f"(?:{a})" for a in alternatives)) if alternatives else None
    words = frozenset(w for found in shapes.values() for name in found for w in _LETTERS.findall(name))
    return _DateForms(regex, len(alternatives), months, words)


_DATE_FORMS = _date_forms()


def day_months(text: str) -> list[tuple[str, str]]:
    """The days a text writes with their month's name in the table's languages (`30 août`, `16 de junho de
    2025`, `31. Mai`, `piątek, 21 listopada`, `8월 30일`, `augusztus 30.`): an `md:MM-DD` key each, and a
    `date:` key when the year is written, with the date as written. A day its month does not have
    (`31 de junho`) is none."""
    out: list[tuple[str, str]] = []
    for month, day, year, said in _DATE_FORMS.read(text):
        if not 1 <= day <= calendar.monthrange(year or 2000, month)[1]:  # 2000: a leap year
            continue
        out.append((f"md:{month:02d}-{day:02d}", said.strip()))
        if year is not None:
            out.append((f"date:{year:04d}-{month:02d}-{day:02d}", said.strip()))
    return out


#: a weekday as a tool takes it (`MON`, `Tu`, `SAT`): its index, Monday first
WEEKDAY_CODES = {
    **{d[:3]: i for i, d in enumerate(_WEEKDAYS)},
    **{d[:2]: i for i, d in enumerate(_WEEKDAYS)},
}


def weekday_names(index: int) -> tuple[str, ...]:
    """A weekday's names, lower-case, in the languages `relative_dates` reads (`monday`, `montag`, `lundi`,
    `周一`, `星期一`)."""
    zh = next(k for k, v in _ZH_WEEKDAYS.items() if v == index)
    return tuple(dict.fromkeys((*_WEEKDAY_NAMES[index], f"周{zh}", f"星期{zh}", f"礼拜{zh}")))


def clock_key(hour: int, minute: int) -> str:
    """A time of day on a 12-hour dial: `17:00` and `5:00` are both `clock:05:00`."""
    return f"clock:{hour % 12:02d}:{minute:02d}"


@short_cached(maxsize=32_768)  # grounding asks it of every id-like value it looks up
def digits_of(text: str) -> str:
    """The digits of a text, in order (`(415) 555-0132` → `4155550132`)."""
    return "".join(c for c in text if c.isdigit())


@short_cached(maxsize=16_384)
def spoken_keys(text: str, today: str | None) -> tuple[str, ...]:
    """The fact keys a user's words mean that `extract_facts` does not read (module docstring)."""
    keys: list[str] = []
    if today:
        keys += [f"date:{d.isoformat()}" for d in relative_dates(text, date.fromisoformat(today))]
    keys += [f"id:{email}" for email in _spoken_emails(text)]
    keys += [clock_key(h, m) for h, m in _word_times(text)]
    keys += [f"number:{n}" for n in number_words(text)]
    keys += _zh_listed_days(text)
    return tuple(dict.fromkeys(keys))


#: a Chinese month's day and the days listed after it (`10月18号、19号`, `3月5日和6日`), or a list of days
#: whose last one alone carries 号 or 日 (`11月23、24号`): the same month's
_ZH_LISTED_DAYS = re.compile(
    r"(\d{1,2})\s*月\s*(\d{1,2})\s*(?:[号日]((?:\s*[、和与及,，]\s*\d{1,2}\s*[号日])+)"
    r"|((?:\s*[、和与及,，]\s*\d{1,2})+)\s*[号日])"
    r"(?![线门楼桌房车座位层室栋口台])"  # not `5号线` (a metro line), `3号门` (a gate), `2号桌` (a table)
)
_ZH_LISTED_DAY = re.compile(r"\d{1,2}")


def _zh_listed_days(text: str) -> list[str]:
    """`md:` keys of the days listed after a Chinese month's day (`10月18号、19号`, `11月23、24号`:
    `md:10-19`, `md:11-24`)."""
    if "月" not in text:
        return []
    out = []
    for m in _ZH_LISTED_DAYS.finditer(text):
        month, last = int(m.group(1)), int(m.group(2))
        days = [int(d) for d in _ZH_LISTED_DAY.findall(m.group(3) or m.group(4))]
        if not 1 <= month <= 12 or any(b <= a for a, b in itertools.pairwise([last, *days])) or days[-1] > 31:
            continue  # listed days rise (`11月25，5号线` lists none)
        out += [f"md:{month:02d}-{day:02d}" for day in days]
    return out


#: an email address dictated (`john dot smith at gmail dot com`, `marie point lefebvre arobase orange point
#: fr`, `giulia punto ferri chiocciola libero punto it`): the domain needs a dot, so `at home` is no
#: address; a written dot only before more of the address (`… dot music. Phone's …`: the sentence ends
#: there). The words for `@` and `.` in the languages of the calendar table that write addresses in Latin
#: letters (English and German `at`, French `arobase`, Spanish and Portuguese `arroba`, Italian
#: `chiocciola`, Dutch `apenstaartje`, Scandinavian `snabel-a`, Polish `małpa`, Czech and Slovak
#: `zavináč`, Hungarian `kukac`; `dot`, `point`, `punto`, `punkt`, `ponto`, `punt`, `punktum`, `prik`,
#: `kropka`, `tečka`, `bodka`, `pont`, `piste`, `nokta`, `punct`)
_DOT_WORDS = ("dot", "point", "punto", "punkt", "ponto", "punt", "punktum", "prik", "kropka", "tečka", "bodka",
              "pont", "piste", "nokta", "punct")  # fmt: skip
_EMAIL_WORDS = (
    "at",
    "arobase",
    "arroba",
    "chiocciola",
    "apenstaartje",
    "snabel-a",
    "małpa",
    "zavináč",
    "kukac",
)
_DOT = rf"(?:\s*\.(?=[a-z0-9])|\s+(?:{any_of(_DOT_WORDS)})\s+)"
#: the address's `at` and its domain, which needs a dot (so `at home` is none); the local part before it
#: is read from a short window (`_LOCAL_PART`): bounded, so a long text costs a scan, not a square of it
_SPOKEN_AT = re.compile(rf"(?i)\s(?:{any_of(_EMAIL_WORDS)})\s+([a-z0-9-]+(?:{_DOT}[a-z0-9-]+){{1,4}})\b")
_LOCAL_PART = re.compile(rf"(?i)\b([a-z0-9_+-]+(?:{_DOT}[a-z0-9_+-]+){{0,4}})$")
_SPOKEN_DOT = re.compile(_DOT, re.IGNORECASE)


def _spoken_emails(text: str) -> list[str]:
    """The addresses a text dictates in words, written as addresses, lower-case."""
    if not holds_any(fold(text), _EMAIL_WORDS):
        return []
    out = []
    for m in _SPOKEN_AT.finditer(text):
        local = _LOCAL_PART.search(text, max(0, m.start() - 64), m.start())
        if local is not None:
            out.append(
                f"{_SPOKEN_DOT.sub('.', local.group(1))}@{_SPOKEN_DOT.sub('.', m.group(1))}".casefold()
            )
    return out


def named_days(text: str, today: date) -> list[date]:
    """The days a text names by a word that is one day (`tomorrow`, 明天, `übermorgen`) or a holiday's name
    (`Christmas Eve`, `Good Friday`, 国庆, `Thanksgiving`: the coming one): not weekdays, whose names
    fit a day of every week."""
    out: list[date] = []
    low, ascii_only = fold(text), text.isascii()
    for m in _DAY_WORD.finditer(text) if holds_any(low, _DAY_WORD_STEMS) else ():
        out += [today + timedelta(days=k) for k in _DAY_WORDS[fold(m.group(1))]]
    for m in _HOLIDAY.finditer(text.replace("’", "'")) if holds_any(low, _HOLIDAY_STEMS) else ():
        name = (m.group(1) or m.group(2)).casefold()
        this_year = _holiday(name, today.year)
        out.append(this_year if this_year >= today or today.year >= 9999 else _holiday(name, today.year + 1))
    for m in _EU_DAY_WORD.finditer(text.replace("’", "'")) if holds_any(low, _EU_DAY_WORD_STEMS) else ():
        said = m.group(1) or m.group(2) or m.group(3)
        out.append(today + timedelta(days=_EU_DAY_WORDS.get(fold(said), 1)))
    for m in () if ascii_only else _ZH_DAY_WORD.finditer(text):
        out.append(today + timedelta(days=_ZH_DAY_WORDS[m.group(0)]))
    return out


def _holiday(name: str, year: int) -> date:
    kind = _NAMED_DAYS[name]
    if kind == "easter":
        return easter(year) + timedelta(days=_EASTER_DAYS[name])
    if kind == "nth":
        month, weekday, nth = _NTH_WEEKDAY[name]
        first = date(year, month, 1)
        return first + timedelta(days=(weekday - first.weekday()) % 7 + 7 * (nth - 1))
    return date(year, *_HOLIDAYS[name])


def relative_dates(text: str, today: date) -> list[date]:
    """The dates a text names relative to `today` (module docstring); none for a `today` at the calendar's
    ends (a span stamped 9999-12-31: the week after it does not exist)."""
    if not 1 < today.year < date.max.year:
        return []
    out = named_days(text, today)
    low, ascii_only = fold(text), text.isascii()  # each scan below only where it can match
    for m in _WEEKDAY.finditer(text) if holds_any(low, ("day",)) else ():
        out += _weekday(today, _WEEKDAYS.index(fold(m.group(2))), fold(m.group(1) or ""))
    for m in () if ascii_only else _ZH_WEEKDAY.finditer(text):
        which = {"下": "next", "下下": "after next", "上": "last"}.get(m.group(1) or "", "this")
        out += _weekday(today, _ZH_WEEKDAYS[m.group(2)], which)
    for m in _DE_WEEKDAY.finditer(text) if holds_any(low, _DE_WEEKDAY_STEMS) else ():
        day = fold(m.group(2))
        weekday = 5 if day == "sonnabend" else _DE_WEEKDAYS.index(day)
        out += _weekday(today, weekday, _DE_WHICH.get(fold(m.group(1) or ""), ""))
    out += [today + timedelta(days=offset) for offset in _DAY_TABLE.said(text)]  # `내일`, `i morgon`
    for index in _WEEKDAY_TABLE.said(text):  # `da giovedì`, `jeudi prochain`, `på torsdag`
        out += _weekday(today, index, "")
    for m in _PT_WEEKDAY.finditer(text) if holds_any(low, _PT_WEEKDAY_STEMS) else ():  # `na terça ou quarta`
        out += _weekday(today, _PT_WEEKDAYS.index(fold(m.group(1)).replace("ç", "c")), "")
    for m in _DAY_OF_MONTH.finditer(text) if holds_any(low, ("the",)) and DIGIT.search(text) else ():
        out += _day_of_month(today, int(m.group(1)))
    for m in () if ascii_only else _ZH_DAY_OF_MONTH.finditer(text):
        out += _day_of_month(today, int(m.group(1)))
    for m in _IN_UNITS.finditer(text) if holds_any(low, ("day", "week")) else ():
        n = int(m.group(1)) if m.group(1).isdigit() else _SMALL.get(fold(m.group(1)), 1)
        out.append(today + timedelta(days=n * (7 if m.group(2).lower() == "week" else 1)))
    return out


#: a weekday: its name in any case, its abbreviation capitalised (`Fri`, `SAT`; not `sat`, `wed`)
_WD = (
    r"((?i:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
    r"|(?:Mon|Tue|Tues|Wed|Thu|Thur|Thurs|Fri|Sat|Sun|MON|TUE|WED|THU|FRI|SAT|SUN)\.?)"
)
#: a month as it is written: its name or its abbreviation (not `maybe`, `marathon`)
_MON = (
    r"((?i:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?"
    r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?))\.?"
)
#: a weekday with its date (`Friday, June 18`, `Fri 18 June 2026`, `moved to Friday, June 19`)
_WEEKDAY_DATE = re.compile(
    rf"(?<![-–\w]){_WD},?\s+(?i:the\s+)?"
    rf"(?:{_MON}\s+(\d{{1,2}})(?i:st|nd|rd|th)?|(\d{{1,2}})(?i:st|nd|rd|th)?(?:\s+of)?\s+{_MON})(?![\w-])"
    rf"(?:,?\s+(\d{{4}})(?!\s*(?i:hrs?|hours|h)\b)(?![\w:]))?"
)
#: what makes a weekday and a date no pair: another weekday just before (`Saturday & Sunday, June 13`,
#: `Monday to Friday, June 1`, `Fri/Sat June 19`), or more days after it (`June 13 & 14`, `June 15, 16`,
#: `March 14-15`)
_WEEKDAY_BEFORE = re.compile(
    r"(?i)\b(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?\s*(?:[-–&/,]|and|or|to|through|thru|until|till)?\s*$"
)
_MORE_DAYS = re.compile(
    r"\s*(?:[-–&/]|and\b|or\b|to\b|through\b|thru\b|until\b|till\b|,(?=\s*\d{1,2}\b(?!\d)))\s*\d"
)
#: a Chinese date with its weekday after it, in brackets or beside it (`6月18日（周五）`, `2026年6月18日 周五`);
#: not the next clause (`6月18日，周六和周日不发货`) nor a range (`周一至周五`)
_ZH_WEEKDAY_DATE = re.compile(
    r"(?:(\d{4})\s*年\s*)?(\d{1,2})\s*月\s*(\d{1,2})\s*[日号](?!\s*[-–至到])\s*[（(]?\s*(?:周|星期|礼拜)"
    r"([一二三四五六日天])(?![和至到、也前\-–~])"
)


def weekday_dates(text: str) -> list[tuple[str, int, int, int, int | None]]:
    """(as written, weekday Monday 0, month, day, year or None) of each weekday a text pairs with one date,
    in English and Chinese: what a reply says twice, so the two must agree. Not a list or a range of
    weekdays or of days (`_WEEKDAY_BEFORE`, `_MORE_DAYS`)."""
    out: list[tuple[str, int, int, int, int | None]] = []
    low = fold(text)
    if holds_any(low, ("mon", "tue", "wed", "thu", "fri", "sat", "sun")):
        for m in _WEEKDAY_DATE.finditer(text):
            day_end = m.end(3) if m.group(3) else m.end(5)
            if _WEEKDAY_BEFORE.search(text, max(0, m.start() - 25), m.start()) or _MORE_DAYS.match(
                text, day_end
            ):
                continue
            weekday = next(i for i, w in enumerate(_WEEKDAYS) if w.startswith(m.group(1).lower()[:3]))
            month = m.group(2) or m.group(5)
            day = int(m.group(3) or m.group(4))
            year = int(m.group(6)) if m.group(6) else None
            out.append((m.group(0), weekday, _MONTHS.index(month.lower()[:3]) + 1, day, year))
    if not text.isascii():
        for m in _ZH_WEEKDAY_DATE.finditer(text):
            year = int(m.group(1)) if m.group(1) else None
            out.append((m.group(0), _ZH_WEEKDAYS[m.group(4)], int(m.group(2)), int(m.group(3)), year))
    return out


def _weekday(today: date, weekday: int, which: str) -> list[date]:
    ahead = (weekday - today.weekday()) % 7
    coming = today + timedelta(days=ahead)
    if which == "last":
        return [today - timedelta(days=(today.weekday() - weekday) % 7 or 7)]
    if which == "after next":
        return [coming + timedelta(days=7), coming + timedelta(days=14)]
    if which == "next":  # the coming one, or the one in next week: people mean either
        return [coming if ahead else coming + timedelta(days=7), coming + timedelta(days=7)]
    # `Monday`, `this Monday`: the coming one — or, said of a trip or a range that starts later
    # (`pick up next Saturday, return Monday`), the one after it
    return [coming, coming + timedelta(days=7)]


def _day_of_month(today: date, day: int) -> list[date]:
    out = []
    for month_offset in (0, 1):
        year, month = (
            today.year + (today.month + month_offset - 1) // 12,
            (today.month + month_offset - 1) % 12 + 1,
        )
        try:
            out.append(date(year, month, day))
        except ValueError:
            continue
    return out


def _word_times(text: str) -> list[tuple[int, int]]:
    out = []
    low = fold(text)
    for m in _HALF_QUARTER.finditer(text) if holds_any(low, ("half", "quarter")) else ():
        hour = _hour(m.group(3))
        minutes = 30 if m.group(1).lower() == "half" else 15
        out.append((hour - 1, 60 - minutes) if m.group(2).lower() == "to" else (hour, minutes))
    out += [(_hour(m.group(1)), 0) for m in (_OCLOCK.finditer(text) if holds_any(low, ("clock",)) else ())]
    if DIGIT.search(text) is None:  # what both scans below need (`\d` as theirs: any script's digit)
        return out
    out += [(int(m.group(1)), 0) for m in _BARE_HOUR.finditer(text) if 1 <= int(m.group(1)) <= 12]
    for m in _HOUR_RANGE.finditer(text) if holds_any(low, ("to", "-", "–", "til")) else ():
        if _NOT_HOURS_BEFORE.search(text, max(0, m.start() - 12), m.start()):
            continue
        if all(1 <= int(h) <= 12 for h in m.groups()):
            out += [(int(h), 0) for h in m.groups()]
    return out


def _hour(word: str) -> int:
    return int(word) if word.isdigit() else _SMALL[fold(word)]


def number_words(text: str) -> list[int]:
    """Numbers said in several words (`five hundred`, `twenty-five`); single words are `facts`' already."""
    return [value for _, _, value in number_runs(text)]


def number_runs(text: str) -> list[tuple[int, int, int]]:
    """(start, end, value) of each number said in two or more words: `one thousand two hundred fifty`,
    `forty-two`, `twelve thousand five hundred`. Words that do not make one number split the run: in
    `two one-way tickets`, `two` and `one` are two numbers (a unit word is followed by a scale, or by
    a unit after a tens word), so neither is read as a run."""
    out: list[tuple[int, int, int]] = []
    if not holds_any(fold(text), _NUMBER_RUN_STEMS):
        return out
    for m in _NUMBER_RUN.finditer(text):
        words = [(w.start(), w.end(), fold(w.group(0))) for w in re.finditer(r"[^\s-]+", m.group(0))]
        run: list[tuple[int, int, str]] = []
        for word in [*words, None]:
            if word is not None and word[2] == "and":
                if run and run[-1][2] in _SCALES:  # `one hundred and five`; not `ninety and one hundred`
                    continue
                word = None  # ends the run
            known = word is not None and (word[2] in _SMALL or word[2] in _SCALES)
            joined = run and text[m.start() + word[0] - 1] == "-" if word is not None else False
            if word is not None and _COMPOUND.match(text, m.start() + word[1]) and not joined:
                known = False  # `twenty one-way tickets`: `one` belongs to `one-way`, not to `twenty`
            if word is not None and known and (not run or _continues(run[-1][2], word[2])):
                run.append(word)
                continue
            if len(run) >= 2:
                out.append((m.start() + run[0][0], m.start() + run[-1][1], _value([w for _, _, w in run])))
            run = [word] if word is not None and known else []
    return out


#: after a number word: a hyphen and a word that is no number (`one-way`, `one-hour`). A word joined to
#: the run by a hyphen keeps its compound for the whole number: `three-hundred-dollar` is 300-dollar.
_COMPOUND = re.compile(
    r"-(?!(?:" + "|".join(k for k in (*_SMALL, *_SCALES) if len(k) > 2) + r")\b)[A-Za-z]", re.IGNORECASE
)


def _continues(previous: str, word: str) -> bool:
    """`word` goes on the number `previous` ends: a scale after anything, a unit after a tens word
    (`forty two`), anything after a scale (`thousand two`); never one unit after another."""
    if word in _SCALES:
        return True
    if previous in _SCALES:
        return True
    return _SMALL[previous] % 10 == 0 and _SMALL[previous] >= 20 and _SMALL[word] < 10


def _value(words: list[str]) -> int:
    total = current = 0
    for w in words:
        if w in _SMALL:
            current += _SMALL[w]
        elif w == "hundred":
            current = max(current, 1) * 100
        else:
            total += max(current, 1) * _SCALES[w]
            current = 0
    return total + current
