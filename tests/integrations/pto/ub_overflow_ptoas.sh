#!/bin/sh
# A layout bug planted in ptoas's output (seed 004's class): the tile at the
# highest on-chip address is moved to the end of A2/A3's 192 KiB UB, so all
# of it lies past UB's end, whatever its size. (The address constant itself
# is rewritten; a kernel that used it for anything else changes there too.) $NPUFUZZ_REAL_PTOAS is the ptoas it
# wraps; the output file is the last argument (ptoas ... -o kernel.cpp).
"$NPUFUZZ_REAL_PTOAS" "$@" || exit $?
for arg; do out=$arg; done
# The address operands of TASSIGN (constants `const int64_t vN = A;`), and
# of those the one with the highest address.
last=$(grep -oE 'TASSIGN\(v[0-9]+, v[0-9]+\)' "$out" | sed -E 's/.*, (v[0-9]+)\)/\1/' | sort -u |
  while read -r v; do
    sed -n -E "s/^ *const int64_t $v = ([0-9]+);/\1 $v/p" "$out"
  done | sort -n | tail -1 | cut -d' ' -f2)
[ -n "$last" ] && sed -i -E "s/^( *const int64_t $last = )[0-9]+;/\1196608;/" "$out"
exit 0
