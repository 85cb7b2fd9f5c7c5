//===- oracles/NondeterminismOracle.h - The same run, the same result -*- C++ -*-===//
//
// A wrong result's kernel is run again, unchanged: a defined output that
// changes reads something that is not a function of the inputs (the
// nondeterministic verdict, keyed by the op of the wrong output).
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_ORACLES_NONDETERMINISMORACLE_H
#define NPUFUZZ_ORACLES_NONDETERMINISMORACLE_H

#include "oracles/Oracle.h"

namespace npufuzz {

class NondeterminismOracle : public Oracle {
public:
  const char *name() const override { return "nondeterminism"; }
  void check(OracleContext &ctx, CaseVerdict &verdict) const override;
};

} // namespace npufuzz

#endif // NPUFUZZ_ORACLES_NONDETERMINISMORACLE_H
