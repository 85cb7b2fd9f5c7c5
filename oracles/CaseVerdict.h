//===- oracles/CaseVerdict.h - What the oracles decide about a case -*- C++ -*-===//
#ifndef NPUFUZZ_ORACLES_CASEVERDICT_H
#define NPUFUZZ_ORACLES_CASEVERDICT_H

#include "oracles/Verdict.h"

#include <string>

namespace npufuzz {

/// What the oracles decide about one case: its verdict and what names its
/// finding (the signature is made of these). All an oracle may change.
struct CaseVerdict {
  VerdictKind verdict = VerdictKind::Ok;
  std::string summary;  ///< one line
  std::string passName; ///< blamed pass element (the one that miscompiles)
  int passIndex = -1;   ///< its position in the pipeline's elements
  /// When the blamed element is in the lowering or tail: the optimisation
  /// pass after which the case first fails, which only exposed the bug.
  std::string exposedBy;
  /// What the finding is about: the op kind of the first wrong output, or
  /// of the first op that goes wrong (op blame), or the metamorphic variant.
  std::string where;
  std::string difference; ///< the kind of its first difference (differenceKind)
  /// Every element of the first wrong output that differs is one rounding
  /// step off (Comparison::onlyRounding).
  bool onlyRounding = false;
  /// Set by op blame on a backend it cannot bisect by passes: `where` and
  /// `difference` name the op that first went wrong (blamedOpName), and the
  /// finding is that op's whatever the verdict it showed as: a wrong value,
  /// an assertion or an uninitialised read downstream.
  bool rootedAtOp = false;
  /// The op kind (opName) it is rooted at, when rootedAtOp.
  std::string culpritOp;
  /// How this case showed the failure op blame traced back: its verdict and
  /// the op or assertion where it showed (`crash: Assertion ...`,
  /// `uninitialized-read in add`). Empty when not rooted at an op.
  std::string symptom;
  /// A blame child ran out of time: the pass or op it would have named is
  /// missing, so the signature is not the one a finished blame gives. A
  /// campaign runs such a case again at its end with more time; what it
  /// still records says so (its signature's where is "blame timed out").
  bool blameTimedOut = false;
};

} // namespace npufuzz

#endif // NPUFUZZ_ORACLES_CASEVERDICT_H
