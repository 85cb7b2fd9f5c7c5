//===- backend/pytorchsim/KernelDmas.cpp - A PyTorchSim kernel, verified and its DMAs decoded -===//
#include "backend/pytorchsim/KernelDmas.h"

#include "backend/pytorchsim/DmaStart.h"
#include "backend/pytorchsim/ModelKernel.h"
#include "backend/pytorchsim/StoredTile.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Parser/Parser.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <climits>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

namespace npufuzz {

namespace {

/// One context for every kernel of this process, renewed now and then so
/// that the types and attributes of many kernels do not pile up.
mlir::MLIRContext &context() {
  static std::unique_ptr<mlir::MLIRContext> ctx;
  static unsigned uses = 0;
  if (!ctx || ++uses > 256) {
    mlir::DialectRegistry registry;
    mlir::registerAllDialects(registry);
    ctx = std::make_unique<mlir::MLIRContext>(registry, mlir::MLIRContext::Threading::DISABLED);
    ctx->loadAllAvailableDialects();
    // Ops of PyTorchSim's fork fail to parse as unregistered ops: upstream
    // MLIR's word, and so a rejection.
    uses = 0;
  }
  return *ctx;
}

std::string lineOf(const std::string &text, unsigned line) {
  std::istringstream in(text);
  std::string l;
  for (unsigned n = 1; std::getline(in, l); ++n)
    if (n == line) {
      const size_t first = l.find_first_not_of(" \t");
      return first == std::string::npos ? std::string() : l.substr(first);
    }
  return "";
}

/// The op a line of PyTorchSim's text defines or is (`arith.cmpi`).
std::string opOfLine(const std::string &line) {
  static const std::regex op(R"re((?:^|=\s*)"?([a-z_][a-z0-9_]*\.[a-z0-9_.]+)"?)re");
  std::smatch m;
  return std::regex_search(line, m, op) ? m[1].str() : std::string("?");
}

/// A diagnostic without what differs between kernels of one bug: SSA
/// names, quoted values' names, numbers.
std::string withoutNames(const std::string &message) {
  static const std::regex ssa(R"(%[A-Za-z0-9_$.-]+)"), number(R"(\d+)");
  return std::regex_replace(std::regex_replace(message, ssa, "%v"), number, "N");
}

int64_t evaluate(mlir::AffineExpr e, llvm::ArrayRef<int64_t> dims, llvm::ArrayRef<int64_t> syms) {
  if (auto c = llvm::dyn_cast<mlir::AffineConstantExpr>(e))
    return c.getValue();
  if (auto d = llvm::dyn_cast<mlir::AffineDimExpr>(e))
    return dims[d.getPosition()];
  if (auto s = llvm::dyn_cast<mlir::AffineSymbolExpr>(e))
    return syms[s.getPosition()];
  auto b = llvm::cast<mlir::AffineBinaryOpExpr>(e);
  const int64_t l = evaluate(b.getLHS(), dims, syms), r = evaluate(b.getRHS(), dims, syms);
  auto floorDiv = [](int64_t a, int64_t q) {
    const int64_t d = a / q;
    return (a % q != 0 && ((a < 0) != (q < 0))) ? d - 1 : d;
  };
  switch (e.getKind()) {
  case mlir::AffineExprKind::Add: return l + r;
  case mlir::AffineExprKind::Mul: return l * r;
  case mlir::AffineExprKind::FloorDiv: return r == 0 ? 0 : floorDiv(l, r);
  case mlir::AffineExprKind::CeilDiv: return r == 0 ? 0 : -floorDiv(-l, r);
  case mlir::AffineExprKind::Mod: return r == 0 ? 0 : l - r * floorDiv(l, r);
  case mlir::AffineExprKind::Constant:
  case mlir::AffineExprKind::DimId:
  case mlir::AffineExprKind::SymbolId: break;
  }
  return 0;
}

/// Walks a kernel's loop nest with every index known.
class Walker {
public:
  Walker(const std::string &text, const std::vector<DmaAsk> &asks, KernelDmas &out, size_t maxMoves)
      : text(text), asks(asks), out(out), maxMoves(maxMoves) {}

