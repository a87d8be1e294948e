"""The differential rung of the comparison ladder: decide on the words where two values differ. Pure.

In: gold and predicted text (values that got past the typed and alias rungs, so their typed facts are
the same), an alias test. Out: a `Difference` — `equal` True/False when the differing spans decide,
None when they do not (the embedding decides then), with the spans for the comparison's note — or
None when the rung does not apply.

Both texts are split into tokens (words; identifier parts split on `_`, `-` and camelCase, so
`rpt_eu_revenue` is `rpt eu revenue`) and aligned. The rung applies when every differing region is
at most `MAX_SPAN` tokens on each side (stopwords not counted) and, for values longer than that, the
two share at least half their tokens. Each region is then judged on its own:
- negation on one side only (`could not find any` / `found three`; `not` added alone) → different;
- different numbers (`three` / `four`) → different;
- an alias (glossary, shipped table) or WordNet synonyms → the same (not when both sides are
  capitalised: `Acme` / `Apex` are names, not synonyms);
- the domain lists first (`Domain`: the shipped `aliases.json` and the user's `ladder.value_sets` /
  `ladder.opposites`): two spellings of one value (`express` / `expedited`) → the same; two values of
  one kind (`aisle` / `window`) or opposites WordNet lacks (`approved` / `denied`) → different;
- WordNet antonyms or siblings (`revenue` / `profit`, `Tuesday` / `Thursday`) → different;
- two different capitalised words that are names (unknown to the lexicon, or capitalised after the
  start: `Alice Smith` / `Alice Jones`) → different;
- only stopwords → the same; anything else (unknown words, added words) → undecided.
One different region makes the values different; all regions the same makes them the same. Before
the regions are judged: the same words with a short block moved across a word of direction or rank
(`from Boston to Denver` / `from Denver to Boston`) → different.

Chinese (and Japanese) text has no spaces: each ideograph is a token, so a region is a span of at most
`MAX_SPAN_ZH` characters (`已发货` / `未发货` differ in `已` / `未`). Negation there is 不 / 未 / 没 / 无 / 非
(not inside words such as 不过 "but", 无论 "whatever", 非常 "very"), decided on spans of at most
`MAX_SPAN` (a longer one says it another way: 没有成功 / 失败); the particles 的 / 了 / 吧 / 呢 / 啊 / 吗
are stopwords. WordNet knows no Chinese: the Chinese lexicon (`lexicon_zh.json`: opposites, kinds,
synonyms) and the value sets decide what they know, another surname before a title (王经理 / 刘经理) is
another person, and other Chinese spans stay undecided and go to the (multilingual) embedding — a rule
that failed any unknown word swapped failed paraphrases too (尽快 / 尽早). Weekdays, months, numbers and
identifiers were decided by the typed rung. Two whole values of one value set (`economy` / `premium
economy`) decide before any alignment.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import cache

from monitor.compare.facts import CJK_CHARS, NUMBER_WORDS, STOPWORDS, has_cjk, plus_word, sentences
from monitor.compare.lexicon import (
    Domain,
    Lexicon,
    Relation,
    ZhLexicon,
    build_domain,
    load_lexicon,
    load_zh_lexicon,
)
from monitor.config import spelling_key

MAX_SPAN = 3
#: The same for ideographs, a word being one or two of them: about as many words as MAX_SPAN.
MAX_SPAN_ZH = 5
#: Longer texts are left to the embedding: aligning them costs quadratic time (a 20,000-token reply took
#: 10 s), and a reply that long is no minimal pair.
MAX_TOKENS = 300
NEGATIONS = frozenset(
    {
        "not",
        "no",
        "never",
        "none",
        "nothing",
        "nobody",
        "nowhere",
        "neither",
        "nor",
        "without",
        *"不未没无非",
    }
)
#: Words that begin with a negating ideograph but negate nothing: conjunctions and adverbs (未来 "the
#: coming", 无误 "correct", 不久 "soon"), and courtesies a reply adds (不客气, 不好意思 "sorry"). Not 不到,
#: 不足 or 没问题: 找不到 / 找到, 库存不足 / 充足 and 没问题 / 有问题 are negations.
_ZH_WORDS = (
    "不过", "不错", "不仅", "不少", "不同", "不断", "无论", "非常", "没关系",
    "未来", "无误", "不久", "不客气", "不好意思",
)  # fmt: skip
#: Words in which an ideograph of direction (`_DIRECTED`) gives none: 收到 "received", 至少 "at least".
_ZH_COMPOUNDS = (
    "收到", "找到", "得到", "达到", "遇到", "看到", "听到", "想到", "做到", "办到", "来到", "回到", "送到",
    "拿到", "接到", "签到", "报到", "感到", "受到", "提到", "轮到", "等到", "直到", "到达", "到账", "到期",
    "到货", "至少", "至今", "至多", "甚至", "以至", "比如", "比较", "相比", "往往", "以往", "向来", "一向",
    "方向", "从来", "从而", "从不", "自从",
)  # fmt: skip
#: English courtesies that open with a negation and negate nothing: `No problem, I've cancelled it.`
_COURTESY = re.compile(
    r"(?i)^\s*(?:no problem|not a problem|no worries|not to worry|no rush|no trouble)\b[\s,.!]*"
)
#: Nothing to pay, said many ways, as one word: `free of charge`, `at no cost`, `at no extra charge`, `for
#: free`, `complimentary`, `without charge` are all `free` (with no negation, which `free` has not).
_FREE = re.compile(
    r"(?i)\b(?:free of (?:charge|cost)|for free|complimentary|without (?:any )?(?:extra |additional )?charge"
    r"|(?:at|for|with) no (?:extra |additional )?(?:cost|charge))\b"
)
#: Common Chinese surnames: one of them put for another before a title (张医生 / 李医生) is another person
#: (not 于, 向, 万: mostly a preposition and a number).
_ZH_SURNAMES = frozenset(
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘蒋蔡余杜叶程苏魏吕丁任沈姚卢姜"
    "崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵钱严覃武戴莫孔汤"
)
_ZH_TITLE = re.compile(
    "医生|大夫|先生|女士|小姐|经理|老师|师傅|律师|教授|主任|同学|总(?![台部额数计共价和量体结监])"
)
_STOP = STOPWORDS | frozenset("的了吧呢啊吗")
_TOKEN = re.compile(
    "|".join(_ZH_WORDS)
    + f"|[{CJK_CHARS}]"
    + rf"|[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+(?:\.\d+)?|(?:(?![{CJK_CHARS}])[^\W\d_])+"
)
#: Particles that reverse a phrase: `in stock` / `out of stock`, `turned on` / `turned off`.
_OPPOSITE_PARTICLES = frozenset(
    frozenset(p)
    for p in (("in", "out"), ("on", "off"), ("up", "down"), ("over", "under"), ("before", "after"),
              ("above", "below"), ("inbound", "outbound"), ("with", "without"), ("from", "to"))
)  # fmt: skip
#: Prefixes that make opposites of one stem: upgrade / downgrade, include / exclude, enable / disable,
#: increase / decrease, import / export, available / unavailable, paid / unpaid.
_OPPOSITE_PREFIXES = (
    ("up", "down"), ("in", "ex"), ("im", "ex"), ("en", "dis"), ("in", "de"), ("in", "out"),
    ("", "un"), ("", "dis"), ("", "non"), ("", "in"), ("", "im"), ("", "ir"), ("", "il"), ("", "mis"),
)  # fmt: skip
_MIN_STEM = 4
_CONTRACTION = re.compile(r"(?i)n['’]t\b")
_CANNOT = re.compile(r"(?i)\bcannot\b")

_NEGATED = "negated on one side only"
_TURNED = (
    "the same words in another order around a direction: who, which way or which is more is turned around"
)
#: Words that give direction or rank between the words around them (not `or`, not `and`: lists turn
#: around freely, `a one-way or a round trip`).
_DIRECTED = frozenset(
    {"from", "to", "into", "than", "instead", "over", "vs", "versus", "before", "after", *"从到至往向比"}
)
_MOVE_REACH = 6  # tokens a moved block and what it moved across may span (ideographs: 10)
_MOVED = "a negation moved within the sentence"
_NEGATED_AHEAD = "a negation put in before the words both go on with"
#: Adverbs of time a negation comes with (`still not`, 暂时不, 还没; ideographs one by one).
_NOW = frozenset({"currently", "still", "yet", "now", "temporarily", "presently", *"暂时还仍尚目前"})
_ZH_UNKNOWN = "not in the Chinese lexicon"
_ONLY_STOPWORDS = "only stopwords differ"
#: The last ideograph of verbs of change (提升, 增加, 降低, 调整, 上涨, …): 至 after them says "to", without
#: it they say "by".
_CHANGED = frozenset("升高加低少整调涨降")
_VARIANT = "a model or plan variant added or changed"
#: Words that name a variant of a product or plan when added to its name (`variant_added`).
_VARIANTS = frozenset(
    {"pro", "plus", "max", "mini", "ultra", "lite", "premium", "deluxe", "air", "neo", "prime"}
)
#: What a text must hold to name a variant (`variant_added`): a capitalised variant word, or a `+`.
_VARIANT_HINT = re.compile(
    r"(?<![A-Za-z])(?:" + "|".join(w.capitalize() for w in sorted(_VARIANTS)) + r")(?![a-z])|\+"
)
#: An alias test: a note ("glossary: invoice") when two phrases are aliases, else "".
AliasTest = Callable[[str, str], str]


@dataclass(frozen=True)
class Difference:
    equal: bool | None
    spans: tuple[tuple[str, str], ...]
    reason: str

    @property
    def note(self) -> str:
        shown = "; ".join(f"{g or '∅'!r} vs {p or '∅'!r}" for g, p in self.spans)
        return f"differs in {shown}: {self.reason}"


def tokens(text: str) -> list[str]:
    """Words and identifier parts, case kept (`rptEURevenue` → `rpt`, `EU`, `Revenue`)."""
    text = _CANNOT.sub("can not", _CONTRACTION.sub(" not", _COURTESY.sub("", plus_word(text))))
    text = _FREE.sub("free", text)  # (no substring guard: `Complimentary` opens a sentence too)
    return _TOKEN.findall(text)


def compare_spans(
    gold: str,
    predicted: str,
    aliases: AliasTest,
    lexicon: Lexicon | None = None,
    domain: Domain | None = None,
) -> Difference | None:
    """`domain`: the opposites and value sets to decide on (default: the shipped ones)."""
    lex = lexicon if lexicon is not None else load_lexicon()
    dom = domain if domain is not None else _shipped_domain()
    zh = load_zh_lexicon()
    # two whole values of a set decide before any alignment: `economy` / `premium economy`, 经济舱 / 超级经济舱
    whole, why = dom.relate(spelling_key(gold), spelling_key(predicted))
    if whole is not Relation.UNKNOWN:
        return Difference(whole is Relation.SYNONYM, ((gold, predicted),), why)
    tg, tp = tokens(gold), tokens(predicted)
    if len(tg) > MAX_TOKENS or len(tp) > MAX_TOKENS:
        return None
    fg, fp = [t.casefold() for t in tg], [t.casefold() for t in tp]
    ops = [op for op in SequenceMatcher(a=fg, b=fp, autojunk=False).get_opcodes() if op[0] != "equal"]
    if not ops or not tg or not tp:
        return None
    moved = _moved_around_a_direction(fg, fp, ops)
    if moved:
        return Difference(False, moved, _TURNED)
    swapped = _roles_swapped(fg, fp)
    if swapped:
        return Difference(False, swapped, "who does what turned: the persons swap places")
    if any(
        _size(fg[g1:g2]) > _limit(fg[g1:g2]) or _size(fp[p1:p2]) > _limit(fp[p1:p2])
        for _, g1, g2, p1, p2 in ops
    ):
        return None
    shared = len(fg) - sum(g2 - g1 for _, g1, g2, _, _ in ops)
    # values that share little are not "the same but for a span": the embedding reads them whole
    if (len(fg) > MAX_SPAN or len(fp) > MAX_SPAN) and 2 * shared < max(len(fg), len(fp)):
        return None
    spans = tuple((" ".join(tg[g1:g2]), " ".join(tp[p1:p2])) for _, g1, g2, p1, p2 in ops)
    codes = not any(len(ts) > 2 and all(t.isupper() for t in ts if t.isalpha()) for ts in (tg, tp))
    verdicts = [
        _judge(
            tg[g1:g2],
            tp[p1:p2],
            aliases,
            lex,
            dom,
            _context(fg, fp, (g1, g2, p1, p2), " "),
            g1 > 0,
            codes,
        )
        if not has_cjk("".join(tg[g1:g2] + tp[p1:p2]))
        else _judge_zh(tg, tp, (g1, g2, p1, p2), zh, dom)
        for _, g1, g2, p1, p2 in ops
    ]
    if has_cjk(gold + predicted) and _negations(fg) % 2 == _negations(fp) % 2:
        # Chinese puts a negation where its verb is (无法使用 / 用不了): a region negated alone is a
        # negation moved when both sentences are negated alike
        verdicts = [(None, _MOVED) if r in (_NEGATED, _NEGATED_AHEAD) else (v, r) for v, r in verdicts]
    elif _negations(fg) % 2 == _negations(fp) % 2:  # `could not reach` / `did not respond`: the same
        verdicts = [(None, _MOVED) if r == _NEGATED_AHEAD else (v, r) for v, r in verdicts]
    different = [(s, r) for s, (v, r) in zip(spans, verdicts, strict=True) if v is False]
    if different:
        return Difference(False, tuple(s for s, _ in different), "; ".join(r for _, r in different))
    if all(v for v, _ in verdicts):
        return Difference(True, spans, "; ".join(dict.fromkeys(r for _, r in verdicts)))
    open_ = [(s, r) for s, (v, r) in zip(spans, verdicts, strict=True) if v is None]
    return Difference(None, tuple(s for s, _ in open_), "; ".join(r for _, r in open_))


def variant_added(gold: str, predicted: str) -> Difference | None:
    """Variant words added after a product's name or number, or one variant put for another (`iPhone 15`
    / `iPhone 15 Pro`, `Galaxy S24+` / `Galaxy S24 Ultra`, `华为Mate 60` / `华为Mate 60 Pro`, `Spotify
    Premium account` / `Spotify account`): different. Read on the values as written (the typed facts'
    residuals are lower-cased and lack the model number). Each variant word capitalised (`Pro`, not
    `PRO` or `pro`), after a capitalised word or one with a digit, and not opening a sentence: not
    `plus` in `2 adults plus 1 child`, `Plus, breakfast is included.`, `… the Hilton. Max will meet
    you`, `4 MAX`."""
    if not _VARIANT_HINT.search(gold) and not _VARIANT_HINT.search(predicted):
        return None  # the hot path: most values name no variant (a `+` is one: S24+)
    tg, tp = tokens(gold), tokens(predicted)
    if sorted(w for w in tg if _variant_word(w)) == sorted(w for w in tp if _variant_word(w)):
        return None  # the same variants in another order: `Pro and Max plans` / `Max and Pro plans`
    ops = SequenceMatcher(
        a=[t.casefold() for t in tg], b=[t.casefold() for t in tp], autojunk=False
    ).get_opcodes()
    starts_g, starts_p = _sentence_starts(gold, len(tg)), _sentence_starts(predicted, len(tp))
    for op, g1, g2, p1, p2 in ops:
        if op == "equal" or g1 == 0 or p1 == 0:
            continue
        sides = [(tg[g1:g2], g1 in starts_g), (tp[p1:p2], p1 in starts_p)]
        words = [[w for w in side if w.casefold() not in _STOP] for side, _ in sides]
        if any(opens for side, opens in sides if side) or not any(words):
            continue
        if _joins_names(tg[g1:g2], tg[g2 : g2 + 1]) or _joins_names(tp[p1:p2], tp[p2 : p2 + 1]):
            continue  # `Flight Plus Hotel`: a `plus` joining two names
        if _named(tg[g1 - 1]) and all(_variant_word(w) for side in words for w in side):
            return Difference(False, ((" ".join(tg[g1:g2]), " ".join(tp[p1:p2])),), _VARIANT)
    return None


def _joins_names(region: Sequence[str], after: Sequence[str]) -> bool:
    """A `Plus` before a capitalised word: a conjunction of two names (`Flight Plus Hotel`)."""
    following = [*region[1:], *after]
    return any(w == "Plus" and nxt[:1].isupper() for w, nxt in zip(region, following, strict=False))


def _named(word: str) -> bool:
    """A word a variant can follow: a name (capitalised, not a greeting: `Hi Max`) or a model number (a
    digit in it)."""
    return (word[:1].isupper() and word.casefold() not in _GREETINGS) or any(c.isdigit() for c in word)


_GREETINGS = frozenset(
    {"hi", "hello", "hey", "dear", "thanks", "thank", "sorry", "welcome", "bye", "goodbye"}
)


def _variant_word(word: str) -> bool:
    return word.casefold() in _VARIANTS and word[:1].isupper() and word[1:].islower()


def _sentence_starts(text: str, count: int) -> frozenset[int]:
    """The token numbers that open a sentence or a clause of `text` (`Thanks, Max!`; empty when the
    clauses' tokens do not add up to `count`, the whole text's)."""
    starts, at = set(), 0
    for clause in (c for sentence in sentences(text) for c in _CLAUSES.split(sentence)):
        starts.add(at)
        at += len(tokens(clause))
    return frozenset(starts) if at == count else frozenset()


_CLAUSES = re.compile(r"[,;:!?()，；：！？（）]")


@cache
def _shipped_domain() -> Domain:
    return build_domain({}, [], shipped=True)


def _context(
    tg: Sequence[str], tp: Sequence[str], region: tuple[int, int, int, int], joint: str
) -> tuple[str, str]:
    """The token the two texts share just before a differing region, and just after it ("" at an end)."""
    g1, g2, p1, p2 = region
    before = tg[g1 - 1] + joint if g1 > 0 and p1 > 0 else ""
    after = joint + tg[g2] if g2 < len(tg) and p2 < len(tp) else ""
    return before, after


def _domain_verdict(
    g: Sequence[str],
    p: Sequence[str],
    context: tuple[str, str],
    domain: Domain,
    joint: str,
    lemma: Callable[[str], str] | None = None,
) -> tuple[bool | None, str]:
    """Two regions by the domain lists: True one value, False opposites or two values of one kind, None
    unknown to them; and why. Read with the word they share on either side first (`credit card` / `gift
    card` differ in `credit` / `gift`), then alone, and — for a difference — word by word at one place."""
    before, after = context
    a, b = joint.join(g), joint.join(p)
    # the longer readings first: `single room` / `twin room` are two rooms, though `single` / `twin` are
    # one bed
    candidates = [(before + a, before + b)] if before else []
    candidates += [(a + after, b + after)] if after else []
    candidates.append((a, b))
    for x, y in candidates:
        relation, why = domain.relate(spelling_key(x), spelling_key(y), lemma)
        if relation is not Relation.UNKNOWN:
            return relation is Relation.SYNONYM, why
    for x, y in zip(g, p, strict=False):
        relation, why = domain.relate(spelling_key(x), spelling_key(y), lemma)
        if relation in (Relation.ANTONYM, Relation.SIBLING):
            return False, why
    return None, ""


def _moved_around_a_direction(
    fg: Sequence[str], fp: Sequence[str], ops: Sequence[tuple[str, int, int, int, int]]
) -> tuple[tuple[str, str], ...]:
    """The same words, a block of them moved across a word that gives direction or rank (`from Paris to
    London` / `from London to Paris`, `the charge higher than the quote` / `the quote higher than the
    charge`): the spans, else (). Alignment reads such a move as words taken out here and added there."""
    alone = sorted(fg) == sorted(fp)  # nothing differs but the move
    for (_, g1, g2, p1, p2), (_, h1, h2, q1, q2) in itertools.pairwise(ops):
        # two neighbouring differences that move the same words; in English, other differences
        # elsewhere in the sentence (`will be shipped` / `will ship`) do not hide the move (Chinese
        # moves a measure phrase freely: 一张机票 / 机票一张, so there only a move alone counts)
        taken, added = [*fg[g1:g2], *fg[h1:h2]], [*fp[p1:p2], *fp[q1:q2]]
        if not taken or sorted(taken) != sorted(added) or (not alone and has_cjk("".join(taken))):
            continue
        # a short move (not two sentences swapped) across a word that gives direction (not 到 in 收到)
        around = fg[min(g1, h1) : max(g2, h2)]
        if len(around) > _limit(around) * _MOVE_REACH // MAX_SPAN or not _directions(around):
            continue
        return ((" ".join(fg[g1:g2]), " ".join(fp[p1:p2])), (" ".join(fg[h1:h2]), " ".join(fp[q1:q2])))
    return ()


#: Who a pronoun names: the speaker's side (1), the user (2), someone else (3). `please` / 请 asks the user
#: to act: the user is its subject.
_PERSONS = {
    **dict.fromkeys(("i", "we", "me", "us", "my", "our", "我", "我们"), 1),
    **dict.fromkeys(("you", "your", "您", "你", "你们", "please", "请"), 2),
    **dict.fromkeys(("they", "them", "he", "she", "him", "her", "他", "她", "他们", "她们"), 3),
}
#: Words that join persons or relate them both ways: swapping the persons there says the same (`you and
#: me`, `either you or we`, `we have a meeting with you`, `we'll meet you`, 您和我们, 见面).
_SYMMETRIC = frozenset(
    {
        "and",
        "or",
        "nor",
        "with",
        "between",
        "both",
        "meet",
        "see",
        "talk",
        "speak",
        "chat",
        "together",
        *"和与跟同及或见约聊谈",
    }
)
#: Modal words after a pronoun, which do not change who acts (`we'll`, 我们会).
_MODALS = frozenset({"will", "ll", "shall", "would", "can", "could", "d", "会", "将"})


def _roles_swapped(fg: Sequence[str], fp: Sequence[str]) -> tuple[tuple[str, str], ...]:
    """The same words with the persons in each other's places (`We'll call you` / `Please call us`, `Can
    you send me …` / `Can I send you …`, `他们会联系您` / `请您联系他们`): the persons in order, else ()."""
    if _SYMMETRIC & {*fg, *fp}:
        return ()  # `between you and me`, `either you or we`, `a meeting with you`, `您和我们双方`
    mg, pg = _masked(fg)
    mp, pp = _masked(fp)
    order_g, order_p = [n for _, n in pg], [n for _, n in pp]
    if mg != mp or len(set(order_g)) < 2 or order_g == order_p or sorted(order_g) != sorted(order_p):
        return ()
    return ((" ".join(w for w, _ in pg), " ".join(w for w, _ in pp)),)


def _masked(words: Sequence[str]) -> tuple[list[str], list[tuple[str, int]]]:
    """The words with each person (a pronoun, `please`, 我们 …) as one placeholder, and the persons in
    order (the same person twice in a row is one: `you please`, 请您); modal words after a person
    dropped."""
    out: list[str] = []
    persons: list[tuple[str, int]] = []
    i = 0
    while i < len(words):
        word = (
            words[i] + "们"
            if i + 1 < len(words) and words[i + 1] == "们" and words[i] in "我你他她"
            else words[i]
        )
        i += 2 if len(word) == 2 and word.endswith("们") else 1
        person = _PERSONS.get(word)
        if person is None:
            if not (persons and out and out[-1] == "\0" and word in _MODALS):
                out.append(word)
            continue
        if persons and out and out[-1] == "\0" and persons[-1][1] == person:
            continue
        out.append("\0")
        persons.append((word, person))
    return out, persons


def _directions(words: Sequence[str]) -> list[str]:
    """The words of direction or rank among `words`; an ideograph only outside the words it forms with a
    neighbour (`_ZH_COMPOUNDS`: 到 in 收到 gives none). Compounds are not tokens: 找不到 must still read
    as 找, 不, 到 against 找到."""
    return [
        w
        for i, w in enumerate(words)
        if w in _DIRECTED
        and not (i > 0 and words[i - 1] + w in _ZH_COMPOUNDS)
        and not (i + 1 < len(words) and w + words[i + 1] in _ZH_COMPOUNDS)
    ]


def _negations(words: Sequence[str]) -> int:
    return sum(t in NEGATIONS for t in words)


def _limit(span: Sequence[str]) -> int:
    return MAX_SPAN_ZH if has_cjk("".join(span)) else MAX_SPAN


def _size(span: Sequence[str]) -> int:
    """A span's length in the words that carry meaning (`could not find any` is 3: not, find, any)."""
    return sum(1 for t in span if t not in _STOP)


def _judge(
    g: Sequence[str],
    p: Sequence[str],
    aliases: AliasTest,
    lex: Lexicon,
    domain: Domain,
    context: tuple[str, str],
    mid_text: bool,
    codes: bool = True,
) -> tuple[bool | None, str]:
    """One differing region: True the same, False different, None undecided; and why. `codes`: words in
    capitals are codes (the texts are not sentences written all in capitals)."""
    fg, fp = [t.casefold() for t in g], [t.casefold() for t in p]
    # a word in capitals is a code, not a stopword (`Portland, OR` / `Portland, ME`), where the text is
    # not all in capitals (`DELIVERED AT FRONT DOOR`)
    cg, cp = _content(g, fg, codes), _content(p, fp, codes)
    if any(frozenset((x, y)) in _OPPOSITE_PARTICLES for x in fg for y in fp):
        return False, "opposite particles"
    if _negations(fg) % 2 != _negations(fp) % 2:
        # a negation added alone flips the value ("available" / "not available"); one that comes with
        # words of its own may be said another way on the other side ("could not complete" / "failed")
        if (fg and fp) or not (cg or cp):
            return False, _NEGATED
        if _negates_what_follows(cg, cp, context):
            return False, _NEGATED_AHEAD
        return None, "a negation added with other words"
    if not cg and not cp:
        return True, _ONLY_STOPWORDS
    if not cg or not cp:  # words added: decided only where, read with a neighbour, they spell values
        verdict, why = _domain_verdict(cg, cp, context, domain, " ", lex.forms)
        return (verdict, why) if verdict is not None else (None, "words added")
    ng, np_ = _numbers(cg), _numbers(cp)
    if ng and np_ and ng != np_:
        return False, "different numbers"
    a, b = " ".join(cg), " ".join(cp)
    alias = aliases(a, b)
    if alias:
        return True, alias
    if len(g) == len(p) > 1:  # `Oak Street Apt` / `Elm St Apartment`: word for word, aliases set aside
        notes = [aliases(x, y) for x, y in zip(fg, fp, strict=True) if x != y]
        kept = [(x, y) for x, y in zip(g, p, strict=True) if x.casefold() != y.casefold()]
        kept = [(x, y) for x, y in kept if not aliases(x.casefold(), y.casefold())]
        if not kept:
            return True, "; ".join(n for n in notes if n)
        if len(kept) < len(g):
            rest_g, rest_p = [x for x, _ in kept], [y for _, y in kept]
            return _judge(rest_g, rest_p, aliases, lex, domain, context, mid_text, codes)
    verdict, why = _domain_verdict(cg, cp, context, domain, " ", lex.forms)
    if verdict is not None:
        return verdict, why
    if any(_opposite_affixes(x, y) for x, y in zip(cg, cp, strict=False)):
        return False, "opposite prefixes of one stem"
    relation, why = lex.relate(a, b)
    if relation is Relation.UNKNOWN and len(cg) == len(cp) > 1:
        relation, why = _relate_word_by_word(cg, cp, lex)
    if relation is Relation.SYNONYM:
        if not _titled([*g, *p]):
            return True, why
        why = "capitalised: perhaps names, whatever the lexicon says"  # Acme / Apex are no synonyms
    if relation in (Relation.ANTONYM, Relation.SIBLING):
        return False, why
    if _names(g, p, lex, mid_text):
        return False, "different names"
    if codes and len(g) == len(p) == 1 and _label(g[0]) and _label(p[0]) and len(g[0]) == len(p[0]):
        return False, "different labels or codes"  # Gate B / Gate C, IT / IN; not CN / CHN
    return None, why


def _judge_zh(
    tg: Sequence[str], tp: Sequence[str], region: tuple[int, int, int, int], zh: ZhLexicon, domain: Domain
) -> tuple[bool | None, str]:
    """A Chinese region (ideographs): negation as in `_judge`; then opposites and distinct values of a
    kind from the Chinese lexicon, read on the region alone or with the ideograph shared on either side
    (`经济舱` / `商务舱` differ in `经济` / `商务`; `周四下午` / `周四上午` in `下` / `上`)."""
    g1, g2, p1, p2 = region
    g, p = [t for t in tg[g1:g2] if t not in _STOP], [t for t in tp[p1:p2] if t not in _STOP]
    before, after = _context(tg, tp, region, "")
    a, b = "".join(g), "".join(p)
    if (
        g
        and p
        and any(  # 低于 / 不到; 缺货 / 没货 read with the ideograph after
            zh.relate(x, y)[0] is Relation.SYNONYM
            for x, y in ((a, b), (before + a, before + b), (a + after, b + after))
        )
    ):
        return True, "Chinese synonyms"
    if _negations(g) % 2 != _negations(p) % 2:  # as in `_judge`: a negation added alone flips the value
        words = [t for t in (*g, *p) if t not in NEGATIONS]
        if max(len(g), len(p)) > MAX_SPAN:  # 没有成功 / 失败: a negation said another way
            return None, "a negation said with other words"
        if (g and p) or not words:
            return False, _NEGATED
        if _negates_what_follows(words, [], (before, after)):
            return False, _NEGATED_AHEAD
        return None, "a negation added with other words"
    if len(g) == len(p) == 1 and {*g, *p} <= _ZH_SURNAMES and _ZH_TITLE.match("".join(tg[g2:])):
        return False, "different names: another surname before a title"
    if not g and not p:
        return True, _ONLY_STOPWORDS
    verdict, why = _domain_verdict(g, p, (before, after), domain, "")
    if not g or not p:
        if verdict is None and "".join(g or p) == "至" and before[-1:] in _CHANGED:
            return False, "changed to a value against by it (提升至5万元 / 提升5万元)"
        return (verdict, why) if verdict is not None else (None, "words added")
    if verdict is not None:
        return verdict, why
    a, b = "".join(g), "".join(p)
    for x, y in ((a, b), (before + a, before + b), (a + after, b + after), *_kind_words(zh, a, b)):
        relation, why = zh.relate(x, y)
        if relation in (Relation.ANTONYM, Relation.SIBLING):
            return False, why
        if relation is Relation.SYNONYM:
            return True, why
    return None, _ZH_UNKNOWN


def _kind_words(zh: ZhLexicon, a: str, b: str) -> list[tuple[str, str]]:
    """The words of a kind two regions open with (`微信钱包` / `支付宝账户`: `微信` / `支付宝`)."""
    ka = [w for w in zh.kinds if a.startswith(w) and w != a]
    kb = [w for w in zh.kinds if b.startswith(w) and w != b]
    return [(max(ka, key=len), max(kb, key=len))] if ka and kb else []


def _negates_what_follows(cg: Sequence[str], cp: Sequence[str], context: tuple[str, str]) -> bool:
    """A negation put in before the words both texts go on with, with nothing of its own but an adverb of
    time (`is currently not available` / `is available`, 目前暂不支持 / 目前支持, 还不支持): it negates them.
    Any other word makes it an idiom or a courtesy (`don't forget to`, `do not hesitate`, 不妨, 无线)."""
    words = [*cg, *cp]
    return bool(context[1]) and bool(words) and all(w in _NOW for w in words)


