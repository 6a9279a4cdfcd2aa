#!/usr/bin/env bash
# Tool search over real servers (issue 30): installs twenty-two servers from npm and PyPI
# (tests/fixtures/tool-search: pinned), configures them all (each in the OS sandbox, as new servers are;
# API keys are placeholders: the servers list their tools without calling their APIs), and runs
# `switchboard-cli bench-tool-search` over the labelled requests in tests/fixtures/tool-search/requests.jsonl.
# Prints each request's rank, recall@5, and one chat turn's tool definitions in tokens with every
# tool offered and with tool search. Not a test: it prints numbers (BENCHMARKS.md keeps them).
# Usage: scripts/bench-tool-search.sh [--tools | --find REQUEST]  (list every tool, or what one
#        request finds, instead)
#        BENCH_SERVERS=dir (default ~/.cache/switchboard/bench-servers)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/switchboard/target}"
servers="${BENCH_SERVERS:-$HOME/.cache/switchboard/bench-servers}"
mkdir -p "$servers"
if ! cmp -s tests/fixtures/tool-search/package-lock.json "$servers/.installed-lock.json"; then
  cp tests/fixtures/tool-search/package.json tests/fixtures/tool-search/package-lock.json "$servers/"
  (cd "$servers" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null)
  cp tests/fixtures/tool-search/package-lock.json "$servers/.installed-lock.json"
fi
if ! cmp -s tests/fixtures/tool-search/requirements.txt "$servers/.installed-requirements.txt"; then
  python3 -m venv "$servers/venv"
  "$servers/venv/bin/pip" install -q -r tests/fixtures/tool-search/requirements.txt
  cp tests/fixtures/tool-search/requirements.txt "$servers/.installed-requirements.txt"
fi
cli=$(bash scripts/build-cli.sh)

data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT
mkdir -p "$data/files" "$data/repo" "$data/mongodb"
git -C "$data/repo" init -q
export SWITCHBOARD_DATA_DIR="$data" SWITCHBOARD_CONFIG="$data/config.json"
python3 - "$servers" "$data" > "$SWITCHBOARD_CONFIG" <<'PY'
import json, sys
servers, data = sys.argv[1:]
npm = lambda name, *args, **env: {"command": f"{servers}/node_modules/.bin/{name}", "args": list(args), "env": env}
py = lambda name, *args: {"command": f"{servers}/venv/bin/{name}", "args": list(args)}
key = "placeholder-not-a-key"
print(json.dumps({"mcpServers": {
    "everything": npm("mcp-server-everything", "stdio"),
    "filesystem": {**npm("mcp-server-filesystem", f"{data}/files"), "roots": [f"{data}/files"]},
    "memory": npm("mcp-server-memory"),
    "sequential-thinking": npm("mcp-server-sequential-thinking"),
    "github": npm("mcp-server-github", GITHUB_PERSONAL_ACCESS_TOKEN=key),
    "gitlab": npm("mcp-server-gitlab", GITLAB_PERSONAL_ACCESS_TOKEN=key),
    "slack": npm("mcp-server-slack", SLACK_BOT_TOKEN=key, SLACK_TEAM_ID="T0"),
    "google-maps": npm("mcp-server-google-maps", GOOGLE_MAPS_API_KEY=key),
    "brave-search": npm("mcp-server-brave-search", BRAVE_API_KEY=key),
    "postgres": npm("mcp-server-postgres", "postgresql://127.0.0.1:9/bench"),
    "everart": npm("mcp-server-everart", EVERART_API_KEY=key),
    "aws-kb": npm("mcp-server-aws-kb-retrieval", AWS_ACCESS_KEY_ID=key, AWS_SECRET_ACCESS_KEY=key, AWS_REGION="us-east-1"),
    "kubernetes": npm("mcp-server-kubernetes"),
    "time": py("mcp-server-time"),
    "fetch": py("mcp-server-fetch"),
    # A sandboxed server sees its roots only.
    "git": {**py("mcp-server-git", "--repository", f"{data}/repo"), "roots": [f"{data}/repo"]},
    "playwright": npm("playwright-mcp"),
    "notion": npm("notion-mcp-server", NOTION_TOKEN=key),
    # It keeps its logs under its home: one of its own, which its box lets it write.
    "mongodb": {**npm("mongodb-mcp-server", HOME=f"{data}/mongodb"), "sandbox": {"write": [f"{data}/mongodb"]}},
    "firecrawl": npm("firecrawl-mcp", FIRECRAWL_API_KEY=key),
    "context7": npm("context7-mcp"),
    "tavily": npm("tavily-mcp", TAVILY_API_KEY=key),
}}, indent=1))
PY
for server in $(python3 -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))["mcpServers"]))' "$SWITCHBOARD_CONFIG"); do
  "$cli" trust "$server" --yes >/dev/null 2>&1
done
if [ "${1:-}" = --tools ]; then
  # Every tool with the first line of its description: what the labelled requests are written from.
  "$cli" tools --all --timeout 60 | python3 -c '
import json, sys
for l in sys.stdin:
    t = json.loads(l)
    about = (t["tool"].get("description") or "").strip().splitlines() or [""]
    print(t["server"] + "/" + t["tool"]["name"], about[0], sep="\t")'
  exit
fi
if [ "${1:-}" = --find ]; then
  # What one request finds, scored: `--find "request words"`.
  "$cli" find-tools "$2" --limit "${BENCH_LIMIT:-10}" --timeout 60
  exit
fi
# The requests the search was tuned on, then ones written after it was (see held-out.jsonl).
for set in requests held-out; do
  out="$data/$set.jsonl"
  "$cli" bench-tool-search "tests/fixtures/tool-search/$set.jsonl" --timeout 60 > "$out"
  python3 - "$out" "$set" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
*requests, s = rows
print(f"\n== {sys.argv[2]}.jsonl: {s['servers']} servers, {s['tools']} tools, {s['requests']} labelled requests ({s['tokenizer']})")
for r in requests:
    if not r["rank"] or r["rank"] > 5:
        print(f"missed: {r['request']!r} expected {r['expected']} found {r['found']}")
print("| | every tool offered | with tool search | ratio |")
print("|---|---|---|---|")
print(f"| definitions per turn, tokens | {s['turnTokensEveryTool']} | {s['turnTokensWithSearch']:.0f} | {1 - s['reduction']:.3f}× ({s['reduction']*100:.1f} % fewer; goal ≥ 80 %) |")
print(f"| recall@5 | | {s['recallAt5']:.3f} | goal ≥ 0.9 |")
PY
done
