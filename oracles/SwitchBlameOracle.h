//===- oracles/SwitchBlameOracle.h - The optimisation a failure needs -*- C++ -*-===//
//
// Pass blame for compilers npufuzz drives as black boxes (Inductor, IREE):
// the case runs again with each optimisation that was on for it turned off
// (backend/CompilerSwitches.def), one at a time in blame order, and the
// first whose absence makes the failure vanish (the case passes) names the
// finding, as its pass: `inductor:epilogue_fusion`, `iree:data-tiling`. A
// failure no single switch removes is left unnamed, and so, after one run,
// is one that stays, as the same kind of failure, with all of them off. Each rerun is a
// child of its own: a compiler may hang or crash where the case did not.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_ORACLES_SWITCHBLAMEORACLE_H
#define NPUFUZZ_ORACLES_SWITCHBLAMEORACLE_H

#include "oracles/Oracle.h"

namespace npufuzz {

class SwitchBlameOracle : public Oracle {
public:
  const char *name() const override { return "switch-blame"; }
  void check(OracleContext &ctx, CaseVerdict &verdict) const override;
};

} // namespace npufuzz

#endif // NPUFUZZ_ORACLES_SWITCHBLAMEORACLE_H
