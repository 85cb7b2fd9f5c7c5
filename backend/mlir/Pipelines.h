//===- backend/mlir/Pipelines.h - Named MLIR pass pipelines -----*- C++ -*-===//
//
// A pipeline is a list of module-anchored pass elements (`lower-affine`,
// `func.func(canonicalize)`), so that it can run whole or one element at a
// time for the pass-level oracle. Every pipeline ends in the same trusted
// lowering tail to the LLVM dialect.
//
//   O0          the tail only: the shortest correct lowering
//   O2          per style: affine fusion, scalar replacement, LICM and
//               super-vectorization (affine); linalg elementwise fusion,
//               generalisation and unit-dim folding (tensor); LICM and scf
//               loop peeling (npu); each with canonicalize and cse, then the
//               style's lowering and the tail
//   random:SEED a seeded draw from a registry of semantics-preserving passes,
//               then the tail
//   anything else: a comma-separated list of pass elements, then the tail
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_MLIR_PIPELINES_H
#define NPUFUZZ_BACKEND_MLIR_PIPELINES_H

#include "backend/mlir/MlirEmitter.h"

#include <string>
#include <vector>

namespace npufuzz {

struct Pipeline {
  std::string spec;                ///< as given: O0, O2, random:7, or passes
  std::vector<std::string> passes; ///< optimisation elements (may be empty)
  /// Elements a lowering style needs before the tail (e.g. bufferization of
  /// the tensor style); empty for the affine style.
  std::vector<std::string> lowering;
  std::vector<std::string> tail; ///< the lowering tail

  /// All elements in order: passes, lowering, tail.
  std::vector<std::string> elements() const;
  /// The first `k` passes, then lowering and tail (for blame by prefix).
  std::vector<std::string> prefix(size_t k) const;
  /// The elements that run after the optimisation passes.
  std::vector<std::string> loweringAndTail() const;
  /// `builtin.module(a,b,...)` of the given elements.
  static std::string text(const std::vector<std::string> &elements);
};

/// The lowering tail shared by every pipeline.
std::vector<std::string> loweringTail();
/// The registry `random` draws from.
const std::vector<std::string> &randomPassRegistry();

/// Splits a pipeline body at top-level commas (respecting () and {}).
std::vector<std::string> splitPipeline(const std::string &body);

/// Resolves a pipeline spec for a lowering style (O2 and the random registry
/// may differ by style; the style's own lowering is added).
bool resolvePipeline(const std::string &spec, MlirStyle style, Pipeline &out, std::string &error);

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_MLIR_PIPELINES_H
