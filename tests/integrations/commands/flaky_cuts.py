"""A toolchain that writes wrong outputs (as wrong.py) and, the first time
it is given a program of more than two outputs (a cut through a compute
op), aborts instead: a backend whose runtime fails once in a while on the
cut programs op blame runs. Which programs it has seen is kept in the
directory $NPUFUZZ_FLAKY_STATE."""
import hashlib
import json
import os
import sys

import npy_stdlib

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
_, _, first = npy_stdlib.load(os.path.join(d, "in0.npy"))
for out in manifest["outputs"]:
    count = 1
    for n in out["shape"]:
        count *= n
    npy_stdlib.save(os.path.join(d, out["file"]), out["npy_descr"], out["shape"],
                    [first[k % len(first)] + 1.0 for k in range(count)])
