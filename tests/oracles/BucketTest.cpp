//===- tests/oracles/BucketTest.cpp - Signatures that share a root cause ---===//
#include "oracles/Bucket.h"

#include "ir/Text.h"

#include <gtest/gtest.h>

using namespace npufuzz;

namespace {
Case caseOf(const std::string &body) {
  Case c;
  TextError err;
  EXPECT_TRUE(parseCase("npufuzz-case 1\ngenerator seed=1 policy=\"default\"\n"
                        "data seed=1 edge_rate=0\n" +
                            body,
                        c, err))
      << err.format("case");
  return c;
}
const char *const kPass = "func.func(arith-expand)";
} // namespace

TEST(Bucket, ReducedReprosOfOneArithmeticShareABucket) {
  // A max, a row-expanded min and a reduce_max all lower to maximumf or
  // minimumf: one rule of a pass.
  const Case max = caseOf("%0 = input : f32[2,2]\n%1 = input : f32[2,2]\n"
                          "%2 = max %0, %1 : f32[2,2]\nreturn %2\n");
  const Case rowMin = caseOf("%0 = input : f32[2,2]\n%1 = input : f32[2,1]\n"
                             "%2 = row_expand_min %0, %1 : f32[2,2]\nreturn %2\n");
  const Case reduceMax = caseOf("%0 = input : f32[2,2]\n"
                                "%1 = reduce_max %0 {axis=1} : f32[2,1]\nreturn %1\n");
  const Bucket a = bucketOf(VerdictKind::Mismatch, kPass, max);
  EXPECT_EQ(a.id(), bucketOf(VerdictKind::Mismatch, kPass, rowMin).id());
  EXPECT_EQ(a.id(), bucketOf(VerdictKind::Mismatch, kPass, reduceMax).id());
  EXPECT_EQ(a.key, "mismatch | func.func(arith-expand) | max/min | float");
  EXPECT_TRUE(isBucketId(a.id())) << a.id();
}

TEST(Bucket, PassKindOpsAndDtypeClassEachSeparate) {
  const Case f = caseOf("%0 = input : f32[2,2]\n%1 = input : f32[2,2]\n"
                        "%2 = max %0, %1 : f32[2,2]\nreturn %2\n");
  const Case i = caseOf("%0 = input : i32[2,2]\n%1 = input : i32[2,2]\n"
                        "%2 = max %0, %1 : i32[2,2]\nreturn %2\n");
  const Case add = caseOf("%0 = input : f32[2,2]\n%1 = input : f32[2,2]\n"
                          "%2 = add %0, %1 : f32[2,2]\nreturn %2\n");
  const std::string id = bucketOf(VerdictKind::Mismatch, kPass, f).id();
  EXPECT_NE(id, bucketOf(VerdictKind::Mismatch, kPass, i).id());
  EXPECT_NE(id, bucketOf(VerdictKind::Mismatch, kPass, add).id());
  EXPECT_NE(id, bucketOf(VerdictKind::Crash, kPass, f).id());
  EXPECT_NE(id, bucketOf(VerdictKind::Mismatch, "func.func(canonicalize)", f).id());
}

TEST(Bucket, IdsAreTold) {
  EXPECT_TRUE(isBucketId("bucket-0123456789abcdef"));
  EXPECT_FALSE(isBucketId("bucket-0123456789ABCDEF"));
  EXPECT_FALSE(isBucketId("mismatch-0123456789abcdef"));
  EXPECT_FALSE(isBucketId("bucket-0123"));
}
