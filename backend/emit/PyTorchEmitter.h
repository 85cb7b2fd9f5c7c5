//===- backend/emit/PyTorchEmitter.h - A case as a PyTorch program -*- C++ -*-===//
//
// A self-contained Python program for torch.compile/Inductor-based NPU
// stacks: `kernel(...)` holds the case's ops as torch ops, `main` loads
// inK.npy with numpy, runs kernel (under torch.compile when
// NPUFUZZ_TORCH_COMPILE names a backend) and writes outK.npy.
//
// Faithful to ir/Case.h wherever torch allows: f16/bf16 elementwise ops run
// in f32 and round once, transcendentals run in f64 and round to f32, float
// max/min order -0 < +0, integer division is floor division with x/0 == 0,
// sums and matmuls accumulate left to right in explicit loops (max, min
// and argmax, which keep no order, are one max.dim), casts
// saturate. What torch cannot do exactly becomes a `raise
// NotImplementedError` line (non-rne rounding of narrowing float casts and of
// inexact int->float casts). Valid shapes are not masked: every op computes
// on the full tile, set_validshape is the identity and fillpad writes the
// padding, so elements the harness compares are exact. topk uses torch.topk,
// whose order among equal values may differ from the reference's (lower
// index first).
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_EMIT_PYTORCHEMITTER_H
#define NPUFUZZ_BACKEND_EMIT_PYTORCHEMITTER_H

#include "ir/Case.h"

#include <cstdint>
#include <string>

namespace npufuzz {

/// How the program writes the case's ops.
enum class PyTorchForm : uint8_t {
  /// Exact: the semantics above, whatever torch calls that takes.
  Exact,
  /// As a model writes them: one torch call per op, in the element type,
  /// `torch.matmul`, `x.sum(dim)`, `torch.topk`, factories on the device in
  /// the program's `_DEV`. For compilers whose values npufuzz does not
  /// compare (PyTorchSim's code generation), so that they see the graphs
  /// models give them; index maps have no such form.
  Model,
};

/// torch's name of the dtype the programs give `t`: "bfloat16", "bool".
std::string_view torchDtypeName(DType t);

/// Emits the program for the verified case `c`. Returns false with a reason
/// when an op has no torch form. Same case, same bytes.
bool emitPyTorch(const Case &c, std::string &out, std::string &unsupported,
                 PyTorchForm form = PyTorchForm::Exact);

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_EMIT_PYTORCHEMITTER_H
