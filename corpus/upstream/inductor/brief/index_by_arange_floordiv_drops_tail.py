"""torch.compile (Inductor) and torch eager disagree on kernel(): exits 1 when they do."""
import sys

try:
    import torch
except ImportError as e:  # the machine's fault, not the bug's
    sys.exit(print("a module it needs is not installed (%s)" % e) or 2)

def _grids(shape):
    return [torch.arange(n).reshape([n if j == i else 1 for j in range(len(shape))])
            for i, n in enumerate(shape)]

def kernel(v0):
    d = _grids([2, 64])
    v1 = v0[torch.as_tensor(0), torch.as_tensor((d[1] // 22))].expand([2, 64])
    return (v1, )


print("torch", torch.__version__)
torch.set_printoptions(threshold=64, edgeitems=4)
x = [torch.tensor([-0.24846226, -1.7400782, -3.4927256], dtype=torch.float32).reshape(1, 3)]
compiled = torch.compile(kernel, fullgraph=True, dynamic=False)
got = compiled(*x)
want = kernel(*x)
tolerance = [(0, 0)]
bad = [k for k, ((rtol, atol), g, w) in enumerate(zip(tolerance, got, want))
       if not torch.allclose(g.double(), w.double(), rtol, atol, equal_nan=True)
       or (w.is_floating_point() and bool(((g == 0) & (w == 0) & (g.signbit() != w.signbit())).any()))]
for k in bad:
    print("output %d differs\n  compiled: %s\n  eager:    %s" % (k, got[k], want[k]))
sys.exit(1 if bad else 0)
