"""Personal and company data (issue 18, item 2): My Number, corporate numbers, Japanese street
addresses, phone numbers at any sentence boundary — in requests, answers and drafts; capture keeps
only the masked copy.

Property tests: each detector fires on generated positives and stays quiet on look-alikes (dates,
versions, ISBNs, order numbers, numbers whose check digit is wrong or that carry no label)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from knowledge_harness.errors import InputError
from knowledge_harness.pipeline.contract import State
from knowledge_harness.pipeline.draft_checks import check_draft
from knowledge_harness.pipeline.engine import Pipeline
from knowledge_harness.pipeline.safety import (
    corporate_number_check_digit,
    find_sensitive,
    mask,
    my_number_check_digit,
)
from knowledge_harness.vault.paths import Vault
from tests.support.examples import examples

from ..support.part2_support import make_blog, make_vault, pipeline, plan_asking, task_of, to_judged
from ..support.people import PERSON
from ..support.pipeline_helpers import harness_text, request_note, write_note

FAST = settings(max_examples=examples(0.6), deadline=None)


def _law_my_number_check(base: str) -> int:
    """個人番号の検査用数字 as the ordinance writes it (written here, not taken from the product):
    11 − (Σ P_n × Q_n mod 11), 0 when the remainder is 0 or 1; P_n is the n-th of the 11 digits counted
    from the right, Q_n = n + 1 for 1 ≤ n ≤ 6 and n − 5 for 7 ≤ n ≤ 11."""
    p = [int(ch) for ch in reversed(base)]
    q = [2, 3, 4, 5, 6, 7, 2, 3, 4, 5, 6]
    remainder = sum(pn * qn for pn, qn in zip(p, q, strict=True)) % 11
    return 0 if remainder <= 1 else 11 - remainder


def _law_corporate_check(base: str) -> int:
    """法人番号の検査用数字: 9 − (Σ P_n × Q_n mod 9); P_n from the right of the 12 digits, Q_n 1 (odd n) / 2 (even n)."""
    p = [int(ch) for ch in reversed(base)]
    return 9 - sum(pn * (1 if n % 2 else 2) for n, pn in enumerate(p, start=1)) % 9


def my_number(base: str) -> str:
    return base + str(_law_my_number_check(base))


def corporate_number(base: str) -> str:
    return str(_law_corporate_check(base)) + base


# computed by hand from the law's formula (P_n from the right; Q = 2,3,4,5,6,7,2,3,4,5,6):
# 12345678901 → 1·2+0·3+9·4+8·5+7·6+6·7+5·2+4·3+3·4+2·5+1·6 = 212, 212 mod 11 = 3, 11 − 3 = 8
MN1 = "123456789018"
# 98765432109 → 18+0+4+10+18+28+10+18+28+40+54 = 228, 228 mod 11 = 8, 11 − 8 = 3
MN2 = "987654321093"
# 11111111111 → 2+3+4+5+6+7+2+3+4+5+6 = 47, 47 mod 11 = 3 → 8; 10000000000 → 1·Q_11 = 6 → 11 − 6 = 5
MN3, MN4 = "111111111118", "100000000005"
# what the old Q_n = n − 6 accepted: 12345678901 with 1 (sum 197, 197 mod 11 = 10, 11 − 10 = 1) — invalid
MN_OLD_RULE = "123456789011"
CN = "7000012050002"  # the National Tax Agency's published number: 2+5+2+1·2 = 11, 11 mod 9 = 2, 9 − 2 = 7
EXAMPLE = f"マイナンバーは {MN1[:4]} {MN1[4:8]} {MN1[8:]}（個人番号 {MN2}）"
PHONE_AT_END = "Call me at 03-1234-5678 or 090-1234-5678."


def kinds(text: str) -> list[str]:
    return [f.kind for f in find_sensitive(text)]


def test_check_digits_follow_the_law_on_numbers_computed_by_hand() -> None:
    for number in (MN1, MN2, MN3, MN4):
        assert my_number_check_digit(number[:11]) == int(number[11]), number
        assert kinds(f"マイナンバー {number}") == ["my_number"], number
    assert kinds(f"マイナンバー {MN1[:4]} {MN1[4:8]} {MN1[8:]}") == ["my_number"]
    assert kinds(f"マイナンバー {MN_OLD_RULE}") == []
    assert corporate_number_check_digit(CN[1:]) == int(CN[0])


def test_the_issue_examples_are_masked() -> None:
    assert kinds(EXAMPLE) == ["my_number", "my_number"]
    assert mask(EXAMPLE, find_sensitive(EXAMPLE)) == "マイナンバーは [MASKED:my_number]（個人番号 [MASKED:my_number]）"
    assert kinds(PHONE_AT_END) == ["phone_ja", "phone_ja"]
    assert mask(PHONE_AT_END, find_sensitive(PHONE_AT_END)).endswith("or [MASKED:phone_ja].")
    assert kinds(f"法人番号: {CN}") == ["corporate_number"]
    assert {f.category for f in find_sensitive(f"法人番号: {CN}")} == {"company_info"}


digit_strings = st.text(alphabet="0123456789", min_size=11, max_size=11)
separators = st.sampled_from(["", " ", "-", "　"])
my_number_labels = st.sampled_from(["マイナンバーは", "個人番号：", "My Number:", "私の個人番号は"])


@FAST
@given(base=digit_strings, sep=separators, label=my_number_labels, end=st.sampled_from(["", "。", ".", "）", "、です"]))
def test_my_number_with_a_label_is_found(base: str, sep: str, label: str, end: str) -> None:
    number = my_number(base)
    text = f"{label} {number[:4]}{sep}{number[4:8]}{sep}{number[8:]}{end}"
    assert "my_number" in kinds(text), text
    assert number[4:8] not in mask(text, find_sensitive(text)).replace(label, "")


@FAST
@given(base=digit_strings, label=my_number_labels, wrong=st.integers(1, 9))
def test_my_number_with_a_wrong_check_digit_is_not_a_my_number(base: str, label: str, wrong: int) -> None:
    bad = base + str((_law_my_number_check(base) + wrong) % 10)
    assert "my_number" not in kinds(f"{label} {bad}")


@FAST
@given(base=digit_strings, label=st.sampled_from(["注文番号", "Order #", "伝票番号", "問い合わせ番号", ""]))
def test_order_numbers_are_not_my_numbers(base: str, label: str) -> None:
    assert "my_number" not in kinds(f"{label} {my_number(base)} の配送状況")


@FAST
@given(base=st.text(alphabet="0123456789", min_size=12, max_size=12), sep=st.sampled_from(["", "-", " "]))
def test_corporate_number_with_a_label_is_company_information(base: str, sep: str) -> None:
    number = corporate_number(base)
    text = f"取引先の法人番号は {number[0]}{sep}{number[1:5]}{sep}{number[5:9]}{sep}{number[9:]} です"
    found = [f for f in find_sensitive(text) if f.kind == "corporate_number"]
    assert found and found[0].category == "company_info", text


@FAST
@given(base=st.text(alphabet="0123456789", min_size=12, max_size=12))
def test_isbn_13_and_unlabelled_13_digits_are_not_corporate_numbers(base: str) -> None:
    isbn = "978" + base[:10]
    assert kinds(f"ISBN {isbn[:3]}-{isbn[3]}-{isbn[4:9]}-{isbn[9:12]}-{isbn[12]} の本") == []
    assert "corporate_number" not in kinds(f"ISBN {corporate_number(base)}")


towns = st.sampled_from(
    [
        "東京都千代田区千代田",
        "大阪府大阪市北区梅田",
        "横浜市中区山下町",
        "京都市左京区吉田本町",
        "北海道札幌市中央区北一条西",
    ]
)
street_numbers = st.sampled_from(["1-1", "3丁目1番1号", "2-3-4", "36番地", "１－２－３", "5丁目6-7"])


@FAST
@given(town=towns, number=street_numbers, end=st.sampled_from(["", "です", "。", ".", "に住んでいます"]))
def test_japanese_street_addresses_are_found(town: str, number: str, end: str) -> None:
    text = f"住所は{town}{number}{end}"
    assert "street_address_ja" in kinds(text), text
    assert number not in mask(text, find_sensitive(text))


@FAST
@given(
    year=st.integers(1990, 2035),
    month=st.integers(1, 12),
    day=st.integers(1, 28),
    major=st.integers(0, 20),
    minor=st.integers(0, 40),
    place=st.sampled_from(["東京都", "大阪府", "千葉県", "横浜市", "北海道"]),
)
def test_dates_versions_and_counts_are_not_addresses_or_phones(
    year: int, month: int, day: int, major: int, minor: int, place: str
) -> None:
    for text in (
        f"{place}で{year}-{month:02d}-{day:02d}に開かれた勉強会",
        f"{place}の{month}-{day}月の天気",
        f"{place}で{minor % 9 + 1}番目に大きい",
        f"{place}の人口は{minor + 100}万人",
        f"{place}の Python {major}.{minor}-{day} の話",
        f"version 0{major}-{minor}.{day}.{month} of the tool",
        f"{year}-{month:02d}-{day:02d}",
    ):
        assert kinds(text) == [], text


@FAST
@given(
    prefix=st.sampled_from(["03", "06", "045", "090", "080", "0120"]),
    mid=st.integers(100, 9999),
    last=st.integers(1000, 9999),
    end=st.sampled_from([".", "。", "、", ")", "）", "", "\n次の行", " or email"]),
)
def test_phone_numbers_at_any_sentence_boundary(prefix: str, mid: int, last: int, end: str) -> None:
    text = f"連絡先は {prefix}-{mid}-{last}{end}"
    assert "phone_ja" in kinds(text), text


@FAST
@given(major=st.integers(0, 9), minor=st.integers(0, 99), patch=st.integers(0, 99))
def test_version_like_numbers_are_not_phones(major: int, minor: int, patch: int) -> None:
    assert kinds(f"v0{major}-{minor}-{patch:03d}.{minor} を使う") == []
    assert kinds(f"ISBN 978-4-{minor:02d}-{patch:05d}-{major}") == []


def test_capture_keeps_only_the_masked_copy_and_a_rejected_run_none(tmp_path: Path) -> None:
    vault = tmp_path / "v"
    (vault / ".harness").mkdir(parents=True)
    body = f"{EXAMPLE}\n{PHONE_AT_END}\n住所は大阪府大阪市北区梅田3丁目1番1号。法人番号 {CN} の会社に勤めています。"
    write_note(vault, "Requests/a.md", request_note(body, title="電話 090-1111-2222 の件"))
    write_note(vault, "Requests/b.md", request_note(body, publishable="false", title="公開しない依頼"))
    p = Pipeline(Vault.open(vault))
    kept = p.capture_note("Requests/a.md")
    rejected = p.capture_note("Requests/b.md")
    assert kept.state == State.CAPTURED and rejected.state == State.REJECTED
    stored = harness_text(vault)
    for value in (f"{MN1[:4]} {MN1[4:8]}", f"{MN1[4:8]} {MN1[8:]}", MN2, "1234-5678", "梅田3丁目", CN, "1111-2222"):
        assert value not in stored, value
    request = p.artifact(kept.run_id, "request")
    assert request["question_sha256"] and request["note_sha256"]
    assert {f["kind"] for f in request["findings"]} >= {
        "my_number",
        "phone_ja",
        "street_address_ja",
        "corporate_number",
    }
    # O-03 screens the note (the source) and reports what it masked
    p.authorize(kept.run_id, actor=PERSON)
    screened = next(r for r in p.advance(kept.run_id).records if r["operation"] == "O-03")
    assert {"PERSONAL_INFO_MASKED", "COMPANY_INFO_MASKED"} <= set(screened["reason_codes"])
    assert MN2 not in harness_text(vault)


def test_api_capture_masks_personal_data_and_screening_reports_it(tmp_path: Path) -> None:
    vault = tmp_path / "v"
    (vault / ".harness").mkdir(parents=True)
    p = Pipeline(Vault.open(vault))
    run_id = p.capture_text(f"Obsidian の同期について知りたい。{PHONE_AT_END}", publishable=True).run_id
    assert "090-1234-5678" not in harness_text(vault)
    p.authorize(run_id, actor=PERSON)
    screened = next(r for r in p.advance(run_id).records if r["operation"] == "O-03")
    assert "PERSONAL_INFO_MASKED" in screened["reason_codes"]


def test_an_author_answer_is_screened_before_it_is_stored_or_passed_on(tmp_path: Path) -> None:
    vault = make_vault(tmp_path, blog=make_blog(tmp_path))
    p = pipeline(vault)
    run_id = to_judged(p, vault)
    task = task_of(p, "O-07")
    asking = plan_asking(task, "この記事を書こうと思った動機を一文で教えてください。")
    p.submit(task.task_id, asking)
    with pytest.raises(InputError, match="private marker"):
        p.answer(run_id, "Q-01", "社外秘の障害報告をもとに書きたい。", actor=PERSON)
    assert p.status(run_id).waiting_for == "human:Q-01 author_motive" and "社外秘" not in harness_text(vault)
    p.answer(run_id, "Q-01", f"同期が壊れた経験を共有したい。問い合わせは 03-1234-5678 へ。{EXAMPLE}", actor=PERSON)
    task = task_of(p, "O-07")
    assert task.inputs["author_answer"].startswith("同期が壊れた経験を共有したい。問い合わせは [MASKED:phone_ja] へ。")
    stored = harness_text(vault)
    assert "03-1234-5678" not in stored and MN2 not in stored
    history = (vault / ".harness" / "runs" / "pipeline" / run_id / "history.jsonl").read_text(encoding="utf-8")
    answer_event = next(json.loads(line) for line in history.splitlines() if '"answer"' in line)
    assert {m["kind"] for m in answer_event["masked"]} == {"phone_ja", "my_number"}


def test_a_draft_with_personal_or_company_data_is_refused() -> None:
    draft = f"題\n==\n\n本文です。{EXAMPLE}\n\n連絡は 090-1234-5678.\n\n法人番号 {CN} の会社。\n"
    errors = [(f.code, f.line) for f in check_draft(draft).errors]
    assert ("PERSONAL_INFO_IN_DRAFT", 4) in errors
    assert ("PERSONAL_INFO_IN_DRAFT", 6) in errors
    assert ("COMPANY_INFO_IN_DRAFT", 8) in errors
    assert all(MN2 not in f.message for f in check_draft(draft).errors)
