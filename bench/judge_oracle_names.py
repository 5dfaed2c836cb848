"""Would a stronger oracle pass #42's WiCE target? A STAND-IN that quotes like the oracle of
bench/judge_gate.py and, for each number or name of the claim its gold quotes leave unwritten
(as bench/judge_ceiling.py counts them), also quotes the first page sentence that writes it: what
a careful reader adds when the annotators' sentences lean on the article around the claim.
Judged through the openai_compat door (a local chat-completions stand-in), WiCE dev only.

    .venv/bin/python -m bench.judge_oracle_names        (KH_JUDGE_DATA=DIR for the data)
"""

from __future__ import annotations

import collections
from typing import Any

from bench import judge_gate
from bench.judge_ceiling import has_number, name_words, numbers
from knowledge_harness.trust.validate.quotes import MAX_QUOTES


def quotes_with_names(pair: dict[str, Any]) -> list[str]:
    quotes = list(pair["gold"])
    text = "\n".join(quotes)
    missing = [n for n in numbers(pair["claim"]) if not has_number(n, text)]
    missing += [
        words[0] for words in name_words(pair["claim"]) if not any(w[:5].lower() in text.lower() for w in words)
    ]
    for wanted in missing:
        found = next((s for s in pair["sentences"] if wanted[:5].lower() in s.lower() and s not in quotes), None)
        if found is not None:
            quotes.append(found)
    return quotes[:MAX_QUOTES]


def main() -> None:
    plain_answer = judge_gate.answer

    def answer(strategy: str, pair: dict[str, Any], page: str) -> dict[str, Any]:
        finding = plain_answer("oracle", pair, page)
        if strategy == "oracle+names" and finding["verdict"] == "supported":
            finding["quotes"] = quotes_with_names(pair)
        return finding

    judge_gate.answer = answer  # the stand-in server answers through it
    pairs = [p for p in judge_gate.load_pairs(None) if p["corpus"] == "wice"]
    supported = [p for p in pairs if p["label"] == "supported"]
    server = judge_gate.ChatStandIn({p["id"]: p for p in pairs})
    for strategy in ("oracle", "oracle+names"):
        outcomes = judge_gate.run_openai(pairs, strategy, server)
        passed = sum(outcomes[p["id"]] == "supported" for p in supported)
        decided = dict(collections.Counter(outcomes[p["id"]] for p in supported))
        print(
            f"{strategy}: {passed} of {len(supported)} WiCE supported pairs pass ({passed / len(supported):.1%}) {decided}"
        )


if __name__ == "__main__":
    main()
