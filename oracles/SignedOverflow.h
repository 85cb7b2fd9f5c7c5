//===- oracles/SignedOverflow.h - Elements a signed overflow decides -*- C++ -*-===//
//
// The case's integers wrap. A compiler whose signed i32/i64 arithmetic has
// undefined overflow (TVM's LLVM code generation emits it nsw, as C would,
// and its simplifier assumes none) may give anything for an element an
// overflow reaches: ExactnessModel::signedOverflowUndefined. Which elements
// those are is found by evaluating the case again on the same inputs with
// every overflowing operation giving its type's maximum, then its minimum,
// instead of wrapping (reference/Executor.h, SignedOverflow): an element
// that changes read an overflow; one that does not (a select that took the
// other arm, a compare both alternates decide alike) did not, as in LLVM,
// where a select of poison in the arm not taken is no poison.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_ORACLES_SIGNEDOVERFLOW_H
#define NPUFUZZ_ORACLES_SIGNEDOVERFLOW_H

#include "ir/Case.h"
#include "reference/Executor.h"

#include <cstdint>

namespace npufuzz {

/// Makes undefined (not compared) every element of `ref`'s outputs that a
/// signed i32, i64 or index overflow decides; returns how many it did.
/// `ref` must be a successful run of `c`.
int64_t undefineWhatSignedOverflowDecides(const Case &c, RefRun &ref);

/// The same for the overflow of a neg or abs op alone (of an i32 or i64
/// minimum), every other overflow wrapping: Inductor's C++ negates in the
/// element's C type, where that overflow is undefined, and its fix for
/// wrapping add, sub and mul leaves neg and abs out on purpose
/// (pytorch/pytorch#191132 for #190764); g++ -O3 then computes a minimum of
/// negations as a negated maximum. ExactnessModel::negationOverflowUndefined.
int64_t undefineWhatNegationOverflowDecides(const Case &c, RefRun &ref);

} // namespace npufuzz

#endif // NPUFUZZ_ORACLES_SIGNEDOVERFLOW_H
