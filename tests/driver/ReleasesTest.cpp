//===- tests/driver/ReleasesTest.cpp - A fix's release against the canary's ===//
#include "driver/Releases.h"
#include "driver/ReduceCommand.h"

#include <gtest/gtest.h>

using namespace npufuzz;

TEST(Releases, AFixIsInItsReleaseAndLaterOnesOnly) {
  const std::optional<Release> fix = releaseOf("torch-2.10.0");
  ASSERT_TRUE(fix);
  EXPECT_EQ(fix->name, "torch");
  EXPECT_EQ(fix->number, (std::vector<uint64_t>{2, 10, 0}));
  EXPECT_EQ(includesFix("torch 2.15.0+cu132 numpy 2.4.6", *fix), std::optional<bool>(true));
  EXPECT_EQ(includesFix("torch 2.10.0+cpu numpy 2.2.6", *fix), std::optional<bool>(true));
  EXPECT_EQ(includesFix("torch 2.9.1+cu128 numpy 2.2.6", *fix), std::optional<bool>(false));
  EXPECT_EQ(includesFix("torch 2.10 numpy 2", *fix), std::optional<bool>(true));
  // Another compiler's canary, or another package of the same stem, says
  // nothing of torch.
  EXPECT_EQ(includesFix("tvm 0.27.0.post1 libtorch 3.0", *fix), std::nullopt);
  EXPECT_EQ(includesFix("", *fix), std::nullopt);
  EXPECT_EQ(includesFix("tvm 0.27.0.post1 torch 2.15.0+cu132", *fix), std::optional<bool>(true));
}

TEST(Releases, ANameWithoutANumberIsNoRelease) {
  for (const char *text :
       {"torch", "torch-", "-2.10", "torch-2.x", "torch-2.10.0rc1", "torch-2..1"})
    EXPECT_FALSE(releaseOf(text)) << text;
}

TEST(Releases, TheExpectLineKeepsTheFix) {
  Expectation e;
  e.verdict = VerdictKind::CompileError;
  e.fixedIn = "torch-2.10.0";
  const std::string line = expectationLine(e);
  EXPECT_NE(line.find(" fixed=torch-2.10.0 pipeline="), std::string::npos) << line;
  Expectation back;
  std::string error;
  ASSERT_TRUE(parseExpectation(line + "\n", back, error)) << error;
  EXPECT_EQ(back.fixedIn, "torch-2.10.0");
  EXPECT_EQ(back.verdict, VerdictKind::CompileError);
  EXPECT_FALSE(parseExpectation("// expect: ok fixed=torch pipeline=O0\n", back, error));
  EXPECT_NE(error.find("unknown field 'fixed=torch'"), std::string::npos) << error;
}

TEST(Releases, AnExpectationOfSomeReleasesKeepsItsRange) {
  // A PyTorchSim case whose verdict changed on the torch 2.8 line: the
  // fork's expectation until it, the release's from it.
  Expectation e;
  e.verdict = VerdictKind::VerifierError;
  e.from = "torch-2.8.0";
  e.until = "torch-2.10.0";
  const std::string line = expectationLine(e);
  EXPECT_NE(line.find(" from=torch-2.8.0 until=torch-2.10.0 pipeline="), std::string::npos) << line;
  Expectation back;
  std::string error;
  ASSERT_TRUE(parseExpectation(line + "\n", back, error)) << error;
  EXPECT_EQ(back.from, "torch-2.8.0");
  EXPECT_EQ(back.until, "torch-2.10.0");
  EXPECT_FALSE(parseExpectation("// expect: ok from=2.8 pipeline=O0\n", back, error));
  EXPECT_NE(error.find("unknown field 'from=2.8'"), std::string::npos) << error;
  // The adapter's canary names the torch its PyTorchSim line runs on.
  const Release line28 = *releaseOf("torch-2.8.0");
  EXPECT_EQ(includesFix("pytorchsim 509f42554202 openreg torch 2.8.0+cu128", line28),
            std::optional<bool>(true));
  EXPECT_EQ(includesFix("pytorchsim fe04c9ae3cee extension torch 2.2.0+cu121", line28),
            std::optional<bool>(false));
}
