//===- backend/mlir/IrSkeleton.cpp - The shape of IR, not its numbers -----===//
#include "backend/mlir/IrSkeleton.h"

#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Operation.h"

#include <algorithm>
#include <vector>

namespace npufuzz {

namespace {

/// The class of one result of an affine map.
std::string exprClass(mlir::AffineExpr e) {
  if (mlir::isa<mlir::AffineConstantExpr>(e))
    return "c";
  if (mlir::isa<mlir::AffineDimExpr, mlir::AffineSymbolExpr>(e))
    return "d";
  bool div = false, scaled = false;
  e.walk([&](mlir::AffineExpr sub) {
    switch (sub.getKind()) {
    case mlir::AffineExprKind::FloorDiv:
    case mlir::AffineExprKind::CeilDiv:
    case mlir::AffineExprKind::Mod: div = true; break;
    case mlir::AffineExprKind::Mul: {
      const auto bin = mlir::cast<mlir::AffineBinaryOpExpr>(sub);
      if (const auto k = mlir::dyn_cast<mlir::AffineConstantExpr>(bin.getRHS());
          k && k.getValue() != 1 && k.getValue() != -1)
        scaled = true;
      break;
    }
    case mlir::AffineExprKind::Add:
    case mlir::AffineExprKind::Constant:
    case mlir::AffineExprKind::DimId:
    case mlir::AffineExprKind::SymbolId: break;
    }
  });
  if (div)
    return "div";
  if (scaled)
    return "d*c";
  return "d"; // a dim plus constants: an offset is a number
}

/// The strongest class of a map's results: its rank is a shape, and a
/// stride in any dim is a strided access.
std::string mapClass(mlir::AffineMap map) {
  static const char *const kOrder[] = {"div", "d*c", "d", "c"};
  for (const char *cls : kOrder)
    for (unsigned i = 0; i < map.getNumResults(); ++i)
      if (exprClass(map.getResult(i)) == cls)
        return std::string("(") + cls + ")";
  return "()";
}

/// Whether `op` computes a payload value: arith and math on non-index
/// values, constants, and region terminators that pass values on.
bool isPayload(mlir::Operation *op) {
  const llvm::StringRef dialect = op->getName().getDialectNamespace();
  const llvm::StringRef name = op->getName().getStringRef();
  if (name.ends_with(".constant") || name.ends_with(".yield") || name == "func.return")
    return true;
  if (dialect != "arith" && dialect != "math")
    return false;
  return llvm::none_of(op->getResultTypes(), [](mlir::Type t) { return t.isIndex(); });
}

/// A loop's step when it is a constant other than 1.
bool hasNonUnitStep(mlir::Operation *op) {
  if (const auto step = op->getAttrOfType<mlir::IntegerAttr>("step"))
    return step.getInt() != 1;
  // scf.for: operands (lb, ub, step, inits...).
  if (op->getName().getStringRef() == "scf.for" && op->getNumOperands() >= 3) {
    llvm::APInt value;
    if (mlir::matchPattern(op->getOperand(2), mlir::m_ConstantInt(&value)))
      return value != 1;
  }
  return false;
}

std::string opSkeleton(mlir::Operation *op);

/// The distinct skeletons of a block's ops, in first-seen order.
std::vector<std::string> blockParts(mlir::Block &block) {
  std::vector<std::string> seen;
  for (mlir::Operation &op : block) {
    if (isPayload(&op))
      continue;
    std::string s = opSkeleton(&op);
    if (std::find(seen.begin(), seen.end(), s) == seen.end())
      seen.push_back(std::move(s));
  }
  return seen;
}

std::string joined(const std::vector<std::string> &parts) {
  std::string out;
  for (const std::string &p : parts)
    out += (out.empty() ? "" : " ") + p;
  return out;
}

std::string opSkeleton(mlir::Operation *op) {
  std::string s = op->getName().getStringRef().str();
  if (hasNonUnitStep(op))
    s += "[step]";
  for (const mlir::NamedAttribute &attr : op->getAttrs()) {
    if (const auto map = mlir::dyn_cast<mlir::AffineMapAttr>(attr.getValue())) {
      // affine.for's bounds are numbers; the access maps are the shape.
      const llvm::StringRef key = attr.getName().strref();
      if (key != "lowerBoundMap" && key != "upperBoundMap")
        s += mapClass(map.getValue());
    } else if (const auto maps = mlir::dyn_cast<mlir::ArrayAttr>(attr.getValue())) {
      for (const mlir::Attribute a : maps)
        if (const auto m = mlir::dyn_cast<mlir::AffineMapAttr>(a))
          s += mapClass(m.getValue());
    }
  }
  // A perfect nest of one kind of loop is one loop: its depth is a rank.
  if (op->getNumRegions() == 1 && op->getRegion(0).hasOneBlock()) {
    const std::vector<std::string> parts = blockParts(op->getRegion(0).front());
    if (parts.size() == 1 && parts[0].rfind(s + "{", 0) == 0)
      return parts[0];
    return s + "{" + joined(parts) + "}";
  }
  for (mlir::Region &region : op->getRegions())
    for (mlir::Block &block : region)
      s += "{" + joined(blockParts(block)) + "}";
  return s;
}

} // namespace

std::string irSkeleton(mlir::Operation *root) {
  std::string out;
  for (mlir::Region &region : root->getRegions())
    for (mlir::Block &block : region)
      out += joined(blockParts(block));
  return out;
}

} // namespace npufuzz