  bool kernel(mlir::func::FuncOp f) {
    for (mlir::BlockArgument a : f.getArguments()) {
      auto t = llvm::dyn_cast<mlir::MemRefType>(a.getType());
      KernelDmas::Argument arg;
      arg.name = "%arg" + std::to_string(a.getArgNumber());
      if (t && t.hasStaticShape()) {
        arg.elements = t.getNumElements();
        const mlir::Type e = t.getElementType();
        arg.elementBytes = elementBytesOf(e);
        llvm::raw_string_ostream(arg.elementType) << e;
      }
      out.arguments.push_back(arg);
    }
    // The names PyTorchSim gave them, from its signature.
    static const std::regex names(R"(%([A-Za-z0-9_]+)\s*:\s*memref)");
    const size_t at = text.find("func.func @" + f.getSymName().str());
    const size_t open = text.find('(', at), close = text.find(')', open);
    if (at != std::string::npos && open != std::string::npos && close != std::string::npos) {
      const std::string signature = text.substr(open, close - open);
      size_t k = 0;
      for (std::sregex_iterator m(signature.begin(), signature.end(), names), e;
           m != e && k < out.arguments.size(); ++m, ++k)
        out.arguments[k].name = "%" + (*m)[1].str();
    }
    entry = &f.getBody().front();
    return block(*entry);
  }

  std::string why;

private:
  struct Loop {
    mlir::Value iv;
    int64_t value = 0, upper = 0, step = 1;
    std::string name; ///< its variable as PyTorchSim named it (`index0`)
  };

  std::optional<int64_t> value(mlir::Value v) {
    auto it = known.find(v);
    if (it != known.end())
      return it->second;
    return std::nullopt;
  }

  bool fail(const std::string &reason) {
    if (why.empty())
      why = reason;
    return false;
  }

  static bool holdsDma(mlir::Operation *op) {
    bool found = false;
    op->walk([&](mlir::memref::DmaStartOp) { found = true; });
    return found;
  }

  std::optional<int64_t> bound(mlir::AffineMap map, mlir::OperandRange operands, bool lower) {
    llvm::SmallVector<int64_t> dims, syms;
    for (unsigned i = 0; i < operands.size(); ++i) {
      std::optional<int64_t> v = value(operands[i]);
      if (!v)
        return std::nullopt;
      (i < map.getNumDims() ? dims : syms).push_back(*v);
    }
    std::optional<int64_t> chosen;
    for (mlir::AffineExpr e : map.getResults()) {
      const int64_t v = evaluate(e, dims, syms);
      if (!chosen || (lower ? v > *chosen : v < *chosen))
        chosen = v;
    }
    return chosen;
  }