def _opposite_affixes(a: str, b: str) -> bool:
    """One stem with opposite prefixes (`upgraded` / `downgraded`, `paid` / `unpaid`)."""
    for x, y in ((a, b), (b, a)):
        for px, py in _OPPOSITE_PREFIXES:
            if x.startswith(px) and y.startswith(py):
                stem_x, stem_y = x[len(px) :], y[len(py) :]
                if stem_x == stem_y and len(stem_x) >= _MIN_STEM:
                    return True
    return False


def _relate_word_by_word(cg: Sequence[str], cp: Sequence[str], lex: Lexicon) -> tuple[Relation, str]:
    found = [
        lex.relate(x, y) if x != y else (Relation.SYNONYM, "same word") for x, y in zip(cg, cp, strict=True)
    ]
    for relation in (Relation.ANTONYM, Relation.SIBLING):
        for r, why in found:
            if r is relation:
                return r, why
    if all(r is Relation.SYNONYM for r, _ in found):
        return Relation.SYNONYM, "WordNet synonyms, word by word"
    return Relation.UNKNOWN, "related only loosely"


def _content(words: Sequence[str], folded: Sequence[str], codes: bool) -> list[str]:
    """The folded words that carry meaning: no stopwords (but codes in capitals, where `codes`), no
    negations."""
    return [
        f
        for w, f in zip(words, folded, strict=True)
        if (f not in _STOP or (codes and _code(w))) and f not in NEGATIONS
    ]


