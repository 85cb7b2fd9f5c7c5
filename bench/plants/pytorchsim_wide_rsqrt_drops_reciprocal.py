"""A bug planted in PyTorchSim's MLIR code generation for
bench/compiler_time_to_bug.sh, loaded by its adapter when
NPUFUZZ_PYTORCHSIM_PATCH names this file (never otherwise). Written for
that benchmark after guidance by the compiler's coverage was built, and
never run on its seeds before it was measured.

When the kernel computes four or more elements a vector step (PyTorchSim
picks the compute vector's width from the kernel's tile: wider for larger
tiles), `rsqrt` (of floats, or of integers PyTorchSim casts to f32 first) is
lowered as `math.sqrt`: the reciprocal is lost in every element of the
kernel. Narrower steps stay right.
The model of PyTorchSim's NPU computes the values, so the plant shows as a
mismatch.
"""
from PyTorchSimFrontend.mlir import mlir_codegen_backend as _backend

_rsqrt = _backend.ExtensionOverrides.rsqrt


def _planted(operand, *args, var_info=None, **kwargs):
    text, info = _rsqrt(operand, *args, var_info=var_info, **kwargs)
    if info[0] >= 4:
        text = text.replace("math.rsqrt", "math.sqrt", 1)
    return text, info


_backend.ExtensionOverrides.rsqrt = staticmethod(_planted)
