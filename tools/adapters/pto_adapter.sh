#!/bin/sh
# pto_adapter.sh CASE_DIR: assembles CASE_DIR/kernel.pto with PTOAS and hands
# the result to a simulator runner. PTOAS (default: ptoas) and PTO_RUN (a
# command taking the assembled kernel and CASE_DIR, which must read inK.npy
# and write outK.npy) come from the environment.
set -eu
if [ ! -f "$1/kernel.pto" ]; then
  echo "no kernel.pto: the PTO emitter refused the case" >&2
  exit 77
fi
"${PTOAS:-ptoas}" "$1/kernel.pto" -o "$1/kernel.cpp" || exit 78
exec ${PTO_RUN:?set PTO_RUN to the simulator runner} "$1/kernel.cpp" "$1"
