//===- oracles/PassBlameOracle.h - The pass a wrong result starts at -*- C++ -*-===//
//
// A wrong result is blamed on the first optimisation pass whose prefix
// gives it, or through the tail on the lowering element that miscompiles
// what that pass exposed (oracles/PassBlame.h). In-process MLIR passes say
// nothing about an external toolchain. The blame runs in a child of its
// own.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_ORACLES_PASSBLAMEORACLE_H
#define NPUFUZZ_ORACLES_PASSBLAMEORACLE_H

#include "oracles/Oracle.h"
#include "oracles/PassBlame.h"

#include <functional>

namespace npufuzz {

class PassBlameOracle : public Oracle {
public:
  const char *name() const override { return "pass-blame"; }
  void check(OracleContext &ctx, CaseVerdict &verdict) const override;
};

/// `blame` run in a child (OracleContext::inChild); nothing found when the
/// child does not return.
PassBlame passBlameInChild(const OracleContext &ctx, const std::function<PassBlame()> &blame);

} // namespace npufuzz

#endif // NPUFUZZ_ORACLES_PASSBLAMEORACLE_H
