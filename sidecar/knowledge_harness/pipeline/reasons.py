"""The pipeline's reason codes: one enum, each code explained in Japanese and English (REASONS),
listed by operation in docs/pipeline.md. A record names why it ended as it did with these codes."""

from __future__ import annotations

from enum import StrEnum


class ReasonCode(StrEnum):
    # O-01
    REQUEST_CAPTURED = "REQUEST_CAPTURED"
    PUBLISHABILITY_UNKNOWN = "PUBLISHABILITY_UNKNOWN"
    PUBLISHABILITY_CONFIRMED = "PUBLISHABILITY_CONFIRMED"
    PUBLISHABILITY_PERSON_ONLY = "PUBLISHABILITY_PERSON_ONLY"
    NOT_PUBLISHABLE = "NOT_PUBLISHABLE"
    # O-02
    RUN_LABEL_PRESENT = "RUN_LABEL_PRESENT"
    # O-03
    SCREEN_CLEAN = "SCREEN_CLEAN"
    SECRET_MASKED = "SECRET_MASKED"  # noqa: S105
    PERSONAL_INFO_MASKED = "PERSONAL_INFO_MASKED"
    COMPANY_INFO_MASKED = "COMPANY_INFO_MASKED"
    PRIVATE_MARKER = "PRIVATE_MARKER"
    SCREEN_UNDECIDABLE = "SCREEN_UNDECIDABLE"
    SCREEN_ANSWERED_PUBLISHABLE = "SCREEN_ANSWERED_PUBLISHABLE"
    SCREEN_ANSWERED_PRIVATE = "SCREEN_ANSWERED_PRIVATE"
    # O-04
    EVIDENCE_COLLECTED = "EVIDENCE_COLLECTED"
    EVIDENCE_NONE = "EVIDENCE_NONE"
    EVIDENCE_TRANSIENT_FAILURE = "EVIDENCE_TRANSIENT_FAILURE"
    FETCH_FAILED = "FETCH_FAILED"
    SEARCH_PROVIDER_FAILED = "SEARCH_PROVIDER_FAILED"
    PRIMARY_TARGET_UNMET = "PRIMARY_TARGET_UNMET"
    DUPLICATES_REMOVED = "DUPLICATES_REMOVED"
    DOMAIN_CAP_APPLIED = "DOMAIN_CAP_APPLIED"
    LIMIT_REACHED = "LIMIT_REACHED"
    TIME_LIMIT_REACHED = "TIME_LIMIT_REACHED"
    SEARCH_EXHAUSTED = "SEARCH_EXHAUSTED"
    DISCOVERY_ONLY_UNFETCHED = "DISCOVERY_ONLY_UNFETCHED"
    REACTION_TARGET_UNMET = "REACTION_TARGET_UNMET"
    SOURCE_STALE = "SOURCE_STALE"
    SCOPE_AMBIGUOUS = "SCOPE_AMBIGUOUS"
    # O-05
    FACT_SECONDARY_EXPLANATION = "FACT_SECONDARY_EXPLANATION"
    CONTRADICTION_FOUND = "CONTRADICTION_FOUND"
    SUMMARY_MISSING = "SUMMARY_MISSING"
    SUMMARY_NOT_JAPANESE = "SUMMARY_NOT_JAPANESE"
    PR_DESCRIPTION_NOT_JAPANESE = "PR_DESCRIPTION_NOT_JAPANESE"
    REVISION_DROPS_CONTENT = "REVISION_DROPS_CONTENT"
    AUTHOR_QUESTION_ASKS_FACT = "AUTHOR_QUESTION_ASKS_FACT"
    SUMMARY_IS_EXCERPT = "SUMMARY_IS_EXCERPT"
    PACKET_BUILT = "PACKET_BUILT"
    PACKET_NO_FACTS = "PACKET_NO_FACTS"
    # agent door
    AGENT_OUTPUT_INVALID = "AGENT_OUTPUT_INVALID"
    AGENT_BACKEND_ERROR = "AGENT_BACKEND_ERROR"
    # refusals of an agent's submission (detail of a refused submission)
    SUBMISSION_SCHEMA_INVALID = "SUBMISSION_SCHEMA_INVALID"
    UNKNOWN_SOURCE_ID = "UNKNOWN_SOURCE_ID"
    MISSING_SOURCE_ID = "MISSING_SOURCE_ID"
    FACT_WITHOUT_PRIMARY_OR_SECONDARY = "FACT_WITHOUT_PRIMARY_OR_SECONDARY"
    DISCOVERY_ONLY_CITED = "DISCOVERY_ONLY_CITED"
    DUPLICATE_ITEM_ID = "DUPLICATE_ITEM_ID"
    STATEMENT_IN_TWO_CATEGORIES = "STATEMENT_IN_TWO_CATEGORIES"
    CONTRADICTION_NEEDS_TWO_SOURCES = "CONTRADICTION_NEEDS_TWO_SOURCES"
    PAST_ARTICLE_DIFF_WITHOUT_REFERENCE = "PAST_ARTICLE_DIFF_WITHOUT_REFERENCE"
    SECRET_IN_OUTPUT = "SECRET_IN_OUTPUT"  # noqa: S105
    # O-06
    JUDGE_ALL_PASS = "JUDGE_ALL_PASS"  # noqa: S105
    JUDGE_AXIS_FAIL = "JUDGE_AXIS_FAIL"
    JUDGE_AXIS_UNCERTAIN = "JUDGE_AXIS_UNCERTAIN"
    JUDGE_LOW_CONFIDENCE = "JUDGE_LOW_CONFIDENCE"
    UNCERTAINTY_IMPACT_HIGH = "UNCERTAINTY_IMPACT_HIGH"
    NO_PAST_ARTICLES = "NO_PAST_ARTICLES"
    UNKNOWN_PACKET_REF = "UNKNOWN_PACKET_REF"
    NOVELTY_WITHOUT_PAST_ARTICLES = "NOVELTY_WITHOUT_PAST_ARTICLES"
    # O-07
    PLAN_BUILT = "PLAN_BUILT"
    AUTHOR_QUESTION_ASKED = "AUTHOR_QUESTION_ASKED"
    AUTHOR_QUESTION_NOT_ALLOWED = "AUTHOR_QUESTION_NOT_ALLOWED"
    DUPLICATE_SECTION_ID = "DUPLICATE_SECTION_ID"
    UNCERTAINTY_UNHANDLED = "UNCERTAINTY_UNHANDLED"
    UNCERTAINTY_UNKNOWN = "UNCERTAINTY_UNKNOWN"
    UNCERTAINTY_NOT_PLACED = "UNCERTAINTY_NOT_PLACED"
    EXCLUDED_ITEM_REFERENCED = "EXCLUDED_ITEM_REFERENCED"
    URL_NOT_IN_PACKET = "URL_NOT_IN_PACKET"
    CENTRAL_MESSAGE_NOT_ONE_SENTENCE = "CENTRAL_MESSAGE_NOT_ONE_SENTENCE"
    # O-08
    DRAFT_BUILT = "DRAFT_BUILT"
    DUPLICATE_BLOCK_ID = "DUPLICATE_BLOCK_ID"
    SECTION_MISSING = "SECTION_MISSING"
    SECTION_ORDER = "SECTION_ORDER"
    UNKNOWN_SECTION = "UNKNOWN_SECTION"
    BLOCK_REF_NOT_ALLOWED = "BLOCK_REF_NOT_ALLOWED"
    PLANNED_REF_UNUSED = "PLANNED_REF_UNUSED"
    UNCERTAINTY_NOT_REFLECTED = "UNCERTAINTY_NOT_REFLECTED"
    HEADING_IN_BLOCK = "HEADING_IN_BLOCK"
    BLOCK_FORMAT = "BLOCK_FORMAT"
    DIRECTIVE_FORBIDDEN = "DIRECTIVE_FORBIDDEN"
    POST_DIRECTIVE_FORBIDDEN = "POST_DIRECTIVE_FORBIDDEN"
    AI_SCOPE_MISSING = "AI_SCOPE_MISSING"
    DRAFT_METADATA_MISSING = "DRAFT_METADATA_MISSING"
    UNKNOWN_VALUE_NOT_MARKED = "UNKNOWN_VALUE_NOT_MARKED"
    PUBLICATION_DATE_IN_DRAFT = "PUBLICATION_DATE_IN_DRAFT"
    UNSUPPORTED_VALUE = "UNSUPPORTED_VALUE"
    # O-09
    RST_SYNTAX = "RST_SYNTAX"
    HEADING_UNDERLINE = "HEADING_UNDERLINE"
    TRAILING_WHITESPACE = "TRAILING_WHITESPACE"
    NO_FINAL_NEWLINE = "NO_FINAL_NEWLINE"
    DRAFT_SHA_MISMATCH = "DRAFT_SHA_MISMATCH"
    MANIFEST_MISMATCH = "MANIFEST_MISMATCH"
    URL_UNCHECKED = "URL_UNCHECKED"
    LOCAL_REF_OUTSIDE = "LOCAL_REF_OUTSIDE"
    LOCAL_REF_MISSING = "LOCAL_REF_MISSING"
    LOCAL_REF_UNCHECKED = "LOCAL_REF_UNCHECKED"
    TITLE_DUPLICATE = "TITLE_DUPLICATE"
    DUPLICATE_CANDIDATE = "DUPLICATE_CANDIDATE"
    SECRET_IN_DRAFT = "SECRET_IN_DRAFT"  # noqa: S105
    PERSONAL_INFO_IN_DRAFT = "PERSONAL_INFO_IN_DRAFT"
    COMPANY_INFO_IN_DRAFT = "COMPANY_INFO_IN_DRAFT"
    PRIVATE_MARKER_IN_DRAFT = "PRIVATE_MARKER_IN_DRAFT"
    AUTOFIX_APPLIED = "AUTOFIX_APPLIED"
    DRAFT_PROGRAM_ERRORS = "DRAFT_PROGRAM_ERRORS"
    UNKNOWN_BLOCK_REF = "UNKNOWN_BLOCK_REF"
    DUPLICATE_ASSESSMENT_MISSING = "DUPLICATE_ASSESSMENT_MISSING"
    VALIDATION_PASSED = "VALIDATION_PASSED"
    # O-10
    REVIEW_PREPARED = "REVIEW_PREPARED"
    BLOG_BRANCH_CREATED = "BLOG_BRANCH_CREATED"
    BLOG_COMMIT_CREATED = "BLOG_COMMIT_CREATED"
    BLOG_COMMIT_REUSED = "BLOG_COMMIT_REUSED"
    PULL_REQUEST_PREPARED = "PULL_REQUEST_PREPARED"
    PULL_REQUEST_FAILED = "PULL_REQUEST_FAILED"
    SLUG_INVALID = "SLUG_INVALID"
    BLOG_REPO_NOT_CONFIGURED = "BLOG_REPO_NOT_CONFIGURED"
    # O-11
    DECISION_APPROVED = "DECISION_APPROVED"
    DECISION_REVISION_REQUESTED = "DECISION_REVISION_REQUESTED"
    DECISION_REJECTED = "DECISION_REJECTED"
    DECISION_POLICY = "DECISION_POLICY"
    DECISION_UNKNOWN = "DECISION_UNKNOWN"
    DECISION_CONTRADICTORY = "DECISION_CONTRADICTORY"
    DECISION_INCOMPLETE = "DECISION_INCOMPLETE"
    DECISION_SHA_MISMATCH = "DECISION_SHA_MISMATCH"
    DECISION_COMMIT_MISMATCH = "DECISION_COMMIT_MISMATCH"
    MERGE_NOT_FOUND = "MERGE_NOT_FOUND"
    CANDIDATE_CHANGED_AFTER_REVIEW = "CANDIDATE_CHANGED_AFTER_REVIEW"
    DECIDER_NOT_ALLOWED = "DECIDER_NOT_ALLOWED"
    UNKNOWN_TARGET_BLOCK = "UNKNOWN_TARGET_BLOCK"
    DECISION_TIMEOUT = "DECISION_TIMEOUT"
    DECISION_CONFLICT = "DECISION_CONFLICT"
    DECISION_PR_MISMATCH = "DECISION_PR_MISMATCH"
    PR_MISMATCH = "PR_MISMATCH"
    PR_UNVERIFIED = "PR_UNVERIFIED"
    MERGE_UNVERIFIED = "MERGE_UNVERIFIED"
    MERGED_BY_CONTENT = "MERGED_BY_CONTENT"
    REVISION_REFERENCE_MISMATCH = "REVISION_REFERENCE_MISMATCH"
    # O-12
    REVISION_APPLIED = "REVISION_APPLIED"
    REVISION_LIMIT_REACHED = "REVISION_LIMIT_REACHED"
    REVISION_CANNOT_APPLY = "REVISION_CANNOT_APPLY"
    BLOCK_NOT_TARGETED = "BLOCK_NOT_TARGETED"
    TARGET_BLOCK_MISSING = "TARGET_BLOCK_MISSING"
    # budget
    HUMAN_BUDGET_EXCEEDED = "HUMAN_BUDGET_EXCEEDED"
    # O-13
    OUTCOME_RECORDED = "OUTCOME_RECORDED"
    HUMAN_QUESTION_REPEATED = "HUMAN_QUESTION_REPEATED"
    POLICY_PROPOSAL_RECORDED = "POLICY_PROPOSAL_RECORDED"
    # screening that asks instead of rejecting (O-03, O-09, submissions)
    PRIVATE_IDENTIFIER_CONTEXT = "PRIVATE_IDENTIFIER_CONTEXT"
    PERSON_DATA = "PERSON_DATA"
    PRIVATE_WORD_TECHNICAL = "PRIVATE_WORD_TECHNICAL"
    PUBLISHABILITY_ALREADY_ANSWERED = "PUBLISHABILITY_ALREADY_ANSWERED"
    PERSONAL_INFO_IN_OUTPUT = "PERSONAL_INFO_IN_OUTPUT"
    PRIVATE_CONTENT_IN_OUTPUT = "PRIVATE_CONTENT_IN_OUTPUT"
    # drafts as the configured blog reads them (O-09)
    ROLE_NOT_ALLOWED = "ROLE_NOT_ALLOWED"
    DRAFT_LANGUAGE_MISMATCH = "DRAFT_LANGUAGE_MISMATCH"
    # who acted (O-06, O-09)
    JUDGE_SAME_CLIENT_AS_AUTHOR = "JUDGE_SAME_CLIENT_AS_AUTHOR"


