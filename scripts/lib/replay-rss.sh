#!/usr/bin/env bash
# The most memory `:replay` takes (maximum resident set, by /usr/bin/time -v) for a generated log of N
# lines (default 1,000,000): a Lua store, one action whose payload differs from line to line (so that
# no two lines in a row are the same), replayed into the release fluxsh with a session and without.
# Run by `scripts/bench --replay-rss [N]`; expects .build/release/fluxsh built.
set -euo pipefail
lines=${1:-1000000}
fluxsh=${FLUXSH:-.build/release/fluxsh}
[[ -x /usr/bin/time ]] || { echo "bench: --replay-rss needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
workdir=$(mktemp -d)
trap 'rm -rf "$workdir"' EXIT
mkdir -p "$workdir/plugins" "$workdir/state"
cat >"$workdir/plugins/tally.lua" <<'LUA'
flux.store{name = "tally", state = {n = 0}, on = {["tally.add"] = function(s, a) s.n = s.n + a.by; return s end}}
LUA
awk -v n="$lines" 'BEGIN { for (i = 1; i <= n; i++) printf "{\"name\":\"tally.add\",\"payload\":{\"by\":%d},\"time\":%d}\n", i % 7 + 1, i }' \
    >"$workdir/log.jsonl"
bytes=$(wc -c <"$workdir/log.jsonl")

# Maximum resident set of one fluxsh run replaying the log, in MB (1,000,000 bytes), and its wall time.
rss() {
    local report="$workdir/time.txt"
    printf ':replay %s\nprint(flux.state("tally").n)\n' "$workdir/log.jsonl" |
        XDG_STATE_HOME="$workdir/state" /usr/bin/time -v -o "$report" "$fluxsh" --no-color --no-features \
            --plugins "$workdir/plugins" "$@" >"$workdir/out.txt" 2>"$workdir/err.txt" \
        || { cat "$workdir/err.txt" >&2; exit 1; }
    grep -q "^replayed $lines entries" "$workdir/out.txt" || { cat "$workdir/out.txt" "$workdir/err.txt" >&2; exit 1; }
    local kib wall
    kib=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$report")
    wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$report")
    printf '%d.%d MB  (%s)' $((kib * 1024 / 1000000)) $((kib * 1024 % 1000000 / 100000)) "$wall"
}

printf 'replay RSS, %d-line log (%d MB)\n' "$lines" $((bytes / 1000000))
printf '  %-22s %s\n' "--no-session" "$(rss --no-session)"
printf '  %-22s %s\n' "--session (new)" "$(rss --session replay-bench)"
