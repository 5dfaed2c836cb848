#!/usr/bin/env bash
# Regenerate a vault repository's reasoning index and push it only when it changed and the
# branch has not moved past the commit it was built from (seed 003's stale-run protection).
#
#   scripts/regenerate-index.sh [VAULT_DIR]      (run inside the vault's git checkout)
#
# Environment: KH (the kh executable, default `kh`), REMOTE (default origin), BRANCH (default:
# the current branch), TEST_CMD (run first when set, e.g. the vault's own checks),
# PYTHON (for the JSON check, default python3).
# Exit 0: pushed, nothing to commit, or skipped because a newer revision exists (its own run
# regenerates). Non-zero: a test, the build or the validation failed, or the push was refused.
set -euo pipefail
vault=${1:-.}
kh=${KH:-kh}
remote=${REMOTE:-origin}
python=${PYTHON:-python3}
cd "$vault"
branch=${BRANCH:-$(git rev-parse --abbrev-ref HEAD)}
built_from=$(git rev-parse HEAD)

if [[ -n "${TEST_CMD:-}" ]]; then
  echo "== test: $TEST_CMD"
  bash -c "$TEST_CMD"
fi

echo "== build"
"$kh" index build . --json

echo "== validate"
"$python" - <<'PY'
import json, pathlib, sys
root = pathlib.Path(".harness/index")
files = [root / "manifest.json", root / "tree.json", *sorted((root / "notes").glob("*.json"))]
for f in files:
    json.loads(f.read_text(encoding="utf-8"))
manifest = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
ids = {n["id"] for n in manifest["notes"]}
on_disk = {f.stem for f in (root / "notes").glob("*.json")}
if ids != on_disk:
    sys.exit(f"manifest and notes/ disagree: {sorted(ids ^ on_disk)[:5]}")
print(f"valid: {len(files)} files, {len(ids)} notes")
PY
"$kh" index check .

git add -A .harness/index
if git diff --cached --quiet; then
  echo "== the index did not change; nothing to commit"
  exit 0
fi
git -c user.name="${GIT_AUTHOR_NAME:-kh-index-bot}" -c user.email="${GIT_AUTHOR_EMAIL:-kh-index-bot@users.noreply.github.com}" \
  commit --quiet -m "Regenerate reasoning index for ${built_from:0:12}"

echo "== stale-run check"
git fetch --quiet "$remote" "$branch"
remote_head=$(git rev-parse FETCH_HEAD)
if [[ "$remote_head" != "$built_from" ]]; then
  echo "== $remote/$branch moved to ${remote_head:0:12} after this run built from ${built_from:0:12};"
  echo "   not pushing: the run for the newer revision regenerates the index."
  git reset --quiet --soft "$built_from"
  exit 0
fi
git push --quiet "$remote" "HEAD:refs/heads/$branch"
echo "== pushed the regenerated index"
