#!/usr/bin/env bash
#===- bench/torch_backend.sh - One-shot against persistent torch ----------===#
#
# Cases/s through real PyTorch in one run, on the same seeds and --jobs:
#   one-shot    --backend external --cmd "sh tools/adapters/pytorch_adapter.sh {dir}"
#               (a python process, and an `import torch`, per case)
#   persistent  --backend torch (one adapter per worker; torch_server.py)
# Usage: bench/torch_backend.sh [CASES] [JOBS]   (defaults 60, 2)
#
#===----------------------------------------------------------------------===#
set -euo pipefail
cd "$(dirname "$0")/.."
CASES=${1:-60}
JOBS=${2:-2}
NPUFUZZ=${NPUFUZZ:-build/bin/npufuzz}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

rate() { sed -n 's/.*"cases_per_second": \([0-9.]*\).*/\1/p' "$1/summary.json"; }

"$NPUFUZZ" fuzz -o "$OUT/one-shot" --quiet --no-reduce \
  --jobs "$JOBS" --max-cases "$CASES" --backend external \
  --cmd "sh tools/adapters/pytorch_adapter.sh {dir}" >/dev/null
"$NPUFUZZ" fuzz -o "$OUT/persistent" --quiet --no-reduce --jobs "$JOBS" --max-cases "$CASES" \
  --backend torch >/dev/null
one=$(rate "$OUT/one-shot")
per=$(rate "$OUT/persistent")
echo "one-shot:   $one cases/s ($CASES cases, --jobs $JOBS)"
echo "persistent: $per cases/s ($CASES cases, --jobs $JOBS)"
awk -v a="$one" -v b="$per" 'BEGIN { printf "persistent / one-shot: %.1fx\n", b / a }'
