//===- backend/mlir/MlirEmitter.cpp - Lower a case to MLIR text -----------===//
#include "backend/mlir/AffineLowering.h"

#include <memory>

namespace npufuzz {

std::string_view mlirStyleName(MlirStyle s) {
  switch (s) {
  case MlirStyle::Affine:
    return "affine";
  }
  return "?";
}

bool parseMlirStyle(std::string_view s, MlirStyle &out) {
  if (s == "affine") {
    out = MlirStyle::Affine;
    return true;
  }
  return false;
}

bool emitMlir(const Case &c, const MlirEmitOptions &options, MlirKernel &out,
              std::string &unsupported) {
  out = MlirKernel();
  std::unique_ptr<EmitterBase> e;
  switch (options.style) {
  case MlirStyle::Affine:
    e = std::make_unique<AffineEmitter>(c, out);
    break;
  }
  const bool ok = e->run();
  unsupported = e->unsupported;
  return ok;
}

} // namespace npufuzz
