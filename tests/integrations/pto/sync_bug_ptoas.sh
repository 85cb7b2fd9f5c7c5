#!/bin/sh
# A synchronisation bug planted in ptoas's output (ptoas ... -o kernel.cpp,
# the output file last), the kind $NPUFUZZ_SYNC_BUG names:
#   drop-wait    the first MTE2 -> V wait_flag is gone
#   swap-event   that wait waits on event 1 where its set_flag set event 0
#   drop-tail    the kernel's call of ptoas_auto_sync_tail is gone
#   set-early    the first MTE2 -> V set_flag is moved above its TLOAD
# $NPUFUZZ_REAL_PTOAS is the ptoas it wraps.
"$NPUFUZZ_REAL_PTOAS" "$@" || exit $?
for arg; do out=$arg; done
case "$NPUFUZZ_SYNC_BUG" in
drop-wait) sed -i '0,/^ *wait_flag(PIPE_MTE2, PIPE_V,/{/^ *wait_flag(PIPE_MTE2, PIPE_V,/d}' "$out" ;;
swap-event)
  sed -i '0,/wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0)/s//wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID1)/' \
    "$out" ;;
drop-tail) sed -i '/^ *ptoas_auto_sync_tail(PTOAutoSyncTailMode/d' "$out" ;;
set-early)
  awk '{ line[NR] = $0 }
       /^ *TLOAD\(/ && !moved { load = NR }
       /^ *set_flag\(PIPE_MTE2, PIPE_V,/ && !moved && load { set = NR; moved = 1 }
       END { for (i = 1; i <= NR; i++) {
               if (i == load && set) print line[set]
               if (i != set) print line[i] } }' "$out" >"$out.tmp" && mv "$out.tmp" "$out" ;;
*) echo "sync_bug_ptoas.sh: NPUFUZZ_SYNC_BUG is '$NPUFUZZ_SYNC_BUG'" >&2; exit 2 ;;
esac
