//===- tests/backend/UpstreamCorpusTest.cpp - Known upstream MLIR findings ===//
//
// Each module in corpus/upstream reproduces a behaviour of an upstream pass;
// verify-pipeline must blame that pass with the recorded verdict. A pass that
// crashes is run through mlir-opt, so that it takes only that process down.
//
//===----------------------------------------------------------------------===//
#include "driver/VerifyPipeline.h"
#include "tests/TestSupport.h"

#include <gtest/gtest.h>

using namespace npufuzz;

namespace {
struct Finding {
  const char *file, *pipeline, *verdict;
  int passIndex;
  bool throughMlirOpt = false;
};
} // namespace

TEST(UpstreamCorpus, EachFindingIsBlamedOnItsPass) {
  const Finding findings[] = {
      {"arith_expand_maximumf_signed_zero.mlir", "arith-expand", "mismatch", 0},
      {"math_to_libm_rsqrtf.mlir", "convert-math-to-libm", "compile-error", 0},
      {"affine_loop_fusion_ignores_memref_store.mlir",
       "func.func(canonicalize),func.func(affine-loop-fusion)", "mismatch", 1},
      {"super_vectorize_broadcast_transfer_write.mlir", "O2", "verifier-error", 5},
      {"math_expand_tanh_negative_zero.mlir", "func.func(math-expand-ops)", "mismatch", 0},
      {"affine_loop_fusion_slices_iter_args_loop.mlir", "func.func(affine-loop-fusion)",
       "mismatch", 0},
      {"affine_loop_fusion_sibling_reduction_sliced.mlir", "func.func(affine-loop-fusion)",
       "mismatch", 0},
      {"affine_loop_fusion_sibling_reduction_dominance.mlir", "func.func(affine-loop-fusion)",
       "verifier-error", 0},
      {"super_vectorize_strided_access.mlir",
       "func.func(affine-super-vectorize{virtual-vector-size=16})", "mismatch", 0},
      {"affine_loop_fusion_sibling_iter_args_use_after_free.mlir",
       "func.func(affine-loop-fusion{mode=sibling})", "crashed", 0, true},
  };
  for (const Finding &f : findings) {
    VerifyPipelineOptions options;
    options.file = npufuzz::testing::sourceDir() + "/corpus/upstream/" + f.file;
    options.pipeline = f.pipeline;
    if (f.throughMlirOpt)
      options.mlirOpt = "mlir-opt-22";
    const VerifyPipelineReport r = verifyPipelineFile(options);
    EXPECT_EQ(r.verdict, f.verdict) << f.file << "\n" << r.json();
    EXPECT_EQ(r.passIndex, f.passIndex) << f.file << "\n" << r.json();
  }
}
