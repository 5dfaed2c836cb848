"""O-03's screening rules: secrets, personal information and private markers.

Pure functions over text: they find spans and mask them. A finding carries its kind, category
and line, never the matched value, so nothing secret reaches `.harness/`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

SECRET = "secret"  # noqa: S105 - a category name
PERSONAL = "personal_info"
COMPANY = "company_info"

_PREFECTURE = r"(?:東京都|北海道|(?:京都|大阪)府|[\u4e00-\u9fff]{2,3}県)"


def my_number_check_digit(base: str) -> int:
    """The check digit of a My Number (個人番号) from its first 11 digits."""
    digits = [int(ch) for ch in base]
    # the law's formula: P_n is the n-th digit from the right, Q_n = n + 1 (n ≤ 6), n − 5 (7 ≤ n ≤ 11)
    total = sum(digits[11 - n] * (n + 1 if n <= 6 else n - 5) for n in range(1, 12))
    remainder = total % 11
    return 0 if remainder <= 1 else 11 - remainder


def corporate_number_check_digit(base: str) -> int:
    """The check digit (the first digit) of a corporate number (法人番号) from its last 12 digits."""
    digits = [int(ch) for ch in base]
    total = sum(digits[12 - n] * (1 if n % 2 else 2) for n in range(1, 13))
    return 9 - total % 9


def _digits(match: re.Match[str]) -> str:
    return "".join(str(int(ch)) for ch in match.group(0) if ch.isdigit())


def _near(text: str, start: int, end: int, keywords: re.Pattern[str]) -> bool:
    """A label such as 個人番号 on the same line, shortly before or right after the number."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    before = text[max(line_start, start - 30) : start]
    after = text[end : min(end + 12, len(text) if line_end < 0 else line_end)]
    return keywords.search(before) is not None or keywords.search(after) is not None


_MY_NUMBER_LABEL = re.compile(r"個人番号|マイナンバー|my\s?number|individual\s+number", re.I)
_CORPORATE_LABEL = re.compile(r"法人番号|会社法人等番号|corporate\s+number", re.I)


def _is_my_number(text: str, match: re.Match[str]) -> bool:
    digits = _digits(match)
    return (
        len(digits) == 12
        and int(digits[11]) == my_number_check_digit(digits[:11])
        and _near(text, match.start(), match.end(), _MY_NUMBER_LABEL)
    )


def _is_corporate_number(text: str, match: re.Match[str]) -> bool:
    digits = _digits(match)
    return (
        len(digits) == 13
        and int(digits[0]) == corporate_number_check_digit(digits[1:])
        and _near(text, match.start(), match.end(), _CORPORATE_LABEL)
    )


def _looks_secret(value: str) -> bool:
    """A value after a secret label that is not a plain word: letters with digits or symbols."""
    value = value.rstrip(".,;:!?'\")」』”`")
    if len(value) < 8 or "://" in value:
        return False
    letters = any(ch.isalpha() for ch in value)
    digits = any(ch.isdigit() for ch in value)
    symbols = any(ch in "!#$%&*+/=?@^_~" for ch in value)
    return letters and (digits or symbols)


def _random_key(value: str) -> bool:
    # 24 distinct characters also rule out pure hex (a git SHA): hex has only 22 (0-9, a-f, A-F)
    return (
        any(ch.isupper() for ch in value)
        and any(ch.islower() for ch in value)
        and any(ch.isdigit() for ch in value)
        and len(set(value)) >= 24
    )


