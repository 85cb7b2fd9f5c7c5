//===- oracles/OpBlameOracle.h - The op a wrong result starts at -*- C++ -*-===//
//
// A wrong result, or one that read uninitialised memory, is named by the
// first op that goes wrong (oracles/OpBlame.h) rather than the op of the
// wrong output, when the case's own output names it (not a metamorphic
// variant). The probe runs in a child of its own.
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

} // namespace npufuzz

#endif // NPUFUZZ_ORACLES_OPBLAMEORACLE_H
