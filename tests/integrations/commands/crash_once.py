"""A toolchain with a memory error that shows only sometimes: the first time
it is given a case (by its manifest) it aborts as glibc's heap check would;
afterwards it computes the case right (correct.py). Which cases it has seen
is kept in the directory $NPUFUZZ_FLAKY_STATE."""
import hashlib
import os
import runpy
import sys

d = sys.argv[1]
with open(os.path.join(d, "manifest.json"), "rb") as f:
    seen = os.path.join(os.environ["NPUFUZZ_FLAKY_STATE"], hashlib.sha256(f.read()).hexdigest())
if not os.path.exists(seen):
    open(seen, "w").close()
    sys.stderr.write("free(): invalid pointer\n")
    sys.stderr.flush()
    os.abort()
runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "correct.py"),
               run_name="__main__")