_SEP = r"[ \-\u2010\u2212\u3000\uff0d]?"
_DASH = r"[\-\u2010\u2212\u30fc\uff0d]"
_NUM = r"[0-9\uff10-\uff19]"
# a street number: 1丁目2番3号, 1-2-3, 2番地 (not a date, a count, a month or 3番目)
_BANCHI = (
    rf"(?!{_NUM}{{4}}[-/]{_NUM}{{1,2}}[-/]{_NUM}{{1,2}})"
    # possessive runs in the loop: a run of digits is never split between two iterations
    # ("-00000" six times over took 5.3 s, each more 17 times longer)
    rf"(?:{_NUM}{{1,4}}(?:丁目|番地|番(?!目)|号(?![機線車]))(?:{_NUM}{{1,4}}+(?:番地|番(?!目)|号(?![機線車]))?|{_DASH}{_NUM}{{1,4}}+)*"
    rf"|{_NUM}{{1,4}}(?:{_DASH}{_NUM}{{1,4}}){{1,2}})"
    rf"(?![0-9\uff10-\uff19\-]|\.\d|[年月日時分秒歳人個回件倍割円%％])"
)
_TOWN = r"[\u3005\u4e00-\u9fff\u30a1-\u30fa\u30fcヶケ]"

Check = Callable[[str, "re.Match[str]"], bool]

# (kind, category, pattern, group to mask: 0 = whole match, extra check of a match or None)
_RULES: list[tuple[str, str, re.Pattern[str], int, Check | None]] = [
    (
        "private_key_block",
        SECRET,
        re.compile(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)",
            re.S,
        ),
        0,
        None,
    ),
    (
        "aws_access_key",
        SECRET,
        re.compile(r"(?<![A-Z0-9])(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}(?![A-Z0-9])"),
        0,
        None,
    ),
    (
        "aws_secret_key",
        SECRET,
        re.compile(r"(?i)aws_?secret_?access_?key\s*[=:]\s*[\"']?([A-Za-z0-9/+=]{40})"),
        1,
        None,
    ),
    ("google_api_key", SECRET, re.compile(r"\bAIza[0-9A-Za-z_\-]{35}(?![0-9A-Za-z_\-])"), 0, None),
    ("openai_api_key", SECRET, re.compile(r"\bsk-(?:proj-|ant-(?:api\d{2}-)?)?[A-Za-z0-9_\-]{20,}"), 0, None),
    ("github_token", SECRET, re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})"), 0, None),
    ("slack_token", SECRET, re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"), 0, None),
    ("stripe_key", SECRET, re.compile(r"\b[sr]k_live_[A-Za-z0-9]{16,}"), 0, None),
    ("bearer_token", SECRET, re.compile(r"(?i)\bbearer\s+([A-Za-z0-9\-._~+/]{16,}=*)"), 1, None),
    ("password_in_url", SECRET, re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s/:@]+:([^\s/@]+)@"), 1, None),
    (
        "secret_assignment",
        SECRET,
        re.compile(
            r"(?i)(?:\b(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|client[_-]?secret)|パスワード)"
            r"\s*(?:[:=：]|は)\s*[\"']?([!#-&(-~]{6,})"
        ),
        1,
        None,
    ),
    (
        # a value written after a label in words: "the secret is …", "my password was …", "トークンは …"
        "secret_after_label",
        SECRET,
        re.compile(
            r"(?i)(?:\b(?:secret(?:[ _-]?(?:access[ _-]?)?key)?|password|passphrase|passwd|token|api[ _-]?key|"
            r"access[ _-]?key|credentials?)\b|パスワード|パスフレーズ|シークレット|トークン|アクセスキー|秘密鍵|APIキー)"
            r"(?:\s+(?:is|was|are|were)\b|\s*(?:[:=：]|は|を))\s*(?:[:：]\s*)?[\"'「『“]?([!#-&(-~]{8,})"
        ),
        1,
        lambda _text, match: _looks_secret(match.group(1)),
    ),
    (
        # an AWS secret access key on its own: 40 characters of base64 with upper and lower case and digits,
        # random enough (a path or a word of that length repeats its letters); pure hex (a git SHA) is not one
        "aws_secret_key",
        SECRET,
        re.compile(r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])"),
        0,
        lambda _text, match: _random_key(match.group(0)),
    ),
    (
        "email_address",
        PERSONAL,
        re.compile(r"(?<![\w.+-])[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}\b"),
        0,
        None,
    ),
    (
        "my_number",
        PERSONAL,
        re.compile(rf"(?<![\d\-.]){_NUM}{{4}}{_SEP}{_NUM}{{4}}{_SEP}{_NUM}{{4}}(?![\d\-]|\.\d)"),
        0,
        _is_my_number,
    ),
    (
        "corporate_number",
        COMPANY,
        re.compile(rf"(?<![\d\-.]){_NUM}{_SEP}{_NUM}{{4}}{_SEP}{_NUM}{{4}}{_SEP}{_NUM}{{4}}(?![\d\-]|\.\d)"),
        0,
        _is_corporate_number,
    ),
    (
        "postal_address_ja",
        PERSONAL,
        re.compile(rf"(?:〒\s?\d{{3}}-?\d{{4}}|\b\d{{3}}-\d{{4}}(?=\s*{_PREFECTURE}))[^\n]{{0,40}}"),
        0,
        None,
    ),
    (
        # a street address: a prefecture, or a city/ward, then the town and a street number
        "street_address_ja",
        PERSONAL,
        re.compile(
            rf"(?:{_PREFECTURE}[\u3041-\u3093{_TOWN[1:-1]}]{{1,20}}?"
            rf"|(?<![\u3005\u4e00-\u9fff])[\u3005\u4e00-\u9fff]{{2,5}}[市区]{_TOWN}{{0,10}}?){_BANCHI}"
        ),
        0,
        None,
    ),
    (
        "postal_address_en",
        PERSONAL,
        re.compile(
            r"\b\d{1,5}\s+(?:[A-Z][a-z]+\s+){1,4}(?:Street|St\.?|Avenue|Ave\.?|Road|Rd\.?|Boulevard|Blvd\.?|Lane|Ln\.?|Drive|Dr\.?)"
            r"(?:,?\s+[A-Z][a-z]+)*,?\s+[A-Z]{2}\s+\d{5}(?:-\d{4})?\b"
        ),
        0,
        None,
    ),
    (
        # the end may be any sentence boundary: `.`, `。`, `、`, `)`, the end of the line — not a digit,
        # a hyphen or a decimal point followed by a digit (a version)
        "phone_ja",
        PERSONAL,
        re.compile(
            r"(?<![\d\-])(?<!\d\.)(?:0\d{1,4}-\d{1,4}-\d{3,4}|0[5789]0-?\d{4}-?\d{4}|\(0\d{1,4}\)\s?\d{1,4}-\d{4})(?![\d\-]|\.\d)"
        ),
        0,
        None,
    ),
    (
        "phone_international",
        PERSONAL,
        re.compile(r"(?<![\w+])\+\d{1,3}[\s\-]?\(?\d{1,4}\)?(?:[\s\-]?\d{2,4}){2,3}(?![\d\-]|\.\d)"),
        0,
        None,
    ),
]

