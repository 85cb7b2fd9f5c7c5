"""A toolchain whose compiled program dies of a memory error when the case
has an op of the kind argv[2], and otherwise runs the case right (through
the mlir-tools adapter, argv[4]). argv[3] says how it dies:
  segv      the program segfaults, after it said it was running;
  heap      glibc's heap checks abort it, after it said it was running
            (the same memory error with another heap layout);
  compiler  it segfaults without saying it was running (the compiler's
            crash: nothing for op blame to trace)."""
import os
import re
import signal
import subprocess
import sys

d, kind, how, adapter = sys.argv[1:5]
with open(os.path.join(d, "case.npf")) as f:
    has_op = re.search(r"= %s " % re.escape(kind), f.read()) is not None
if not has_op:
    sys.exit(subprocess.call(["sh", adapter, d]))
if how != "compiler":
    open(os.path.join(d, "running"), "w").close()
if how == "heap":
    sys.stderr.write("Fatal glibc error: malloc assertion failure in __libc_calloc: "
                     "!mem || chunk_is_mmapped (mem2chunk (mem))\n")
    sys.stderr.flush()
    os.abort()
os.kill(os.getpid(), signal.SIGSEGV)
