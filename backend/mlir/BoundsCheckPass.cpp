//===- backend/mlir/BoundsCheckPass.cpp - Bounds checks before accesses ---===//
#include "backend/mlir/BoundsCheckPass.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"

#include "llvm/Support/raw_ostream.h"

#include <mutex>
#include <optional>

namespace npufuzz {

namespace {
thread_local std::vector<BoundsSite> gSites;

constexpr const char *kCheckFunction = "npf_rt_bounds";

template <typename T> std::string text(const T &x) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << x;
  return s;
}

/// One access to check: its memref, subscripts, and the extent it covers
/// along each memref dimension (0: not checked, a masked vector dimension).
struct Access {
  mlir::Value memref;
  mlir::ValueRange indices;
  std::vector<int64_t> extent;
  bool write = false;
};

/// Extents of a vector access of `vector` at the innermost dims of a
/// memref of `rank` dims, through `map` (minor identity or a permutation):
/// 1 on dims the vector does not span, the vector's size on dims it spans
/// in bounds, 0 on dims it spans with a mask.
std::vector<int64_t> vectorExtents(size_t rank, mlir::VectorType vector, mlir::AffineMap map,
                                   std::optional<mlir::ArrayAttr> inBounds) {
  std::vector<int64_t> extent(rank, 1);
  for (unsigned i = 0; i < map.getNumResults(); ++i) {
    const auto dim = llvm::dyn_cast<mlir::AffineDimExpr>(map.getResult(i));
    if (!dim)
      continue; // a broadcast dimension reads one element
    const bool checked = inBounds && llvm::cast<mlir::BoolAttr>((*inBounds)[i]).getValue();
    extent[dim.getPosition()] = checked ? vector.getDimSize(i) : 0;
  }
  return extent;
}

/// Extents of a vector.load/store of `vector` from a memref of `type`: the
/// vector's dims span the memref's innermost dims (one element each for a
/// memref of vectors, and for a 0-d vector).
std::vector<int64_t> vectorLoadExtents(mlir::MemRefType type, mlir::VectorType vector) {
  std::vector<int64_t> extent(static_cast<size_t>(type.getRank()), 1);
  if (llvm::isa<mlir::VectorType>(type.getElementType()))
    return extent;
  const llvm::ArrayRef<int64_t> shape = vector.getShape();
  for (size_t i = 0; i < shape.size() && i < extent.size(); ++i)
    extent[extent.size() - 1 - i] = shape[shape.size() - 1 - i];
  return extent;
}

std::optional<Access> accessOf(mlir::Operation *op) {
  Access a;
  if (auto load = llvm::dyn_cast<mlir::memref::LoadOp>(op)) {
    a.memref = load.getMemRef();
    a.indices = load.getIndices();
  } else if (auto store = llvm::dyn_cast<mlir::memref::StoreOp>(op)) {
    a.memref = store.getMemRef();
    a.indices = store.getIndices();
    a.write = true;
  } else if (auto load = llvm::dyn_cast<mlir::vector::LoadOp>(op)) {
    a.memref = load.getBase();
    a.indices = load.getIndices();
    a.extent = vectorLoadExtents(load.getMemRefType(), load.getVectorType());
  } else if (auto store = llvm::dyn_cast<mlir::vector::StoreOp>(op)) {
    a.memref = store.getBase();
    a.indices = store.getIndices();
    a.extent = vectorLoadExtents(store.getMemRefType(), store.getVectorType());
    a.write = true;
  } else if (auto read = llvm::dyn_cast<mlir::vector::TransferReadOp>(op)) {
    const auto type = llvm::dyn_cast<mlir::MemRefType>(read.getBase().getType());
    if (!type || read.getMask())
      return std::nullopt;
    a.memref = read.getBase();
    a.indices = read.getIndices();
    a.extent = vectorExtents(type.getRank(), read.getVectorType(), read.getPermutationMap(),
                             read.getInBounds());
  } else if (auto write = llvm::dyn_cast<mlir::vector::TransferWriteOp>(op)) {
    const auto type = llvm::dyn_cast<mlir::MemRefType>(write.getBase().getType());
    if (!type || write.getMask())
      return std::nullopt;
    a.memref = write.getBase();
    a.indices = write.getIndices();
    a.extent = vectorExtents(type.getRank(), write.getVectorType(), write.getPermutationMap(),
                             write.getInBounds());
    a.write = true;
  } else {
    return std::nullopt;
  }
  if (a.extent.empty())
    a.extent.assign(a.indices.size(), 1);
  return a;
}

struct BoundsCheckPass
    : public mlir::PassWrapper<BoundsCheckPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(BoundsCheckPass)
  llvm::StringRef getArgument() const final { return kBoundsCheckElement; }
  llvm::StringRef getDescription() const final {
    return "Check every load and store against its memref's bounds at run time";
  }
  void getDependentDialects(mlir::DialectRegistry &registry) const override {
    registry
        .insert<mlir::arith::ArithDialect, mlir::func::FuncDialect, mlir::memref::MemRefDialect>();
  }

  void runOnOperation() override {
    gSites.clear();
    mlir::ModuleOp module = getOperation();
    mlir::OpBuilder b(module.getContext());
    const mlir::Type i64 = b.getI64Type();
    if (!module.lookupSymbol<mlir::func::FuncOp>(kCheckFunction)) {
      b.setInsertionPointToStart(module.getBody());
      auto decl = mlir::func::FuncOp::create(b, module.getLoc(), kCheckFunction,
                                             b.getFunctionType({i64, i64, i64, i64, i64}, {}));
      decl.setPrivate();
    }
    std::vector<std::pair<mlir::Operation *, Access>> accesses;
    module.walk([&](mlir::Operation *op) {
      if (std::optional<Access> a = accessOf(op))
        accesses.push_back({op, *a});
    });
    for (auto &[op, a] : accesses) {
      const auto type = llvm::cast<mlir::MemRefType>(a.memref.getType());
      const int64_t site = static_cast<int64_t>(gSites.size());
      gSites.push_back(
          {op->getName().getStringRef().str(), text(type), text(op->getLoc()), a.write});
      b.setInsertionPoint(op);
      const mlir::Location loc = op->getLoc();
      auto constant = [&](int64_t v) {
        return mlir::arith::ConstantIntOp::create(b, loc, i64, v).getResult();
      };
      for (size_t d = 0; d < a.indices.size(); ++d) {
        if (a.extent[d] == 0)
          continue;
        mlir::Value size =
            type.isDynamicDim(d)
                ? mlir::arith::IndexCastOp::create(
                      b, loc, i64,
                      mlir::memref::DimOp::create(b, loc, a.memref, static_cast<int64_t>(d)))
                      .getResult()
                : constant(type.getDimSize(d));
        mlir::Value index = mlir::arith::IndexCastOp::create(b, loc, i64, a.indices[d]);
        mlir::func::CallOp::create(b, loc, kCheckFunction, mlir::TypeRange(),
                                   mlir::ValueRange{constant(site),
                                                    constant(static_cast<int64_t>(d)), index,
                                                    constant(a.extent[d]), size});
      }
    }
  }
};
} // namespace

const std::vector<BoundsSite> &boundsSites() { return gSites; }

void registerBoundsCheckPass() {
  static std::once_flag once;
  std::call_once(once, [] { mlir::PassRegistration<BoundsCheckPass>(); });
}

} // namespace npufuzz
