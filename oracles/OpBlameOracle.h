//===- oracles/OpBlameOracle.h - The op a failure starts at -----*- C++ -*-===//
//
// A wrong result, or one that read uninitialised memory, is named by the
// first op that goes wrong (oracles/OpBlame.h) rather than the op of the
// wrong output, when the case's own output names it (not a metamorphic
// variant). On a backend that cannot be bisected by passes (runsExternally)
// every failure of the compiled program is: an assertion or crash of the
// simulator, an uninitialised read, a write outside a buffer or region.
// There the op is the root of the finding whatever the verdict was
// (CaseVerdict::rootedAtOp), and the verdict and where it showed are kept
// as its symptom. The probes run in a child of their own.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_ORACLES_OPBLAMEORACLE_H
#define NPUFUZZ_ORACLES_OPBLAMEORACLE_H

#include "oracles/Oracle.h"

namespace npufuzz {

class OpBlameOracle : public Oracle {
public:
  const char *name() const override { return "op-blame"; }
  void check(OracleContext &ctx, CaseVerdict &verdict) const override;
};

/// Whether op blame judges a case whose run ended with `base` (the
/// differential oracle's verdict) on `config`'s backend: a wrong result on
/// any backend; on one that runs externally, any failure of the compiled
/// program too. Other verdicts are final before the oracles
/// (driver/CaseTask.h) except for this.
bool opBlameJudges(const RunConfig &config, const CaseOutcome &base);

} // namespace npufuzz

#endif // NPUFUZZ_ORACLES_OPBLAMEORACLE_H