DEFAULT_PRIVATE_MARKERS: tuple[str, ...] = (
    "社外秘",
    "部外秘",
    "機密",
    "極秘",
    "非公開",
    "confidential",
    "do not share",
    "internal only",
    "not for publication",
)
# marker words with a common technical sense (機密情報, 非公開リポジトリ, confidential computing): used
# that way they neither reject nor ask; as a label or next to a private identifier they still reject
DEFAULT_TECHNICAL_SENSE_MARKERS: tuple[str, ...] = ("機密", "非公開", "confidential")
DEFAULT_REVIEW_MARKERS: tuple[str, ...] = (
    "社内",
    "顧客",
    "取引先",
    "議事録",
    "上司",
    "同僚",
    "弊社",
    "当社",
    "our customer",
    "our client",
    "my boss",
    "my coworker",
    "meeting notes",
    "internal memo",
)
_PRIVATE_TAG = re.compile(r"(?<![\w/#])#private\b", re.I)


@dataclass(frozen=True, slots=True)
class Finding:
    kind: str
    category: str
    line: int
    start: int
    end: int

    def public(self) -> dict[str, Any]:
        """What may be stored: kind, category, line, length — never the value."""
        return {"kind": self.kind, "category": self.category, "line": self.line, "length": self.end - self.start}


