"""An independent implementation of `add` on two f32 inputs: the sum of two
floats is computed in double, which holds it exactly, and rounded once to
f32 by struct packing, so it is the correctly rounded f32 sum."""
import json
import os
import struct
import sys

import npy_stdlib

d = sys.argv[1]
with open(os.path.join(d, "manifest.json")) as f:
    manifest = json.load(f)
_, shape, a = npy_stdlib.load(os.path.join(d, "in0.npy"))
_, _, b = npy_stdlib.load(os.path.join(d, "in1.npy"))
sums = [struct.unpack("<f", struct.pack("<f", x + y))[0] for x, y in zip(a, b)]
npy_stdlib.save(os.path.join(d, manifest["outputs"][0]["file"]), "<f4", shape, sums)
