"""Rule-based Issue Spotter (paper §3.3): what a question asks, before anything is retrieved.

From a question in Bangla, English, romanised Bangla or a noisy mix it finds

* the **question type** (one of :class:`~labourcrew.settings.QuestionType`; it picks the retrieval
  ceilings of paper B.2) from cue words (:data:`TYPE_CUES`);
* the **language** (``bn``, ``en``, ``bn-latn`` for romanised Bangla, ``mixed``) and **register**
  (``formal``, ``colloquial``, ``noisy``);
* the **sections named** (via :mod:`labourcrew.retrieval.exact`);
* the **legal concepts** mentioned (:data:`CONCEPTS`, a readable keyword table; each concept also
  carries the Act's own Bangla wording, which the planner adds to lexical queries so an English or
  romanised question still matches the Bangla text);
* **sub-questions** for comparative and multi-hop questions (split on এবং / আর / and / ?), and the
  **parts** of any question that asks two things (two questions ending in ``?``), each of which the
  Trust Gate answers or withholds on its own;
* **instruction-like text** (prompt injection: "ignore previous instructions", "### SYSTEM", "you
  are now ...") -- kept aside in ``injection`` and left out of the parts, the concepts and the
  sub-questions, so it can neither steer nor block the legitimate question.

Deterministic and fast (about a millisecond); an LLM spotter may replace it later behind the same
:class:`IssueSpotting` record. Measured on data/eval/dev_v1.jsonl: the question type matches the
gold category for 77 of 140 typed questions (majority class: 20), register for 116 of 160. The cue
lists were extended while reading that dev set, so these numbers are optimistic: judge the spotter
on held-out questions.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from labourcrew.ledger.retrieval import IssueSpotting, Language, QuestionType, Register
from labourcrew.retrieval.exact import find_section_refs
from labourcrew.statute.normalize import normalize

__all__ = [
    "Concept",
    "CONCEPTS",
    "TYPE_CUES",
    "SITUATION_CUES",
    "spot_issues",
    "detect_language",
    "detect_register",
    "match_concepts",
    "INJECTION_CUES",
    "split_injection",
    "question_parts",
]


@dataclass(frozen=True)
class Concept:
    """One row of the concept table.

    Attributes:
        key: stable id, e.g. ``"maternity"``.
        triggers: words that signal the concept (Bangla, English, romanised); matched on the
            normalised question, Bangla ones as substrings (so inflections match), Latin ones at a
            word start.
        act_terms: the Act's own Bangla wording, added to lexical queries.
        generic: a broad concept (wages, leave ...) that does not by itself make a question
            multi-hop when it co-occurs with a specific one.
    """

    key: str
    triggers: tuple[str, ...]
    act_terms: str
    generic: bool = False


def _c(key: str, triggers: str, act_terms: str, generic: bool = False) -> Concept:
    return Concept(key, tuple(t.strip() for t in triggers.split("|") if t.strip()), act_terms, generic)


# The concept table. Triggers are "|"-separated; keep one concept per line.
CONCEPTS: tuple[Concept, ...] = (
    _c("wages", "মজুরি|মজুরী|বেতন|পারিশ্রমিক|wage|salary|pay |payment of wage|mojuri|beton|betan", "মজুরী", generic=True),
    _c("minimum_wage", "নিম্নতম মজুরি|ন্যূনতম মজুরি|সর্বনিম্ন মজুরি|মজুরি বোর্ড|মিনিমাম|minimum wage|wage board|nimnotomo|minimum salary", "নিম্নতম মজুরী বোর্ড হার"),
    _c("wage_deduction", "কর্তন|কেটে|কাটা|deduct|kete", "মজুরী হইতে কর্তন"),
    _c("wage_payment_time", "পরিশোধের সময়|কবে দিতে|কত তারিখ|কত দিনের মধ্যে|কর্মদিবসের মধ্যে|time of payment|when.*paid", "মজুরী পরিশোধের সময় মজুরীকাল"),
    _c("leave", "ছুটি|ছুটির|leave|holiday|chuti|chhuti", "ছুটি", generic=True),
    _c("casual_leave", "নৈমিত্তিক|ক্যাজুয়াল ছুটি|ক্যাজুয়েল ছুটি|casual leave|noimittik", "নৈমিত্তিক ছুটি"),
    _c("sick_leave", "পীড়া|অসুস্থ|অসুখ|sick|illness|osustho|osukh", "পীড়া-ছুটি অসুস্থতা"),
    _c("annual_leave", "বাৎসরিক ছুটি|বার্ষিক ছুটি|অর্জিত ছুটি|annual leave|earned leave|barshik", "মজুরীসহ বাৎসরিক ছুটি"),
    _c("festival_leave", "উৎসব|ঈদ|পূজা|festival|eid|utsob", "উৎসব ছুটি"),
    _c("weekly_holiday", "সাপ্তাহিক ছুটি|সাপ্তাহিক বন্ধ|weekly holiday|weekly off|saptahik", "সাপ্তাহিক ছুটি"),
    _c("maternity", "প্রসূতি|মাতৃত্ব|গর্ভবতী|গর্ভ|সন্তান প্রসব|সন্তান জন্ম|maternity|pregnan|childbirth|prosuti|prosuti|matritto|gorbhoboti", "প্রসূতি কল্যাণ সুবিধা সন্তান প্রসব"),
    _c("termination", "ছাঁটাই|ছাটাই|বরখাস্ত|অবসান|ডিসচার্জ|চাকরিচ্যুত|চাকুরিচ্যুত|চাকরি থেকে বাদ|চাকরি চলে|বের করে|retrench|dismiss|discharg|terminat|fired|sack|chatai|chhatai|boroskhasto|barkhast", "চাকুরীর অবসান ছাঁটাই ডিসচার্জ বরখাস্ত"),
    _c("resignation", "ইস্তফা|পদত্যাগ|চাকরি ছেড়|চাকরি ছাড়|resign|quit|istofa|chakri chara", "শ্রমিক কর্তৃক চাকুরীর অবসান ইস্তফা"),
    _c("retirement", "অবসর|retire|obosor", "শ্রমিকের অবসর গ্রহণ"),
    _c("notice_period", "নোটিশ|নোটিস|notice", "নোটিশ", generic=True),
    _c("overtime", "অধিকাল|ওভারটাইম|অতিরিক্ত সময়|অতিরিক্ত কাজ|overtime|over time|extra hours|odhikal", "অধিকাল কর্মের জন্য অতিরিক্ত ভাতা"),
    _c("working_hours", "কর্মঘণ্টা|কর্মঘন্টা|কর্ম-ঘণ্টা|কাজের সময়|ঘণ্টা|ঘন্টা|working hour|hours of work|work hour|kormoghonta|ghonta|ghanta", "দৈনিক কর্মঘণ্টা সাপ্তাহিক কর্মঘণ্টা"),
    _c("rest_interval", "বিরতি|বিশ্রাম|আহারের|break|rest interval|lunch", "বিশ্রাম বা আহারের জন্য বিরতি"),
    _c("night_shift", "নৈশ|রাতের পালা|রাত|night|raat", "নৈশ-পালা"),
    _c("gratuity", "গ্রাচুইটি|গ্র্যাচুইটি|গ্রাচুয়িটি|gratuity|grachuiti", "গ্রাচুইটি"),
    _c("provident_fund", "ভবিষ্য তহবিল|ভবিষ্যৎ তহবিল|প্রভিডেন্ট|provident fund|pf ", "ভবিষ্য তহবিল"),
    _c("participation_fund", "অংশগ্রহণ তহবিল|কল্যাণ তহবিল|participation fund|welfare fund|profit", "অংশগ্রহণ তহবিল কল্যাণ তহবিল"),
    _c("trade_union", "ট্রেড ইউনিয়ন|ইউনিয়ন|শ্রমিক সংগঠন|সংগঠন করা|trade union|union|tredunion|trade-union|সদস্য|member", "ট্রেড ইউনিয়ন রেজিস্ট্রিকরণ"),
    _c("collective_bargaining", "যৌথ দরকষাকষি|দর কষাকষি|সিবিএ|collective bargaining|cba", "যৌথ দরকষাকষি প্রতিনিধি"),
    _c("unfair_practice", "অসৎ শ্রম আচরণ|unfair labour practice|unfair labor practice|anti-union", "অসৎ শ্রম আচরণ"),
    _c("strike_lockout", "ধর্মঘট|লক-আউট|লকআউট|strike|lock-out|lockout|dhormoghot", "ধর্মঘট লক-আউট"),
    _c("industrial_dispute", "শিল্প বিরোধ|বিরোধ|industrial dispute|dispute|conciliation|সালিশ|মধ্যস্থতা", "শিল্প বিরোধ নিষ্পত্তি"),
    _c("labour_court", "শ্রম আদালত|আদালত|ট্রাইব্যুনাল|মামলা|আপিল|আপীল|labour court|labor court|tribunal|appeal|case|court|adalot|mamla", "শ্রম আদালত দরখাস্ত"),
    _c("grievance", "অভিযোগ|grievance|complain|ovijog|obhijog", "অভিযোগ পদ্ধতি"),
    _c("compensation", "ক্ষতিপূরণ|ক্ষতিপুরণ|compensation|khotipuron", "ক্ষতিপূরণ"),
    _c("injury", "দুর্ঘটনা|আঘাত|জখম|আহত|পঙ্গু|accident|injur|disabl|durghotona", "দুর্ঘটনা জখম ক্ষতিপূরণ"),
    _c("death", "মৃত্যু|মারা|মৃত|death|died|dies|deceased|mrittu", "মৃত্যু"),
    _c("layoff", "লে-অফ|লে অফ|লেঅফ|lay-off|layoff|lay off", "লে-অফ"),
    _c("misconduct", "অসদাচরণ|শাস্তি|সাময়িক বরখাস্ত|তদন্ত|misconduct|suspen|enquiry|inquiry|osodachoron", "অসদাচরণ শাস্তি তদন্ত"),
    _c("penalty", "দণ্ড|দন্ড|জরিমানা|কারাদণ্ড|সাজা|penalt|fine |punish|imprison|jorimana", "দণ্ড জরিমানা"),
    _c("appointment", "নিয়োগপত্র|পরিচয়পত্র|appointment letter|identity card|id card|niyogpotro", "নিয়োগপত্র ও পরিচয়পত্র"),
    _c("probation", "শিক্ষানবিশ|প্রবেশন|probation|apprentice|shikkhanobish", "শিক্ষানবিশীকাল"),
    _c("worker_classification", "স্থায়ী|অস্থায়ী|বদলি|মৌসুমী|permanent|temporary|casual worker|badli|seasonal", "শ্রমিকগণের শ্রেণী বিভাগ"),
    _c("service_book", "সার্ভিস বই|সার্ভিস বহি|service book", "সার্ভিস বহি"),
    _c("child_labour", "শিশু|কিশোর|child|adolescent|minor|juvenile|shishu|kishor", "শিশু ও কিশোর নিয়োগ"),
    _c("women_workers", "নারী|মহিলা|woman|women|female|nari|mohila", "নারী শ্রমিক", generic=True),
    _c("safety", "নিরাপত্তা|অগ্নি|আগুন|যন্ত্রপাতি|safety|fire|machiner|nirapotta", "নিরাপত্তা"),
    _c("health_hygiene", "স্বাস্থ্য|পানি|শৌচাগার|পরিচ্ছন্ন|health|hygiene|drinking water|latrine|toilet", "স্বাস্থ্য রক্ষা ব্যবস্থা"),
    _c("welfare", "ক্যান্টিন|শিশু কক্ষ|প্রাথমিক চিকিৎসা|খাবার ঘর|খাওয়ার রুম|canteen|creche|day care|daycare|first aid|welfare|group insurance|insurance|বীমা|bima", "কল্যাণমূলক ব্যবস্থা"),
    _c("final_dues", "চূড়ান্ত পাওনা|পাওনা পরিশোধ|final payment|final dues|dues|paona", "শ্রমিকের চূড়ান্ত পাওনা পরিশোধ"),
    _c("harassment", "হয়রানি|বৈষম্য|সহিংসতা|যৌন|harass|discriminat|violence|equal pay|সমমজুরি|সম মজুরি", "বৈষম্য সহিংসতা হয়রানি"),
    _c("forced_labour", "জবরদস্তি|বাধ্যতামূলক শ্রম|forced labour|forced labor|bonded", "জবরদস্তি-শ্রম"),
    _c("inspection", "পরিদর্শক|পরিদর্শন|inspector|inspection|porodorshok", "পরিদর্শক"),
    _c("registration", "নিবন্ধন|রেজিস্ট্রেশন|রেজিস্ট্রি|registration|register|nibondhon|license|লাইসেন্স", "রেজিস্ট্রিকরণ লাইসেন্স"),
    _c("shops", "দোকান|শপিং|বিপণি|dokan|shop|mall", "দোকান বাণিজ্যিক প্রতিষ্ঠান বন্ধ"),
    _c("lifting_machinery", "ক্রেন|লিফট|লিফ্ট|হয়েস্ট|বয়লার|crane|lift|hoist|boiler", "ক্রেন উত্তোলন যন্ত্রপাতি হয়েস্ট লিফ্‌ট"),
    _c("age", "বয়স|age|boyos|boyosh", "বয়স সক্ষমতা প্রত্যয়নপত্র"),
    _c("transfer", "ট্রান্সফার|বদলী করা|বদলি করে|transfer", "বদলী"),
    _c("definition_terms", "সংজ্ঞা|definition|define|meaning", "সংজ্ঞা", generic=True),
)

# Question-type cue words, checked on the normalised question (Bangla substrings; Latin at a
# word start). The order of checks is in :func:`_question_type`.
TYPE_CUES: dict[QuestionType, tuple[str, ...]] = {
    QuestionType.DEFINITIONAL: (
        "অর্থ কী", "অর্থ কি", "মানে কী", "মানে কি", "কাকে বলে", "কাহাকে বলে", "কাকে বোঝায়", "বলতে কী",
        "বলতে কি", "বলিতে কী", "সংজ্ঞা", "কে বলা হয়", "কী বোঝায়", "কি বোঝায়", "বোঝানো হয়", "বলে গণ্য",
        "আইনে কী বলে", "কে বলে", "মধ্যে পড়ে", "ধরা হবে", "ধরে নেওয়া হয়", "হিসেবে গণ্য",
        "definition", "define", "meaning of", "what is meant", "what does the term", "who is a", "what is a ",
        "mane ki", "ortho ki", "kake bole", "bolte ki",
    ),
    QuestionType.PROCEDURAL: (
        "কিভাবে", "কীভাবে", "কি ভাবে", "কী ভাবে", "কোন পদ্ধতিতে", "পদ্ধতি", "প্রক্রিয়া", "আবেদন", "দরখাস্ত",
        "করণীয়", "কী করতে হবে", "কি করতে হবে", "কী করবে", "কি করবো", "কী করব", "কোথায়", "ধাপ",
        "আনুষ্ঠানিকতা", "কী কী নিয়ম", "কি করতে পারি", "কী করতে পারি", "কাকে জানাতে", "জানাতে হয়",
        "how to", "how can", "how do", "how does", "how should", "procedure", "process", "apply", "steps",
        "kivabe", "kibhabe", "ki korbo", "ki korte hobe", "ki korte pari",
    ),
    QuestionType.CONDITIONAL: (
        "যদি", "হলে", "হইলে", "গেলে", "করলে", "দিলে", "থাকলে", "পেলে", "না দেয়", "শর্তে", "সাপেক্ষে",
        "কোন অবস্থায়", "কোন ক্ষেত্রে", "কখন প্রযোজ্য", "প্রযোজ্য হবে কি", "সীমাবদ্ধতা",
        "if ", "if,", "in case", "unless", "jodi", "hole ", "korle", "thakle",
    ),
    QuestionType.COMPARATIVE: (
        "পার্থক্য", "তুলনা", "তফাৎ", "তফাত", "বনাম", "ভিন্ন", "আলাদা", "কি একই", "একই কি", "একই নাকি",
        "মধ্যে কোনটি", "কোনটি বেশি", "কোনটা বেশি",
        "difference", "differ", "compare", "comparison", "versus", " vs", "vs.", "between", "same",
        "parthokko", "tulona", "alada", "konta beshi",
    ),
    QuestionType.HYPOTHETICAL: (
        "ধরুন", "ধরা যাক", "ধরে নিই", "ধরি ", "মনে করুন", "কল্পনা করুন", "ধরেন",
        "suppose", "assume", "imagine", "let's say", "let us say", "hypothetical", "dhorun", "dhora jak",
    ),
}
# A described situation followed by "is this lawful?": hypothetical (checked after the explicit
# cue families, so "ধরুন" / "পার্থক্য" / definitions win).
SITUATION_CUES: tuple[str, ...] = (
    "আইনসম্মত", "বৈধ কি", "কি বৈধ", "জায়েজ", "আইনে চলে", "এটা কি ঠিক", "এটা কি সত্যি", "এগুলো কি আইনে",
    "করতে পারে?", "করতে পারবে?", "পারে কি", "eta ki legal", "ki legal", "legal?", "is this legal", "is it legal",
    "can they", "can my employer",
)
# "এবং ... হলে" (two facts joined, then a condition): a multi-hop cue.
_NB = r"(?<![\u0980-\u09ffA-Za-z])"  # word start; \b misreads Bangla vowel signs as non-word
_NA = r"(?![\u0980-\u09ffA-Za-z])"  # word end
_AND_THEN_IF = re.compile(unicodedata.normalize("NFC", rf"{_NB}(?:এবং|আর|and){_NA}.*{_NB}(?:হলে|হইলে|if){_NA}"))

_BN_CHAR = re.compile(r"[\u0980-\u09ff]")
_LATIN_CHAR = re.compile(r"[A-Za-z]")
# Common romanised-Bangla words: their presence in Latin text means romanised Bangla.
_ROMANISED = re.compile(
    r"\b(ki|koto|kobe|kivabe|kibhabe|jodi|hobe|ache|achhe|korte|kora|kore|pabe|pabo|paben|din|mash|"
    r"shromik|sromik|malik|mojuri|beton|chuti|chhuti|chakri|chakuri|dhara|amar|amake|ami|tumi|apni|"
    r"keno|kothay|naki|na|er|theke|jonno|hole|dite|dibe|deya|pay|paay)\b",
    re.IGNORECASE,
)
_COLLOQUIAL = tuple(
    normalize(w)
    for w in (
        "আমি", "আমার", "আমাকে", "আমরা", "পাবো", "পাব ", "পাইবো", "দিবে", "দেবে", "দিচ্ছে", "দেয় না",
        "করবো", "করব", "বস ", "ভাই", "আপা", "কোম্পানি", "অফিস", "ফ্যাক্টরি", "গার্মেন্টস", "চাকরি", "বেতন",
        "কতদিন", "কি করবো", "নাকি", " তো ", "কেন", "হবে কি", "দেয় নাই", "দিচ্ছে না",
    )
)
_COLLOQUIAL_EN = re.compile(r"\b(i|i'm|my|me|boss|company|factory|can't|won't|gonna|pls|plz)\b", re.IGNORECASE)
_FORMAL = tuple(normalize(w) for w in ("শ্রমিক", "মালিক", "প্রাপ্য", "বিধান", "অনুযায়ী", "প্রতিষ্ঠান", "আইন"))
_REPEAT = re.compile(r"(.)\1{3,}")
_SPLIT = re.compile(
    unicodedata.normalize("NFC", rf"\s*(?:\?|？|।|;|{_NB}(?:এবং|আর|and|বনাম|vs\.?|versus){_NA})\s*"), re.IGNORECASE
)
_WORD = re.compile(r"(?:[^\W_]|[\u0981-\u0983\u09bc\u09be-\u09cd\u09d7])+")


_FOLD = str.maketrans({"\u09c0": "\u09bf", "\u09c2": "\u09c1"})  # ী->ি, ূ->ু (spelling variants)


def fold(text: str) -> str:
    """The matching fold of lexical search and of the gate's coverage check: :func:`normalize`, then long
    and short i/u signs compare equal.
    """
    return normalize(text).translate(_FOLD)


def has_trigger(text: str, trigger: str) -> bool:
    """Whether ``trigger`` occurs in ``text`` (already :func:`fold`-ed): a Bangla trigger as a substring (so
    inflections match), a Latin one at a word start (a short one, <= 4 letters, as a whole word).
    """
    t = fold(trigger)
    if not t:
        return False
    if _BN_CHAR.search(t):
        return t in text
    # Latin: match at a word start (suffixes allowed: "retrench" matches "retrenchment"); short
    # triggers must be whole words ("age" is not "agency").
    end = r"(?![a-z])" if len(t) <= 4 else ""
    return re.search(r"(?<![a-z])" + re.escape(t) + end, text) is not None


def match_concepts(question: str) -> list[Concept]:
    """Concepts of :data:`CONCEPTS` whose triggers occur in ``question`` (table order)."""
    text = fold(question)
    return [c for c in CONCEPTS if any(has_trigger(text, t) for t in c.triggers)]


def detect_language(question: str) -> Language:
    """``bn`` (Bangla script), ``en``, ``bn-latn`` (romanised Bangla) or ``mixed``."""
    bn = len(_BN_CHAR.findall(question))
    latin = len(_LATIN_CHAR.findall(question))
    if bn and latin and min(bn, latin) / (bn + latin) > 0.2:
        return "mixed"
    if bn >= latin:
        return "bn"
    words = re.findall(r"[A-Za-z]+", question)
    roman = sum(1 for w in words if _ROMANISED.fullmatch(w))
    return "bn-latn" if words and roman / len(words) >= 0.2 else "en"


def detect_register(question: str, language: Language) -> Register:
    """``noisy`` (romanised, mixed script, repeated characters, no vowel signs ...), ``colloquial``
    (first person, spoken verb forms) or ``formal``.
    """
    text = fold(question)
    words = _WORD.findall(text)
    if language in ("bn-latn", "mixed") or _REPEAT.search(question):
        return "noisy"
    if words and sum(len(w) <= 1 for w in words) / len(words) > 0.4:
        return "noisy"
    colloquial = sum(1 for w in _COLLOQUIAL if w in f" {text} ") + len(_COLLOQUIAL_EN.findall(question))
    formal = sum(1 for w in _FORMAL if w in text)
    return "colloquial" if colloquial > formal or (colloquial and formal <= 1) else "formal"


def _cues(text: str, qtype: QuestionType) -> list[str]:
    return [c for c in TYPE_CUES[qtype] if has_trigger(text, c)]


def _question_type(text: str, sections: list[str], concepts: list[Concept]) -> tuple[QuestionType, list[str]]:
    # Order matters: the most specific cue families first. "ধরুন ... যদি" is hypothetical,
    # "X আর Y এর পার্থক্য" comparative even though it names two concepts.
    for qtype in (QuestionType.COMPARATIVE, QuestionType.HYPOTHETICAL, QuestionType.DEFINITIONAL):
        fired = _cues(text, qtype)
        if fired:
            return qtype, fired
    specific = {c.key for c in concepts if not c.generic}
    if len(sections) >= 2:
        return QuestionType.MULTI_HOP, [f"sections:{','.join(sections)}"]
    if _AND_THEN_IF.search(text):
        return QuestionType.MULTI_HOP, ["এবং ... হলে"]
    # A duty and its penalty live in different chapters (e.g. s.123 and s.289): two hops.
    if "penalty" in specific and len(specific) >= 2:
        return QuestionType.MULTI_HOP, [f"concepts:{','.join(sorted(specific))}"]
    fired = _cues(text, QuestionType.PROCEDURAL)
    if fired:
        return QuestionType.PROCEDURAL, fired
    fired = [c for c in SITUATION_CUES if has_trigger(text, c)]
    if fired:
        return QuestionType.HYPOTHETICAL, fired
    fired = _cues(text, QuestionType.CONDITIONAL)
    if fired:
        return QuestionType.CONDITIONAL, fired
    if len(specific) >= 3:
        return QuestionType.MULTI_HOP, [f"concepts:{','.join(sorted(specific))}"]
    return QuestionType.DIRECT_FACTUAL, []


def _sub_questions(question: str) -> list[str]:
    parts = [p.strip(" ,") for p in _SPLIT.split(question)]
    parts = [p for p in parts if _WORD.search(p)]
    return parts if len(parts) >= 2 else []


# Instruction-like sentences (prompt injection). Matched case-insensitively on one sentence.
INJECTION_CUES: tuple[str, ...] = (
    r"ignore (?:all |any )?(?:the )?(?:previous|prior|above|earlier) (?:instructions?|prompts?|rules?)",
    r"disregard (?:all |the )?(?:previous|prior|above) ",
    r"(?:previous|prior) instructions? (?:are )?(?:cancel+ed|void|revoked)",
    r"#+\s*system\b", r"^\s*system\s*:", r"\byou are now\b", r"\bact as (?:an? )?(?:hr|lawyer|employer|owner)",
    r"\btumi ekhon\b", r"\bapni ekhon\b", r"\btell the worker\b", r"\bpretend (?:to be|you)",
    r"আগের (?:সব )?নির্দেশ(?:না)? (?:উপেক্ষা|বাতিল|ভুলে)", r"তুমি এখন (?:থেকে )?(?:মালিকের|এইচআর|একজন)",
)
_INJECTION = re.compile("|".join(INJECTION_CUES), re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[?？।!\n])\s+|(?<=[a-z'\"”)])\.\s+(?=[A-Za-z#])|(?<=\S)\s*(?=###)")
_ASKS = re.compile(
    unicodedata.normalize("NFC", r"[?？]|কত|কয়|কী|কি\b|কোন|কবে|কখন|কিভাবে|কীভাবে|কেন|নাকি|\b(?:ki|koto|kobe|kivabe|"
                      r"what|how|when|which|can|is|does|do)\b"),
    re.IGNORECASE,
)


_RESTATE = re.compile(unicodedata.normalize("NFC", r"^(?:মানে|অর্থাৎ|i mean|mane|that is)(?=[\s,])"), re.IGNORECASE)


def split_injection(question: str) -> tuple[str, list[str]]:
    """``(question without instruction-like sentences, those sentences)`` (module docstring)."""
    sentences = [x.strip() for x in _SENTENCE.split(question) if x and x.strip()]
    bad = [x for x in sentences if _INJECTION.search(x)]
    if not bad:
        return question, []
    clean = " ".join(x for x in sentences if x not in bad).strip()
    return clean, bad


def question_parts(question: str) -> list[str]:
    """The parts of a question that asks two or more things, each ending in ``?``.

    A part must contain a word and ask something (a question word or mark); a question asking one
    thing gives ``[]``, and a part repeated word for word counts once. Example: ``"ধারা ৪০০ কী বলে?
    নৈমিত্তিক ছুটি কত দিন?"`` -> both halves.
    """
    pieces = [p.strip(" ,-—") for p in re.split(r"(?<=[?？])\s*", question) if p.strip(" ,-—")]
    pieces = [p for p in pieces if len(_WORD.findall(p)) >= 2 and _ASKS.search(p)]
    merged: list[str] = []
    for p in pieces:  # "মানে ..." / "I mean ..." restates the previous part
        if merged and _RESTATE.match(p):
            merged[-1] = f"{merged[-1]} {p}"
        else:
            merged.append(p)
    # The same part pasted twice asks one thing (a 4,000-character paste of one question listed 83 parts).
    pieces = list(dict.fromkeys(merged))
    return pieces if len(pieces) >= 2 else []


def spot_issues(question: str) -> IssueSpotting:
    """Run the rule-based Issue Spotter on one question.

    Args:
        question: the user's question (any script); validated by the caller
            (:class:`~labourcrew.retrieval.pipeline.Retriever` rejects empty/oversized input).

    Returns:
        An :class:`IssueSpotting` record.
    """
    q = " ".join(unicodedata.normalize("NFC", question or "").split())
    clean, injected = split_injection(q)
    body = clean or q
    text = fold(body)
    refs = [r.label for r in find_section_refs(body)]
    concepts = match_concepts(body)
    qtype, cues = _question_type(text, refs, concepts)
    language = detect_language(q)
    subs = _sub_questions(body) if qtype in (QuestionType.COMPARATIVE, QuestionType.MULTI_HOP) else []
    parts = question_parts(body)
    if injected and clean:
        # Retrieval also runs on the question without the instructions.
        subs = list(dict.fromkeys([clean, *subs]))
    if parts:
        subs = list(dict.fromkeys([*subs, *parts]))
    return IssueSpotting(
        question=q,
        question_type=qtype,
        language=language,
        text_register=detect_register(q, language),
        section_labels=refs,
        concepts=[c.key for c in concepts],
        concept_terms=list(dict.fromkeys(c.act_terms for c in concepts)),
        sub_questions=subs,
        cues=cues,
        parts=parts,
        injection=injected,
    )
