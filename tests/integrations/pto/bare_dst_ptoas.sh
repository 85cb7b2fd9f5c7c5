#!/bin/sh
# Seed 002's class planted in ptoas's output: the result tile of every t-op
# whose name matches $NPUFUZZ_BARE_TOPS (an extended regular expression;
# default TROWEXPAND[A-Z]*, every row-expand t-op) is default-constructed,
# so its valid shape is whatever the stack held. $NPUFUZZ_REAL_PTOAS is the
# ptoas it wraps; the output file is the last argument (ptoas ... -o
# kernel.cpp).
"$NPUFUZZ_REAL_PTOAS" "$@" || exit $?
for arg; do out=$arg; done
tops=${NPUFUZZ_BARE_TOPS:-TROWEXPAND[A-Z]*}
for v in $(grep -E "^ *($tops)\(" "$out" | sed -E 's/^[^(]*\((v[0-9]+),.*/\1/' | sort -u); do
  sed -i -E "s/^( *Tile<[^;]*> $v) = Tile<[^;]*>\([^;]*\);/\1;/" "$out"
done