  bool block(mlir::Block &b) {
    for (mlir::Operation &op : b) {
      if (auto c = llvm::dyn_cast<mlir::arith::ConstantOp>(op)) {
        if (auto i = llvm::dyn_cast<mlir::IntegerAttr>(c.getValue()))
          known[c.getResult()] = i.getValue().getSExtValue();
      } else if (auto apply = llvm::dyn_cast<mlir::affine::AffineApplyOp>(op)) {
        llvm::SmallVector<int64_t> dims, syms;
        const mlir::AffineMap map = apply.getAffineMap();
        bool all = true;
        for (unsigned i = 0; i < apply.getMapOperands().size() && all; ++i) {
          std::optional<int64_t> v = value(apply.getMapOperands()[i]);
          all = v.has_value();
          if (all)
            (i < map.getNumDims() ? dims : syms).push_back(*v);
        }
        if (all)
          known[apply.getResult()] = evaluate(map.getResult(0), dims, syms);
      } else if (auto loop = llvm::dyn_cast<mlir::affine::AffineForOp>(op)) {
        if (!holdsDma(&op))
          continue;
        const std::optional<int64_t> lb =
            bound(loop.getLowerBoundMap(), loop.getLowerBoundOperands(), true);
        const std::optional<int64_t> ub =
            bound(loop.getUpperBoundMap(), loop.getUpperBoundOperands(), false);
        const int64_t step = loop.getStepAsInt();
        if (!lb || !ub || step <= 0)
          return fail("a loop around a DMA has bounds that are not constants");
        loops.push_back({loop.getInductionVar(), 0, *ub, step, loopName(loop)});
        for (int64_t i = *lb; i < *ub; i += step) {
          known[loop.getInductionVar()] = i;
          loops.back().value = i;
          if (!block(*loop.getBody()))
            return false;
        }
        loops.pop_back();
      } else if (auto dma = llvm::dyn_cast<mlir::memref::DmaStartOp>(op)) {
        if (!decode(dma))
          return false;
      } else if (op.getNumRegions() && holdsDma(&op)) {
        return fail("a DMA under " + op.getName().getStringRef().str());
      }
    }
    return true;
  }

