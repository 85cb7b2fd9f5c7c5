//===- oracles/Backend.h - One interface for every backend under test -*- C++ -*-===//
//
// A backend runs a case's kernel and says what a finding on it keeps. Each
// row of backend/Backends.def is one class here, made by makeBackend from a
// RunConfig; nothing else asks which backend it is.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_ORACLES_BACKEND_H
#define NPUFUZZ_ORACLES_BACKEND_H

#include "backend/BackendRun.h"
#include "ir/Case.h"
#include "ir/TensorData.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace npufuzz {

class MlirJit;
struct MlirKernel;
struct RunConfig;

/// What one run of a case's kernel is given.
struct KernelRun {
  const Case &c;
  MlirJit &jit;                             ///< for the in-process backend
  const MlirKernel &kernel;                 ///< the emitted MLIR (empty when it has none)
  const std::vector<std::string> &elements; ///< the pipeline's passes
  const std::vector<TensorData> &inputs;
  const std::vector<TensorType> &outputTypes;
  uint32_t poison; ///< the fill of output buffers
};

class Backend {
public:
  virtual ~Backend() = default;
  virtual BackendRun run(const KernelRun &k) const = 0;
  /// Programs a finding keeps beside case.npf (program.py, kernel.pto,
  /// kernel.cpp): what this backend was, or could have been, given.
  virtual std::map<std::string, std::string> programs(const Case &c) const { return {}; }
  /// How many consecutive cases a campaign should have built together,
  /// ahead of their runs (1: each case builds alone).
  virtual unsigned batchSize() const { return 1; }
  /// Builds the kernels of `cases` together where run() finds them (in an
  /// isolated child of the campaign). Run without it, a case builds alone
  /// and gets the same verdict.
  virtual void prebuild(const std::vector<Case> &cases) const {}
};

/// The backend `config` selects, set up with its part of `config`.
std::unique_ptr<Backend> makeBackend(const RunConfig &config);

} // namespace npufuzz

#endif // NPUFUZZ_ORACLES_BACKEND_H