def find_sensitive(text: str) -> list[Finding]:
    """Secrets and personal information, non-overlapping, earlier and longer spans first."""
    candidates: list[Finding] = []
    for kind, category, pattern, group, check in _RULES:
        for match in pattern.finditer(text):
            if check is not None and not check(text, match):
                continue
            start, end = match.span(group)
            if end <= start:
                continue
            line = text.count("\n", 0, start) + 1
            candidates.append(Finding(kind, category, line, start, end))
    candidates.sort(key=lambda f: (f.start, f.category != SECRET, -(f.end - f.start)))
    chosen: list[Finding] = []
    last_end = -1
    for finding in candidates:
        if finding.start >= last_end:
            chosen.append(finding)
            last_end = finding.end
    return chosen


def mask(text: str, findings: Iterable[Finding]) -> str:
    out: list[str] = []
    pos = 0
    for finding in sorted(findings, key=lambda f: f.start):
        out.append(text[pos : finding.start])
        out.append(f"[MASKED:{finding.kind}]")
        pos = finding.end
    out.append(text[pos:])
    return "".join(out)


def mask_sensitive(text: str) -> tuple[str, list[Finding]]:
    """Mask secrets, personal and company information: what is stored of a request, an answer or an
    instruction before anything else looks at it (capture, answers, decisions)."""
    findings = find_sensitive(text)
    return mask(text, findings), findings


def _contains(text: str, word: str) -> bool:
    if re.fullmatch(r"[A-Za-z][A-Za-z ]*", word):
        return re.search(rf"(?<![A-Za-z]){re.escape(word)}(?![A-Za-z])", text, re.I) is not None
    return word.lower() in text.lower()


def private_markers(text: str, properties: Mapping[str, Any] | None, words: Iterable[str]) -> list[str]:
    """Private markers: `private: true`, a `private` tag or `#private`, configured words."""
    found: list[str] = []
    props = properties or {}
    if props.get("private") is True or str(props.get("private", "")).lower() == "true":
        found.append("property:private")
    tags = props.get("tags")
    tag_list = tags if isinstance(tags, list) else (str(tags).replace(",", " ").split() if tags else [])
    if any(str(t).strip().lstrip("#").lower() == "private" for t in tag_list):
        found.append("tag:private")
    if _PRIVATE_TAG.search(text):
        found.append("tag:#private")
    for word in words:
        if word and _contains(text, word):
            found.append(f"word:{word}")
    return found


def review_markers(text: str, words: Iterable[str]) -> list[str]:
    return [f"word:{w}" for w in words if w and _contains(text, w)]


