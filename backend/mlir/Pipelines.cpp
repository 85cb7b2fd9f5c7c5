//===- backend/mlir/Pipelines.cpp - Named MLIR pass pipelines -------------===//
#include "backend/mlir/Pipelines.h"

#include "ir/NumberText.h"
#include "ir/Prng.h"

#include <algorithm>

namespace npufuzz {

std::vector<std::string> Pipeline::elements() const { return prefix(passes.size()); }

std::vector<std::string> Pipeline::prefix(size_t k) const {
  std::vector<std::string> e = before;
  e.insert(e.end(), passes.begin(), passes.begin() + k);
  const std::vector<std::string> rest = loweringAndTail();
  e.insert(e.end(), rest.begin(), rest.end());
  return e;
}

std::vector<std::string> Pipeline::loweringAndTail() const {
  std::vector<std::string> e = lowering;
  e.insert(e.end(), tail.begin(), tail.end());
  return e;
}

std::string Pipeline::text(const std::vector<std::string> &elements) {
  std::string s = "builtin.module(";
  for (size_t i = 0; i < elements.size(); ++i)
    s += (i ? "," : "") + elements[i];
  return s + ")";
}

std::string_view passStageName(PassStage s) {
  switch (s) {
  case PassStage::Entry: return "entry";
  case PassStage::Bufferized: return "bufferized";
  case PassStage::Loops: return "loops";
  }
  return "?";
}

bool parsePassStage(std::string_view s, PassStage &out) {
  for (PassStage st : {PassStage::Entry, PassStage::Bufferized, PassStage::Loops})
    if (passStageName(st) == s) {
      out = st;
      return true;
    }
  return false;
}

namespace {
/// Elements of the tensor style's lowering that bufferize.
constexpr size_t kTensorBufferization = 4;
} // namespace

std::vector<std::string> loweringTail() {
  // Trusted: every element here must preserve semantics exactly. Not here:
  // arith-expand (its maximumf/minimumf expansion ignores -0 < +0 in MLIR 22)
  // and convert-math-to-libm before convert-math-to-llvm (it turns
  // math.rsqrt into a call to rsqrtf, which libm does not have).
  // lower-affine runs again after convert-vector-to-scf, which creates
  // affine.apply ops for its out-of-bounds masks.
  // vector.multi_reduction has no lowering to LLVM of its own: it becomes
  // vector.reduction or elementwise ops first, in the order of its operand.
  return {"func.func(lower-vector-multi-reduction)", "lower-affine", "convert-vector-to-scf",
          "lower-affine",
          // Math first: convert-math-to-libm unrolls vector math into
          // vector.extract/insert, which convert-vector-to-llvm must see.
          "convert-math-to-llvm", "convert-math-to-libm", "convert-scf-to-cf",
          "expand-strided-metadata", "convert-vector-to-llvm", "finalize-memref-to-llvm",
          "convert-arith-to-llvm", "convert-index-to-llvm", "convert-cf-to-llvm",
          "convert-func-to-llvm", "convert-ub-to-llvm", "reconcile-unrealized-casts"};
}

namespace {
std::vector<std::string> o2Passes() {
  return {"func.func(canonicalize)",
          "func.func(cse)",
          "func.func(affine-loop-fusion)",
          "func.func(affine-scalrep)",
          "func.func(affine-loop-invariant-code-motion)",
          "func.func(affine-super-vectorize{virtual-vector-size=16})",
          "func.func(canonicalize)",
          "func.func(cse)"};
}

/// O2 of the tensor style: tensor-level linalg rewrites before bufferization.
std::vector<std::string> tensorO2Passes() {
  return {"func.func(canonicalize)",
          "func.func(cse)",
          "func.func(linalg-fold-into-elementwise)",
          "func.func(linalg-generalize-named-ops)",
          "func.func(linalg-fuse-elementwise-ops)",
          "func.func(linalg-fold-unit-extent-dims)",
          "func.func(canonicalize)",
          "func.func(cse)",
          "func.func(loop-invariant-code-motion)",
          "func.func(linalg-specialize-generic-ops)"};
}

/// O2 of the npu style: its loops are scf with DMA calls, so the affine
/// passes have nothing to work on. Clean up, hoist invariant index math and
/// vector splats out of the lane loops, peel the partial last block of
/// each block loop, and fold the affine.min extents that peeling makes
/// constant.
std::vector<std::string> npuO2Passes() {
  return {"func.func(canonicalize)",
          "func.func(cse)",
          "func.func(loop-invariant-code-motion)",
          "func.func(scf-for-loop-peeling)",
          "func.func(scf-for-loop-canonicalization)",
          "func.func(canonicalize)",
          "func.func(cse)"};
}

/// The tensor style's own lowering: bufferize (inputs arrive as memrefs, so
/// function boundaries stay as they are), free every allocation, and turn the
/// remaining linalg ops (on memrefs) into loops for the shared tail.
std::vector<std::string> tensorLowering() {
  return {"one-shot-bufferize", "ownership-based-buffer-deallocation",
          "buffer-deallocation-simplification", "bufferization-lower-deallocations",
          "func.func(convert-linalg-to-loops)"};
}
} // namespace

const std::vector<std::string> &randomPassRegistry() {
  static const std::vector<std::string> kRegistry = {
      "func.func(canonicalize)",
      "func.func(cse)",
      "func.func(affine-loop-fusion)",
      "func.func(affine-scalrep)",
      "func.func(affine-loop-invariant-code-motion)",
      "func.func(affine-super-vectorize{virtual-vector-size=4})",
      "func.func(affine-super-vectorize{virtual-vector-size=16})",
      "func.func(affine-loop-unroll{unroll-factor=2})",
      "func.func(affine-loop-unroll{unroll-factor=4})",
      "func.func(affine-loop-tile{tile-size=4})",
      "func.func(affine-loop-normalize)",
      "func.func(affine-simplify-structures)",
      "func.func(loop-invariant-code-motion)",
      "sccp",
      "symbol-dce",
      "arith-expand",
      "arith-expand{include-bf16=true}",
      "func.func(math-expand-ops)",
  };
  return kRegistry;
}

std::vector<std::string> splitPipeline(const std::string &body) {
  std::vector<std::string> out;
  int depth = 0;
  std::string cur;
  for (char ch : body) {
    if (ch == '(' || ch == '{')
      ++depth;
    if (ch == ')' || ch == '}')
      --depth;
    if (ch == ',' && depth == 0) {
      if (!cur.empty())
        out.push_back(cur);
      cur.clear();
      continue;
    }
    if (ch != ' ' || depth > 0)
      cur += ch;
  }
  if (!cur.empty())
    out.push_back(cur);
  return out;
}

namespace {
/// Moves the elements that run before `stage` from the front of the
/// lowering into `before`, and copies those of the tail: the tail's
/// lowering to loops runs again after the user's passes, which may make
/// what it lowers (scf-for-loop-peeling makes affine.min ops).
void splitAtStage(Pipeline &p, MlirStyle style, PassStage stage) {
  size_t lowering = 0, tail = 0; // how many of each run before the passes
  switch (stage) {
  case PassStage::Entry: break;
  case PassStage::Bufferized:
    lowering = style == MlirStyle::Tensor ? kTensorBufferization : 0;
    break;
  case PassStage::Loops: {
    // The tail up to the lower-affine after convert-vector-to-scf: affine,
    // multi_reduction and n-D transfers are lowered there.
    lowering = p.lowering.size();
    const auto toScf = std::find(p.tail.begin(), p.tail.end(), "convert-vector-to-scf");
    tail = static_cast<size_t>(std::find(toScf, p.tail.end(), "lower-affine") - p.tail.begin()) + 1;
    break;
  }
  }
  p.before.assign(p.lowering.begin(), p.lowering.begin() + lowering);
  p.before.insert(p.before.end(), p.tail.begin(), p.tail.begin() + tail);
  p.lowering.erase(p.lowering.begin(), p.lowering.begin() + lowering);
}
} // namespace

bool resolvePipeline(const std::string &spec, MlirStyle style, Pipeline &out, std::string &error,
                     PassStage stage) {
  out = Pipeline();
  switch (style) {
  case MlirStyle::Affine: break;
  case MlirStyle::Tensor: out.lowering = tensorLowering(); break;
  case MlirStyle::Npu: break;
  }
  out.spec = spec;
  out.tail = loweringTail();
  splitAtStage(out, style, stage);
  if (spec == "O0")
    return true;
  if (spec == "O2") {
    out.passes = style == MlirStyle::Tensor ? tensorO2Passes()
                 : style == MlirStyle::Npu  ? npuO2Passes()
                                            : o2Passes();
    return true;
  }
  if (spec.rfind("random:", 0) == 0) {
    uint64_t seed;
    if (!textToUInt(spec.substr(7), seed)) {
      error = "random pipelines are written random:SEED";
      return false;
    }
    Prng rng(seed ^ 0x7069706c696e65ull); // independent of the case stream
    const auto &registry = randomPassRegistry();
    const uint64_t n = 1 + rng.below(8);
    for (uint64_t i = 0; i < n; ++i)
      out.passes.push_back(rng.pick(registry));
    return true;
  }
  std::string body = spec;
  if (body.rfind("builtin.module(", 0) == 0 && body.back() == ')')
    body = body.substr(15, body.size() - 16);
  out.passes = splitPipeline(body);
  if (out.passes.empty()) {
    error = "empty pipeline '" + spec + "'";
    return false;
  }
  return true;
}

} // namespace npufuzz
