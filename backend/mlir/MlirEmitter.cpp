//===- backend/mlir/MlirEmitter.cpp - Lower a case to MLIR text -----------===//
#include "backend/mlir/AffineLowering.h"
#include "backend/mlir/NpuLowering.h"
#include "backend/mlir/TensorLowering.h"

#include <algorithm>
#include <iterator>
#include <memory>

namespace npufuzz {

std::string_view mlirStyleName(MlirStyle s) {
  switch (s) {
  case MlirStyle::Affine: return "affine";
  case MlirStyle::Tensor: return "tensor";
  case MlirStyle::Npu: return "npu";
  }
  return "?";
}

bool parseMlirStyle(std::string_view s, MlirStyle &out) {
  if (s == "affine") {
    out = MlirStyle::Affine;
    return true;
  }
  if (s == "tensor") {
    out = MlirStyle::Tensor;
    return true;
  }
  if (s == "npu") {
    out = MlirStyle::Npu;
    return true;
  }
  return false;
}

namespace {
/// The first op of `c` the affine and npu styles do not lower yet, with the reason; empty when
/// there is none.
std::string unloweredOp(const Case &c) {
  static constexpr OpKind kUnlowered[] = {OpKind::Concat,    OpKind::Pad,       OpKind::ReduceMean,
                                          OpKind::AvgPool2d, OpKind::MaxPool2d, OpKind::Conv2d,
                                          OpKind::Addmm};
  for (const Op &op : c.ops)
    if (std::find(std::begin(kUnlowered), std::end(kUnlowered), op.kind) != std::end(kUnlowered))
      return "mlir: " + std::string(opName(op.kind)) + " is lowered by the tensor style only";
  return "";
}
} // namespace

bool emitMlir(const Case &c, const MlirEmitOptions &options, MlirKernel &out,
              std::string &unsupported) {
  out = MlirKernel();
  // The tensor style lowers the workload ops; the others do not yet.
  unsupported = options.style == MlirStyle::Tensor ? "" : unloweredOp(c);
  if (!unsupported.empty())
    return false;
  if (options.tensorAbi && options.style != MlirStyle::Tensor) {
    unsupported = "the tensor ABI is the tensor style's";
    return false;
  }
  std::unique_ptr<EmitterBase> e;
  switch (options.style) {
  case MlirStyle::Affine: e = std::make_unique<AffineEmitter>(c, out); break;
  case MlirStyle::Tensor: {
    auto tensor = std::make_unique<TensorEmitter>(c, out);
    tensor->tensorAbi = options.tensorAbi;
    e = std::move(tensor);
    break;
  }
  case MlirStyle::Npu: {
    NpuOptions npu;
    npu.lanes = options.npuLanes;
    e = std::make_unique<NpuEmitter>(c, out, npu);
    break;
  }
  }
  e->plan = options.plan;
  const bool ok = e->run();
  unsupported = e->unsupported;
  return ok;
}

} // namespace npufuzz
