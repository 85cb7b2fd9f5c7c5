"""A bug planted in Inductor for npufuzz's tests, loaded by the torch adapter
when NPUFUZZ_INDUCTOR_PATCH names this file (never otherwise).

aten.sub's lowering swaps its operands when the first is a view of another
buffer (a slice, chunk, narrow or permute that Inductor keeps as a view):
a lowering that mishandles views, the class of seed 001. Every other sub
stays right, so a campaign finds it only where a view feeds a sub.
"""
import torch
from torch._inductor import ir, lowering

aten = torch.ops.aten
_original = lowering.lowerings[aten.sub.Tensor]


def _is_view(x):
    return isinstance(x, ir.TensorBox) and isinstance(x.data, ir.BaseView)


def _planted(a, b, *args, **kwargs):
    if _is_view(a) and isinstance(b, ir.TensorBox):
        a, b = b, a
    return _original(a, b, *args, **kwargs)


lowering.lowerings[aten.sub.Tensor] = _planted
