//===- oracles/SkeletonPattern.h - The IR a known bug needs, in a skeleton -*- C++ -*-===//
//
// A known bug is named by the IR it needs, as an IR skeleton
// (backend/mlir/IrSkeleton.h) written by whoever triaged it: the loops,
// accesses and maps without which the pass does not go wrong. A reduced
// finding of the same pass whose skeleton includes that pattern is that bug,
// whatever else its reduction happened to keep beside it (a fillpad's copy
// nest, an allocation, a second loop): reductions of one bug from other
// cases give other skeletons, but each still holds what the bug needs.
//
// Inclusion: the pattern's ops, each with its regions, are found among the
// ops of one block of the skeleton at any depth, each matched by a distinct
// op of the same name (and map class and step mark) whose regions include
// the pattern op's regions in turn, in any order within a block (a
// skeleton lists each distinct op of a block once, in first-seen order,
// which a reduction may change).
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_ORACLES_SKELETONPATTERN_H
#define NPUFUZZ_ORACLES_SKELETONPATTERN_H

#include <string>

namespace npufuzz {

/// Whether `text` is a skeleton: ops separated by single spaces, each a
/// name with no spaces or braces, followed by its regions in braces.
bool isSkeletonText(const std::string &text);

/// Whether `skeleton` includes `pattern`, as above. False when either is
/// not a skeleton.
bool skeletonIncludes(const std::string &skeleton, const std::string &pattern);

} // namespace npufuzz

#endif // NPUFUZZ_ORACLES_SKELETONPATTERN_H
