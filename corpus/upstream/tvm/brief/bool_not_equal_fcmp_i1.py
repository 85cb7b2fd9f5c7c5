"""Apache TVM (torch.export, Relax) and torch eager disagree on kernel(): exits 1 when they do."""
import sys

try:
    import torch
    import tvm
    from tvm import relax
    from tvm.relax.frontend.torch import from_exported_program
except ImportError as e:  # the machine's fault, not the bug's
    sys.exit(print("a module it needs is not installed (%s)" % e) or 2)

def kernel(v0, v1):
    v2 = v0 != v1
    return (v2, )


print("torch", torch.__version__, "tvm", tvm.__version__)
torch.set_printoptions(threshold=64, edgeitems=4)
x = [torch.tensor([True, False, False, False, False, False, True, False, False, True, False, True, True, False, False, False], dtype=torch.bool).reshape(16,),
     torch.tensor([True, True, False, True, True, False, False, True, True, True, False, True, True, True, True, True], dtype=torch.bool).reshape(16,)]
Kernel = type("Kernel", (torch.nn.Module,), {"forward": lambda self, *a: kernel(*a)})
module = from_exported_program(torch.export.export(Kernel(), tuple(x)))
with tvm.transform.PassContext(opt_level=2, disabled_pass=[], config={}):
    vm = relax.VirtualMachine(tvm.compile(relax.get_pipeline("zero")(module), "llvm"), tvm.cpu())
got = [torch.from_dlpack(r).clone() for r in vm["main"](*[tvm.runtime.from_dlpack(a.clone()) for a in x])]
want = kernel(*x)
tolerance = [(0, 0)]
bad = [k for k, ((rtol, atol), g, w) in enumerate(zip(tolerance, got, want))
       if not torch.allclose(g.double(), w.double(), rtol, atol, equal_nan=True)
       or (w.is_floating_point() and bool(((g == 0) & (w == 0) & (g.signbit() != w.signbit())).any()))]
for k in bad:
    print("output %d differs\n  compiled: %s\n  eager:    %s" % (k, got[k], want[k]))
sys.exit(1 if bad else 0)
