//===- backend/mlir/MlirJit.h - In-process MLIR passes and JIT --*- C++ -*-===//
//
// Runs emitted MLIR through a pass pipeline with PassManager and executes the
// kernel with ExecutionEngine, in this process. One MLIRContext is reused
// across runs (recreated periodically so memory stays flat). MLIR headers stay
// in the .cpp.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_MLIR_MLIRJIT_H
#define NPUFUZZ_BACKEND_MLIR_MLIRJIT_H

#include "backend/BackendRun.h"
#include "backend/mlir/MlirEmitter.h"

#include <memory>
#include <string>
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
                 const std::vector<TensorData> &inputs,
                 const std::vector<TensorType> &outputTypes, const JitOptions &options);

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

  /// The parameter types of function `entry` in `text`, when every parameter
  /// is a statically shaped memref of a case dtype; false with a reason
  /// otherwise (such a function cannot be driven with generated buffers).
  bool entrySignature(const std::string &text, const std::string &entry,
                      std::vector<TensorType> &params, std::string &error);

  /// Runs `elements` on `text`, compiles it and calls `entry` with one
  /// buffer per parameter; the buffers are read and written in place and
  /// returned as the run's outputs.
  BackendRun execute(const std::string &text, const std::vector<std::string> &elements,
                     const std::string &entry, const std::vector<TensorData> &buffers,
                     const JitOptions &options);

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  Impl &impl();
};

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_MLIR_MLIRJIT_H