# -- clearly private, or a marker word used in its technical sense -----------------------------------------
_OPEN = "【[（(〔《<［"
_CLOSE = "】]）)〕》>］"
_LINE_LABEL_BEFORE = re.compile(r"^\s*(?:[#>*+\-]+\s*)?(?:\*\*|__)?\s*$")
_LINE_LABEL_AFTER = re.compile(r"^\s*(?:\*\*|__)?\s*(?:[:：|｜/／\-–—]|$|(?:区分|指定|扱い)\s*(?:[:：]|$))")
_STATEMENT_BEFORE_JA = re.compile(
    r"(?:この|本|当|以下の|下記の)(?:文書|資料|内容|メモ|ノート|ページ|情報|メール|依頼|件|話|記録|スライド|ファイル)(?:は|も)\s*$"
)
_STATEMENT_AFTER_JA = re.compile(r"^\s*(?:です|だ|である|につき|のため|なので|扱い|事項|区分|指定|。|$)")
# a marker without a technical sense labels what follows: 社外秘につき, 極秘扱いの人事異動案
_LABEL_AFTER_STRONG = re.compile(r"^\s*(?:です|である|につき|のため|なので|扱い|事項|指定|情報につき)")
_STATEMENT_EN = re.compile(
    r"(?i)\b(?:(?:this|the following|these)\s+(?:document|note|memo|page|e-?mail|message|request|information|material|file|"
    r"slides?|notes|deck|report)s?\s+(?:is|are)\s+(?:strictly\s+|highly\s+|company\s+)?|marked\s+(?:as\s+)?|classified\s+as\s+)$"
)
_SHOUTED = re.compile(r"\b(?:CONFIDENTIAL|INTERNAL ONLY|DO NOT SHARE|NOT FOR PUBLICATION|STRICTLY PRIVATE)\b")
_DO_NOT_SHARE = re.compile(r"(?i)\b(?:please\s+)?do\s+not\s+share\s+(?:this|it|outside|externally|with|beyond)\b")
# what a marker word qualifies when it speaks of one particular thing of the person's organisation
_OWN_THING_JA = re.compile(
    r"^\s*(?:の|な)?\s*(?:新製品|製品計画|設計資料|設計書|設計|資料|文書|計画|案件|プロジェクト|議事録|仕様書|仕様|数値|数字|売上|"
    r"ロードマップ|戦略|契約|価格|顧客|人事|会議|打ち合わせ|メモ|報告書|予算|施策|企画)"
)
_OWN_THING_EN = re.compile(
    r"(?i)^\s+(?:project|roadmap|memo|plan|report|deal|contract|customer|numbers|figures|document|slides|deck|"
    r"strategy|budget|pricing|meeting|minutes|design doc|launch|acquisition|merger)s?\b"
)
_TICKET_EXCLUDED = (
    "CVE|RFC|ISO|IEC|UTF|SHA|JIS|PEP|GHSA|ES|IEEE|AES|RSA|TLS|HTTP|ECMA|FIPS|NIST|SP|WCAG|GPT|ARM|MD|PKCS|OWASP|CWE|"
    "CAPEC|SOC|ASVS|KB|MS|AVX|DDR|USB|PCI|CP|EN|IPV|TCP|UDP|JSR|KEP|NEP|PSR|SEP|WG|X|H|A|B|C|D|E|F|G|V"
)
_CONTEXT: list[tuple[str, re.Pattern[str]]] = [
    (
        "company_name",
        re.compile(
            r"(?:株式会社|有限会社|合同会社|㈱|\(株\)|（株）)\s?[^\s、。,.]{1,20}|[^\s、。,.]{1,20}(?:株式会社|御中)"
        ),
    ),
    (
        "person_name",
        re.compile(r"(?<![\u4e00-\u9fff])[\u4e00-\u9fff]{2,4}(?<![者客員方皆各])(?:さん|様|氏|部長|課長|社長)"),
    ),
    (
        "project_name",
        re.compile(
            r"(?:プロジェクト|案件|コードネーム)[:：\s「『]*[A-Z][A-Za-z0-9\-]+|\b[Pp]roject\s+[A-Z][a-z]+[A-Za-z0-9]*|(?i:\bcode\s*name\b)"
        ),
    ),
    (
        "internal_host",
        re.compile(
            r"(?i)\b[a-z0-9][a-z0-9\-]*(?:\.[a-z0-9\-]+)*\.(?:corp|intra|intranet|internal|lan)\b(?<!docker\.internal)"
            r"|\bintranet\b|イントラ(?:ネット)?|社内(?:wiki|ポータル|サーバ|システム名)"
        ),
    ),
    (
        "internal_id",
        re.compile(
            rf"\b(?!(?:{_TICKET_EXCLUDED})-)[A-Z][A-Z0-9]{{1,9}}-\d{{2,6}}\b"
            r"|(?:社員|従業員|顧客|契約|案件|注文|受注|発注|稟議|見積|請求|管理)(?:番号|ID|コード)\s*[:：は]?\s*[A-Za-z0-9\-]{3,}"
        ),
    ),
    (
        "private_address",
        re.compile(r"\b(?:10(?:\.\d{1,3}){3}|192\.168(?:\.\d{1,3}){2}|172\.(?:1[6-9]|2\d|3[01])(?:\.\d{1,3}){2})\b"),
    ),
    (
        "amount",
        re.compile(
            r"\d[\d,，]*(?:\.\d+)?\s?(?:万|億|千)?円|[$¥€£]\s?\d[\d,]*(?:\.\d+)?\s?(?:[kKmM]|million|billion)?\b"
        ),
    ),
]
# one person's private matters: a particular person (named, or the requester's boss, family, friend …)
_PERSON_JA = (
    r"(?:(?<![\u4e00-\u9fff])[\u4e00-\u9fff]{2,4}(?<![者客員方皆各])(?:さん|様|氏|くん|君|ちゃん|部長|課長|社長)"
    r"|(?:私の|自分の|うちの|僕の|俺の)?(?:上司|同僚|部下|先輩|後輩|妻|夫|息子|娘|母|父|祖母|祖父|友人|知人|彼女|彼氏|義母|義父|兄|姉|弟|妹))"
)
_ATTRIBUTE_JA = (
    r"(?:給与|給料|年収|賞与|ボーナス|人事評価|査定|評価面談|健康診断|病歴|病名|通院|診断結果|診断|持病|妊娠|離婚|借金|住所|自宅|"
    r"電話番号|携帯番号|連絡先|成績|懲戒|退職理由|家族構成|マイナンバー|口座番号|口座|クレジットカード|本名|生年月日|治療|入院|勤怠|失業)"
)
_PERSON_DATA_JA = re.compile(rf"{_PERSON_JA}の[^\n。]{{0,10}}?{_ATTRIBUTE_JA}")
_PERSON_DATA_EN = re.compile(
    r"(?i)\b(?:(?:my|our)\s+(?:boss|manager|coworker|co-worker|colleague|wife|husband|son|daughter|mother|father|mom|dad|friend|"
    r"neighbou?r|tenant|employee)|[A-Z][a-z]+\s+[A-Z][a-z]+)'s\s+(?:[a-z\-]+\s+){0,2}"
    r"(?:salary|pay|medical|diagnosis|health|home\s+address|address|performance\s+review|review\s+score|phone\s+number|"
    r"divorce|debt|date\s+of\s+birth|bank\s+account|credit\s+card|grades|disciplinary|treatment|pregnancy)"
)
_CONTEXT_WINDOW = 60


