#!/usr/bin/env bash
# Runs every property-test (fuzz) target for a long time: each target again and again with fresh
# random cases until its share of SECONDS is spent, and prints how many cases each ran without a
# failure. A failing input is kept by proptest in the source's `proptest-regressions/` folder (and
# by fast-check as the seed it prints): commit it, and every later run replays it first.
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET]      (default 600; FUZZ_PROFILE=debug skips the
# release build, FUZZ_BATCH sets the cases per run)
set -euo pipefail
cd "$(dirname "$0")/.."
per_target="${1:-600}"
batch="${FUZZ_BATCH:-200000}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/switchboard/target}"

# `crate filter` per Rust target: the property tests of where bad input enters.
targets=(
  "switchboard-protocol sse::tests::any_chunking_of_a_stream_yields_its_events"
  "switchboard-protocol sse::tests::random_bytes_never_panic_nor_grow_past_the_limit"
  "switchboard-protocol transport::stdio::tests::any_chunking_of_stdout_yields_the_same_messages"
  "switchboard-protocol transport::stdio::tests::random_bytes_never_panic_nor_grow_past_the_cap"
  "switchboard-protocol fuzz_targets::a_views_csp_is_only_origins_in_fixed_directives"
  "switchboard-protocol fuzz_targets::a_step_up_asks_for_all_it_must"
  "switchboard-protocol fuzz_targets::sign_in_opens_only_https_or_loopback"
  "switchboard-protocol fuzz_targets::any_json_rpc_envelope_decodes_or_is_refused"
  "switchboard-protocol fuzz_targets::a_root_uri_names_exactly_its_normalised_path"
  "switchboard-base fuzz::any_config_is_read_or_refused_and_round_trips"
  "switchboard-base fuzz::a_reference_expands_to_no_one_elses_secret"
  "switchboard-base fuzz::revealed_text_hides_nothing_and_stripped_text_carries_nothing"
)
profile=()
[ "${FUZZ_PROFILE:-release}" = release ] && profile=(--release)
cargo test "${profile[@]}" --no-run -q -p switchboard-protocol -p switchboard-base --lib

report=()
for target in "${targets[@]}"; do
  read -r crate filter <<<"$target"
  runs=0
  deadline=$((SECONDS + per_target))
  while ((SECONDS < deadline)); do
    SWITCHBOARD_FUZZ_CASES="$batch" cargo test "${profile[@]}" -q -p "$crate" --lib -- --exact "$filter" >/dev/null
    runs=$((runs + batch))
  done
  report+=("$runs cases  $filter")
  echo "$runs cases without a failure: $filter"
done

# The markdown sanitizer (fast-check, in the UI's tests).
ui_runs=0
deadline=$((SECONDS + per_target))
while ((SECONDS < deadline)); do
  SWITCHBOARD_FUZZ_CASES="$batch" npx --prefix ui vitest run --root ui src/components/content.fuzz.test.tsx >/dev/null
  ui_runs=$((ui_runs + batch))
done
report+=("$ui_runs cases  ui content.fuzz.test.tsx (markdown sanitizer)")

printf '\n%s\n' "cases run without a failure (for SECURITY.md):"
printf '  %s\n' "${report[@]}"
