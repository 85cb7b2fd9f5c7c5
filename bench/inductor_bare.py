"""bench/inductor_overhead.sh's baseline: every program.py under DIR run in
this one process with its kernel under torch.compile (Inductor, CPU), as
the torch adapter runs it, and nothing else: no reference, no comparison."""
import os
import runpy
import sys

import torch

torch.set_num_threads(1)
os.environ["NPUFUZZ_TORCH_COMPILE"] = "inductor"
root = sys.argv[1]
ran = 0
for name in sorted(os.listdir(root)):
    case = os.path.join(root, name)
    program = os.path.join(case, "program.py")
    if not os.path.isfile(program):
        continue
    sys.argv = [program, case]
    try:
        runpy.run_path(program, run_name="npufuzz_case")["main"]()
    except BaseException:  # what npufuzz calls unsupported or a finding
        pass
    torch._dynamo.reset()
    ran += 1
sys.stdout.write("bare: %d programs\n" % ran)
