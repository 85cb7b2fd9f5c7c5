//===- generators/Shrinks.h - Simpler valid variants of a case --*- C++ -*-===//
//
// The shrinker's moves: each candidate is a valid case strictly smaller than
// its parent by caseSize, so repeatedly taking any accepted candidate ends.
// Used by the RapidCheck integration (tests/generators/RapidCheckGen.h) and
// by the reducer.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_GENERATORS_SHRINKS_H
#define NPUFUZZ_GENERATORS_SHRINKS_H

#include "ir/Case.h"

#include <cstdint>
#include <vector>

namespace npufuzz {

/// A weighted measure of how complex a case is: ops (compute ops weigh more
/// than inputs), tasks with their blocks and scalar stores, total elements, ranks, index-expression
/// nodes, dtypes away from f32/i32, valid shapes, non-default attributes and input fills.
uint64_t caseSize(const Case &c);

/// Simpler valid variants of `c`, most promising first: one kernel for a
/// chain, two neighbouring tasks merged, fewer blocks, DMA for scalar
/// stores; drop an output,
/// delete an op (rewiring its uses to an operand of the same type), take a
/// link out of a chain of views (a reshape reads the link's operand), replace
/// an op by an input of its type, shrink a dim everywhere it occurs, simplify
/// index-map expressions, drop unit dims, move dtypes toward f32/i32, widen
/// or make static valid shapes, simplify attributes and fills. Every
/// candidate verifies and has a smaller caseSize. Deterministic.
std::vector<Case> shrinkCandidates(const Case &c);

} // namespace npufuzz

#endif // NPUFUZZ_GENERATORS_SHRINKS_H
