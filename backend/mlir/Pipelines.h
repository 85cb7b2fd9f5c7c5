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
// The user's passes run at a stage of the lowering (PassStage): on the
// emitted IR, after the tensor style's bufferization, or after the lowering
// to loops and vectors. The elements before that stage run first.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_MLIR_PIPELINES_H
#define NPUFUZZ_BACKEND_MLIR_PIPELINES_H

#include "backend/mlir/MlirEmitter.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace npufuzz {

/// Where in the lowering the user's passes run.
enum class PassStage : uint8_t {
  /// On the IR the style emits (the default).
  Entry,
  /// After the tensor style's bufferization (one-shot-bufferize and the
  /// deallocation passes), before its linalg ops become loops; the affine
  /// and npu styles emit memrefs, so this is their entry.
  Bufferized,
  /// After the lowering to loops and vectors: linalg, affine and
  /// vector.multi_reduction are gone, n-D vector transfers are scf loops of
  /// 1-D ones; scf, memref, 1-D vector, arith and math remain.
  Loops,
};
std::string_view passStageName(PassStage s);
bool parsePassStage(std::string_view s, PassStage &out);

struct Pipeline {
  std::string spec; ///< as given: O0, O2, random:7, or passes
  /// The style's lowering and tail elements that run before the user's
  /// passes (empty at PassStage::Entry). Tail elements among them run again
  /// after the passes.
  std::vector<std::string> before;
  std::vector<std::string> passes; ///< optimisation elements (may be empty)
  /// Elements a lowering style needs before the tail (e.g. bufferization of
  /// the tensor style) that run after the user's passes.
  std::vector<std::string> lowering;
  std::vector<std::string> tail; ///< the lowering tail after the passes

  /// All elements in order: before, passes, lowering, tail.
  std::vector<std::string> elements() const;
  /// Before, the first `k` passes, then lowering and tail (for blame by
  /// prefix).
  std::vector<std::string> prefix(size_t k) const;
  /// The elements that run after the optimisation passes.
  std::vector<std::string> loweringAndTail() const;
  /// Index in elements() of the user's pass `k`, and of element `j` of
  /// loweringAndTail().
  size_t passElement(size_t k) const { return before.size() + k; }
  size_t tailElement(size_t j) const { return before.size() + passes.size() + j; }
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
/// The user's passes run at `stage`.
bool resolvePipeline(const std::string &spec, MlirStyle style, Pipeline &out, std::string &error,
                     PassStage stage = PassStage::Entry);

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_MLIR_PIPELINES_H
