#!/usr/bin/env bash
# `make demo-pipeline`: the harness pipeline from a request to the review packet, with your agent.
# Prepares .run/demo-pipeline/ (a local ablog blog repository with three past posts, a copy of the
# example vault configured for it, the request captured), then serves that vault like `make run`.
# Walkthrough: docs/pipeline.md, "Walkthrough: from a request to the Review Packet".
set -euo pipefail
port=${1:-8765}
evidence_port=${2:-8731}
bin=.venv/bin
root=.run/demo-pipeline
mkdir -p .run
"$bin/python" scripts/demo_pipeline.py "$root" >.run/demo-pipeline.json
run_id=$("$bin/python" -c 'import json, sys; print(json.load(sys.stdin)["run_id"])' <.run/demo-pipeline.json)
vault="$root/vault"
cat <<TEXT
== Pipeline demo (.run/demo-pipeline.json)
Blog repository: $root/blog   (ablog layout, three past posts on main)
Vault:           $vault   (a copy of examples/vault; .harness/pipeline.toml: [blog] repo = "../blog")
Run $run_id captured from Requests/メタデータ限定更新の記事.md — it waits for your authorization.

Once the sidecar below is listening, in another terminal (the demo's machine configuration names
its blog; kh commands find it through KH_CONFIG):
  export KH_CONFIG="$PWD/.run/config.toml"
  1. You authorize the run (at a terminal; an agent cannot):
       $bin/kh pipeline authorize $vault $run_id
  2. Connect Claude Code or Codex with the agent token printed below (docs/pipeline.md), and ask:
       "Run harness_advance_run for $run_id, then loop harness_next_task → do the task → harness_submit_result
        until no task is left; on accepted: false fix the listed reasons and submit again."
  3. Read the Review Packet and decide (you):
       $bin/kh pipeline review $vault $run_id
       $bin/kh pipeline decide $vault $run_id --choice 公開しない --instructions "デモのため公開しない" --review-sha256 SHA
       (SHA: the "Review Packet SHA-256" that kh pipeline review prints; every decision names it)

TEXT
KH_DEMO_PIPELINE=1 KH_DEMO_BLOG="$PWD/$root/blog" exec bash scripts/run-demo.sh "$vault" "$port" "$evidence_port"
