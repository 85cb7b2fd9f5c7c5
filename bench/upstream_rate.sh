#!/usr/bin/env bash
#===- bench/upstream_rate.sh - Upstream failures found per CPU-hour, guided and blind -===#
#
# The second half of the time-to-bug table: on random pipelines of real,
# unmodified upstream MLIR passes (`random:N`, none of which development
# ran), one campaign per generator (guided by feedback, and blind), each for
# SECONDS on 2 workers, alternating in one invocation. For each: the
# distinct signatures it found (each generalised to its root cause), how
# many ci/known-signatures.txt already lists, and signatures per CPU-hour
# (user + system of the campaign and its workers). A signature here is an
# upstream behaviour the reference disagrees with, not yet triaged.
#
#   bash bench/upstream_rate.sh [NPUFUZZ] [SECONDS] [SEED] [PIPELINES...]
#
# Defaults: build/bin/npufuzz, 300 s, seed 30000000, random:9101
# random:9102 random:9103 on the affine style.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
NPUFUZZ=${1:-build/bin/npufuzz} BUDGET=${2:-300} SEED=${3:-30000000}
shift $(($# < 3 ? $# : 3))
PIPELINES=("$@")
[ ${#PIPELINES[@]} -eq 0 ] && PIPELINES=(random:9101 random:9102 random:9103)
if [ ! -x "$NPUFUZZ" ]; then
  echo "upstream_rate: $NPUFUZZ is not an executable" >&2
  exit 2
fi
KNOWN=$(dirname "$0")/../ci/known-signatures.txt
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "upstream_rate: ${BUDGET} s per campaign, --jobs 2, affine style, seed $SEED"
printf '| %-12s | %-9s | %-6s | %-10s | %-5s | %-5s | %-13s |\n' pipeline generator cases \
  signatures known new "per CPU-hour"
printf '| --- | --- | --- | --- | --- | --- | --- |\n'
for p in "${PIPELINES[@]}"; do
  for g in feedback none; do
    dir=$work/$p-$g
    TIMEFORMAT='%U %S'
    t=$({ time { "$NPUFUZZ" fuzz -o "$dir" --pipeline "$p" --guidance "$g" --seed-start "$SEED" \
      --max-time "$BUDGET" --no-reduce --quiet --jobs 2 >"$dir.out" 2>&1 || true; }; } 2>&1)
    if [ ! -f "$dir/summary.json" ]; then
      echo "upstream_rate: the $g campaign on $p did not finish:" >&2
      tail -n 5 "$dir.out" >&2
      exit 2
    fi
    read -r cases sigs known < <(python3 - "$dir/summary.json" "$KNOWN" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
known = set()
for line in open(sys.argv[2]):
    line = line.split('#')[0].strip()
    if line:
        known.add(line.split()[0])
ids = [f['id'] for f in s['findings']]
print(s['cases'], len(ids), sum(1 for i in ids if i in known))
PY
)
    cpu=$(echo "$t" | awk '{print $1 + $2}')
    rate=$(awk -v n="$sigs" -v c="$cpu" 'BEGIN {printf "%.1f", (c > 0 ? n * 3600 / c : 0)}')
    printf '| %-12s | %-9s | %-6s | %-10s | %-5s | %-5s | %-13s |\n' "$p" "$g" "$cases" "$sigs" \
      "$known" "$((sigs - known))" "$rate"
  done
done
