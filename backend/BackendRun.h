//===- backend/BackendRun.h - What running a case on a backend gave -*- C++ -*-===//
//
// Backend-neutral result of compiling and executing one case: the outputs in
// memory layout, or where and why it failed. Oracles turn this into verdicts.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_BACKENDRUN_H
#define NPUFUZZ_BACKEND_BACKENDRUN_H

#include "backend/DmaTrace.h"
#include "backend/KernelTrace.h"
#include "ir/TensorData.h"

#include <optional>
#include <string>
#include <vector>

namespace npufuzz {

struct BackendRun {
  enum class Status : uint8_t {
    Ok,
    Unsupported,   ///< the backend cannot express the case
    VerifierError, ///< IR failed to verify (after codegen or after a pass)
    PassFailure,   ///< a pass signalled failure
    CompileError,  ///< translation to LLVM IR or machine code failed
    RuntimeError,  ///< the kernel could not be invoked
    /// The simulated NPU runtime rejected an operation (a DMA descriptor of
    /// more than 4 dims, out of scratchpad bounds, misaligned, ...); the
    /// message prints the offending descriptor.
    SimulatorFault,
    /// An out-of-process toolchain died: a signal, an assertion, a
    /// sanitizer report. The message starts with that line.
    Crashed,
    TimedOut,    ///< an out-of-process toolchain exceeded its time limit
    OutOfMemory, ///< an out-of-process toolchain exceeded its memory limit
    /// One tool of a toolchain accepted what the next one rejects (ptoas's
    /// C++ that pto-isa does not compile).
    ContractGap,
    /// A memory checker saw the kernel read uninitialised memory.
    UninitializedRead,
    /// The backend could not run the case at all: its command cannot be
    /// executed, a temporary directory cannot be made, the machine refused
    /// a fork. npufuzz's environment, never the tool under test.
    EnvironmentError,
    /// The kernel wrote outside its buffers (a changed redzone), or a
    /// bounds-checked run stopped at a store outside its memref.
    OutOfBoundsWrite,
    /// A bounds-checked run stopped at a load outside its memref.
    OutOfBoundsRead,
  };
  Status status = Status::Ok;
  /// Diagnostics, as the compiler printed them.
  std::string message;
  /// What a finding keeps of the run besides its diagnostics (an external
  /// command's details.txt: a traceback, the code its compiler generated).
  /// Never read by the verdict or the signature.
  std::string details;
  /// The compiler may hold a computed f16/bf16 value in f32 for the op that
  /// reads it (oracles/Exactness.h, ExactnessModel): set by the backend.
  bool lowPrecisionHeldWide = false;
  /// The failure happened while the compiled program ran (a simulator that
  /// asserted or died), not while compiling it: op blame may then look for
  /// the op whose result the program first got wrong (oracles/OpBlame.h).
  /// Set by the backends that can tell.
  bool failedRunning = false;
  /// The process died of a memory error (backend/MemoryError.h): where it
  /// was caught says nothing of which op corrupted memory, so op blame
  /// takes a wrong value before it for the corruption.
  bool memoryError = false;
  /// The backend may compute float sums in any order
  /// (ExactnessModel::floatSumsReassociated).
  bool floatSumsReassociated = false;
  /// The backend may contract an f32 product and a sum into a fused
  /// multiply-add (ExactnessModel::productsContracted).
  bool productsContracted = false;
  /// The backend's signed i32/i64 overflow is undefined
  /// (ExactnessModel::signedOverflowUndefined).
  bool signedOverflowUndefined = false;
  /// A neg or abs of a signed minimum is undefined
  /// (ExactnessModel::negationOverflowUndefined).
  bool negationOverflowUndefined = false;
  /// A float x - x may be 0 for a non-finite x
  /// (ExactnessModel::selfSubtractionFolded).
  bool selfSubtractionFolded = false;
  /// A division by a constant may be a multiplication by its reciprocal
  /// (ExactnessModel::constantDivisorsAsReciprocal).
  bool constantDivisorsAsReciprocal = false;
  /// For VerifierError/PassFailure: the pass and its position in the
  /// pipeline (-1: the IR was invalid before any pass, i.e. codegen).
  std::string passName;
  int passIndex = -1;
  /// Warnings and remarks of passes that succeeded, each under its pass.
  std::string passWarnings;
  /// IR coverage: the distinct `op-name element-type` pairs of the module
  /// at the entry of the user's passes (sorted), and the user pass elements
  /// that changed it. Empty for backends that do not run MLIR passes.
  std::vector<std::string> entryOps, passesThatChanged;
  /// Feedback for guided campaigns (backend/mlir/IrFeedback.h): the forms
  /// and op-to-op edges of the IR each user pass was given, and of what the
  /// last one left, as keys (unsorted, may repeat). Recorded with the IR
  /// coverage.
  std::vector<uint32_t> irFeedback;
  /// The emitted module, and (when asked for) the IR around a failing pass.
  std::string mlir, irBeforePass, irAfterPass;
  std::vector<TensorData> outputs;
  /// The pattern every output was filled with before the kernel ran, when
  /// the backend fills them: elements outside an output's valid shape must
  /// still hold it (ir/Case.h), and the judgement checks that they do.
  std::optional<uint32_t> outputFill;
  /// For an out-of-bounds status, what it is about, without numbers: the
  /// op of a bounds-checked access (`memref.store`), or the kind of buffer
  /// whose redzone changed (`input`, `output`, `temporary`).
  std::string faultSite;
  /// A PTO kernel's pipe trace (backend/KernelTrace.h); empty when it was
  /// not recorded.
  std::vector<TraceEvent> kernelTrace;
  /// Whether `outputs` hold what the program computed. A backend that
  /// compiles but does not run (PyTorchSim's code generation without its
  /// simulators) leaves them empty: its values are not judged, its DMA
  /// trace is.
  bool valuesComputed = true;
  /// Why a backend that computes values did not for this run (PyTorchSim's
  /// model cannot run one of its kernels): empty otherwise.
  std::string valuesWhyNot;
  /// The compiler's own coverage as its adapter wrote it
  /// (compiler-coverage.json, read by driver/CompilerCoverage.h); empty
  /// when the campaign did not ask for it or the backend has no adapter.
  std::string compilerCoverage;
  /// What the program's DMAs moved (backend/DmaTrace.h); empty when the
  /// backend does not record it.
  DmaTrace dmaTrace;
  /// Seconds spent in each stage.
  double emitSeconds = 0, passSeconds = 0, codegenSeconds = 0, executeSeconds = 0;
  /// How long the persistent adapter this run started took to be ready
  /// (included in executeSeconds); negative when the run started none, or
  /// its adapter does not say when it is ready.
  double startSeconds = -1;

  bool ok() const { return status == Status::Ok; }
};

std::string_view statusName(BackendRun::Status s);

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_BACKENDRUN_H
