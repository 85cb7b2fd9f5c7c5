"""A bug planted in Apache TVM for npufuzz's tests, loaded by the torch
adapter when NPUFUZZ_TVM_PATCH names this file (never otherwise).

Each integer floor_divide of a Relax function becomes the quotient
truncated toward zero, lowered by one where the operands' signs differ,
without testing that the division leaves a remainder: an exact division of
mixed signs (-6 // 3) comes out one too low (-3), every other division
stays right. The rewrite runs just before legalization, as a pass named
FuseOps, so that what disables fusion disables it and switch blame names
tvm:fuse-ops. Random integers almost never divide exactly with mixed signs;
npufuzz's input data relate a division's operands so that they do.
"""
import tvm
from tvm import relax
from tvm.relax.expr_functor import PyExprMutator, mutator

_legalize_ops = relax.transform.LegalizeOps


@mutator
class _SkipRemainderTest(PyExprMutator):
    def visit_call_(self, call):
        call = super().visit_call_(call)
        if not (isinstance(call.op, tvm.ir.Op) and call.op.name == "relax.floor_divide"):
            return call
        dtype = str(call.args[0].ty.dtype)
        if not dtype.startswith("int"):
            return call
        a, b = call.args
        zero = relax.const(0, dtype)
        mixed = relax.op.less(relax.op.multiply(relax.op.sign(a), relax.op.sign(b)), zero)
        return relax.op.subtract(relax.op.divide(a, b), relax.op.astype(mixed, dtype))


@tvm.transform.module_pass(opt_level=0, name="FuseOps")
def _planted(mod, ctx):
    for gv, func in list(mod.functions.items()):
        if isinstance(func, relax.Function):
            mod[gv] = _SkipRemainderTest(mod).visit_expr(func)
    return mod


relax.transform.LegalizeOps = lambda *args, **kwargs: tvm.transform.Sequential(
    [_planted, _legalize_ops(*args, **kwargs)])
