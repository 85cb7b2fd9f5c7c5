//===- tests/backend/IrSkeletonTest.cpp - The shape of IR, not its numbers ===//
#include "backend/mlir/MlirJit.h"

#include <gtest/gtest.h>

using namespace npufuzz;

namespace {
std::string skeletonOf(const std::string &body) {
  MlirJit jit;
  const std::string text =
      "func.func @f(%a: memref<64xf32>, %b: memref<64xf32>) {\n" + body + "  return\n}\n";
  std::string skeleton, error;
  EXPECT_TRUE(jit.skeleton(text, {}, skeleton, error)) << error;
  return skeleton;
}
} // namespace

TEST(IrSkeleton, KeepsStridesAndStepsAndDropsNumbersAndPayload) {
  const std::string unit = skeletonOf("  affine.for %i = 0 to 32 {\n"
                                      "    %x = affine.load %a[%i + 3] : memref<64xf32>\n"
                                      "    %y = arith.negf %x : f32\n"
                                      "    affine.store %y, %b[%i] : memref<64xf32>\n"
                                      "  }\n");
  EXPECT_EQ(unit, "func.func{affine.for{affine.load(d) affine.store(d)}}");
  // Other bounds, offsets, payload and a second load: the same skeleton.
  EXPECT_EQ(skeletonOf("  affine.for %i = 0 to 17 {\n"
                       "    %x = affine.load %a[%i] : memref<64xf32>\n"
                       "    %z = affine.load %b[%i] : memref<64xf32>\n"
                       "    %y = arith.addf %x, %z : f32\n"
                       "    affine.store %y, %b[%i] : memref<64xf32>\n"
                       "  }\n"),
            unit);
  // A nest of the same loops is a rank, as a map's arity is.
  EXPECT_EQ(skeletonOf("  affine.for %i = 0 to 4 {\n"
                       "    affine.for %j = 0 to 16 {\n"
                       "      %x = affine.load %a[%i * 16 + %j] : memref<64xf32>\n"
                       "      affine.store %x, %b[%i * 16 + %j] : memref<64xf32>\n"
                       "    }\n"
                       "  }\n"),
            "func.func{affine.for{affine.load(d*c) affine.store(d*c)}}");
  // A strided subscript, a step that is not one, a floordiv: each tells.
  EXPECT_EQ(skeletonOf("  affine.for %i = 0 to 16 {\n"
                       "    %x = affine.load %a[%i * 2] : memref<64xf32>\n"
                       "    affine.store %x, %b[%i] : memref<64xf32>\n"
                       "  }\n"),
            "func.func{affine.for{affine.load(d*c) affine.store(d)}}");
  EXPECT_EQ(skeletonOf("  affine.for %i = 0 to 32 step 2 {\n"
                       "    %x = affine.load %a[%i] : memref<64xf32>\n"
                       "    affine.store %x, %b[%i] : memref<64xf32>\n"
                       "  }\n"),
            "func.func{affine.for[step]{affine.load(d) affine.store(d)}}");
  EXPECT_EQ(skeletonOf("  affine.for %i = 0 to 32 {\n"
                       "    %x = affine.load %a[%i floordiv 2] : memref<64xf32>\n"
                       "    affine.store %x, %b[%i] : memref<64xf32>\n"
                       "  }\n"),
            "func.func{affine.for{affine.load(div) affine.store(d)}}");
}

TEST(IrSkeleton, ABadModuleIsAnError) {
  MlirJit jit;
  std::string skeleton, error;
  EXPECT_FALSE(jit.skeleton("func.func @f( {", {}, skeleton, error));
  EXPECT_FALSE(error.empty());
}

TEST(IrSkeleton, ErasuresTakeOutOneUnusedOpEach) {
  MlirJit jit;
  const std::string text = "func.func @f(%a: memref<8xf32>, %b: memref<8xf32>) {\n"
                           "  %c = arith.constant 1.0 : f32\n"
                           "  affine.for %i = 0 to 8 {\n"
                           "    %x = affine.load %a[%i] : memref<8xf32>\n"
                           "    %y = arith.addf %x, %c : f32\n"
                           "    affine.store %y, %b[%i] : memref<8xf32>\n"
                           "  }\n"
                           "  memref.copy %a, %b : memref<8xf32> to memref<8xf32>\n"
                           "  return\n}\n";
  // The loop, the store in it and the copy: the constant, load and add
  // have uses, the return and the loop's yield end their blocks.
  const std::vector<std::string> variants = jit.erasures(text);
  ASSERT_EQ(variants.size(), 3u);
  for (const std::string &v : variants) {
    std::string diagnostic;
    EXPECT_TRUE(jit.parses(v, diagnostic)) << diagnostic;
  }
  EXPECT_EQ(variants[0].find("affine.for"), std::string::npos) << variants[0];
  EXPECT_EQ(variants[1].find("affine.store"), std::string::npos) << variants[1];
  EXPECT_EQ(variants[2].find("memref.copy"), std::string::npos) << variants[2];
  EXPECT_TRUE(jit.erasures("func.func @f( {").empty());
}
