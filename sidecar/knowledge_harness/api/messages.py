"""The REST edge's words for a person: an error's message in the language the request names.

Services raise one English message (errors.py); the CLI and agents read it as it is. A request
that names its language in `Accept-Language` (the Obsidian plugin sends Obsidian's locale) is
answered for a person instead: `message` in Japanese or English, chosen here by the error's
stable code and the detail it carries, with the next step in the words of the plugin's own
commands and buttons rather than CLI flags; `lang` names the language and `message_en` keeps the
service's own message. One text per code (and a few per detail), not one per `raise`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import HarnessError

LANGS = ("ja", "en")

_STAGES = {
    "ja": {"canary": "カナリア", "pilot": "パイロット", "progressive": "段階的"},
    "en": {"canary": "canary", "pilot": "pilot", "progressive": "progressive"},
}

# Per code: (Japanese, English). The English texts are used only for codes whose service message
# names a CLI step; otherwise the service's English message is already the person's.
_BY_CODE: dict[str, tuple[str, str | None]] = {
    "error": ("サイドカーでエラーが起きました。", None),
    "invalid_input": ("入力を受け付けられませんでした。内容を確かめてもう一度試してください。", None),
    "path_rejected": ("パスが保管庫内の通常のノートパスではありません。", None),
    "not_found": ("見つかりませんでした。ノートが移動・削除されていないか確かめてください。", None),
    "index_missing": (
        "この保管庫にはまだ推論インデックスがありません。コマンドパレットの「推論インデックスを再構築」で作ってから、もう一度試してください。",
        "This vault has no reasoning index yet. Run “Rebuild reasoning index” from the command palette, then try again.",
    ),
    "method_not_allowed": (
        "この操作はサイドカーで受け付けられません。プラグインとサイドカーの版が合っているか設定で確かめてください。",
        None,
    ),
    "payload_too_large": ("送った内容が大きすぎます。ノートの数を減らしてください。", None),
    "invalid_request": (
        "要求の形式がサイドカーの期待と違います。プラグインとサイドカーの版が合っているか設定で確かめてください。",
        None,
    ),
    "invalid_note": ("ノートを処理できません（フロントマターの YAML、文字コード、大きさを確かめてください）。", None),
    "evidence_too_large": (
        "このノートが引用するページの本文が多すぎて、一度に判定できません。出典を分けてください。",
        None,
    ),
    "unauthorized": ("サイドカーがトークンを受け付けませんでした。設定からサイドカーを再起動してください。", None),
    "forbidden": ("この操作はこの資格では行えません。", None),
    "person_required": ("この操作は本人だけが行えます。Obsidian のプラグインから操作してください。", None),
    "bad_host": ("サイドカーへの接続先が正しくありません。サイドカーを再起動してください。", None),
    "refused": ("サイドカーがこの操作を断りました。", None),
    "precondition_failed": ("ノートが途中で変更されました。何も書き込んでいません。もう一度試してください。", None),
    "conflict": ("ほかの操作と競合しました。表示を更新してからもう一度試してください。", None),
    "illegal_transition": (
        "この実行はいまの状態ではその操作を受け付けません。実行ビューを更新して状態を確かめてください。",
        None,
    ),
    "busy": ("別の書き込み処理が保管庫をロックしています。しばらくしてから再試行してください。", None),
    "cancelled": ("キャンセルしました。何も保存していません。", None),
    "write_refused": (
        "メタデータだけを正確に書き換えられないため、何も書き込みませんでした。ノートのフロントマターを確かめてください。",
        None,
    ),
    "decision_refused": ("この判断は受け付けられませんでした。実行は元の状態のままです。", None),
    "challenge_refused": (
        "承認の文字列が一致しません。表示されたとおりに入力してください。何も書き込んでいません。",
        "The approval text does not match: type it exactly as shown. Nothing was written.",
    ),
    "plan_expired": (
        "この計画は期限切れです。古い順リストからもう一度計画してください。",
        "This plan has expired: plan the batch again from the stale list.",
    ),
    "plan_tampered": (
        "この計画のファイルが作成後に変更されています。承認せず、もう一度計画してください。",
        "This plan's file changed after it was made: do not approve it; plan the batch again.",
    ),
    "submission_refused": ("エージェントの提出物が契約に合いませんでした。", None),
    "not_writable": (
        "保管庫にサイドカーのファイルを書けません（読み取り専用、権限、空き容量）。何も変更していません。",
        None,
    ),
    "write_failed": ("書き込みに失敗しました（空き容量、読み取り専用、容量制限）。ノートは変更していません。", None),
    "external_error": ("保管庫の外のページやサービスが期待どおりに応答しませんでした。", None),
    "blog_repo_error": ("ブログのリポジトリで git が失敗しました。", None),
    "http_error": ("サイドカーが要求を処理できませんでした。", None),
    "internal_error": ("サイドカーで予期しないエラーが起きました。ログ（「ログを表示」）に詳細があります。", None),
}


def _stage_order(detail: dict[str, Any], lang: str) -> str | None:
    stage, missing = detail.get("stage"), detail.get("missing_stage")
    names = _STAGES[lang]
    if stage not in names or missing not in names:
        return None
    if lang == "ja":
        return (
            f"{names[stage]}のバッチは、先に{names[missing]}のバッチが成功してから計画できます。"
            f"古い順リストのボタンは実行できる段階を選んで計画します。{names[missing]}のバッチを計画して承認してから、次に進んでください。"
        )
    return (
        f"A {names[stage]} batch comes after a {names[missing]} batch that succeeded. The stale list's button plans "
        f"the stage that can run: plan and approve the {names[missing]} batch first, then go on."
    )


# Refusals whose detail says which next step applies: (code, detail key) -> text maker.
_BY_DETAIL: dict[tuple[str, str], Callable[[dict[str, Any], str], str | None]] = {
    ("refused", "missing_stage"): _stage_order,
}


def preferred_language(accept_language: str | None) -> str | None:
    """The first of ja/en that `Accept-Language` names, by its order and q-values; None when it names
    neither or is absent (the answer then keeps the service's message)."""
    if not accept_language:
        return None
    ranked: list[tuple[float, int, str]] = []
    for position, part in enumerate(accept_language.split(",")[:20]):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        params = params.strip()
        if params.startswith("q="):
            try:
                quality = float(params[2:])
            except ValueError:
                quality = 0.0
        primary = tag.strip().lower().split("-")[0]
        if primary in LANGS and quality > 0:
            ranked.append((-quality, position, primary))
    return min(ranked)[2] if ranked else None


def localized_message(error: HarnessError, lang: str) -> str:
    """The error's message for a person in `lang` (ja or en)."""
    if isinstance(error.detail, dict):
        for (code, key), make in _BY_DETAIL.items():
            if error.code == code and key in error.detail and (text := make(error.detail, lang)):
                return text
    ja, en = _BY_CODE.get(error.code, _BY_CODE["error"])
    if lang == "ja":
        return ja
    return en or error.message


def localized_body(error: HarnessError, accept_language: str | None) -> dict[str, Any]:
    """The error envelope, with `message` in the request's language when it names one."""
    body = error.to_body()
    lang = preferred_language(accept_language)
    if lang is not None:
        body["error"]["message"] = localized_message(error, lang)
        body["error"]["lang"] = lang
        body["error"]["message_en"] = error.message
    return body
