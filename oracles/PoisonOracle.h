//===- oracles/PoisonOracle.h - Defined outputs do not read the fill -*- C++ -*-===//
//
// A wrong result's kernel is run again with output buffers filled with
// other bytes (the poison differential): a defined output that changes
// read memory nobody wrote (uninitialized-read), the seed-002 class for
// outputs and temporaries. Only on a backend that takes npufuzz's fill
// (BackendRun::outputFill): one that allocates its outputs itself reruns
// alike with any poison, and the nondeterminism oracle judges its reruns.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_ORACLES_POISONORACLE_H
#define NPUFUZZ_ORACLES_POISONORACLE_H

#include "oracles/Oracle.h"

namespace npufuzz {

class PoisonOracle : public Oracle {
public:
  const char *name() const override { return "poison"; }
  void check(OracleContext &ctx, CaseVerdict &verdict) const override;
};

} // namespace npufuzz

#endif // NPUFUZZ_ORACLES_POISONORACLE_H
