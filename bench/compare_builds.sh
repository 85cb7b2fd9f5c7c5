#!/usr/bin/env bash
#===- bench/compare_builds.sh - Two npufuzz builds on the same seeds --------===#
#
# Cases per second of two npufuzz binaries on the same seeds, alternated in
# one run so that load and frequency changes fall on both alike, and the
# ratio NEW / OLD per style. What a change costs per case shows as a number
# before it lands (build the older commit elsewhere, e.g. in a git worktree).
#
#   bash bench/compare_builds.sh OLD_NPUFUZZ NEW_NPUFUZZ [CASES] [ROUNDS] [STYLES...]
#
# Each round runs, per style, `fuzz --max-cases CASES --jobs 1
# --metamorphic-share 0 --no-reduce` at O0 from seed 0 with each binary in
# turn (the order alternates between rounds); the rate is CASES over the
# summed wall time of the rounds. Defaults: 300 cases, 2 rounds, affine
# tensor npu.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: bash bench/compare_builds.sh OLD_NPUFUZZ NEW_NPUFUZZ [CASES] [ROUNDS] [STYLES...]" >&2
  exit 2
fi
OLD=$1 NEW=$2 CASES=${3:-300} ROUNDS=${4:-2}
shift $(( $# < 4 ? $# : 4 ))
STYLES=("$@")
[ ${#STYLES[@]} -eq 0 ] && STYLES=(affine tensor npu)
for bin in "$OLD" "$NEW"; do
  if [ ! -x "$bin" ]; then
    echo "compare_builds: $bin is not an executable" >&2
    exit 2
  fi
done
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# seconds BIN STYLE: the wall time of one campaign; a failing one stops all.
seconds() {
  local start end
  rm -rf "$WORK/c"
  start=$(date +%s.%N)
  if ! "$1" fuzz -o "$WORK/c" --style "$2" --max-cases "$CASES" --jobs 1 \
      --metamorphic-share 0 --no-reduce --quiet >"$WORK/out" 2>&1; then
    echo "compare_builds: $1 --style $2 failed:" >&2
    cat "$WORK/out" >&2
    exit 2
  fi
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN { printf "%.6f\n", b - a }'
}

sum() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6f\n", a + b }'; }

printf '%-8s %12s %12s %8s\n' style "old cases/s" "new cases/s" new/old
for style in "${STYLES[@]}"; do
  old=0 new=0
  for ((r = 0; r < ROUNDS; ++r)); do
    if ((r % 2 == 0)); then
      old=$(sum "$old" "$(seconds "$OLD" "$style")")
      new=$(sum "$new" "$(seconds "$NEW" "$style")")
    else
      new=$(sum "$new" "$(seconds "$NEW" "$style")")
      old=$(sum "$old" "$(seconds "$OLD" "$style")")
    fi
  done
  awk -v s="$style" -v n=$((CASES * ROUNDS)) -v o="$old" -v w="$new" \
    'BEGIN { printf "%-8s %12.1f %12.1f %8.3f\n", s, n / o, n / w, o / w }'
done
