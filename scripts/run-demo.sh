#!/usr/bin/env bash
# The main job on the example vault: build what exists, serve the local evidence site,
# then serve the sidecar on loopback and print its URL and token.
set -euo pipefail
vault=${1:-examples/vault}
port=${2:-8765}
evidence_port=${3:-8731}
bin=.venv/bin
mkdir -p .run
token_file=.run/token
# The demo's machine configuration: lets the fetcher reach the local evidence site. A vault file
# never grants network allowances; this file lives outside the vault (docs/security.md).
export KH_CONFIG="$PWD/.run/config.toml"
printf '[evidence]\nallow_private_hosts = ["127.0.0.1:%s"]\n' "$evidence_port" >"$KH_CONFIG"
if [ -n "${KH_DEMO_BLOG:-}" ]; then # the pipeline demo's blog, registered here, named by the vault
  printf '\n[blogs.demo]\nrepo = "%s"\n' "$KH_DEMO_BLOG" >>"$KH_CONFIG"
fi

echo "== Reasoning index"
"$bin/kh" index build "$vault" --json
echo "== Audit (read-only)"
"$bin/kh" audit "$vault"

echo "== Evidence site on http://127.0.0.1:$evidence_port/"
"$bin/python" -m http.server "$evidence_port" --bind 127.0.0.1 --directory examples/evidence-site \
  >.run/evidence-site.log 2>&1 &
evidence_pid=$!
trap 'kill $evidence_pid 2>/dev/null || true' EXIT

# the agent token is the vault's own (`kh agent-token VAULT` prints it and the lines that connect an agent)
"$bin/kh" serve --vault "$vault" --port "$port" --token-file "$token_file" | while IFS= read -r line; do
  echo "$line"
  case "$line" in
    *'"listening"'*)
      echo
      echo "Sidecar: http://127.0.0.1:$port  (Ctrl-C to stop)"
      echo "Person token: $(cat "$token_file")   (the plugin and you: approvals, decisions)"
      agent_token=$("$bin/kh" agent-token "$vault" --port "$port" --json | "$bin/python" -c 'import json, sys; print(json.load(sys.stdin)["token"])')
      echo "Agent token:  $agent_token   (Claude Code / Codex over MCP: http://127.0.0.1:$port/mcp)"
      echo "Connect an agent: $bin/kh agent-token $vault --port $port   (prints this token and the claude/codex lines)"
      echo "Try:     curl -H \"Authorization: Bearer \$(cat $token_file)\" http://127.0.0.1:$port/v1/notes"
      if [ -z "${KH_DEMO_PIPELINE:-}" ]; then
        echo "Pipeline: make demo-pipeline   (a local blog, the example request, your agent over MCP, up to the review packet)"
      fi
      ;;
  esac
done