  bool decode(mlir::memref::DmaStartOp dma) {
    const std::optional<int64_t> type = value(dma.getNumElements());
    if (!type)
      return fail("a DMA whose type is not a constant");
    // The DRAM side is the kernel's argument; the other is the scratchpad.
    const bool write = *type == 3;
    const mlir::Value dram = write ? dma.getDstMemRef() : dma.getSrcMemRef();
    const mlir::Value spad = write ? dma.getSrcMemRef() : dma.getDstMemRef();
    auto argument = llvm::dyn_cast<mlir::BlockArgument>(dram);
    auto spadType = llvm::dyn_cast<mlir::MemRefType>(spad.getType());
    auto dramType = llvm::dyn_cast<mlir::MemRefType>(dram.getType());
    if (!argument || argument.getOwner() != entry || !spadType || !spadType.hasStaticShape() ||
        !dramType || dramType.getRank() != 1 || !dramType.hasStaticShape())
      return fail("a DMA that is not between a flat kernel argument of static size and a "
                  "scratchpad tile");
    const mlir::ValueRange indices = write ? dma.getDstIndices() : dma.getSrcIndices();
    const std::optional<int64_t> base = value(indices[0]);
    if (!base)
      return fail("a DMA whose DRAM index is not affine in the loops");
    auto strides = dma->getAttrOfType<mlir::ArrayAttr>("dram_stride");
    const llvm::ArrayRef<int64_t> shape = spadType.getShape();
    if (!strides || strides.size() != shape.size())
      return fail("a DMA whose dram_stride does not have a stride per tile dimension");
    std::vector<int64_t> stride;
    for (mlir::Attribute s : strides) {
      auto i = llvm::dyn_cast<mlir::IntegerAttr>(s);
      if (!i)
        return fail("a DMA whose dram_stride is not integers");
      stride.push_back(i.getInt());
    }
    const uint32_t number = static_cast<uint32_t>(dmaNumber(dma));
    KernelDmas::Dma &record = out.dmas[number];
    record.write = write;
    record.argument = argument.getArgNumber();
    if (record.tile.empty()) {
      record.tile.assign(shape.begin(), shape.end());
      if (auto sram = dma->getAttrOfType<mlir::ArrayAttr>("sram_stride"))
        for (mlir::Attribute a : sram)
          if (auto i = llvm::dyn_cast<mlir::IntegerAttr>(a))
            record.sramStride.push_back(i.getInt());
      record.laneAxis = -1;
      if (dma.isStrided()) {
        record.laneAxis = value(dma.getStride()).value_or(-1);
        record.laneStride = value(dma.getNumElementsPerStride()).value_or(0);
      }
      record.elementBytes = elementBytesOf(spadType.getElementType());
      if (write) {
        // The kernel's scratchpads walked once, at its first store.
        if (!storedTiles)
          storedTiles.emplace(dma->getParentOfType<mlir::func::FuncOp>());
        record.computedBy = storedTiles->computedBy(dma);
      }
    }
    // What Inductor asked of it (found once a DMA): each tile dimension
    // runs over the loop of its variable, and each slot must move the
    // element the index wants at that slot's iteration point.
    auto [found, first] = askOf.try_emplace(dma.getOperation(), nullptr);
    if (first)
      for (const DmaAsk &a : asks)
        if (llvm::StringRef(a.code).trim() == llvm::StringRef(record.text).trim())
          found->second = &a; // the last: PyTorchSim's last code generation of the kernel
    const DmaAsk *ask = found->second;
    std::vector<const Loop *> along(shape.size(), nullptr);
    record.unjudged.clear();
    if (!ask)
      record.unjudged = "no load or store of Inductor's asked for it (a template's own DMA)";
    else if (ask->tileVariables.empty())
      record.unjudged = ask->why;
    else if (ask->tileVariables.size() != shape.size())
      record.unjudged = "the tile has " + std::to_string(shape.size()) +
                        " dimensions and the ask names " +
                        std::to_string(ask->tileVariables.size()) + " variables";
    for (size_t d = 0; record.unjudged.empty() && d < shape.size(); ++d) {
      along[d] = loopNamed(ask->tileVariables[d]);
      if (!along[d])
        record.unjudged = "no loop of " + ask->tileVariables[d] + " around it";
    }
    for (const std::string &v : ask ? ask->index.variables() : std::vector<std::string>())
      if (record.unjudged.empty() && !loopNamed(v))
        record.unjudged = "its index reads " + v + ", which no loop around it runs over";
    const bool judge = record.unjudged.empty();
    // A tile of another rank than its index's variables (a dimension split
    // by a floor division, a scalar's tile): which slot holds which
    // iteration point is PyTorchSim's layout, but the elements it moves
    // are the index's over the points the loops' steps give the tile.
    const int64_t points = !judge && ask && ask->tileVariables.empty() &&
                                   llvm::StringRef(ask->why).starts_with(kOtherRank)
                               ? tilePoints(ask->index.variables())
                               : 0;
    const bool asSet = points > 0;
    if (asSet) {
      record.unjudged.clear();
      record.judgedAsSet = true;
    }
    if (judge || asSet) {
      record.askedIndex = ask->index.text();
      record.indexDivides = ask->index.divides();
    }
    if (!judge) {
      // Not judged: each tile dimension's loop is the one whose step
      // moves the DRAM index by the dimension's stride (outer loops first, each loop
      // once), as PyTorchSim derives dram_stride from the index's
      // coefficients. Two dimensions of one stride (a GEMM's K and N when N
      // is 1) are told apart by the loop that steps by the dimension's
      // extent, tried first. A broadcast dimension (stride 0) moves no
      // other element, and one no loop matches is not clipped.
      std::fill(along.begin(), along.end(), nullptr);
      std::vector<bool> taken(loops.size(), false);
      for (const bool byExtent : {true, false})
        for (size_t d = 0; d < shape.size(); ++d)
          for (size_t l = 0; stride[d] != 0 && !along[d] && l < loops.size(); ++l)
            if (!taken[l] && (!byExtent || loops[l].step == shape[d]) &&
                slope(indices[0], loops[l]) == stride[d]) {
              along[d] = &loops[l];
              taken[l] = true;
            }
    }
    // The slot's iteration point: each loop's value, the slot added along
    // its dimension's variable (set per slot below).
    std::map<std::string, int64_t> point;
    for (const Loop &l : loops)
      if (!l.name.empty())
        point[l.name] = l.value;
    std::vector<int64_t *> moved;
    for (size_t k = 0; judge && k < shape.size(); ++k)
      moved.push_back(&point[ask->tileVariables[k]]);
    const std::vector<int64_t> origin = [&] {
      std::vector<int64_t> o;
      for (int64_t *v : moved)
        o.push_back(*v);
      return o;
    }();
    // Every element of the tile, clipped at the end of its loops.
    std::vector<int64_t> t(shape.size(), 0);
    std::vector<int64_t> extent(shape.begin(), shape.end());
    for (size_t d = 0; d < shape.size(); ++d)
      if (along[d])
        extent[d] = std::min<int64_t>(extent[d], along[d]->upper - along[d]->value);
    out.executions.push_back({number, *base, out.moves.size(), 0});
    for (int64_t e : extent)
      if (e <= 0)
        return true;
    std::vector<int64_t> slotStride(shape.size(), 1);
    for (size_t d = shape.size(); d-- > 1;)
      slotStride[d - 1] = slotStride[d] * shape[d];
    while (true) {
      int64_t element = *base, slot = 0;
      for (size_t d = 0; d < shape.size(); ++d) {
        element += t[d] * stride[d];
        slot += t[d] * slotStride[d];
      }
      if (out.moves.size() >= maxMoves)
        return fail("more than " + std::to_string(maxMoves) + " elements moved");
      out.moves.push_back({number, element, slot});
      ++out.executions.back().count;
      if (judge) {
        for (size_t k = 0; k < shape.size(); ++k)
          *moved[k] = origin[k] + t[k];
        const std::optional<int64_t> wanted = ask->index.evaluate(point);
        ++record.slots;
        if (!wanted || *wanted != element) {
          // A wrong first slot is a wrong DRAM index (the base the DMA
          // starts from); right first slots with wrong others are wrong
          // strides.
          record.baseWrong |= slot == 0;
          if (record.wrongSlots++ == 0) {
            record.firstWrongSlot = t;
            record.moved = element;
            record.wanted = wanted.value_or(INT64_MIN);
            for (size_t k = 0; k < shape.size(); ++k)
              record.firstWrongPoint += (k ? ", " : "") + ask->tileVariables[k] + "=" +
                                        std::to_string(point[ask->tileVariables[k]]);
          }
        }
      }
      size_t d = shape.size();
      while (d > 0 && ++t[d - 1] == extent[d - 1])
        t[--d] = 0;
      if (d == 0)
        break;
    }
    // Each execution's points are evaluated: counted with the moves, so a
    // DMA in many iterations is left undecoded rather than slow.
    if (asSet && (setPoints += static_cast<size_t>(points)) > maxMoves)
      return fail("more than " + std::to_string(maxMoves) +
                  " iteration points to judge tiles of another rank at");
    if (asSet)
      judgeAsSet(record, *ask, out.executions.back());
    return true;
  }