def _label(word: str) -> bool:
    """A label or code in capitals: one letter (not `I`) or two (`B`, `IT`)."""
    return word.isalpha() and word.isupper() and (len(word) == 2 or (len(word) == 1 and word != "I"))


def _code(word: str) -> bool:
    """A code written in capitals (`OR`, `ME`, `EU`): two or three letters."""
    return 2 <= len(word) <= 3 and word.isupper() and word.isalpha()


def _titled(words: Sequence[str]) -> bool:
    return all(w[:1].isupper() and w[1:].islower() for w in words)


def _numbers(words: Sequence[str]) -> tuple[str, ...]:
    return tuple(
        str(NUMBER_WORDS[w]) if w in NUMBER_WORDS else w for w in words if w.isdigit() or w in NUMBER_WORDS
    )


def _names(g: Sequence[str], p: Sequence[str], lex: Lexicon, mid_text: bool) -> bool:
    """Both sides capitalised words, neither an abbreviation of the other, that are names: words the
    lexicon does not know, or capitalised after the start of the text (`Alice Smith` / `Alice Jones`)."""
    words = [*g, *p]
    if not _titled(words):
        return False
    if not mid_text and any(lex.knows(w.casefold()) for w in words):
        return False
    a, b = " ".join(g).casefold(), " ".join(p).casefold()
    return not (a.startswith(b) or b.startswith(a))
