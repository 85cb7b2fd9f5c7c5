//===- backend/mlir/MlirJit.h - In-process MLIR passes and JIT --*- C++ -*-===//
//
// Runs emitted MLIR through a pass pipeline with PassManager and executes the
// kernel with one LLVM JIT per process (KernelJit), in this process. One
// MLIRContext is reused across runs (recreated periodically so memory stays
// flat). MLIR headers stay in the .cpp.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_MLIR_MLIRJIT_H
#define NPUFUZZ_BACKEND_MLIR_MLIRJIT_H

#include "backend/BackendRun.h"
#include "backend/mlir/MlirEmitter.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace npufuzz {

struct JitOptions {
  /// Fill pattern of output buffers before the kernel runs (repeated 32-bit
  /// word), so unwritten outputs are recognisable.
  uint32_t poison = 0xA5A5A5A5u;
  /// (The kernel's heap and stack temporaries get `scratchPoison(poison)`,
  /// a different pattern, so a read of either is told from the other.)
  /// On a pass or verifier failure, locate the pass by re-running one
  /// element at a time, and keep the IR before and after it.
  bool locateFailingPass = true;
  /// CPU the kernel is compiled for. A fixed baseline by default, so that a
  /// verdict does not depend on the machine: on a host with AVX512-BF16, LLVM
  /// lowers fptrunc to bf16 with VCVTNEPS2BF16, which flushes denormals.
  /// `host` targets this machine's CPU and features.
  std::string cpu = "x86-64-v3";
  /// The user's elements of the pipeline, [first, first + count), when the
  /// caller knows them: the others, the style's lowering and the tail, are
  /// trusted and run in groups of cached pass managers (a failure is still
  /// named by its element). Unknown: every element runs on its own.
  std::optional<std::pair<size_t, size_t>> userElements;
  /// Verify the IR after every trusted element too, as after the user's
  /// (the default, and what a finding is recorded with). Off, a group of
  /// trusted elements is verified once, after its last: a campaign's
  /// workers only say whether a case fails, and a failing case runs again
  /// in a fresh child with this on, where a trusted element that breaks
  /// the IR is named before a later one can crash on what it left.
  bool verifyTrustedElements = true;
  /// Record the IR coverage of the run (BackendRun::entryOps,
  /// passesThatChanged): the ops at the entry of the user's elements, and
  /// which of them change the IR. Needs `userElements`. Off for reruns and
  /// blame, which would only record it again.
  bool recordIrCoverage = false;
  /// With the IR coverage, record feedback for guided campaigns
  /// (BackendRun::irFeedback): a walk of the IR each user pass is given.
  bool recordFeedback = false;
  /// Check every load and store against its memref's bounds (the
  /// npufuzz-bounds-check element before the tail lowers memrefs): the
  /// first access outside its memref stops the kernel and is the run's
  /// status. Off by default: it is for naming a memory error, and costs
  /// a call per subscript.
  bool boundsCheck = false;
  /// Call the kernel compiled last again, without parsing, passes or code
  /// generation, when it was compiled from the same text, elements and
  /// options (a rerun on other inputs); otherwise compile as usual.
  bool reuseCompiled = false;
};

/// The fill of a kernel's temporaries for output poison `poison`.
constexpr uint32_t scratchPoison(uint32_t poison) { return poison ^ 0x3C3C3C3Cu; }

class MlirJit {
public:
  MlirJit();
  ~MlirJit();
  MlirJit(const MlirJit &) = delete;
  MlirJit &operator=(const MlirJit &) = delete;

  /// Loads a pass plugin; false with a message if it cannot be loaded.
  bool loadPassPlugin(const std::string &path, std::string &error);

  /// Runs `elements` (module-anchored pass pipeline elements) on the kernel's
  /// module, compiles it and calls it with copies of `inputs` and outputs of
  /// `outputTypes` filled with the poison pattern.
  BackendRun run(const MlirKernel &kernel, const std::vector<std::string> &elements,
                 const std::vector<TensorData> &inputs, const std::vector<TensorType> &outputTypes,
                 const JitOptions &options);

  /// The pass-level oracle on arbitrary MLIR text: runs `elements` one at a
  /// time, verifying after each, without executing. Ok, or the failing pass
  /// with its diagnostic and the IR before and after it.
  BackendRun verifyPipeline(const std::string &text, const std::vector<std::string> &elements);

  /// Names what later parsed text comes from (a file), for diagnostics.
  void setSourceName(const std::string &name);

  /// True when `text` parses and verifies; else the diagnostic.
  bool parses(const std::string &text, std::string &diagnostic);

  /// True when every pass of `elements` is known (plugins loaded) and its
  /// options parse; else why not.
  bool checkPipeline(const std::vector<std::string> &elements, std::string &error);

  /// Runs `elements` on `text` and returns the printed result (no execution).
  BackendRun transform(const std::string &text, const std::vector<std::string> &elements);

  /// Runs `elements` on `text` and returns the skeleton of the result
  /// (backend/mlir/IrSkeleton.h) in `skeleton`; false with the diagnostic
  /// when it does not parse or a pass fails.
  bool skeleton(const std::string &text, const std::vector<std::string> &elements,
                std::string &skeleton, std::string &error);

  /// `text` with one op erased, once for each op that can go (the first
  /// `limit` of them): every op of a function's body (nested ones too, in
  /// pre-order) whose results are unused and that ends no block; each
  /// variant verifies. Empty when `text` does not parse. (A reducer of
  /// MLIR, as mlir-reduce's erase-op pattern.)
  std::vector<std::string> erasures(const std::string &text, size_t limit = SIZE_MAX);

  /// How a function of arbitrary MLIR is driven with generated buffers.
  struct EntryDriver {
    /// The function called: the entry itself when it takes only static
    /// identity-layout memrefs and returns nothing, else a public wrapper
    /// added to `text` that takes one memref per parameter (a scalar as
    /// memref<1xT>, a tensor as the memref it is read from) and one per
    /// result (written in place), and calls the entry.
    std::string function;
    std::string text;                ///< the module, with the wrapper if any
    std::vector<TensorType> buffers; ///< one per parameter of `function`
    /// The entry takes or returns tensors: the module must be bufferized
    /// (with function boundaries) before the tail.
    bool bufferize = false;
  };

  /// The driver of function `entry` in `text`; false with the reason when a
  /// parameter or result is not a static memref, a static tensor or a scalar
  /// of a case dtype (f32, f16, bf16, i1, i8, i32, i64, index).
  bool entryDriver(const std::string &text, const std::string &entry, EntryDriver &out,
                   std::string &error);

  /// The public functions with a body in `text`, in order.
  std::vector<std::string> publicFunctions(const std::string &text);

  /// Runs `elements` on `text`, compiles it and calls `entry` with one
  /// buffer per parameter; the buffers are read and written in place and
  /// returned as the run's outputs.
  BackendRun execute(const std::string &text, const std::vector<std::string> &elements,
                     const std::string &entry, const std::vector<TensorData> &buffers,
                     const JitOptions &options);

  /// execute() on several sets of buffers, with the passes run and the code
  /// generated once: each set is called in turn and written in place.
  BackendRun executeEach(const std::string &text, const std::vector<std::string> &elements,
                         const std::string &entry, std::vector<std::vector<TensorData>> &bufferSets,
                         const JitOptions &options);

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  Impl &impl();
};

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_MLIR_MLIRJIT_H
