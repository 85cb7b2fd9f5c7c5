//===- backend/mlir/IrFeedback.h - What a pass was given, as keys -*- C++ -*-===//
//
// Feedback for guided campaigns, read off the IR without instrumenting
// MLIR: for each user pass, the forms of the ops in the module it was
// given, decomposed so that each family saturates: the op with its element
// type and loop depth, the op in the op it sits in, and the op-to-op edges
// (which op feeds which, MLIRod's operation dependencies). Finer forms
// (types with ranks and layouts, edges with their types) made nearly every
// case new, and so no case favoured. A case whose keys were never seen
// reached IR no earlier case gave that pass. Keys are 32-bit hashes of
// stable strings: the same IR gives the same keys on every machine.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_MLIR_IRFEEDBACK_H
#define NPUFUZZ_BACKEND_MLIR_IRFEEDBACK_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <vector>

namespace mlir {
class Operation;
} // namespace mlir

namespace npufuzz {

/// The forms of `root`'s ops and its op-to-op edges, hashed, sorted and
/// distinct, before they are tied to a pass: computed once for IR that
/// several passes leave unchanged.
std::vector<uint64_t> irForms(mlir::Operation *root);

/// Appends the keys of `forms` given to pipeline element `element`.
void addIrFeedback(const std::vector<uint64_t> &forms, llvm::StringRef element,
                   std::vector<uint32_t> &keys);

/// The key of a stable string (a pass that changed the IR, a diagnostic
/// with its numbers dropped, a feature of the case).
uint32_t feedbackKey(llvm::StringRef text);

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_MLIR_IRFEEDBACK_H
