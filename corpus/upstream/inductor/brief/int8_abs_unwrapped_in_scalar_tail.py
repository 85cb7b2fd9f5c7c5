"""torch.compile (Inductor) and torch eager disagree on kernel(): exits 1 when they do."""
import sys

try:
    import torch
except ImportError as e:  # the machine's fault, not the bug's
    sys.exit(print("a module it needs is not installed (%s)" % e) or 2)

def _idiv(x, y):
    # Floor division; x div 0 == 0 and MIN div -1 == MIN, without trapping.
    safe = torch.where((y == 0) | (y == -1), torch.ones_like(y), y)
    q = torch.div(x, safe, rounding_mode="floor")
    return torch.where(y == 0, torch.zeros_like(q), torch.where(y == -1, -x, q))

def kernel(v0, v1, v4):
    v2 = v0.masked_fill(v1, 127)
    v3 = torch.abs(v2)
    v5 = _idiv(v3, v4)
    return (v5, )


print("torch", torch.__version__)
torch.set_printoptions(threshold=64, edgeitems=4)
x = [torch.tensor([6, 7, -3, 7, 3, 0, -4, 4, 3, -5, 8, 7, -7, -1, 5, -2, 7, -3, 3, 8, 8, -8, -2, 1, -7, 4, -1, 5, 6, 3, 8, 1, -1, 8, -1, 3, 7, -8, -6, -6, 8, 4, 0, 5, -128, -2, 4, -5], dtype=torch.int8).reshape(16, 3),
     torch.tensor([False, False, False, False, False, False, False, False, False, False, False, False, False, False, False, False, False, False, False, False, False, False, False, False, False, False, False, False, False, False, False, False, False, False, False, False, False, False, False, False, False, False, False, False, False, False, False, False], dtype=torch.bool).reshape(16, 3),
     torch.tensor([1, -1, 1, -1, -7, -6, 4, -7, -1, 6, 6, -4, -6, 1, 5, 1], dtype=torch.int8).reshape(16, 1)]
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
