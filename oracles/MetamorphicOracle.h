//===- oracles/MetamorphicOracle.h - Variants that must agree with a case -*- C++ -*-===//
//
// A run that agrees with the reference, or gives a wrong result, must agree
// with its metamorphic variants (oracles/Metamorphic.h) on every defined
// output. A variant that does not names the finding (metamorphic:padding,
// :view, :lanes); the view variant, a case of its own, is blamed on a pass
// like any case.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_ORACLES_METAMORPHICORACLE_H
#define NPUFUZZ_ORACLES_METAMORPHICORACLE_H

#include "oracles/Oracle.h"

namespace npufuzz {

class MetamorphicOracle : public Oracle {
public:
  const char *name() const override { return "metamorphic"; }
  void check(OracleContext &ctx, CaseVerdict &verdict) const override;
};

} // namespace npufuzz

#endif // NPUFUZZ_ORACLES_METAMORPHICORACLE_H
