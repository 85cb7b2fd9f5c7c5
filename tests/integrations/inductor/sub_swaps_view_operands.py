"""A bug planted in Inductor for npufuzz's tests, loaded by the torch adapter
when NPUFUZZ_INDUCTOR_PATCH names this file (never otherwise).

A post-grad pattern of Inductor's pattern matcher rewrites sub(a, b) into
sub(b, a) when a is a view of another tensor (a slice, chunk, narrow,
permute or expand): a graph rewrite that mishandles views, the class of
seed 001. It runs only with the pattern matcher on, so switch blame names
inductor:pattern_matcher; every other sub stays right, and a campaign
finds it only where a view feeds a sub.
"""
import operator

import torch
from torch._inductor.fx_passes.post_grad import pass_patterns
from torch._inductor.pattern_matcher import CallFunction, KeywordArg, register_graph_pattern

aten = torch.ops.aten
_VIEWS = {aten.slice.Tensor, aten.permute.default, aten.narrow.default, aten.select.int,
          aten.expand.default, aten.split.Tensor, aten.split_with_sizes.default, aten.t.default}


def _first_operand_is_a_view(match):
    a = match.kwargs["a"]
    target = getattr(a, "target", None)
    if target is operator.getitem:  # a chunk or split's piece
        target = getattr(a.args[0], "target", None)
    return target in _VIEWS


@register_graph_pattern(CallFunction(aten.sub.Tensor, KeywordArg("a"), KeywordArg("b")),
                        pass_dict=pass_patterns[1], extra_check=_first_operand_is_a_view)
def _planted(match, a, b):
    def swapped(a, b):
        return aten.sub.Tensor(b, a)

    match.replace_by_example(swapped, [a, b])
