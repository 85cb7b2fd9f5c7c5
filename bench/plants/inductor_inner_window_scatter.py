"""A bug planted in Inductor for bench/compiler_time_to_bug.sh, loaded by
the torch adapter when NPUFUZZ_INDUCTOR_PATCH names this file (never
otherwise). Written for that benchmark after guidance by the compiler's
coverage was built, and never run on its seeds before it was measured.

A post-grad rule for slice_scatter writes a window of the innermost
dimension one element too far left when the tensor has a narrow element
type (f16, bf16, i8) and the window is interior: it starts after the first
element and ends before the last. So it needs a shape class (an insert
whose window is inside the tile's inner dimension) and an element type at
once; a tail's padding (the window reaches the end) and every wider type
stay right.
"""
import torch
from torch._inductor.fx_passes.post_grad import pass_patterns
from torch._inductor.pattern_matcher import Arg, CallFunction, register_graph_pattern

aten = torch.ops.aten
_NARROW = {torch.float16, torch.bfloat16, torch.int8}


def _interior_inner_window(match):
    base, _src, dim, start, end = match.args
    value = base.meta.get("val") if hasattr(base, "meta") else None
    if value is None or value.dtype not in _NARROW or not isinstance(dim, int):
        return False
    rank = value.dim()
    if dim % rank != rank - 1 or not isinstance(start, int) or not isinstance(end, int):
        return False
    return 0 < start and end < value.shape[-1]


@register_graph_pattern(CallFunction(aten.slice_scatter.default, Arg(), Arg(), Arg(), Arg(), Arg()),
                        pass_dict=pass_patterns[1], extra_check=_interior_inner_window)
def _planted(match, base, src, dim, start, end):
    def shifted(base, src):
        return aten.slice_scatter.default(base, src, dim, start - 1, end - 1)

    match.replace_by_example(shifted, [base, src])
