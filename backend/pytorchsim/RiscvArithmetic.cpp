//===- backend/pytorchsim/RiscvArithmetic.cpp - A kernel's arithmetic as RISC-V computes it -===//
#include "backend/pytorchsim/RiscvArithmetic.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>
#include <vector>

namespace npufuzz {

namespace {

/// Builds constants of an operation's type (a scalar or a vector of it).
struct Constants {
  mlir::OpBuilder &b;
  mlir::Location loc;
  mlir::Type type;

  mlir::Value splat(mlir::Value scalar) const {
    auto shaped = llvm::dyn_cast<mlir::VectorType>(type);
    return shaped
               ? mlir::vector::BroadcastOp::create(b, loc, shaped.clone(scalar.getType()), scalar)
                     .getResult()
               : scalar;
  }
  mlir::Value integer(const llvm::APInt &v) const {
    const mlir::Type e = mlir::getElementTypeOrSelf(type);
    return splat(mlir::arith::ConstantOp::create(b, loc, b.getIntegerAttr(e, v)));
  }
  mlir::Value real(mlir::FloatType source, double v) const {
    llvm::APFloat f(v);
    bool lost = false;
    f.convert(source.getFloatSemantics(), llvm::APFloat::rmNearestTiesToEven, &lost);
    return splat(mlir::arith::ConstantOp::create(b, loc, b.getFloatAttr(source, f)));
  }
};

/// RISC-V's float-to-int conversions saturate, NaN to the maximum; LLVM
/// leaves an out-of-range fptosi or fptoui poison.
bool saturateConversions(mlir::func::FuncOp kernel, std::string &why) {
  std::vector<mlir::Operation *> converts;
  kernel.walk([&](mlir::Operation *op) {
    if (llvm::isa<mlir::arith::FPToSIOp, mlir::arith::FPToUIOp>(op))
      converts.push_back(op);
  });
  mlir::OpBuilder b(kernel.getContext());
  for (mlir::Operation *op : converts) {
    const bool isSigned = llvm::isa<mlir::arith::FPToSIOp>(op);
    const mlir::Value x = op->getOperand(0);
    const mlir::Type type = op->getResult(0).getType();
    const unsigned width = mlir::getElementTypeOrSelf(type).getIntOrFloatBitWidth();
    auto source = llvm::cast<mlir::FloatType>(mlir::getElementTypeOrSelf(x.getType()));
    if (width != 32 && width != 64) {
      why = "a conversion of a float to i" + std::to_string(width) +
            ": how PyTorchSim's RISC-V code narrows an out-of-range value is not established";
      return false;
    }
    b.setInsertionPoint(op);
    const mlir::Location loc = op->getLoc();
    const Constants c{b, loc, type};
    const double top = isSigned ? std::ldexp(1.0, width - 1) : std::ldexp(1.0, width);
    const double bottom = isSigned ? -std::ldexp(1.0, width - 1) : 0.0;
    using P = mlir::arith::CmpFPredicate;
    mlir::Value nan = mlir::arith::CmpFOp::create(b, loc, P::UNO, x, x);
    mlir::Value high = mlir::arith::CmpFOp::create(b, loc, P::OGE, x, c.real(source, top));
    mlir::Value low = mlir::arith::CmpFOp::create(b, loc, P::OLT, x, c.real(source, bottom));
    mlir::Value converted = isSigned ? mlir::arith::FPToSIOp::create(b, loc, type, x).getResult()
                                     : mlir::arith::FPToUIOp::create(b, loc, type, x).getResult();
    const llvm::APInt max =
        isSigned ? llvm::APInt::getSignedMaxValue(width) : llvm::APInt::getMaxValue(width);
    const llvm::APInt min =
        isSigned ? llvm::APInt::getSignedMinValue(width) : llvm::APInt::getZero(width);
    mlir::Value r = mlir::arith::SelectOp::create(b, loc, low, c.integer(min), converted);
    r = mlir::arith::SelectOp::create(b, loc, mlir::arith::OrIOp::create(b, loc, high, nan),
                                      c.integer(max), r);
    op->getResult(0).replaceAllUsesWith(r);
    op->erase();
  }
  return true;
}

/// Each division and remainder guarded: the host's divides by 1 where
/// RISC-V's result is fixed (a zero divisor, the signed overflow), and the
/// fixed result is selected instead. The host's `idiv` would trap there.
void divideAsRiscv(mlir::func::FuncOp kernel) {
  // floordivsi, ceildivsi and ceildivui first become divisions, as
  // upstream's arith-expand writes them; their results at a zero divisor or
  // the overflow then follow from RISC-V's division.
  {
    mlir::RewritePatternSet patterns(kernel.getContext());
    mlir::arith::populateCeilFloorDivExpandOpsPatterns(patterns);
    // Nothing else changes: no folding, no region simplification (the
    // decoder's DMA numbers point at operations of this kernel).
    mlir::GreedyRewriteConfig config;
    config.enableFolding(false)
        .enableConstantCSE(false)
        .setRegionSimplificationLevel(mlir::GreedySimplifyRegionLevel::Disabled)
        .setStrictness(mlir::GreedyRewriteStrictness::ExistingAndNewOps);
    (void)mlir::applyPatternsGreedily(kernel, std::move(patterns), config);
  }
  std::vector<mlir::Operation *> divisions;
  kernel.walk([&](mlir::Operation *op) {
    if (llvm::isa<mlir::arith::DivSIOp, mlir::arith::DivUIOp, mlir::arith::RemSIOp,
                  mlir::arith::RemUIOp>(op))
      divisions.push_back(op);
  });
  mlir::OpBuilder b(kernel.getContext());
  for (mlir::Operation *op : divisions) {
    const bool isSigned = llvm::isa<mlir::arith::DivSIOp, mlir::arith::RemSIOp>(op);
    const bool quotient = llvm::isa<mlir::arith::DivSIOp, mlir::arith::DivUIOp>(op);
    const mlir::Value x = op->getOperand(0), y = op->getOperand(1);
    const mlir::Type type = op->getResult(0).getType();
    const mlir::Type element = mlir::getElementTypeOrSelf(type);
    const unsigned width = element.isIndex() ? 64 : element.getIntOrFloatBitWidth();
    b.setInsertionPoint(op);
    const mlir::Location loc = op->getLoc();
    const Constants c{b, loc, type};
    using P = mlir::arith::CmpIPredicate;
    mlir::Value zero =
        mlir::arith::CmpIOp::create(b, loc, P::eq, y, c.integer(llvm::APInt(width, 0)));
    mlir::Value fixed = zero;
    mlir::Value overflow;
    if (isSigned) {
      overflow = mlir::arith::AndIOp::create(
          b, loc,
          mlir::arith::CmpIOp::create(b, loc, P::eq, x,
                                      c.integer(llvm::APInt::getSignedMinValue(width))),
          mlir::arith::CmpIOp::create(b, loc, P::eq, y, c.integer(llvm::APInt::getAllOnes(width))));
      fixed = mlir::arith::OrIOp::create(b, loc, zero, overflow);
    }
    mlir::Value divisor =
        mlir::arith::SelectOp::create(b, loc, fixed, c.integer(llvm::APInt(width, 1)), y);
    mlir::Operation *safe = b.clone(*op);
    safe->setOperand(1, divisor);
    mlir::Value r = safe->getResult(0);
    // By zero: a quotient of all ones (-1 signed), a remainder of x.
    r = mlir::arith::SelectOp::create(b, loc, zero,
                                      quotient ? c.integer(llvm::APInt::getAllOnes(width)) : x, r);
    // INT_MIN / -1: a quotient of INT_MIN (x), a remainder of 0.
    if (isSigned)
      r = mlir::arith::SelectOp::create(b, loc, overflow,
                                        quotient ? x : c.integer(llvm::APInt(width, 0)), r);
    op->getResult(0).replaceAllUsesWith(r);
    op->erase();
  }
}

} // namespace

bool computeAsRiscv(mlir::func::FuncOp kernel, std::string &why) {
  if (!saturateConversions(kernel, why))
    return false;
  divideAsRiscv(kernel);
  return true;
}

} // namespace npufuzz
