//===- driver/Export.h - A finding as the script its compiler's tracker takes -*- C++ -*-===//
//
// `npufuzz export` writes a case (a finding's reduced case, when it has one)
// as one self-contained reproducer in the compiler's own API: a Python
// script that builds the case's inputs (embedded), runs the compiler the
// way the backend did (the switches of the case's lowering seed
// included), compares with the expected outputs (npufuzz's reference of the
// program's semantics, embedded, under the exactness model's freedoms of
// that compiler) and exits 1 when the bug shows, 0 when it does not. It
// imports nothing of npufuzz. For IREE, the script holds the tensor kernel
// the backend emitted and calls iree-compile with the finding's flags, then
// IREE's runtime. For MLIR, the emitted kernel with the mlir-opt line that
// runs its pipeline. For PyTorchSim, whose simulators compute no values
// here, the script shows what its code generation raises and which kernel
// it writes MLIR refuses; a finding read from a kernel's DMAs (npufuzz's
// footprint oracle) has no such script.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_DRIVER_EXPORT_H
#define NPUFUZZ_DRIVER_EXPORT_H

#include "backend/BackendKind.h"
#include "backend/CompilerSwitches.h"
#include "backend/mlir/MlirEmitter.h"
#include "driver/ReduceCommand.h"
#include "ir/Case.h"

#include <optional>
#include <string>
#include <vector>

namespace npufuzz {

#define NPUFUZZ_EXPORT_FORMS(X)                                                                    \
  X(Torch, "torch",                                                                                \
    "a brief script for Inductor's tracker: torch.compile beside torch eager, one comparison")     \
  X(Tvm, "tvm", "a brief script for TVM's tracker: TVM through torch.export beside torch eager")   \
  X(TorchHarness, "torch-harness",                                                                 \
    "torch.compile through Inductor, as --backend inductor runs it, judged against npufuzz's "     \
    "reference")                                                                                   \
  X(TvmHarness, "tvm-harness",                                                                     \
    "Apache TVM through torch.export, as --backend tvm runs it, judged against npufuzz's "         \
    "reference")                                                                                   \
  X(Iree, "iree",                                                                                  \
    "a brief script for IREE's tracker: the tensor kernel compiled and run, one comparison "       \
    "with its expected values")                                                                    \
  X(IreeHarness, "iree-harness",                                                                   \
    "iree-compile and IREE's runtime on the tensor kernel, as --backend iree runs it, judged "     \
    "against npufuzz's reference")                                                                 \
  X(Mlir, "mlir", "the emitted kernel and the mlir-opt line of its pipeline")                      \
  X(PyTorchSim, "pytorchsim",                                                                      \
    "PyTorchSim's code generation on its npu device, each kernel it writes verified by "           \
    "mlir-opt, as --backend pytorchsim runs it")

enum class ExportForm : uint8_t {
#define NPUFUZZ_X(Id, name, what) Id,
  NPUFUZZ_EXPORT_FORMS(NPUFUZZ_X)
#undef NPUFUZZ_X
};

/// A form's name ("torch", "tvm", ...); false for anything else.
bool parseExportForm(std::string_view name, ExportForm &out);
/// "torch, tvm, torch-harness, tvm-harness, iree, mlir, pytorchsim".
std::string exportFormNames();
/// "repro.py" or "repro.mlir".
const char *exportFileName(ExportForm form);

/// The form a finding of `backend` is kept in beside its reduced case (what
/// CI checks): torch-harness for Inductor, tvm-harness, iree, pytorchsim,
/// mlir for npufuzz's MLIR backends; none for a backend whose compiler takes no such script
/// (ptoas, simpler, eager torch, a user's command).
std::optional<ExportForm> exportFormOf(BackendKind backend);

/// Where a case to export came from, for the script's header.
struct ExportSource {
  std::string path;      ///< the case file
  std::string signature; ///< its finding's signature text, when known
  std::string backend;   ///< the backend that found it, when known
};

/// The reproducer of the verified case `c` as `form`, run as `how` says
/// (its expect line: style, pipeline, lowering seed); false with the reason
/// when the case has no such form (an op the PyTorch program cannot write)
/// or the reference cannot run it.
bool exportCase(const Case &c, const Expectation &how, ExportForm form, const ExportSource &source,
                std::string &out, std::string &error);

/// What the switches `states` change of Inductor's config, as the adapter
/// sets it (tools/adapters/torch_server.py): a Python dict of the keys
/// whose value is not the default ("{}" for none), and whether sizes are
/// symbols (static_shapes off: torch.compile's dynamic=True).
std::string inductorConfigChanges(const SwitchStates &states, bool &dynamic);

/// Whether the switches `states` ask for more than torch.compile and a
/// config patch: the case's weights (`weights`, weightInputs in
/// ir/Case.h) as a module's parameters (freezing), or max-autotune.
bool frozenOrAutotuned(const SwitchStates &states, const std::vector<size_t> &weights);

/// The Python of `_compile(kernel)`, which returns a run(*args) that
/// compiles kernel() as the adapter does (tools/adapters/torch_server.py)
/// for `states`, under a `_CONFIG` dict the script defines: its weights
/// a module's parameters with freezing on (frozenOrAutotuned), one
/// max-autotune choice; `dynamic`: sizes as symbols.
std::string inductorCompileFunction(const SwitchStates &states, const std::vector<size_t> &weights,
                                    bool dynamic);

/// The PyTorch program of the verified case `c`; false with the reason when
/// an op has no torch form or none torch computes exactly (the program
/// would raise: the backend's `unsupported`).
bool exactPyTorchProgram(const Case &c, std::string &program, std::string &error);

/// A PyTorch program's top-level blocks (parted by two blank lines) without
/// the helpers (`def _name`) nothing kept calls.
std::string programBlocksInUse(const std::string &program);

/// The tensor kernel `--backend iree` compiles for the verified case `c`,
/// run as `how` says; false with the reason when the case has none, or
/// its text cannot be a Python raw string.
bool ireeTensorKernel(const Case &c, const Expectation &how, MlirKernel &kernel,
                      std::string &error);

/// iree-compile's flags for `states`, as the adapter passes them
/// (tools/adapters/iree_server.py), the target device first.
std::vector<std::string> ireeCompileFlags(const SwitchStates &states);

/// The arguments of TVM's PassContext for `states`, as the adapter passes
/// them (tools/adapters/tvm_compile.py): "opt_level=2, disabled_pass=[...],
/// config={...}".
std::string tvmPassContextArguments(const SwitchStates &states);

} // namespace npufuzz

#endif // NPUFUZZ_DRIVER_EXPORT_H
