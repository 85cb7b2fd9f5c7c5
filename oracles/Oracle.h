//===- oracles/Oracle.h - One interface for every oracle of a case -*- C++ -*-===//
//
// A case is run once and judged against the reference (the differential
// oracle, oracles/CaseRunner.h); then each oracle of defaultOracles(), in
// order, may judge it again from that run: change its verdict, or name
// what the finding is about (the pass, the op, the variant). An oracle sees
// what the ones before it decided, and the order is part of the verdict
// (a nondeterministic run is not also an uninitialised read; op blame names
// the op before pass blame decides whether the op still names the
// finding).
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_ORACLES_ORACLE_H
#define NPUFUZZ_ORACLES_ORACLE_H

#include "backend/mlir/Pipelines.h"
#include "oracles/CaseRunner.h"
#include "oracles/CaseVerdict.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace npufuzz {

/// Everything an oracle judges a case from.
struct OracleContext {
  const Case &c;
  MlirJit &jit;
  const RunConfig &config;
  const Pipeline &pipeline; ///< config.pipeline, resolved
  const CaseOutcome &base;  ///< the differential run of `c`
  /// Runs the base run's kernel again on its inputs, with the output buffers
  /// filled with `poison` before it writes them.
  std::function<BackendRun(uint32_t poison)> rerun;
  /// Runs `work` in a child of its own within the blame limit and returns
  /// what it returned; nothing when the child crashed, hung or failed.
  /// Blame reruns the case under other pipelines, which may crash or hang
  /// where the case did not: that is no blame, never the case's verdict.
  /// (Isolation belongs to the driver, which supplies this.)
  std::function<std::optional<std::string>(const std::function<std::string()> &work)> inChild;
  /// Set by an oracle whose variant of the case, not the case's own wrong
  /// output, names the finding (its `where`).
  bool namedByVariant = false;
  /// Whether the kernel, run again with `poison` (rerun), runs and changes
  /// some output the reference defines.
  bool rerunChangesDefinedOutputs(uint32_t poison) const;
};

class Oracle {
public:
  virtual ~Oracle() = default;
  /// A short name that tells the oracles apart (tests check the order of
  /// defaultOracles() by it).
  virtual const char *name() const = 0;
  /// Judges the case of `ctx` again; `verdict` holds what the differential
  /// oracle and the oracles before this one decided.
  virtual void check(OracleContext &ctx, CaseVerdict &verdict) const = 0;
};

/// Every oracle after the differential one, in the order they judge a
/// case: metamorphic variants, nondeterminism, poison fill, memory errors,
/// op blame, pass blame, switch blame.
std::vector<std::unique_ptr<Oracle>> defaultOracles();

} // namespace npufuzz

#endif // NPUFUZZ_ORACLES_ORACLE_H