  /// The innermost loop around the DMA of variable `name`, or none.
  const Loop *loopNamed(const std::string &name) const {
    for (auto l = loops.rbegin(); l != loops.rend(); ++l)
      if (l->name == name)
        return &*l;
    return nullptr;
  }

  /// How many iteration points the loops of `variables` give a tile at
  /// their steps; 0 when one has no loop around the DMA or there are too
  /// many to judge.
  int64_t tilePoints(const std::vector<std::string> &variables) const {
    int64_t n = 1;
    for (const std::string &v : variables) {
      const Loop *l = loopNamed(v);
      if (!l || l->step <= 0 || l->step > (1 << 16) / n)
        return 0;
      n *= l->step;
    }
    return n;
  }

  /// Judges one execution of a DMA whose slots cannot be matched to
  /// iteration points: each element it moves must be one the index asks
  /// for at a point of the tile (the loops' values, each variable's up to
  /// its step), and each element asked for at a point inside the loops
  /// must be moved.
  void judgeAsSet(KernelDmas::Dma &record, const DmaAsk &ask,
                  const KernelDmas::Execution &execution) {
    const std::vector<std::string> variables = ask.index.variables();
    std::vector<const Loop *> of;
    for (const std::string &v : variables)
      of.push_back(loopNamed(v)); // each there: tilePoints found it
    std::map<std::string, int64_t> point;
    for (const Loop &l : loops)
      if (!l.name.empty())
        point[l.name] = l.value;
    std::set<int64_t> asked, askedInside;
    std::map<int64_t, std::string> pointOf; // a point asking each element inside
    std::vector<int64_t> t(of.size(), 0);
    while (true) {
      bool inside = true;
      for (size_t k = 0; k < of.size(); ++k) {
        point[variables[k]] = of[k]->value + t[k];
        inside &= of[k]->value + t[k] < of[k]->upper;
      }
      if (const std::optional<int64_t> e = ask.index.evaluate(point)) {
        asked.insert(*e);
        if (inside && askedInside.insert(*e).second) {
          std::string p;
          for (size_t k = 0; k < of.size(); ++k)
            p += (k ? ", " : "") + variables[k] + "=" + std::to_string(point[variables[k]]);
          pointOf[*e] = p;
        }
      }
      size_t d = of.size();
      while (d > 0 && ++t[d - 1] == of[d - 1]->step)
        t[--d] = 0;
      if (d == 0)
        break;
    }
    const std::vector<int64_t> &shape = record.tile;
    std::set<int64_t> moved;
    for (size_t i = execution.first; i < execution.first + execution.count; ++i) {
      const KernelDmas::Move &m = out.moves[i];
      moved.insert(m.element);
      ++record.slots;
      if (asked.count(m.element))
        continue;
      if (record.wrongSlots++ == 0) {
        record.firstWrongSlot.assign(shape.size(), 0);
        for (size_t d = shape.size(), rest = static_cast<size_t>(m.slot); d-- > 0;) {
          record.firstWrongSlot[d] = static_cast<int64_t>(rest % shape[d]);
          rest /= shape[d];
        }
        record.moved = m.element;
        record.wanted = INT64_MIN;
        record.firstWrongPoint = "no point of the tile asks for it";
      }
    }
    for (const int64_t e : askedInside)
      if (!moved.count(e) && record.wrongSlots++ == 0) {
        record.firstWrongSlot.clear();
        record.moved = INT64_MIN;
        record.wanted = e;
        record.firstWrongPoint = pointOf[e];
      }
  }

