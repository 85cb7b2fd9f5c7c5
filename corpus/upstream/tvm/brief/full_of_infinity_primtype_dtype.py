"""Apache TVM (torch.export, Relax) and torch eager disagree on kernel(): exits 1 when they do.

torch.full_like(x, -inf) imports as R.full_like(x, R.const(-inf)); legalizing it crashes in
topi.full with "TypeError: argument of type 'PrimType' is not iterable" (a finite value works)."""
import sys
try:
    import torch, tvm
    from tvm import relax
    from tvm.relax.frontend.torch import from_exported_program
except ImportError as e:  # the machine's fault, not the bug's
    sys.exit(print("a module it needs is not installed (%s)" % e) or 2)

class Kernel(torch.nn.Module):
    def forward(self, x):
        return torch.full_like(x, float("-inf"))

print("torch", torch.__version__, "tvm", tvm.__version__)
x = torch.zeros(2)
mod = from_exported_program(torch.export.export(Kernel(), (x,)))
vm = relax.VirtualMachine(tvm.compile(mod, "llvm"), tvm.cpu())  # the crash is here
got, want = torch.from_dlpack(vm["main"](tvm.runtime.from_dlpack(x))[0]), Kernel()(x)
print("compiled:", got.tolist(), "eager:", want.tolist())
sys.exit(0 if torch.equal(got, want) else 1)
