//===- tests/oracles/OracleListTest.cpp - The oracles after the differential one ===//
#include "oracles/Oracle.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace npufuzz;

TEST(OracleList, EachOracleJudgesAfterTheOnesItBuildsOn) {
  std::vector<std::string> names;
  for (const auto &oracle : defaultOracles())
    names.push_back(oracle->name());
  // Nondeterminism before poison (a run that differs from itself differs
  // with any fill); memory errors after both (a read outside a buffer
  // shows as either, and is named for what it is) and before the blame of
  // wrong values; op blame before pass blame (which turns the op into its
  // scalar family once a pass is blamed).
  EXPECT_EQ(names,
            (std::vector<std::string>{"metamorphic", "nondeterminism", "poison", "memory-error",
                                      "op-blame", "pass-blame", "switch-blame"}));
}