  /// How much `v` grows when `loop`'s induction variable grows by one from
  /// where it is (nothing when `v` is not affine in the loops).
  std::optional<int64_t> slope(mlir::Value v, const Loop &loop) {
    const std::optional<int64_t> at = valueWith(v, loop.iv, 0), next = valueWith(v, loop.iv, 1);
    if (!at || !next)
      return std::nullopt;
    return *next - *at;
  }

  /// `v` evaluated again from its definitions with `iv` moved by `bump`.
  std::optional<int64_t> valueWith(mlir::Value v, mlir::Value iv, int64_t bump, int depth = 0) {
    if (v == iv)
      return value(v).value_or(0) + bump;
    if (llvm::isa<mlir::BlockArgument>(v) || depth > 64)
      return value(v);
    if (auto apply = v.getDefiningOp<mlir::affine::AffineApplyOp>()) {
      const mlir::AffineMap map = apply.getAffineMap();
      llvm::SmallVector<int64_t> dims, syms;
      for (unsigned i = 0; i < apply.getMapOperands().size(); ++i) {
        const std::optional<int64_t> o = valueWith(apply.getMapOperands()[i], iv, bump, depth + 1);
        if (!o)
          return std::nullopt;
        (i < map.getNumDims() ? dims : syms).push_back(*o);
      }
      return evaluate(map.getResult(0), dims, syms);
    }
    return value(v);
  }

  /// The variable PyTorchSim named a loop's induction variable by (`index0`
  /// of `affine.for %index0 = ...`), read once a loop from its line.
  const std::string &loopName(mlir::affine::AffineForOp loop) {
    auto [it, first] = names.try_emplace(loop.getOperation());
    if (first)
      if (auto loc = loop->getLoc()->findInstanceOf<mlir::FileLineColLoc>()) {
        static const std::regex variable(R"(affine\.for\s+%([A-Za-z0-9_]+))");
        const std::string line = lineOf(original, loc.getLine());
        std::smatch m;
        if (std::regex_search(line, m, variable))
          it->second = m[1].str();
      }
    return it->second;
  }

