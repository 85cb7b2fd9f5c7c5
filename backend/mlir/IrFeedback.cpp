//===- backend/mlir/IrFeedback.cpp - What a pass was given, as keys -------===//
#include "backend/mlir/IrFeedback.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>

namespace npufuzz {

namespace {

/// The element type by a stable name (no printing: this runs per op).
llvm::StringRef elementName(mlir::Type t) {
  if (t.isF16())
    return "f16";
  if (t.isBF16())
    return "bf16";
  if (t.isF32())
    return "f32";
  if (t.isF64())
    return "f64";
  if (t.isIndex())
    return "index";
  if (t.isInteger(1))
    return "i1";
  if (t.isInteger(8))
    return "i8";
  if (t.isInteger(16))
    return "i16";
  if (t.isInteger(32))
    return "i32";
  if (t.isInteger(64))
    return "i64";
  return "other";
}

} // namespace

std::vector<uint64_t> irForms(mlir::Operation *root) {
  std::vector<uint64_t> forms;
  root->walk([&](mlir::Operation *op) {
    if (op == root)
      return;
    // Decomposed forms, each of a small space, so that novelty saturates:
    // the op with its element type and loop depth, the op in its parent,
    // and the op fed by another.
    unsigned depth = 0;
    for (mlir::Operation *p = op->getParentOp(); p && depth < 7; p = p->getParentOp())
      depth += llvm::isa<mlir::LoopLikeOpInterface>(p);
    mlir::Type t = op->getNumResults()    ? op->getResult(0).getType()
                   : op->getNumOperands() ? op->getOperand(0).getType()
                                          : mlir::Type();
    llvm::SmallString<96> s;
    s += op->getName().getStringRef();
    s += '|';
    s += t ? elementName(mlir::getElementTypeOrSelf(t)) : "none";
    s += '|';
    s += char('0' + depth);
    forms.push_back(llvm::xxh3_64bits(s));
    llvm::SmallString<96> in(op->getName().getStringRef());
    in += "|in|";
    if (mlir::Operation *parent = op->getParentOp())
      in += parent->getName().getStringRef();
    forms.push_back(llvm::xxh3_64bits(in));
    for (mlir::Value v : op->getOperands())
      if (mlir::Operation *def = v.getDefiningOp()) {
        llvm::SmallString<96> e("edge|");
        e += def->getName().getStringRef();
        e += '>';
        e += op->getName().getStringRef();
        forms.push_back(llvm::xxh3_64bits(e));
      }
  });
  std::sort(forms.begin(), forms.end());
  forms.erase(std::unique(forms.begin(), forms.end()), forms.end());
  return forms;
}

void addIrFeedback(const std::vector<uint64_t> &forms, llvm::StringRef element,
                   std::vector<uint32_t> &keys) {
  const uint64_t salt = llvm::xxh3_64bits(element);
  for (const uint64_t f : forms) {
    // A 64-bit mix of the form and the pass, folded to 32 bits.
    uint64_t x = f ^ (salt * 0x9E3779B97F4A7C15ull);
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    keys.push_back(static_cast<uint32_t>(x ^ (x >> 32)));
  }
}

uint32_t feedbackKey(llvm::StringRef text) {
  const uint64_t x = llvm::xxh3_64bits(text);
  return static_cast<uint32_t>(x ^ (x >> 32));
}

} // namespace npufuzz
