//===- backend/pytorchsim/NpuModel.h - PyTorchSim's kernels run on a model of its NPU -*- C++
//-*-===//
//
// The values of a PyTorchSim program, computed by npufuzz: each call of a
// kernel the adapter recorded runs, in order, on the storages the program's
// tensors live in. A kernel runs as the decoder rewrote it
// (KernelDmas::runnable, ModelKernel.h): lowered by upstream MLIR 22's
// trusted tail and run in process, once per vector lane on that lane's
// scratchpads, its DMAs replayed by the model's engine
// (backend/runtime/PyTorchSimDma.h) from the decoder's schedule. What the
// model does not run (a template's systolic array, an indirect access, an
// aten op the wrapper runs besides the kernels) leaves the values
// uncomputed, with the reason: never a guess.
//
// No MLIR here.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_PYTORCHSIM_NPUMODEL_H
#define NPUFUZZ_BACKEND_PYTORCHSIM_NPUMODEL_H

#include "backend/pytorchsim/KernelDmas.h"

#include <cstdint>
#include <string>
#include <vector>

namespace npufuzz {

/// One call of a kernel: where each of its arguments starts.
struct NpuModelCall {
  size_t kernel = 0;
  struct Argument {
    uint32_t storage = 0;
    int64_t byteOffset = 0;
  };
  std::vector<Argument> arguments;
};

/// Runs `calls` of `kernels` (named by `files`) in order on `storages`,
/// written in place. False with `why` when the model cannot run one; then
/// the storages hold what the calls before it left.
bool runOnNpuModel(const std::vector<KernelDmas> &kernels, const std::vector<std::string> &files,
                   const std::vector<NpuModelCall> &calls,
                   std::vector<std::vector<uint8_t>> &storages, std::string &why);

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_PYTORCHSIM_NPUMODEL_H
