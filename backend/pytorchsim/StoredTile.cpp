//===- backend/pytorchsim/StoredTile.cpp - What computed the tile a DMA stores ----===//
#include "backend/pytorchsim/StoredTile.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <set>
#include <vector>

namespace npufuzz {

namespace {

/// The scratchpad a memref is a view of (its memref.global's name), or ""
/// for memory of another kind (a kernel argument, a DMA's tag).
std::string scratchpadOf(mlir::Value m) {
  while (m) {
    mlir::Operation *def = m.getDefiningOp();
    if (!def)
      return "";
    if (auto global = llvm::dyn_cast<mlir::memref::GetGlobalOp>(def))
      return global.getName().str();
    auto view = llvm::dyn_cast<mlir::ViewLikeOpInterface>(def);
    if (!view)
      return "";
    m = view.getViewSource();
  }
  return "";
}

std::string typeText(mlir::Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  mlir::getElementTypeOrSelf(t).print(os);
  return s;
}

/// How the data path names `op`: its name, the predicate or combining
/// kind that tells two of its uses apart, its operands' element type and,
/// for a conversion, its result's.
std::string tokenOf(mlir::Operation *op) {
  std::string s = op->getName().getStringRef().str();
  if (auto cmp = llvm::dyn_cast<mlir::arith::CmpFOp>(op))
    s += " " + mlir::arith::stringifyCmpFPredicate(cmp.getPredicate()).str();
  else if (auto cmp = llvm::dyn_cast<mlir::arith::CmpIOp>(op))
    s += " " + mlir::arith::stringifyCmpIPredicate(cmp.getPredicate()).str();
  else if (auto red = llvm::dyn_cast<mlir::vector::ReductionOp>(op))
    s += " " + mlir::vector::stringifyCombiningKind(red.getKind()).str();
  else if (auto red = llvm::dyn_cast<mlir::vector::MultiDimReductionOp>(op))
    s += " " + mlir::vector::stringifyCombiningKind(red.getKind()).str();
  // A constant by what PyTorchSim's printing of it may have lost: a float
  // that came out zero, an integer past 2^53, where doubles stop holding
  // every integer.
  if (auto constant = llvm::dyn_cast<mlir::arith::ConstantOp>(op)) {
    mlir::Attribute value = constant.getValue();
    if (auto splat = llvm::dyn_cast<mlir::SplatElementsAttr>(value))
      value = splat.getSplatValue<mlir::Attribute>();
    if (auto f = llvm::dyn_cast<mlir::FloatAttr>(value); f && f.getValue().isZero())
      s += " zero";
    if (auto i = llvm::dyn_cast<mlir::IntegerAttr>(value);
        i && !i.getType().isIndex() && i.getValue().getBitWidth() > 54 &&
        i.getValue().abs().ugt(llvm::APInt::getOneBitSet(i.getValue().getBitWidth(), 53)))
      s += " past 2^53";
  }
  // A select by what it selects, not its condition.
  const mlir::Type in = llvm::isa<mlir::arith::SelectOp>(op) ? op->getResult(0).getType()
                        : op->getNumOperands()               ? op->getOperand(0).getType()
                        : op->getNumResults()                ? op->getResult(0).getType()
                                                             : mlir::Type();
  if (!in)
    return s;
  s += " " + typeText(in);
  if (op->getNumOperands() == 1 && op->getNumResults() == 1 &&
      typeText(op->getResult(0).getType()) != typeText(in))
    s += ">" + typeText(op->getResult(0).getType());
  return s;
}

bool isConversion(mlir::Operation *op) {
  return llvm::isa<mlir::arith::ExtFOp, mlir::arith::TruncFOp, mlir::arith::ExtSIOp,
                   mlir::arith::ExtUIOp, mlir::arith::TruncIOp, mlir::arith::SIToFPOp,
                   mlir::arith::UIToFPOp, mlir::arith::FPToSIOp, mlir::arith::FPToUIOp,
                   mlir::arith::IndexCastOp, mlir::arith::BitcastOp>(op);
}

bool writesMemory(mlir::Operation *op) {
  auto effects = llvm::dyn_cast<mlir::MemoryEffectOpInterface>(op);
  return effects && effects.hasEffect<mlir::MemoryEffects::Write>();
}

} // namespace

StoredTiles::StoredTiles(mlir::func::FuncOp kernel) {
  kernel.walk([&](mlir::Operation *op) {
    if (auto dma = llvm::dyn_cast<mlir::memref::DmaStartOp>(op)) {
      const std::string to = scratchpadOf(dma.getDstMemRef());
      const std::string from = scratchpadOf(dma.getSrcMemRef());
      if (!to.empty())
        writers[to].push_back({op, {}});
      if (!from.empty())
        storedOut.insert(from);
      return;
    }
    if (!writesMemory(op))
      return;
    if (auto write = llvm::dyn_cast<mlir::affine::AffineWriteOpInterface>(op)) {
      const std::string to = scratchpadOf(write.getMemRef());
      if (!to.empty())
        writers[to].push_back({op, {write.getValueToStore()}});
      return;
    }
    // Another op that writes memory: the memref its effects name as
    // written, and the values it takes (a vector.store's), or, for an op of
    // memrefs only, none.
    llvm::SmallVector<mlir::MemoryEffects::EffectInstance> effects;
    llvm::cast<mlir::MemoryEffectOpInterface>(op).getEffects(effects);
    std::string to;
    for (const mlir::MemoryEffects::EffectInstance &e : effects)
      if (llvm::isa<mlir::MemoryEffects::Write>(e.getEffect()) && e.getValue() && to.empty())
        to = scratchpadOf(e.getValue());
    Writer w{op, {}};
    for (mlir::Value v : op->getOperands())
      if (!llvm::isa<mlir::MemRefType>(v.getType()) && !v.getType().isIndex())
        w.values.push_back(v);
    if (!to.empty())
      writers[to].push_back(std::move(w));
  });
}

const std::vector<StoredTiles::Writer> &StoredTiles::writersOf(const std::string &tile) const {
  static const std::vector<Writer> none;
  const auto it = writers.find(tile);
  return it == writers.end() ? none : it->second;
}

std::string StoredTiles::computedBy(mlir::memref::DmaStartOp store) const {
  const std::string tile = scratchpadOf(store.getSrcMemRef());
  if (tile.empty())
    return ""; // not a scratchpad's tile: nothing to tell
  // What other DMAs store to memory is judged as its own output: values
  // stored to those tiles (through conversions) end the path.
  auto storedElsewhere = [&](const std::string &g) { return g != tile && storedOut.count(g); };
  llvm::DenseSet<mlir::Value> judgedElsewhere;
  for (const std::string &g : storedOut) {
    if (!storedElsewhere(g))
      continue;
    for (const Writer &w : writersOf(g))
      for (mlir::Value v : w.values)
        for (mlir::Value at = v; at && judgedElsewhere.insert(at).second;) {
          mlir::Operation *def = at.getDefiningOp();
          at = def && isConversion(def) ? def->getOperand(0) : mlir::Value();
        }
  }

  // What the tile's own writers store is on the path, stored elsewhere too
  // or not.
  llvm::DenseSet<mlir::Value> own;
  for (const Writer &w : writersOf(tile))
    own.insert(w.values.begin(), w.values.end());
  std::set<std::string> tokens;
  std::vector<mlir::Value> work;
  llvm::DenseSet<mlir::Value> seen;
  std::set<std::string> scratchpadsRead;
  auto readScratchpad = [&](const std::string &g) {
    if (g.empty() || storedElsewhere(g) || !scratchpadsRead.insert(g).second)
      return;
    for (const Writer &w : writersOf(g)) {
      if (llvm::isa<mlir::memref::DmaStartOp>(w.op))
        continue; // loaded from memory
      if (!llvm::isa<mlir::affine::AffineWriteOpInterface>(w.op) && w.values.empty())
        tokens.insert(tokenOf(w.op)); // a template's op of memrefs
      work.insert(work.end(), w.values.begin(), w.values.end());
      // What an op of memrefs reads.
      if (w.values.empty())
        for (mlir::Value m : w.op->getOperands())
          if (llvm::isa<mlir::MemRefType>(m.getType()) && scratchpadOf(m) != g)
            work.push_back(m);
    }
  };
  readScratchpad(tile);
  while (!work.empty()) {
    mlir::Value v = work.back();
    work.pop_back();
    if (!seen.insert(v).second || v.getType().isIndex() ||
        (judgedElsewhere.count(v) && !own.count(v)))
      continue;
    if (llvm::isa<mlir::MemRefType>(v.getType())) {
      readScratchpad(scratchpadOf(v));
      continue;
    }
    // A loop-carried value: its initial value and what each iteration
    // yields.
    if (auto arg = llvm::dyn_cast<mlir::BlockArgument>(v)) {
      auto loop = llvm::dyn_cast<mlir::LoopLikeOpInterface>(arg.getOwner()->getParentOp());
      if (!loop)
        continue;
      if (mlir::OpOperand *init = loop.getTiedLoopInit(arg))
        work.push_back(init->get());
      if (mlir::OpOperand *yielded = loop.getTiedLoopYieldedValue(arg))
        work.push_back(yielded->get());
      continue;
    }
    mlir::Operation *def = v.getDefiningOp();
    if (auto loop = llvm::dyn_cast<mlir::LoopLikeOpInterface>(def)) {
      const unsigned n = llvm::cast<mlir::OpResult>(v).getResultNumber();
      if (std::optional<llvm::MutableArrayRef<mlir::OpOperand>> yielded =
              loop.getYieldedValuesMutable())
        if (n < yielded->size())
          work.push_back((*yielded)[n].get());
      if (n < loop.getInits().size())
        work.push_back(loop.getInits()[n]);
      continue;
    }
    // A load: the scratchpad's writers, or nothing for memory.
    if (auto effects = llvm::dyn_cast<mlir::MemoryEffectOpInterface>(def);
        effects && effects.hasEffect<mlir::MemoryEffects::Read>() && !writesMemory(def)) {
      for (mlir::Value m : def->getOperands())
        if (llvm::isa<mlir::MemRefType>(m.getType()))
          readScratchpad(scratchpadOf(m));
      continue;
    }
    tokens.insert(tokenOf(def));
    work.insert(work.end(), def->getOperands().begin(), def->getOperands().end());
  }
  std::string s;
  for (const std::string &t : tokens)
    s += (s.empty() ? "" : ", ") + t;
  return s.empty() ? "copy" : s;
}

} // namespace npufuzz
