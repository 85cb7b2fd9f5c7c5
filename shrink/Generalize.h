//===- shrink/Generalize.h - What a failure really needs --------*- C++ -*-===//
//
// A signature names the op where a wrong value first showed, and the
// blamed pass with every option it was given. Neither need be what the
// failure needs: a pass that ignores a loop's step breaks whichever op's
// loop comes first, and an option may not matter. Generalisation finds out
// by running variants of the failing case ("Taming Compiler Fuzzers",
// Chen et al., PLDI 2013):
//   - its op family: every op of the family swapped for ops of other
//     families of their arity that take their dtypes (two tries, both of
//     which must keep the failure: a swapped-in op may have a bug of its
//     own), or, for ops with no such swap (views, casts, gathers, ...),
//     made a neg of a fresh input of their type (one per result: topk has
//     two), which keeps a loop over each result but not what they did. When the variants still fail
//     with the same verdict, pass and message, first in an op put in the
//     family's place or in an input's copy (kAnyOp), the family does not
//     matter and the signature's where becomes kAnyOp;
//   - the blamed pass's options: the pass without them. When the same
//     failure remains, the signature names the pass without options.
//   - for an undefined result of a black-box program (op blame names it by
//     its op's shape form: elementwise, row_expand_*, col_expand_*, ...),
//     its shape form: every op of the form rebuilt in each of the two
//     other forms, with the same result (operands of the op's own of the
//     type the form takes, else fresh inputs), or, for a form with no such
//     rebuild (a reduction, a view), substituted. Failing alike in both,
//     first in an op put in its place, one toolchain bug touching several
//     t-op families is one root under kAnyOp; a bug of one form stays
//     that form's;
// Only a wrong value's op family, or an undefined result's form, is
// generalised (a crash's where is its stack). Every variant drops the
// passes after the blamed one.
//
// For a bucket the same questions are asked of a reduced case about each
// op family left in it, and about its dtype class.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_SHRINK_GENERALIZE_H
#define NPUFUZZ_SHRINK_GENERALIZE_H

#include "backend/mlir/Pipelines.h"
#include "oracles/Bucket.h"
#include "shrink/Interestingness.h"

#include <set>
#include <string>

namespace npufuzz {

/// What generalisation cost.
struct GeneralizeCost {
  unsigned tests = 0; ///< variants run
  double seconds = 0;
  /// A variant could not run (the machine refused it) or ran out of time:
  /// another try, with more time, may answer otherwise.
  bool undecided = false;
};

/// `seen`, the signature `failing` fails with, with only what the failure
/// needs (unchanged when nothing could be shown). Variants run through
/// `run`, pipelines expand for `style` at `stage`.
Signature generalizeSignature(const Candidate &failing, const Signature &seen,
                              const CandidateRunner &run, MlirStyle style, PassStage stage,
                              GeneralizeCost *cost = nullptr);

/// What a reduced case's failure needs, for its bucket.
struct FailurePattern {
  /// The op families whose ops the failure needs (each swapped or removed,
  /// it is gone); {kAnyOp} when it needs none of those left.
  std::set<std::string> families;
  /// The dtype classes (float, int, bool) of the case's results, or {"any"}
  /// when the failure stays with its floats made integers or the reverse.
  std::set<std::string> dtypeClasses;
};

/// The pattern of `reduced`, which fails with the root cause `target`.
FailurePattern failurePattern(const Candidate &reduced, const Signature &target,
                              const CandidateRunner &run, MlirStyle style, PassStage stage,
                              GeneralizeCost *cost = nullptr);

} // namespace npufuzz

#endif // NPUFUZZ_SHRINK_GENERALIZE_H
