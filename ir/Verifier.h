//===- ir/Verifier.h - Type inference and case validation ------*- C++ -*-===//
//
// Result types are a function of operand types and attributes. The verifier
// re-infers every op and checks the stored types, SSA order, attribute ranges
// and that every index-map access stays in bounds.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_IR_VERIFIER_H
#define NPUFUZZ_IR_VERIFIER_H

#include "ir/Case.h"

#include <string>
#include <vector>

namespace npufuzz {

/// Hard limits the verifier enforces so no case can exhaust memory.
constexpr unsigned kMaxRank = 6;
constexpr int64_t kMaxDim = 1 << 16;
constexpr int64_t kMaxTensorElements = 1 << 22;
constexpr int64_t kMaxCaseElements = 1 << 24;

/// Infers the result types of `op` from its operands' types in `c` and its
/// attributes. On failure returns false with a message (no location).
bool inferResultTypes(const Case &c, const Op &op, std::vector<TensorType> &types,
                      std::string &error);

/// The integer range a value's elements are known to lie in, if known
/// (inputs with a Range fill, iota, topk/argmax indices, casts and views of
/// those). Used to prove gather indices in bounds.
bool knownRange(const Case &c, ValueId v, Interval &range);

/// For a view op: the source index expressions (one per source dim) over the
/// result dims. Slice/chunk/transpose/... are all expressed this way.
std::vector<IndexExpr> viewIndexMap(const Case &c, const Op &op);

/// Checks the whole case. Returns an empty string when valid, else a message
/// that names the op (`op 3 (%5 = add)`) and the problem. When `failingOp` is
/// given it receives the index of the offending op, or -1 for a whole-case
/// problem.
std::string verifyCase(const Case &c, int *failingOp = nullptr);

} // namespace npufuzz

#endif // NPUFUZZ_IR_VERIFIER_H
