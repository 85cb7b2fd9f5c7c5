"""A bug planted in Apache TVM for bench/compiler_time_to_bug.sh, loaded by
the torch adapter when NPUFUZZ_TVM_PATCH names this file (never
otherwise). Written for that benchmark after guidance by the compiler's
coverage was built, and never run on its seeds before it was measured.

A gather along the innermost axis of a 16-bit float tensor (f16, bf16)
that takes fewer elements than the axis holds (a top-k's values, a
narrowing gather) clips its indices one short of the axis: an index of the
last element reads the one before it. Every other gather stays right. The
rewrite runs just before legalization, as a pass named FoldConstant, so
that what disables constant folding disables it and switch blame names
tvm:fold-constant.
"""
import tvm
from tvm import relax
from tvm.relax.expr_functor import PyExprMutator, mutator

_legalize_ops = relax.transform.LegalizeOps


def _tensor_info(expr):
    info = expr.ty
    if not isinstance(info, relax.TensorType) or info.shape is None:
        return None
    try:
        return str(info.dtype), [int(d) for d in info.shape]
    except (TypeError, ValueError):  # a symbolic dimension
        return None


@mutator
class _ClipLastIndex(PyExprMutator):
    def visit_call_(self, call):
        call = super().visit_call_(call)
        if not (isinstance(call.op, tvm.ir.Op) and call.op.name == "relax.gather_elements"):
            return call
        data, indices = _tensor_info(call.args[0]), _tensor_info(call.args[1])
        if data is None or indices is None or data[0] not in ("float16", "bfloat16"):
            return call
        rank, axis = len(data[1]), int(call.attrs.axis)
        if rank == 0 or axis % rank != rank - 1 or indices[1][-1] >= data[1][-1]:
            return call
        last = data[1][-1]
        clipped = relax.op.minimum(call.args[1], relax.const(max(last - 2, 0), indices[0]))
        return relax.op.gather_elements(call.args[0], clipped, axis)


@tvm.transform.module_pass(opt_level=0, name="FoldConstant")
def _planted(mod, ctx):
    for gv, func in list(mod.functions.items()):
        if isinstance(func, relax.Function):
            mod[gv] = _ClipLastIndex(mod).visit_expr(func)
    return mod


relax.transform.LegalizeOps = lambda *args, **kwargs: tvm.transform.Sequential(
    [_planted, _legalize_ops(*args, **kwargs)])