def _marker_spans(text: str, word: str) -> list[tuple[int, int]]:
    if re.fullmatch(r"[A-Za-z][A-Za-z ]*", word):
        pattern = re.compile(rf"(?<![A-Za-z]){re.escape(word)}(?![A-Za-z])", re.I)
    else:
        pattern = re.compile(re.escape(word), re.I)
    return [m.span() for m in pattern.finditer(text)]


def _is_label(text: str, start: int, end: int, *, strong: bool) -> bool:
    """The marker classifies the text itself: 【社外秘】, `CONFIDENTIAL:` on its own line, この資料は社外秘です."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    before, after = text[line_start:start], text[end:line_end]
    before_s, after_s = before.rstrip(" \u3000*_"), after.lstrip(" \u3000*_")
    if before_s[-1:] and before_s[-1] in _OPEN and after_s[:1] and after_s[0] in _CLOSE:
        return True
    if _LINE_LABEL_BEFORE.match(before) and _LINE_LABEL_AFTER.match(after):
        return True
    if _STATEMENT_BEFORE_JA.search(before) and _STATEMENT_AFTER_JA.match(after):
        return True
    if _STATEMENT_EN.search(before) or _DO_NOT_SHARE.match(text, start):
        return True
    if strong and _LABEL_AFTER_STRONG.match(after):
        return True
    return _SHOUTED.fullmatch(text[start:end]) is not None


def _context_kinds(text: str, start: int, end: int) -> list[str]:
    """Kinds of private identifiers close to a marker word (the same line, within a short window)."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    window = text[max(line_start, start - _CONTEXT_WINDOW) : min(line_end, end + _CONTEXT_WINDOW)]
    kinds = [kind for kind, pattern in _CONTEXT if pattern.search(window)]
    kinds += sorted({f.kind for f in find_sensitive(window) if f.category != SECRET})
    return kinds


