//===- tests/generators/ShrinkTest.cpp - Shrink candidates ----------------===//
#include "generators/CaseGenerator.h"
#include "generators/Shrinks.h"
#include "tests/generators/GeneratorChecks.h"

#include "ir/Text.h"
#include "ir/Verifier.h"

#include <gtest/gtest.h>

#include <functional>

namespace npufuzz {
namespace {

Case parse(const std::string &text) {
  Case c;
  TextError error;
  EXPECT_TRUE(parseCase(text, c, error)) << error.format("<test>");
  return c;
}

/// Greedy reduction: take the first candidate that keeps `interesting`.
Case reduce(Case c, const std::function<bool(const Case &)> &interesting) {
  for (;;) {
    bool progressed = false;
    for (Case &cand : shrinkCandidates(c))
      if (interesting(cand)) {
        c = std::move(cand);
        progressed = true;
        break;
      }
    if (!progressed)
      return c;
  }
}

bool hasOp(const Case &c, OpKind k) {
  for (const Op &op : c.ops)
    if (op.kind == k)
      return true;
  return false;
}

const char *kValidTail = "npufuzz-case 1\n"
                         "data seed=3 edge_rate=0.05\n"
                         "%0 = input {fill=rand} : bf16[16,256]\n"
                         "%1 = input {fill=rand} : bf16[16,1]\n"
                         "%2 = row_expand_mul %0, %1 : bf16[16,256]\n"
                         "%3 = set_validshape %2 : bf16[16,256]{valid=1x256,dyn}\n"
                         "%4 = fillpad %3 {pad=max} : bf16[16,256]\n"
                         "%5 = exp %4 : bf16[16,256]\n"
                         "return %5\n";

TEST(Shrinks, CandidatesAreValidSmallerAndDeterministic) {
  const Case c = parse(kValidTail);
  ASSERT_EQ(verifyCase(c), "");
  const std::vector<Case> first = shrinkCandidates(c), second = shrinkCandidates(c);
  ASSERT_FALSE(first.empty());
  ASSERT_EQ(first.size(), second.size());
  for (size_t i = 0; i < first.size(); ++i) {
    EXPECT_EQ(printCase(first[i]), printCase(second[i]));
    EXPECT_EQ(verifyCase(first[i]), "") << printCase(first[i]);
    EXPECT_LT(caseSize(first[i]), caseSize(c)) << printCase(first[i]);
  }
  EXPECT_TRUE(testing::checkShrinkProgress(c, 1000));
}

TEST(Shrinks, ReducesToTheInterestingCore) {
  // Keep "a fillpad of a dynamic valid shape": everything else goes, dims
  // shrink, bf16 becomes f32, the pad becomes zero only if that stays
  // interesting (it does not matter here, so it does).
  const Case reduced = reduce(parse(kValidTail), [](const Case &c) {
    for (const Op &op : c.ops)
      if (op.kind == OpKind::FillPad && c.typeOf(op.operands[0]).valid &&
          c.typeOf(op.operands[0]).valid->dynamic)
        return true;
    return false;
  });
  EXPECT_LE(reduced.numComputeOps(), 2u) << printCase(reduced);
  EXPECT_FALSE(hasOp(reduced, OpKind::Exp)) << printCase(reduced);
  EXPECT_FALSE(hasOp(reduced, OpKind::RowExpandMul)) << printCase(reduced);
  for (const Value &v : reduced.values) {
    EXPECT_EQ(v.type.dtype, DType::F32) << printCase(reduced);
    EXPECT_LE(v.type.numElements(), 4) << printCase(reduced);
  }
}

// A chain keeps only the tasks, blocks and scalar stores its finding needs:
// here, a scalar-storing task of two blocks whose value a later task reads.
TEST(Shrinks, AChainShrinksToTheTasksItsFindingNeeds) {
  const Case reduced =
      reduce(parse(R"(npufuzz-case 1
data seed=4 edge_rate=0
%a = input {fill=rand} : f32[16,64]
task t0 blocks=3 store=tile
%b = exp %a : f32[16,64]
task t1 blocks=4 store=scalar
%c = neg %b : f32[16,64]
task t2 blocks=4 store=scalar
%d = abs %c : f32[16,64]
task t3 blocks=2 store=scalar
%e = add %d, %a : f32[16,64]
return %e
)"),
             [](const Case &c) {
               const std::vector<int32_t> tasks = opTasks(c);
               for (size_t i = 0; i < c.ops.size(); ++i)
                 for (ValueId v : c.ops[i].operands) {
                   const int32_t w = tasks[c.values[v].defOp];
                   if (w >= 0 && w != tasks[i] && c.tasks[w].store == TaskStore::Scalar &&
                       c.tasks[w].blocks > 1)
                     return true;
                 }
               return false;
             });
  EXPECT_EQ(taskOps(reduced).size(), 2u) << printCase(reduced);
  EXPECT_LE(reduced.numComputeOps(), 2u) << printCase(reduced);
  EXPECT_NE(printCase(reduced).find("blocks=2 store=scalar"), std::string::npos)
      << printCase(reduced);
  EXPECT_NE(printCase(reduced).find("blocks=1 store=tile"), std::string::npos)
      << printCase(reduced);
}

// Heads split, transposed and merged: among the candidates, the chain's
// final reshape reads the transpose's source directly (the transpose taken
// out), still from the case's input and still ending in the merged shape;
// replacing ops by inputs alone never keeps that input.
TEST(Shrinks, TakesALinkOutOfAChainOfViewsKeepingItsResultShape) {
  const Case c = parse("npufuzz-case 1\n"
                       "data seed=3 edge_rate=0.05\n"
                       "%0 = input {fill=rand} : i32[2,6,12]\n"
                       "%1 = reshape %0 : i32[2,6,3,4]\n"
                       "%2 = transpose %1 {perm=[0,2,1,3]} : i32[2,3,6,4]\n"
                       "%3 = reshape %2 : i32[6,6,4]\n"
                       "%4 = neg %3 : i32[6,6,4]\n"
                       "return %4\n");
  ASSERT_EQ(verifyCase(c), "");
  bool found = false;
  for (const Case &cand : shrinkCandidates(c))
    found |= !hasOp(cand, OpKind::Transpose) && cand.ops[0].kind == OpKind::Input &&
             cand.typeOf(cand.ops[0].results[0]).shape == std::vector<int64_t>{2, 6, 12} &&
             cand.typeOf(cand.outputs[0]).shape == std::vector<int64_t>{6, 6, 4};
  EXPECT_TRUE(found);
  // Two links that cancel go together.
  const Case pair = parse("npufuzz-case 1\n"
                          "data seed=3 edge_rate=0.05\n"
                          "%0 = input {fill=rand} : f32[4,8]\n"
                          "%1 = exp %0 : f32[4,8]\n"
                          "%2 = unsqueeze %1 {axis=1} : f32[4,1,8]\n"
                          "%3 = squeeze %2 {axis=1} : f32[4,8]\n"
                          "%4 = neg %3 : f32[4,8]\n"
                          "return %4\n");
  ASSERT_EQ(verifyCase(pair), "");
  bool cancelled = false;
  for (const Case &cand : shrinkCandidates(pair))
    cancelled |=
        cand.ops.size() == 3 && cand.ops[1].kind == OpKind::Exp && cand.ops[2].kind == OpKind::Neg;
  EXPECT_TRUE(cancelled);
}

TEST(Shrinks, SimplifiesIndexMapsKeepingThemInBounds) {
  const Case c = parse("npufuzz-case 1\n"
                       "data seed=1 edge_rate=0\n"
                       "%0 = input {fill=rand} : f32[4,3,17]\n"
                       "%1 = index_map %0 {map=(d0, d1, d2) -> (d0 floordiv 51, "
                       "(d0 floordiv 17) mod 3, (d0 - 3) mod 17)} : f32[204,1,1]\n"
                       "%2 = neg %1 : f32[204,1,1]\n"
                       "return %2\n");
  ASSERT_EQ(verifyCase(c), "");
  const Case reduced = reduce(c, [](const Case &x) { return hasOp(x, OpKind::IndexMap); });
  for (const Op &op : reduced.ops)
    for (const IndexExpr &e : op.attrs.map)
      EXPECT_EQ(e.countFloorDivMod(), 0u) << printCase(reduced);
  EXPECT_TRUE(testing::checkShrinkProgress(c, 1000));
}

TEST(Shrinks, KeepsGatherIndicesProvablyInBounds) {
  // Replacing the topk by an input must keep the index range for the gather.
  const Case c = parse("npufuzz-case 1\n"
                       "data seed=1 edge_rate=0\n"
                       "%0 = input {fill=rand} : f32[4,32]\n"
                       "%1, %2 = topk %0 {axis=1, k=4} : f32[4,4], i64[4,4]\n"
                       "%3 = gather %0, %2 {axis=1} : f32[4,4]\n"
                       "return %3\n");
  ASSERT_EQ(verifyCase(c), "");
  bool replacedTopK = false;
  for (const Case &cand : shrinkCandidates(c)) {
    EXPECT_EQ(verifyCase(cand), "") << printCase(cand);
    replacedTopK |= hasOp(cand, OpKind::Gather) && !hasOp(cand, OpKind::TopK);
  }
  EXPECT_TRUE(replacedTopK);
}

TEST(Shrinks, CaseSizeOrdersSimplerCasesLower) {
  const Case c = parse(kValidTail);
  Case fewer = c;
  fewer.outputs = {fewer.ops[4].results[0]};
  fewer.compact();
  EXPECT_LT(caseSize(fewer), caseSize(c));
}

TEST(Shrinks, GeneratedCasesShrinkToFixpoints) {
  const Policy policy = Policy::defaults();
  for (uint64_t seed = 100; seed < 130; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    EXPECT_TRUE(testing::checkShrinkProgress(generateCase(seed, policy), 2000));
  }
}

} // namespace
} // namespace npufuzz
