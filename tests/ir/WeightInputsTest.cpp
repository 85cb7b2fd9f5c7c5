//===- tests/ir/WeightInputsTest.cpp - The inputs a model holds as weights -===//
#include "ir/Case.h"
#include "tests/TestSupport.h"

#include <gtest/gtest.h>

using namespace npufuzz;
using npufuzz::testing::parseOrFail;

namespace {
using Positions = std::vector<size_t>;
Case parseOrDie(const std::string &body) { return parseOrFail("npufuzz-case 1\n" + body); }
} // namespace

// A matmul's second factor, a convolution's filter, an addmm's bias and its
// second factor through a transpose (a linear layer's [N, K] weight) are
// weights; activations, and an input also read elsewhere, are not.
TEST(WeightInputs, AreTheInputsOnlyUsedWhereAModelsWeightsGo) {
  const Case c = parseOrDie("%0 = input : f32[4,16]\n"                    // activation
                            "%1 = input : f32[16,8]\n"                    // matmul's B
                            "%2 = matmul %0, %1 : f32[4,8]\n"             //
                            "%3 = input : f32[1,8]\n"                     // addmm's bias
                            "%4 = input : f32[8,8]\n"                     // linear's weight
                            "%5 = transpose %4 {perm=[1,0]} : f32[8,8]\n" //
                            "%6 = addmm %3, %2, %5 : f32[4,8]\n"          //
                            "%7 = input : f32[1,2,5,5]\n"                 // activation
                            "%8 = input : f32[3,2,3,3]\n"                 // filter
                            "%9 = conv2d %7, %8 {stride=[1,1], padding=[0,0], dilation=[1,1], "
                            "groups=1} : f32[1,3,3,3]\n"
                            "return %6, %9\n");
  EXPECT_EQ(weightInputs(c), (Positions{1, 2, 3, 5}));

  // B also added to itself elsewhere, a filter also returned, a matmul's
  // first factor: none of them a weight.
  const Case shared = parseOrDie("%0 = input : f32[4,4]\n"
                                 "%1 = input : f32[4,4]\n"
                                 "%2 = matmul %0, %1 : f32[4,4]\n"
                                 "%3 = add %1, %2 : f32[4,4]\n"
                                 "%4 = input : f32[1,1,3,3]\n"
                                 "%5 = input : f32[1,1,2,2]\n"
                                 "%6 = conv2d %4, %5 {stride=[1,1], padding=[0,0], "
                                 "dilation=[1,1], groups=1} : f32[1,1,2,2]\n"
                                 "return %3, %5, %6\n");
  EXPECT_EQ(weightInputs(shared), Positions{});
}
