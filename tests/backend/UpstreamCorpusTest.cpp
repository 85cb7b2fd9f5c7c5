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

#include <cstdio>

using namespace npufuzz;

namespace {
struct Finding {
  const char *file, *pipeline, *verdict;
  int passIndex;
  bool throughMlirOpt = false;
  /// The lowering or tail element that miscompiles what the pass exposed.
  const char *miscompiledBy = "";
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
      {"math_expand_ceil.mlir", "func.func(math-expand-ops)", "mismatch", 0},
      {"affine_loop_fusion_ignores_subview_alias.mlir", "func.func(affine-loop-fusion)", "mismatch",
       0},
      {"affine_loop_fusion_ignores_collapse_shape_alias.mlir", "func.func(affine-loop-fusion)",
       "mismatch", 0},
      {"affine_loop_fusion_slices_iter_args_loop.mlir", "func.func(affine-loop-fusion)", "mismatch",
       0},
      {"affine_loop_fusion_sibling_reduction_sliced.mlir", "func.func(affine-loop-fusion)",
       "mismatch", 0},
      {"affine_loop_fusion_sibling_reduction_dominance.mlir", "func.func(affine-loop-fusion)",
       "verifier-error", 0},
      {"super_vectorize_strided_access.mlir",
       "func.func(affine-super-vectorize{virtual-vector-size=16})", "mismatch", 0},
      {"super_vectorize_ignores_loop_step.mlir",
       "func.func(affine-super-vectorize{virtual-vector-size=16})", "mismatch", 0},
      {"super_vectorize_trip_count_tail.mlir",
       "func.func(affine-super-vectorize{virtual-vector-size=16})", "mismatch", 0},
      {"affine_loop_fusion_sibling_iter_args_use_after_free.mlir",
       "func.func(affine-loop-fusion{mode=sibling})", "crashed", 0, true},
      {"affine_loop_fusion_symbolic_bound_slice_segfault.mlir", "func.func(affine-loop-fusion)",
       "crashed", 0, true},
      {"affine_loop_unroll_iter_args_same_init.mlir",
       "func.func(affine-loop-unroll{unroll-factor=2})", "mismatch", 0, true},
      {"super_vectorize_after_tile_segfault.mlir",
       "func.func(affine-loop-tile{tile-size=4}),"
       "func.func(affine-super-vectorize{virtual-vector-size=4})",
       "crashed", 1, true},
      {"super_vectorize_reduction_with_store_segfault.mlir",
       "func.func(affine-super-vectorize{virtual-vector-size=16})", "crashed", 0, true},
      {"convert_vector_to_llvm_i1_bit_packing.mlir",
       "func.func(affine-super-vectorize{virtual-vector-size=16}),"
       "func.func(affine-loop-unroll{unroll-factor=2})",
       "mismatch", 1, true, "convert-vector-to-llvm"},
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
    EXPECT_EQ(r.miscompiledBy, f.miscompiledBy) << f.file << "\n" << r.json();
  }
}

// Blame among passes that leave the IR as it was: their executions are
// reused, and the blamed index is still the pass that breaks it, wherever
// it stands, and after a pass that does change the IR (canonicalize folds
// the scratch buffer's loads).
TEST(UpstreamCorpus, BlameAmongPassesThatChangeNothing) {
  for (const size_t before : {0u, 1u, 37u, 200u}) {
    for (const bool changeFirst : {false, true}) {
      std::string pipeline;
      for (size_t k = 0; k < before; ++k)
        pipeline += k == 0 && changeFirst ? "canonicalize," : "cse,";
      pipeline += "arith-expand";
      for (size_t k = 0; k < 40; ++k)
        pipeline += ",cse";
      VerifyPipelineOptions options;
      options.file =
          npufuzz::testing::sourceDir() + "/corpus/upstream/arith_expand_maximumf_signed_zero.mlir";
      options.pipeline = pipeline;
      const VerifyPipelineReport r = verifyPipelineFile(options);
      EXPECT_EQ(r.verdict, "mismatch") << before << " " << changeFirst << "\n" << r.json();
      EXPECT_EQ(r.passIndex, static_cast<int>(before)) << before << " " << changeFirst;
      EXPECT_EQ(r.passName, "arith-expand") << before << " " << changeFirst;
    }
  }
}

// The i1 bit-packing bug with mlir-opt-22 and mlir-runner-22 alone, as the
// file's header says to run it: a report upstream can replay without
// npufuzz.
TEST(UpstreamCorpus, TheI1BitPackingReproRunsWithMlirToolsAlone) {
  const std::string file = npufuzz::testing::sourceDir() +
                           "/corpus/upstream/convert_vector_to_llvm_i1_bit_packing.runner.mlir";
  const std::string command =
      "mlir-opt-22 '" + file +
      "' --pass-pipeline='builtin.module(func.func(convert-linalg-to-loops),lower-affine,"
      "convert-vector-to-scf,convert-scf-to-cf,expand-strided-metadata,convert-vector-to-llvm,"
      "finalize-memref-to-llvm,convert-arith-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,"
      "reconcile-unrealized-casts)' | mlir-runner-22 -e main -entry-point-result=void "
      "-shared-libs=/usr/lib/llvm-22/lib/libmlir_runner_utils.so,"
      "/usr/lib/llvm-22/lib/libmlir_c_runner_utils.so 2>&1";
  FILE *pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char buffer[4096];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;)
    output.append(buffer, n);
  ASSERT_EQ(::pclose(pipe), 0) << output;
  // Two bit-packed bytes written, fourteen of the sixteen trues lost.
  EXPECT_NE(output.find("[255,  255,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0,  0]"),
            std::string::npos)
      << output;
}
