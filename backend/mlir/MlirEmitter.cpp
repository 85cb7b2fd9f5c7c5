//===- backend/mlir/MlirEmitter.cpp - Lower a case to MLIR text -----------===//
#include "backend/mlir/AffineLowering.h"
#include "backend/mlir/NpuLowering.h"
#include "backend/mlir/TensorLowering.h"

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

bool emitMlir(const Case &c, const MlirEmitOptions &options, MlirKernel &out,
              std::string &unsupported) {
  out = MlirKernel();
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
