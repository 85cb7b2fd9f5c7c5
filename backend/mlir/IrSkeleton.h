//===- backend/mlir/IrSkeleton.h - The shape of IR, not its numbers -*- C++ -*-===//
//
// What tells two bugs of one pass apart is the IR they need: a loop whose
// step is not one, a subscript with a stride. An IR skeleton keeps that and
// abstracts the rest, so that every case of one bug has one skeleton:
//   - op names and their nesting (regions in braces);
//   - payload ops dropped: arith and math ops on values (not index
//     arithmetic), constants, and every yield/return;
//   - affine maps by the strongest class of their results: `div`
//     (floordiv, ceildiv or mod), else `d*c` (a dim scaled by a constant),
//     else `d` (a dim, plus constants), else `c` (constants);
//   - loops whose constant step is not 1 marked `[step]`, and a perfect
//     nest of one kind of loop written as one (its depth is a rank);
//   - types, shapes, constants and SSA names dropped;
//   - within a block, each distinct op skeleton once, in first-seen order
//     (an unrolled body, a binary op's second load).
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_MLIR_IRSKELETON_H
#define NPUFUZZ_BACKEND_MLIR_IRSKELETON_H

#include <string>

namespace mlir {
class Operation;
} // namespace mlir

namespace npufuzz {

/// The skeleton of `root`'s regions (a module: of its functions).
std::string irSkeleton(mlir::Operation *root);

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_MLIR_IRSKELETON_H
