"""O-03 screening rules: a table of positive and negative examples in Japanese and English."""

from __future__ import annotations

import pytest

from knowledge_harness.pipeline.safety import find_sensitive, mask, private_markers, screen

AWS = "AKIA" + "IOSFODNN7EXAMPLE"
OPENAI = "sk-proj-" + "abcdefghijklmnopqrstuvwxyz012345"
GITHUB = "ghp_" + "A" * 36
PRIVATE_KEY = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----"

POSITIVE = [
    ("aws_access_key", f"アクセスキーは {AWS} です"),
    ("aws_access_key", f"my key {AWS} leaked"),
    ("openai_api_key", f"OPENAI_API_KEY={OPENAI}"),
    ("github_token", f"token: {GITHUB}"),
    ("private_key_block", f"鍵:\n{PRIVATE_KEY}\n"),
    ("bearer_token", "Authorization: Bearer abcdefghijklmnop1234567890"),
    ("password_in_url", "接続先 postgres://admin:hunter2pass@db.example.com/app"),
    ("secret_assignment", "password = S3cretPassw0rd"),
    ("secret_assignment", "パスワードは Zk29xLq7 です"),
    ("email_address", "連絡先は taro.yamada@example.co.jp まで"),
    ("email_address", "mail me at jane.doe+test@example.org"),
    ("phone_ja", "電話 03-1234-5678 にお願いします"),
    ("phone_ja", "携帯は090-1234-5678です"),
    ("phone_ja", "TEL.03-1234-5678 FAX.03-1234-5679"),
    ("phone_ja", "… or 090-1234-5678."),
    ("phone_international", "Call +1 415 555 0132 today"),
    ("phone_international", "国際電話 +81-3-1234-5678"),
    ("postal_address_ja", "住所は〒100-0001 東京都千代田区千代田1-1です"),
    ("postal_address_ja", "150-0002 東京都渋谷区渋谷2-21-1"),
    ("postal_address_en", "Ship to 1600 Pennsylvania Avenue, Washington, DC 20500 please"),
]

NEGATIVE = [
    "Python 3.11.4 と 3.12 の違いを知りたい",
    "バージョン 2024-01-15 のリリースノート",
    "IPアドレス 192.168.0.1 の設定方法",
    "AKIA で始まる文字列の形式について（例は載せない）",
    "Use the Bearer scheme in the Authorization header",
    "The password field must be hashed with bcrypt",
    "https://docs.python.org/3/library/re.html を参照",
    "@decorator の使い方と email の検証方法",
    "sk-learn のインストール手順",
    "ISBN 978-4-87311-778-2 の本",
    "version 1.03-1234-5678 の差分",
    "郵便番号の形式 (3桁-4桁) を検証する正規表現",
    "SHA-256 の値 e3b0c44298fc1c149afbf4c8996fb924",
]


@pytest.mark.parametrize(("kind", "text"), POSITIVE)
def test_detects_secrets_and_personal_information(kind: str, text: str) -> None:
    kinds = [f.kind for f in find_sensitive(text)]
    assert kind in kinds, (text, kinds)
    masked = mask(text, find_sensitive(text))
    assert f"[MASKED:{kind}]" in masked


@pytest.mark.parametrize("text", NEGATIVE)
def test_leaves_ordinary_technical_text_alone(text: str) -> None:
    assert find_sensitive(text) == [], text


@pytest.mark.parametrize(
    ("text", "props", "expected"),
    [
        ("社外秘の設計について", {}, "undecidable"),  # a marker word that is not a label: asked
        ("【社外秘】設計について", {}, "private"),
        ("機密情報をgitに入れない方法", {}, "clean"),
        ("This is CONFIDENTIAL material", {}, "private"),
        ("タグ付き #private のメモ", {}, "private"),
        ("普通の質問", {"private": True}, "private"),
        ("普通の質問", {"tags": ["private", "x"]}, "private"),
        ("社内の議事録をもとに記事を書きたい", {}, "undecidable"),
        ("Our customer asked about retries", {}, "undecidable"),
        (f"{AWS}", {}, "undecidable"),  # nothing but a secret: nothing left to ask about
        (f"{AWS} を誤って公開した場合の対処手順を知りたい", {}, "masked"),
        ("連絡先 taro@example.jp を載せたまま Obsidian の同期方法を知りたい", {}, "masked"),
        ("Obsidian のプロパティは YAML 1.2 として読まれるのか", {}, "clean"),
        ("How does BM25 rank short titles?", {}, "clean"),
        ("#privateer というタグの話", {}, "clean"),
    ],
)
def test_screen_decisions(text: str, props: dict[str, object], expected: str) -> None:
    assert screen(text, props).decision == expected


def test_configurable_private_words() -> None:
    assert private_markers("プロジェクト黒猫の件", {}, ["黒猫"]) == ["word:黒猫"]
    assert private_markers("the internal API", {}, ["internal only"]) == []
