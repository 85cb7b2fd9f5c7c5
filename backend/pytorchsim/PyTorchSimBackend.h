//===- backend/pytorchsim/PyTorchSimBackend.h - PyTorchSim's code generation under test -*- C++
//-*-===//
//
// --backend pytorchsim: the case's PyTorch program, in the form a model
// writes (PyTorchEmitter.h, PyTorchForm::Model), compiled by torch.compile
// on PyTorchSim's `npu` device: Inductor's scheduling and PyTorchSim's MLIR
// code generation, in the user's checkout with its own torch, through the
// persistent adapter tools/adapters/pytorchsim_server.py. PyTorchSim's LLVM
// fork and its simulators are not run (the adapter gives PyTorchSim
// stand-ins for them): npufuzz judges what it generated instead.
//
// How a run ends:
//   PyTorchSim raises while generating code   compile-error, signed by the
//                                             exception and PyTorchSim's
//                                             innermost frame (seed 001)
//   it says it does not do it                 unsupported (NotImplementedError,
//                                             an aten op the npu device lacks)
//   upstream MLIR rejects a kernel            verifier-error, signed by the op
//                                             and the message (seed 000)
//   otherwise                                 ok, with no values and the
//                                             kernels' DMA trace
//                                             (backend/DmaTrace.h), which the
//                                             footprint oracle judges (seed 003)
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_PYTORCHSIM_PYTORCHSIMBACKEND_H
#define NPUFUZZ_BACKEND_PYTORCHSIM_PYTORCHSIMBACKEND_H

#include "backend/BackendRun.h"
#include "ir/Case.h"
#include "ir/TensorData.h"

#include <map>
#include <string>
#include <vector>

namespace npufuzz {

struct PyTorchSimToolchain {
  std::string checkout; ///< the user's PyTorchSim (Toolchains.def "pytorchsim")
  std::string python;   ///< its Python ("pytorchsim-python")
  std::string adapter;  ///< tools/adapters/pytorchsim_server.py
  /// A case's limit: PyTorchSim compiles a kernel in 0.2 to 3 s; an
  /// adapter's first case sets the npu device up (seconds, or about 40 s
  /// when PyTorchSim builds its extension).
  unsigned timeoutSeconds = 120;
};

/// $NPUFUZZ_PYTORCHSIM_ADAPTER, else the source tree's adapter.
std::string defaultPyTorchSimAdapter();

/// The canary: the adapter sets PyTorchSim's npu device up and a one-op add
/// reaches its MLIR. `version` gets `pytorchsim COMMIT torch VERSION`; false
/// with one line naming the checkout otherwise.
bool checkPyTorchSimToolchain(const PyTorchSimToolchain &t, std::string &version,
                              std::string &error);

/// Runs `c` with `inputs` (in input-op order) through PyTorchSim.
BackendRun runPyTorchSim(const PyTorchSimToolchain &t, const Case &c,
                         const std::vector<TensorData> &inputs);

/// What a finding keeps: the model-form program PyTorchSim was given.
std::map<std::string, std::string> pytorchsimPrograms(const Case &c);

/// The DMA trace of a run's directory, as the adapter left it
/// (pytorchsim.json and kernelK.mlir): each kernel judged (KernelDmas.h),
/// each call's DMAs placed in the storages they touch. A kernel that
/// upstream MLIR rejects ends the run as a verifier error; false with
/// `error` when the files are not the adapter's.
/// With the case's `inputs` and `outputTypes`, the calls also run on
/// npufuzz's model of PyTorchSim's NPU (NpuModel.h): the run's outputs and
/// valuesComputed, or valuesWhyNot.
bool readPyTorchSimRun(const std::string &dir, BackendRun &run, std::string &error,
                       const std::vector<TensorData> *inputs = nullptr,
                       const std::vector<TensorType> *outputTypes = nullptr);

/// What the model's storages hold before a kernel writes them (every 32-bit
/// word), as torch.empty leaves them: an output never written is told apart.
constexpr uint32_t kPyTorchSimModelFill = 0x7FC0DEADu;

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_PYTORCHSIM_PYTORCHSIMBACKEND_H
