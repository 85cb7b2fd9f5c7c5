"""A toolchain that writes wrong outputs (as wrong.py) and, the first time
it is given a program of more than two outputs (a cut through a compute
op), aborts instead: a backend whose runtime fails once in a while on the
cut programs op blame runs. Which programs it has seen is kept in the
directory $NPUFUZZ_FLAKY_STATE."""
import hashlib
import json
import os
import runpy
import sys

d = sys.argv[1]
with open(os.path.join(d, "manifest.json")) as f:
    text = f.read()
manifest = json.loads(text)
if len(manifest["outputs"]) > 2:
    seen = os.path.join(os.environ["NPUFUZZ_FLAKY_STATE"],
                        hashlib.sha256(text.encode()).hexdigest())
    if not os.path.exists(seen):
        open(seen, "w").close()
        os.abort()
# Otherwise, wrong.py's wrong outputs.
runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "wrong.py"),
               run_name="__main__")
