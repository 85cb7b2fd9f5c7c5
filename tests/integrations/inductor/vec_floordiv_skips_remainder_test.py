"""A bug planted in Inductor for npufuzz's tests, loaded by the torch adapter
when NPUFUZZ_INDUCTOR_PATCH names this file (never otherwise).

Vectorised integer floor division in Inductor's C++ kernels lowers the
quotient by one where the operands' signs differ, but no longer tests that
the division leaves a remainder: an exact division of mixed signs (-6 // 3)
comes out one too low (-3), every other division stays right. The scalar
code is untouched, so switch blame names inductor:cpp_vectorization. Random
integers almost never divide exactly with mixed signs; npufuzz's input data
relate a division's operands so that they do.
"""
from torch._inductor.codegen import cpp
from torch._inductor.virtualized import V

_correct = cpp.CppVecOverrides.floordiv


def _planted(a, b):
    if a.dtype.is_floating_point:
        return _correct(a, b)
    vec = f"decltype({b})"
    if hasattr(V.kernel, "num_elems"):
        # torch 2.15: lanes past the kernel's elements divide by 1.
        b = f"{vec}::set({vec}(1), {b}, {cpp.cexpr_index(V.kernel.num_elems)})"
    elif V.kernel._get_raw_num_vectors(b.dtype) < 1:
        return _correct(a, b)  # torch 2.8's partial vectors: left alone
    quotient = f"({a} / {b})"
    mixed_signs = f"(({a} < {vec}(0)) != ({b} < {vec}(0)))"
    return f"{vec}::blendv({quotient}, {quotient} - {vec}(1), {mixed_signs})"


cpp.CppVecOverrides.floordiv = staticmethod(_planted)