REASONS: dict[ReasonCode, tuple[str, str]] = {
    ReasonCode.REQUEST_CAPTURED: (
        "依頼を受け付けた（処理はまだ開始しない）",
        "The request was captured (processing does not start yet).",
    ),
    ReasonCode.PUBLISHABILITY_UNKNOWN: (
        "公開可能性が明示されていないため人間へ確認する",
        "Publishability is not stated; the person is asked.",
    ),
    ReasonCode.PUBLISHABILITY_CONFIRMED: ("公開可能性が確認された", "Publishability is confirmed."),
    ReasonCode.PUBLISHABILITY_PERSON_ONLY: (
        "公開可否は本人だけが答える（エージェントによる設定は拒否）",
        "Only the person answers publishability; an agent's attempt to set it is refused.",
    ),
    ReasonCode.NOT_PUBLISHABLE: ("公開不可と明示された依頼", "The request is marked as not publishable."),
    ReasonCode.RUN_LABEL_PRESENT: ("人間が実行ラベルを付けた", "The person set the run label."),
    ReasonCode.SCREEN_CLEAN: (
        "秘密情報・個人情報・非公開マーカーは見つからない",
        "No secret, personal information or private marker was found.",
    ),
    ReasonCode.SECRET_MASKED: (
        "秘密情報をマスクし、マスク後の参照だけを渡す",
        "Secrets were masked; only masked references go on.",
    ),
    ReasonCode.PERSONAL_INFO_MASKED: (
        "個人情報をマスクし、マスク後の参照だけを渡す",
        "Personal information was masked; only masked references go on.",
    ),
    ReasonCode.COMPANY_INFO_MASKED: (
        "会社情報（法人番号など）をマスクし、マスク後の参照だけを渡す",
        "Company information (a corporate number, ...) was masked; only masked references go on.",
    ),
    ReasonCode.PRIVATE_MARKER: ("非公開マーカーがあり対象外", "A private marker makes the request out of scope."),
    ReasonCode.SCREEN_UNDECIDABLE: (
        "公開可否を機械的に確定できないため人間へ確認する",
        "Publishability cannot be decided mechanically; the person is asked.",
    ),
    ReasonCode.SCREEN_ANSWERED_PUBLISHABLE: ("人間が公開可能と回答した", "The person answered that it is publishable."),
    ReasonCode.SCREEN_ANSWERED_PRIVATE: ("人間が非公開と回答した", "The person answered that it is private."),
    ReasonCode.EVIDENCE_COLLECTED: ("証拠を収集した", "Evidence was collected."),
    ReasonCode.EVIDENCE_NONE: ("証拠が一件も得られない（全面的な取得不能）", "No evidence at all could be obtained."),
    ReasonCode.EVIDENCE_TRANSIENT_FAILURE: (
        "一時的な取得失敗。再実行で再開できる",
        "A transient failure; running again resumes.",
    ),
    ReasonCode.FETCH_FAILED: ("一部の出典を取得できない", "Some sources could not be fetched."),
    ReasonCode.SEARCH_PROVIDER_FAILED: ("検索プロバイダが応答しない", "A search provider failed."),
    ReasonCode.PRIMARY_TARGET_UNMET: ("一次・公式情報が目標件数に届かない", "Fewer primary sources than the target."),
    ReasonCode.DUPLICATES_REMOVED: ("重複した出典を除いた", "Duplicate sources were removed."),
    ReasonCode.DOMAIN_CAP_APPLIED: (
        "同一ドメインの上限で候補を除いた",
        "Candidates were dropped by the per-domain cap.",
    ),
    ReasonCode.LIMIT_REACHED: ("検索・取得・採用の上限に達した", "A search, fetch or adoption limit was reached."),
    ReasonCode.TIME_LIMIT_REACHED: ("処理時間の上限に達した", "The time limit was reached."),
    ReasonCode.SEARCH_EXHAUSTED: ("検索結果が重複だけになった", "Searches returned only duplicates."),
    ReasonCode.DISCOVERY_ONLY_UNFETCHED: (
        "本文を取得できず発見専用のまま残る候補がある",
        "Some candidates stay discovery-only (body not fetched).",
    ),
    ReasonCode.REACTION_TARGET_UNMET: (
        "独立した二次・コミュニティ情報が目標件数に届かない（件数合わせはしない）",
        "Fewer independent secondary and community sources than the reaction target (never padded).",
    ),
    ReasonCode.SOURCE_STALE: (
        "出典の日付が古い（情報基準時刻からstale_after_days日以上前）",
        "A source is dated more than stale_after_days days before the information time.",
    ),
    ReasonCode.SCOPE_AMBIGUOUS: (
        "対象範囲（対象バージョンなど）が出典間で食い違う、または曖昧",
        "The scope (target version, ...) differs between sources or is unclear.",
    ),
    ReasonCode.FACT_SECONDARY_EXPLANATION: (
        "一次情報のない事実を二次情報による説明として区別した",
        "A fact without a primary source is labelled a secondary explanation.",
    ),
    ReasonCode.CONTRADICTION_FOUND: (
        "出典間の矛盾を不確実性として残した（計画で扱う）",
        "A contradiction between sources is kept as an uncertainty the plan must treat.",
    ),
    ReasonCode.SUMMARY_MISSING: (
        "引用した出典に日本語要約がない",
        "A cited source has no Japanese summary.",
    ),
    ReasonCode.PR_DESCRIPTION_NOT_JAPANESE: (
        "PR説明案が日本語で書かれていない",
        "The PR description is not written in Japanese.",
    ),
    ReasonCode.REVISION_DROPS_CONTENT: (
        "修正が本文の内容を落としている（削除の指示なし）",
        "The revision drops the block's content (no deletion was asked).",
    ),
    ReasonCode.AUTHOR_QUESTION_ASKS_FACT: (
        "著者への質問が技術的事実を尋ねている（動機・意図だけを尋ねる）",
        "The question to the author asks a technical fact (ask only about the motive or intent).",
    ),
    ReasonCode.SUMMARY_NOT_JAPANESE: (
        "出典の要約が日本語で書かれていない",
        "A source summary is not written in Japanese.",
    ),
    ReasonCode.SUMMARY_IS_EXCERPT: (
        "要約が出典本文の写し（抜粋）になっている",
        "A summary copies the source's text instead of summarizing it.",
    ),
    ReasonCode.PACKET_BUILT: ("Evidence Packetを作成した", "The evidence packet was built."),
    ReasonCode.PACKET_NO_FACTS: (
        "根拠で支えられる事実が一つもない（根拠不足）",
        "No fact is supported by the evidence (insufficient evidence).",
    ),
    ReasonCode.AGENT_OUTPUT_INVALID: (
        "エージェントの出力が契約を満たさない",
        "The agent's output does not meet the contract.",
    ),
    ReasonCode.AGENT_BACKEND_ERROR: ("エージェントのバックエンドが失敗した", "The agent backend failed."),
    ReasonCode.SUBMISSION_SCHEMA_INVALID: (
        "提出物がJSON Schemaに合わない",
        "The submission does not match the JSON Schema.",
    ),
    ReasonCode.UNKNOWN_SOURCE_ID: (
        "Evidence Setに存在しないsource_idを参照している",
        "A source_id that is not in the evidence set is cited.",
    ),
    ReasonCode.MISSING_SOURCE_ID: ("source_idのない記述がある", "A statement cites no source_id."),
    ReasonCode.FACT_WITHOUT_PRIMARY_OR_SECONDARY: (
        "事実が一次・二次情報に基づいていない（説明や評価と混同）",
        "A fact cites no primary or secondary source (mixed up with opinions).",
    ),
    ReasonCode.DISCOVERY_ONLY_CITED: (
        "発見専用の情報源を根拠にしている",
        "A discovery-only source is cited as evidence.",
    ),
    ReasonCode.DUPLICATE_ITEM_ID: ("項目IDが重複している", "An item id is used twice."),
    ReasonCode.STATEMENT_IN_TWO_CATEGORIES: (
        "同じ記述が事実・推測などの複数区分に入っている",
        "The same statement is in two categories (fact, inference, ...).",
    ),
    ReasonCode.CONTRADICTION_NEEDS_TWO_SOURCES: (
        "矛盾には二件以上の出典が必要",
        "A contradiction needs at least two sources.",
    ),
    ReasonCode.PAST_ARTICLE_DIFF_WITHOUT_REFERENCE: (
        "過去記事参照がないのに差分を推測している",
        "Differences from past articles are claimed without past-article references.",
    ),
    ReasonCode.SECRET_IN_OUTPUT: ("出力に秘密情報らしき文字列がある", "The output contains what looks like a secret."),
    ReasonCode.OUTCOME_RECORDED: ("終了状態と成果物を記録した", "The final state and artifacts were recorded."),
    ReasonCode.HUMAN_QUESTION_REPEATED: (
        "同じ理由の人間への質問が繰り返されている",
        "The person was asked for the same reason repeatedly.",
    ),
    ReasonCode.POLICY_PROPOSAL_RECORDED: (
        "方針変更候補をDECISIONS.mdへ提案した（自動採用しない）",
        "A policy proposal was added to DECISIONS.md (never adopted automatically).",
    ),
    ReasonCode.JUDGE_ALL_PASS: (
        "全必須軸が確信度0.70以上のPASSで、不確実性の影響がLOWまたはMEDIUM",
        "Every required axis is PASS with confidence ≥ 0.70 and the uncertainty impact is LOW or MEDIUM.",
    ),
    ReasonCode.JUDGE_AXIS_FAIL: ("必須軸にFAILがある", "A required axis is FAIL."),
    ReasonCode.JUDGE_AXIS_UNCERTAIN: ("必須軸にUNCERTAINがある", "A required axis is UNCERTAIN."),
    ReasonCode.JUDGE_LOW_CONFIDENCE: ("確信度0.70未満のPASSがある", "A PASS has a confidence below 0.70."),
    ReasonCode.UNCERTAINTY_IMPACT_HIGH: (
        "未解決の不確実性が核心主張へ与える影響がHIGH",
        "Unresolved uncertainty has a HIGH impact on the central claim.",
    ),
    ReasonCode.NO_PAST_ARTICLES: (
        "過去記事参照がない（ブログの記事フォルダが未設定）ため新規性はUNCERTAIN",
        "No past-article reference (no blog posts folder configured): novelty is UNCERTAIN.",
    ),
    ReasonCode.UNKNOWN_PACKET_REF: (
        "Evidence Packetに存在しない項目を参照している",
        "An item that is not in the evidence packet is referenced.",
    ),
    ReasonCode.NOVELTY_WITHOUT_PAST_ARTICLES: (
        "過去記事参照がないのに新規性をPASS/FAILと判定している",
        "Novelty is judged PASS/FAIL without past-article references.",
    ),
    ReasonCode.PLAN_BUILT: ("Article Planを作成した", "The article plan was built."),
    ReasonCode.AUTHOR_QUESTION_ASKED: (
        "著者固有の動機が中心メッセージに不可欠で復元できないため、一回だけ著者へ確認する",
        "The author's motive is essential and cannot be recovered: the author is asked once.",
    ),
    ReasonCode.AUTHOR_QUESTION_NOT_ALLOWED: (
        "著者への質問の条件を満たさない（既に質問済み、必須でない、または復元可能）",
        "A question to the author is not allowed here (already asked, not essential, or recoverable).",
    ),
    ReasonCode.DUPLICATE_SECTION_ID: ("節IDが重複している", "A section id is used twice."),
    ReasonCode.UNCERTAINTY_UNHANDLED: (
        "扱い（DISCLOSE/LIMIT_CLAIM/EXCLUDE）が決まっていない不確実性がある",
        "An uncertainty has no treatment (DISCLOSE / LIMIT_CLAIM / EXCLUDE).",
    ),
    ReasonCode.UNCERTAINTY_UNKNOWN: (
        "存在しない不確実性を扱っている",
        "A treatment names an uncertainty that does not exist.",
    ),
    ReasonCode.UNCERTAINTY_NOT_PLACED: (
        "DISCLOSE/LIMIT_CLAIMの不確実性がどの節にも対応付けられていない",
        "A DISCLOSE / LIMIT_CLAIM uncertainty is mapped to no section.",
    ),
    ReasonCode.EXCLUDED_ITEM_REFERENCED: ("EXCLUDEとした項目を参照している", "An EXCLUDE item is referenced."),
    ReasonCode.URL_NOT_IN_PACKET: (
        "Evidence Packetの情報源にない外部URL",
        "An external URL that is not a source of the evidence packet.",
    ),
    ReasonCode.CENTRAL_MESSAGE_NOT_ONE_SENTENCE: (
        "中心メッセージが一文ではない",
        "The central message is not one sentence.",
    ),
    ReasonCode.DRAFT_BUILT: (
        "draft.rstとdraft_manifest.jsonを作成した",
        "draft.rst and draft_manifest.json were built.",
    ),
    ReasonCode.DUPLICATE_BLOCK_ID: ("ブロックIDが重複している", "A block id is used twice."),
    ReasonCode.SECTION_MISSING: ("Planの節が本文にない", "A plan section is missing from the draft."),
    ReasonCode.SECTION_ORDER: ("節の順序・回数がPlanと一致しない", "Sections are not in plan order, once each."),
    ReasonCode.UNKNOWN_SECTION: ("Planにない節", "A section that is not in the plan."),
    ReasonCode.BLOCK_REF_NOT_ALLOWED: (
        "ブロックの参照がその節で許可されたPacket参照の範囲外",
        "A block cites a packet item its section does not allow.",
    ),
    ReasonCode.PLANNED_REF_UNUSED: (
        "節の計画済みPacket参照がどの本文ブロックにも対応付けられていない",
        "A planned packet reference of a section is used by no block.",
    ),
    ReasonCode.UNCERTAINTY_NOT_REFLECTED: (
        "DISCLOSE/LIMIT_CLAIMの不確実性が本文に反映されていない",
        "A DISCLOSE / LIMIT_CLAIM uncertainty is not reflected in the text.",
    ),
    ReasonCode.HEADING_IN_BLOCK: (
        "ブロック内に見出しがある（節構成はPlanだけが決める）",
        "A block contains a heading (only the plan defines sections).",
    ),
    ReasonCode.BLOCK_FORMAT: (
        "ブロックの形式が不正（字下げで始まる、内部マーカーを含むなど）",
        "A block is malformed (starts indented, contains an internal marker, ...).",
    ),
    ReasonCode.DIRECTIVE_FORBIDDEN: (
        "外部内容を取り込むdirective（raw, include, literalincludeなど）",
        "A directive that pulls in outside content (raw, include, literalinclude, ...).",
    ),
    ReasonCode.POST_DIRECTIVE_FORBIDDEN: (
        "下書きに公開用postディレクティブがある",
        "The draft contains the publishing `post` directive.",
    ),
    ReasonCode.AI_SCOPE_MISSING: (
        "AIの担当範囲と人間の確認範囲が記事の早い位置に明示されていない",
        "The AI/human split is not stated early in the article.",
    ),
    ReasonCode.DRAFT_METADATA_MISSING: (
        "公開日・情報基準日・対象バージョン・記事状態のいずれかがない",
        "One of publication date, information date, target version, article status is missing.",
    ),
    ReasonCode.UNKNOWN_VALUE_NOT_MARKED: (
        "確認できない値が「未確認」「未確定」と書かれていない",
        "An unknown value is not written as 未確認 / 未確定.",
    ),
    ReasonCode.PUBLICATION_DATE_IN_DRAFT: (
        "下書きに最終公開日がある（公開日は未確定とする）",
        "The draft states a final publication date (it must be 未確定).",
    ),
    ReasonCode.UNSUPPORTED_VALUE: (
        "Packetにない日付・バージョンを書いている（推測しない）",
        "A date or version that is not in the packet (never guessed).",
    ),
    ReasonCode.RST_SYNTAX: ("reStructuredTextの構文エラー・警告", "A reStructuredText syntax error or warning."),
    ReasonCode.HEADING_UNDERLINE: (
        "見出しの装飾長が見出しの幅と合わない",
        "A heading underline does not match the title's width.",
    ),
    ReasonCode.TRAILING_WHITESPACE: ("行末に空白がある", "Trailing whitespace."),
    ReasonCode.NO_FINAL_NEWLINE: ("最終行に改行がない", "No newline at the end of the file."),
    ReasonCode.DRAFT_SHA_MISMATCH: (
        "DraftのSHA-256がmanifestと一致しない",
        "The draft's SHA-256 does not match the manifest.",
    ),
    ReasonCode.MANIFEST_MISMATCH: (
        "ブロック・節・Packet参照がmanifestと一致しない",
        "Blocks, sections or packet references do not match the manifest.",
    ),
    ReasonCode.URL_UNCHECKED: (
        "Packetがないため外部URLを照合できない",
        "No packet given: external URLs cannot be checked.",
    ),
    ReasonCode.LOCAL_REF_OUTSIDE: (
        "ローカル参照がリポジトリの外を指す（パストラバーサル）",
        "A local reference points outside the repository (path traversal).",
    ),
    ReasonCode.LOCAL_REF_MISSING: ("ローカル参照先が存在しない", "A local reference target does not exist."),
    ReasonCode.LOCAL_REF_UNCHECKED: (
        "リポジトリがないためローカル参照を照合できない",
        "No repository: local references cannot be checked.",
    ),
    ReasonCode.TITLE_DUPLICATE: (
        "正規化タイトルが既存記事と一致する",
        "The normalized title equals an existing article's.",
    ),
    ReasonCode.DUPLICATE_CANDIDATE: (
        "既存記事との本文類似度が0.85以上（AI Judgeへ渡す重複候補）",
        "Body similarity to an existing article is ≥ 0.85 (a duplicate candidate for the AI judge).",
    ),
    ReasonCode.SECRET_IN_DRAFT: ("本文に秘密情報らしき文字列がある", "The draft contains what looks like a secret."),
    ReasonCode.PERSONAL_INFO_IN_DRAFT: (
        "本文にマスクされていないメールアドレス・電話番号などがある",
        "The draft contains an unmasked e-mail address, phone number or address.",
    ),
    ReasonCode.COMPANY_INFO_IN_DRAFT: (
        "本文にマスクされていない会社情報（法人番号など）がある",
        "The draft contains unmasked company information (a corporate number, ...).",
    ),
    ReasonCode.PRIVATE_MARKER_IN_DRAFT: ("本文に非公開マーカーがある", "The draft contains a private marker."),
    ReasonCode.AUTOFIX_APPLIED: (
        "末尾空白・最終改行・見出し装飾長だけを一回自動修正して再検査した",
        "Trailing whitespace, the final newline and heading underlines were fixed once and re-checked.",
    ),
    ReasonCode.DRAFT_PROGRAM_ERRORS: ("Programの検査エラーが解消されない", "Program check errors remain."),
    ReasonCode.UNKNOWN_BLOCK_REF: (
        "Draftに存在しないブロックを参照している",
        "A block that is not in the draft is referenced.",
    ),
    ReasonCode.DUPLICATE_ASSESSMENT_MISSING: (
        "重複候補があるのに重複の評価がない",
        "There are duplicate candidates but no duplicate assessment.",
    ),
    ReasonCode.VALIDATION_PASSED: (
        "Programエラーがなく、全必須軸が確信度0.70以上のPASS",
        "No program error and every required axis is PASS with confidence ≥ 0.70.",
    ),
    ReasonCode.REVIEW_PREPARED: (
        "公開候補とReview Packetを準備した（公開候補の確認待ち）",
        "The publication candidate and the review packet are ready (waiting for the person).",
    ),
    ReasonCode.BLOG_BRANCH_CREATED: (
        "ブログリポジトリに実行用branchを作成した",
        "The run's branch was created in the blog repository.",
    ),
    ReasonCode.BLOG_COMMIT_CREATED: ("公開候補をcommitした", "The publication candidate was committed."),
    ReasonCode.BLOG_COMMIT_REUSED: (
        "同じ内容のcommitが既にあるため再利用した（重複させない）",
        "A commit with the same content exists and was reused (no duplicate).",
    ),
    ReasonCode.PULL_REQUEST_PREPARED: ("Draft PRを準備した（gh）", "The draft pull request was prepared (gh)."),
    ReasonCode.PULL_REQUEST_FAILED: (
        "Draft PRを作成できない（branchとReview Packetは有効）",
        "The draft pull request could not be created (branch and review packet stand).",
    ),
    ReasonCode.SLUG_INVALID: (
        "slugの形式が不正、または既存記事のファイル名と重複する",
        "The slug is malformed or its file name is already used.",
    ),
    ReasonCode.BLOG_REPO_NOT_CONFIGURED: ("ブログリポジトリが設定されていない", "No blog repository is configured."),
    ReasonCode.DECISION_APPROVED: (
        "merge事実を確認し、公開を承認した",
        "The merge fact was verified; publication is approved.",
    ),
    ReasonCode.DECISION_REVISION_REQUESTED: ("今回だけの修正が求められた", "A one-off revision was requested."),
    ReasonCode.DECISION_REJECTED: ("公開しないと判断された", "The person decided not to publish."),
    ReasonCode.DECISION_POLICY: ("今後の方針として検討するため保留する", "Held to consider a policy for the future."),
    ReasonCode.DECISION_UNKNOWN: ("判断の種類が分からない", "The kind of decision is unknown."),
    ReasonCode.DECISION_CONTRADICTORY: (
        "判断が矛盾している（例: merge済みなのに修正要求、承認に修正指示）",
        "The decision contradicts itself or the facts (e.g. a revision of a merged branch).",
    ),
    ReasonCode.DECISION_INCOMPLETE: (
        "判断に必要な情報がない（修正要求の具体的な日本語指示・対象ブロック、承認のcommit・SHA-256）",
        "A decision lacks what it needs (concrete Japanese instructions and target blocks for a revision; commit and SHA-256 for an approval).",
    ),
    ReasonCode.DECISION_SHA_MISMATCH: (
        "判断が示すReview PacketのSHA-256が準備したものと一致しない",
        "The decision's review-packet SHA-256 does not match the prepared one.",
    ),
    ReasonCode.DECISION_COMMIT_MISMATCH: (
        "判断が示すcommitが公開候補のcommitと一致しない",
        "The decision's commit does not match the candidate's commit.",
    ),
    ReasonCode.MERGE_NOT_FOUND: (
        "公開候補のcommitがbase branchへmergeされていない",
        "The candidate commit is not merged into the base branch.",
    ),
    ReasonCode.CANDIDATE_CHANGED_AFTER_REVIEW: (
        "レビュー後に公開候補のbranchまたは内容が変わった",
        "The candidate branch or content changed after review.",
    ),
    ReasonCode.DECIDER_NOT_ALLOWED: ("判断者が許可された人間ではない", "The decider is not an allowed person."),
    ReasonCode.UNKNOWN_TARGET_BLOCK: ("修正対象のブロックが存在しない", "A revision target block does not exist."),
    ReasonCode.DECISION_TIMEOUT: (
        "判断待ちの期限（[decision] wait_days）を過ぎたため、公開せず保留する",
        "No decision within the wait ([decision] wait_days): held, not published.",
    ),
    ReasonCode.DECISION_CONFLICT: (
        "同じ公開候補へ異なる二つ目の判断があったため、両方を記録して保留する",
        "A second, different decision on the same candidate: both recorded, the run is held.",
    ),
    ReasonCode.DECISION_PR_MISMATCH: (
        "判断が示すPR URLが準備したPRと一致しない",
        "The decision's pull request URL is not the prepared pull request.",
    ),
    ReasonCode.PR_MISMATCH: (
        "PRの番号・base・head・head commitがReview Packetの準備情報と一致しない",
        "The pull request's number, base, head or head commit differs from what was prepared.",
    ),
    ReasonCode.PR_UNVERIFIED: (
        "PRをghで確認できない（再試行できる）",
        "The pull request could not be checked with gh (try again).",
    ),
    ReasonCode.MERGE_UNVERIFIED: (
        "リモートを取得できずmerge事実を確認できない（再試行できる）",
        "The remote could not be fetched; the merge fact cannot be checked (try again).",
    ),
    ReasonCode.MERGED_BY_CONTENT: (
        "squash・rebaseによるmerge: baseに公開候補と同じ内容がある",
        "A squash or rebase merge: the base branch holds the candidate's exact content.",
    ),
    ReasonCode.REVISION_REFERENCE_MISMATCH: (
        "修正要求の参照（Review PacketのSHA-256、commit、修正前Draft、GitHub参照）が公開候補と一致しない",
        "The revision request's references (review SHA-256, commit, draft, GitHub reference) do not match the candidate.",
    ),
    ReasonCode.REVISION_APPLIED: (
        "指定ブロックだけを修正した（修正しました。再検証します）",
        "Only the named blocks were revised (revised; validating again).",
    ),
    ReasonCode.REVISION_LIMIT_REACHED: (
        "AIによる修正は同一記事2回まで。3回目は実行しない",
        "At most two AI revisions per article; the third is not run.",
    ),
    ReasonCode.REVISION_CANNOT_APPLY: (
        "新しい根拠や未依頼の変更が必要なため修正できない",
        "The revision needs new evidence or unrequested changes.",
    ),
    ReasonCode.BLOCK_NOT_TARGETED: (
        "修正対象でないブロックを変更しようとしている",
        "A block that is not a revision target is changed.",
    ),
    ReasonCode.TARGET_BLOCK_MISSING: (
        "修正対象のブロックの修正文がない",
        "A revision target block has no revised text.",
    ),
    ReasonCode.HUMAN_BUDGET_EXCEEDED: (
        "人間判断の予算を超えるため質問しない",
        "The human-decision budget is exhausted; nobody is asked.",
    ),
    ReasonCode.PRIVATE_IDENTIFIER_CONTEXT: (
        "非公開マーカーが会社名・人名・案件名・社内ホストなどの識別子と並んでおり対象外",
        "A private marker next to a private identifier (company, person, project, internal host, ...): out of scope.",
    ),
    ReasonCode.PERSON_DATA: (
        "特定の個人の私的な情報（給与、健康、住所など）があり対象外",
        "One person's private matters (salary, health, address, ...): out of scope.",
    ),
    ReasonCode.PRIVATE_WORD_TECHNICAL: (
        "非公開マーカーの語が技術的な意味で使われている（機密情報、非公開リポジトリなど）ため続行",
        "Private-marker words are used in their technical sense (confidential computing, ...); the run goes on.",
    ),
    ReasonCode.PUBLISHABILITY_ALREADY_ANSWERED: (
        "公開可能性はO-01で人間が回答済みのため、同じ理由で再び質問しない",
        "The person already answered publishability at O-01; the same reason is not asked again.",
    ),
    ReasonCode.PERSONAL_INFO_IN_OUTPUT: (
        "提出物に個人情報・会社情報がある（保存しない）",
        "The submission contains personal or company information (nothing stored).",
    ),
    ReasonCode.PRIVATE_CONTENT_IN_OUTPUT: (
        "提出物に明らかに非公開の内容がある（保存しない）",
        "The submission contains clearly private content (nothing stored).",
    ),
    ReasonCode.ROLE_NOT_ALLOWED: (
        "ブログが許可していないreStructuredTextのroleを使っている",
        "The draft uses a reStructuredText role the blog does not allow.",
    ),
    ReasonCode.DRAFT_LANGUAGE_MISMATCH: (
        "本文が設定された記事の言語（draft_language）で書かれていない",
        "The draft is not written in the configured draft_language.",
    ),
    ReasonCode.JUDGE_SAME_CLIENT_AS_AUTHOR: (
        "判定したAI Judgeが、判定対象を作成したエージェントと同じクライアント（独立した判定ではない）",
        "The AI judge is the same client that authored what it judged (not an independent judgment).",
    ),
}


def explain(code: str) -> dict[str, str]:
    try:
        ja, en = REASONS[ReasonCode(code)]
    except (ValueError, KeyError):
        ja, en = "", ""
    return {"code": code, "ja": ja, "en": en}