  /// The DMA's number: its position among the kernel's dma_starts.
  size_t dmaNumber(mlir::memref::DmaStartOp dma) {
    auto it = numbers.find(dma.getOperation());
    if (it != numbers.end())
      return it->second;
    const size_t n = out.dmas.size();
    numbers[dma.getOperation()] = n;
    KernelDmas::Dma d;
    if (auto loc = dma->getLoc()->findInstanceOf<mlir::FileLineColLoc>())
      d.text = lineOf(original, loc.getLine());
    out.dmas.push_back(d);
    return n;
  }

public:
  std::string original; ///< PyTorchSim's text, for the DMAs' lines
  /// Each dma_start that ran, with its number.
  const llvm::DenseMap<mlir::Operation *, size_t> &dmaNumbers() const { return numbers; }

private:
  const std::string &text;
  const std::vector<DmaAsk> &asks;
  KernelDmas &out;
  size_t maxMoves;
  mlir::Block *entry = nullptr; ///< the kernel's body: its arguments are the kernel's
  llvm::DenseMap<mlir::Value, int64_t> known;
  llvm::DenseMap<mlir::Operation *, size_t> numbers;
  llvm::DenseMap<mlir::Operation *, std::string> names;    ///< loopName's
  llvm::DenseMap<mlir::Operation *, const DmaAsk *> askOf; ///< each DMA's ask, or none
  std::vector<Loop> loops;
  size_t setPoints = 0; ///< iteration points judgeAsSet evaluated
  std::optional<StoredTiles> storedTiles;
};

} // namespace

KernelDmas checkPyTorchSimKernel(const std::string &kernel, const std::vector<DmaAsk> &asks,
                                 size_t maxMoves) {
  KernelDmas out;
  std::string generic, error;
  if (!genericDmaStarts(kernel, generic, error)) {
    // npufuzz cannot read it: nothing upstream MLIR said.
    out.unreadable = error;
    return out;
  }
  mlir::MLIRContext &ctx = context();
  std::string first;
  unsigned firstLine = 0;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  {
    mlir::ScopedDiagnosticHandler handler(&ctx, [&](mlir::Diagnostic &d) {
      if (d.getSeverity() == mlir::DiagnosticSeverity::Error && first.empty()) {
        first = d.str();
        if (auto loc = d.getLocation()->findInstanceOf<mlir::FileLineColLoc>())
          firstLine = loc.getLine();
      }
      return mlir::success();
    });
    module =
        mlir::parseSourceString<mlir::ModuleOp>(generic, mlir::ParserConfig(&ctx), "kernel.mlir");
  }
  if (!module) {
    const std::string line = lineOf(kernel, firstLine);
    out.rejection = opOfLine(line) + ": " + withoutNames(first);
    out.diagnostic =
        "kernel.mlir:" + std::to_string(firstLine) + ": error: " + first + "\n  " + line;
    return out;
  }
  out.verified = true;
  mlir::func::FuncOp f;
  module->walk([&](mlir::func::FuncOp candidate) {
    if (!f && !candidate.isExternal() && candidate.getName() == "kernel")
      f = candidate;
  });
  if (!f) {
    out.undecoded = "no func.func @kernel";
    return out;
  }
  Walker walker(generic, asks, out, maxMoves);
  walker.original = kernel;
  out.decoded = walker.kernel(f);
  if (!out.decoded) {
    out.undecoded = walker.why;
    out.moves.clear();
    out.executions.clear();
    out.notRunnable = "its DMAs are not decoded: " + walker.why;
    return out;
  }
  rewriteForModel(*module, f, walker.dmaNumbers(), out);
  return out;
}

} // namespace npufuzz