@dataclass(frozen=True, slots=True)
class PrivateReading:
    """How the private markers of a text read: clearly private, to ask about, or technical words."""

    private: list[str]  # property:private, label:社外秘, context:機密+company_name, person_data
    ask: list[str]  # marker words that speak of one particular thing (社外秘の設計資料)
    technical: list[str]  # marker words in their technical sense (機密情報, confidential computing)


def read_private(
    text: str,
    properties: Mapping[str, Any] | None,
    words: Iterable[str],
    technical_words: Iterable[str] = DEFAULT_TECHNICAL_SENSE_MARKERS,
) -> PrivateReading:
    """Clearly private: the note's own private flag or tag, a marker word used as a label of the text,
    a marker word next to a private identifier (a company or person name, a project code name, an
    internal host or id, a private address, an amount), or one person's private matters. A marker word
    otherwise asks — unless it is one with a technical sense used that way, which passes."""
    private = [m for m in private_markers(text, properties, ()) if not m.startswith("word:")]
    ask: list[str] = []
    technical: list[str] = []
    soft = {w.lower() for w in technical_words}
    for word in words:
        if not word:
            continue
        spans = _marker_spans(text, word)
        if not spans:
            continue
        verdict = "technical" if word.lower() in soft else "ask"
        for start, end in spans:
            if _is_label(text, start, end, strong=word.lower() not in soft):
                private.append(f"label:{word}")
                verdict = "private"
                break
            kinds = _context_kinds(text, start, end)
            if kinds:
                private.append(f"context:{word}+{'+'.join(kinds)}")
                verdict = "private"
                break
            own = _OWN_THING_JA.match(text[end:]) or _OWN_THING_EN.match(text[end:])
            if own and verdict == "technical":
                verdict = "ask"
        if verdict == "ask":
            ask.append(f"word:{word}")
        elif verdict == "technical":
            technical.append(f"word:{word}")
    if _PERSON_DATA_JA.search(text) or _PERSON_DATA_EN.search(text):
        private.append("person_data")
    else:
        for finding in find_sensitive(text):
            if finding.category == PERSONAL:
                line = text.split("\n")[finding.line - 1]
                if re.search(_PERSON_JA, line):
                    private.append("person_data")
                    break
    return PrivateReading(sorted(set(private)), ask, technical)


@dataclass(frozen=True, slots=True)
class Screening:
    decision: str  # clean | masked | private | undecidable
    masked_text: str
    findings: list[Finding]
    private: list[str]
    review: list[str]
    masked_ratio: float
    technical: list[str] = field(default_factory=list)


def screen(
    text: str,
    properties: Mapping[str, Any] | None = None,
    *,
    private_words: Iterable[str] = DEFAULT_PRIVATE_MARKERS,
    review_words: Iterable[str] = DEFAULT_REVIEW_MARKERS,
    technical_words: Iterable[str] = DEFAULT_TECHNICAL_SENSE_MARKERS,
    max_masked_ratio: float = 0.5,
    prior_findings: int = 0,
) -> Screening:
    """Decide: clearly private → private; a question remains (review words, a marker word that speaks of
    one particular thing, mostly masked text) → undecidable; masking suffices → masked; else clean."""
    findings = find_sensitive(text)
    masked = mask(text, findings)
    reading = read_private(text, properties, private_words, technical_words)
    review = review_markers(text, review_words) + reading.ask
    masked_chars = sum(f.end - f.start for f in findings)
    ratio = masked_chars / max(1, len(text.strip()))
    remaining = re.sub(r"\[MASKED:[a-z_]+\]", "", masked)
    meaningful = len(re.sub(r"[\s\W_]", "", remaining))
    if reading.private:
        decision = "private"
    elif review or ratio > max_masked_ratio or (findings and meaningful < 8):
        decision = "undecidable"
    elif findings or prior_findings:
        decision = "masked"
    else:
        decision = "clean"
    return Screening(decision, masked, findings, reading.private, review, round(ratio, 4), reading.technical)
