//===- oracles/Metamorphic.h - Variants of a case that must agree -*- C++ -*-===//
//
// Metamorphic relations: changes to a case or its compilation that must not
// change any defined output of a correct compiler.
//   padding   inputs' elements outside their valid shapes get other bytes;
//             a change means a defined output read undefined data
//             (uninitialized-read, the seed-002 class for inputs);
//   view      a view is replaced by an input holding its value (the
//             materialised copy); a change means the view's lowering is wrong;
//   lanes     the npu style recompiled with 4 vector lanes instead of 16; a
//             change means lane/tail handling is wrong.
// The first runs for every case with an input valid shape; view and lanes
// run for a deterministic share of the cases whose run agrees with the
// reference (by case hash), to bound the cost.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_ORACLES_METAMORPHIC_H
#define NPUFUZZ_ORACLES_METAMORPHIC_H

#include "backend/mlir/Pipelines.h"
#include "oracles/CaseRunner.h"

#include <optional>
#include <string>

namespace npufuzz {

/// Where a failure only the padding variant showed is: the outputs changed
/// with what lies outside the inputs' valid shapes, which the kernel read.
inline constexpr const char *kPaddingVariant = "metamorphic:padding";

struct MetamorphicFailure {
  VerdictKind verdict = VerdictKind::Mismatch;
  std::string variant; ///< padding, view or lanes: the signature's `where`
  std::string summary;
  /// The view variant: a case of its own (the view an input), which can be
  /// blamed like any case when it goes wrong.
  std::optional<Case> variantCase;
  std::vector<RefTensor> variantInputs; ///< the data it failed on
  std::string variantWhere;             ///< the op of its first wrong output
};

/// Checks the variants against `base` (a run of `c` that gave Ok or
/// Mismatch). `share` in [0, 1] is the fraction of cases that get the view
/// and lanes variants.
std::optional<MetamorphicFailure> checkMetamorphic(const Case &c, MlirJit &jit,
                                                   const RunConfig &config,
                                                   const Pipeline &pipeline,
                                                   const CaseOutcome &base, double share);

} // namespace npufuzz

#endif // NPUFUZZ_ORACLES_METAMORPHIC_H
