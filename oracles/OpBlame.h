//===- oracles/OpBlame.h - The first op a black-box backend gets wrong -*- C++ -*-===//
//
// A wrong output names the op that computed it, which is often not the op
// that went wrong: a cast that overflows shows up as a wrong relu, max or
// add downstream, one signature per consumer. A toolchain npufuzz cannot
// bisect by passes (ptoas + pto-isa, torch, an external command) is run
// once more on a probe of the case whose outputs are all its values. Of the
// ops the first wrong output depends on, those whose result differs from
// the reference while their operands agree (or differ only in the sign of
// a zero, and the result otherwise) are candidates; the one blamed
// has the output's kind of difference (a -0 that a later op turns into a
// right 0 explains nothing), and is the nearest the output among those.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_ORACLES_OPBLAME_H
#define NPUFUZZ_ORACLES_OPBLAME_H

#include "oracles/CaseRunner.h"

#include <string>

namespace npufuzz {

struct OpBlame {
  bool found = false;
  size_t opIndex = 0;
  std::string op;         ///< its kind (opName)
  std::string difference; ///< the kind of its first wrong element
  std::string detail;     ///< "%5 = cast ...: <first mismatch>"
};

/// Runs the all-values probe of `c` on `config`'s backend. An op whose
/// signature is in `config.knownSignatures` is blamed only when no other
/// op can be. Not found when
/// the probe does not run (the backend cannot express it, or fails
/// otherwise), when no value is wrong, or when the first wrong value is an
/// input (a load or store, not an op, to blame).
OpBlame blameOp(const Case &c, MlirJit &jit, const RunConfig &config);

} // namespace npufuzz

#endif // NPUFUZZ_ORACLES_OPBLAME_H
