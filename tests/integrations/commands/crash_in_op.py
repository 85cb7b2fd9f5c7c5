"""A toolchain whose compiled program dies of a memory error when the case
has an op of a kind argv[2] matches (a regular expression of op names: one
bug in several op families), and otherwise runs the case right (through
the mlir-tools adapter, argv[4]). argv[3] says how it dies:
  segv      the program segfaults, after it said it was running;
  heap      glibc's heap checks abort it, after it said it was running
            (the same memory error with another heap layout);
  compiler  it segfaults without saying it was running (the compiler's
            crash: nothing for op blame to trace);
  late      the op's result is 1 too large (its kernel corrupted it), and
            the program segfaults only when an op follows it (the heap
            check that notices is a later op's allocation).
An optional argv[5], wrong=KIND, makes every result of an op of kind KIND
1 too large without a crash (a wrong value of its own, such as a known
toolchain behaviour)."""
import json
import os
import re
import signal
import subprocess
import sys

d, kind, how, adapter = sys.argv[1:5]
wrong = sys.argv[5][len("wrong="):] if len(sys.argv) > 5 else None
with open(os.path.join(d, "case.npf")) as f:
    text = f.read()


def add_one_to_outputs(names):
    """Makes the outputs named `names` 1 too large."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import npy_stdlib
    with open(os.path.join(d, "manifest.json")) as f:
        for out in json.load(f)["outputs"]:
            if out["name"] in names:
                path = os.path.join(d, out["file"])
                descr, shape, values = npy_stdlib.load(path)
                npy_stdlib.save(path, descr, shape, [v + 1.0 for v in values])


op = re.search(r"^%%(\S+) = (?:%s) " % kind, text, re.M)
if op is None:
    status = subprocess.call(["sh", adapter, d])
    if status == 0 and wrong:
        add_one_to_outputs(re.findall(r"^%%(\S+) = %s " % re.escape(wrong), text, re.M))
    sys.exit(status)
if how == "late":
    status = subprocess.call(["sh", adapter, d])
    if status != 0:
        sys.exit(status)
    add_one_to_outputs([op.group(1)])
    if re.search(r"^%\S+ = ", text[text.find("\n", op.end()):], re.M) is None:
        sys.exit(0)
if how != "compiler":
    open(os.path.join(d, "running"), "w").close()
if how == "heap":
    sys.stderr.write("Fatal glibc error: malloc assertion failure in __libc_calloc: "
                     "!mem || chunk_is_mmapped (mem2chunk (mem))\n")
    sys.stderr.flush()
    os.abort()
os.kill(os.getpid(), signal.SIGSEGV)
