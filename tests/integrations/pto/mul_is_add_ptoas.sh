#!/bin/sh
# A ptoas regression planted in its output, confined to one family of
# t-ops: every mul (TMUL, TROWEXPANDMUL, TCOLEXPANDMUL) is emitted as the
# matching add. $NPUFUZZ_REAL_PTOAS is the ptoas it wraps; the output file
# is the last argument (ptoas ... kernel.pto -o kernel.cpp).
"$NPUFUZZ_REAL_PTOAS" "$@" || exit $?
for arg; do out=$arg; done
sed -i -E 's/\bT(ROWEXPAND|COLEXPAND)?MUL\(/T\1ADD(/g' "$out"
