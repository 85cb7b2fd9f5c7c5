//===- backend/mlir/MlirEmitter.h - Lower a case to MLIR text ---*- C++ -*-===//
//
// Codegen from the case model to upstream MLIR, as text. Text keeps MLIR
// headers out of codegen (fast builds) and gives the in-process JIT and an
// external `mlir-opt` exactly the same input.
//
// The kernel ABI: one function `@npf_kernel` taking, in order, a memref per
// case input, a memref per case output (pre-filled by the caller, which may
// poison them), and an `index` for each runtime valid-shape dimension.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_MLIR_MLIREMITTER_H
#define NPUFUZZ_BACKEND_MLIR_MLIREMITTER_H

#include "backend/mlir/LoweringPlan.h"
#include "ir/Case.h"

#include <string>
#include <vector>

namespace npufuzz {

/// How ops are lowered.
enum class MlirStyle : uint8_t {
  /// Affine loop nests over memrefs: views become affine.load subscripts with
  /// their floor/mod maps, valid shapes become symbolic loop bounds, gather
  /// and topk use scf with data-dependent memref.load.
  Affine,
  /// linalg on tensors, bufferized by one-shot-bufferize: elementwise ops,
  /// views and reductions as linalg.generic with indexing maps, slices as
  /// tensor.extract_slice, matmul as linalg.matmul, topk as scf.for on tensors.
  Tensor,
  /// NPU codegen: values live in DRAM, ops stage blocks into a scratchpad
  /// through the simulated DMA engine (<= 4-D descriptors, peeled beyond),
  /// compute on vector lanes with scalar tails, and stage results back.
  Npu,
};

std::string_view mlirStyleName(MlirStyle s);
bool parseMlirStyle(std::string_view s, MlirStyle &out);

struct MlirEmitOptions {
  MlirStyle style = MlirStyle::Affine;
  /// Vector lanes of the npu style's compute.
  unsigned npuLanes = 16;
  /// The forms of the variant points (LoweringPlan.def).
  LoweringPlan plan;
  /// The tensor style only: `@npf_kernel` takes a tensor per input and
  /// returns a tensor per output (the ABI of compilers whose programs are
  /// functions on tensors, such as IREE's), instead of memrefs. Element
  /// types a host array cannot hold cross it widened: index as i64, bf16 as
  /// f32 (exact), i1 as i8; valid-shape dimensions as i64.
  bool tensorAbi = false;
};

/// One kernel argument and where its value comes from.
struct KernelArg {
  enum class Kind : uint8_t { Input, Output, ValidDim };
  Kind kind = Kind::Input;
  /// Input: ordinal among input ops; Output: position in Case::outputs;
  /// ValidDim: the op index whose valid shape is dynamic.
  int index = 0;
  /// ValidDim: 0 for rows, 1 for cols.
  int dim = 0;
  /// ValidDim: the runtime value the case records.
  int64_t value = 0;
};

struct MlirKernel {
  std::string text;                 ///< a complete module
  std::string entry = "npf_kernel"; ///< the function to call
  std::vector<KernelArg> args;
  /// Some vector mask of the kernel may end before its buffer does (a
  /// valid region narrower than its tile): a mask one lane too long, or
  /// none, then writes what must be kept. IR coverage counts such kernels.
  bool maskInsideBuffer = false;
  /// MlirEmitOptions::tensorAbi: the outputs are the function's results,
  /// not arguments (`args` then lists inputs and valid dimensions only).
  bool returnsOutputs = false;
};

/// How IR coverage names the kernels with a mask inside its buffer, beside
/// the `op-name element-type` pairs of their entry IR.
inline constexpr const char *kMaskInsideBufferEntry = "vector.create_mask (ends inside its buffer)";

/// Emits the module for `c`. Returns false with a reason when the case uses
/// something this style cannot express (an `unsupported` verdict).
bool emitMlir(const Case &c, const MlirEmitOptions &options, MlirKernel &out,
              std::string &unsupported);

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_MLIR_MLIREMITTER_H
