//===- tests/driver/CompilerCoverageTest.cpp - The compiler's coverage ----===//
//
// What an adapter writes (tools/adapters/compiler_coverage.py) is read as
// it means; a campaign's union counts each line and branch once whatever
// the order its cases finish in, survives a resume, and says why it is
// off; and the lines a case reached are feedback keys for guidance.
//
//===----------------------------------------------------------------------===//
#include "driver/CompilerCoverage.h"
#include "driver/Feedback.h"
#include "tests/TestSupport.h"

#include "llvm/Support/JSON.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

using namespace npufuzz;

namespace {

// As the adapter writes it after a case.
const char *kAdapterFile =
    R"({"tool":"slipcover 1.1.0","packages":["torch/_inductor"],"files":{)"
    R"("torch/_inductor/scheduler.py":{"lines":[10,11,12],"branches":[[10,12],[11,-3]]},)"
    R"("torch/_inductor/lowering.py":{"lines":[5],"branches":[]}}})";

CaseCoverage reached(const std::string &file, std::vector<int64_t> lines,
                     std::vector<std::pair<int64_t, int64_t>> branches = {}) {
  CaseCoverage c;
  c.tool = "slipcover 1.1.0";
  c.packages = {"torch/_inductor"};
  if (!lines.empty())
    c.lines[file] = std::move(lines);
  if (!branches.empty())
    c.branches[file] = std::move(branches);
  return c;
}

/// A new empty directory of this process's, under the system's temporary one.
std::string emptyDirectory(const std::string &prefix) {
  const std::string dir =
      (std::filesystem::temp_directory_path() / (prefix + std::to_string(::getpid()))).string();
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

} // namespace

TEST(CompilerCoverage, TheAdaptersFileIsReadAsItMeans) {
  CaseCoverage c;
  std::string error;
  ASSERT_TRUE(CaseCoverage::parse(kAdapterFile, c, error)) << error;
  EXPECT_TRUE(c.measured());
  EXPECT_EQ(c.tool, "slipcover 1.1.0");
  EXPECT_EQ(c.lineCount(), 4u);
  EXPECT_EQ(c.branchCount(), 2u);
  const std::vector<std::pair<int64_t, int64_t>> expected{{10, 12}, {11, -3}};
  EXPECT_EQ(c.branches.at("torch/_inductor/scheduler.py"), expected);
  // And back through a worker's TaskResult.
  CaseCoverage again;
  ASSERT_TRUE(CaseCoverage::fromJson(c.toJson(), again, error)) << error;
  EXPECT_EQ(again.lines, c.lines);
  EXPECT_EQ(again.branches, c.branches);
}

TEST(CompilerCoverage, NoFileIsNotAskedAndAMalformedOneIsAnError) {
  CaseCoverage c;
  std::string error;
  EXPECT_TRUE(CaseCoverage::parse("", c, error));
  EXPECT_TRUE(c.empty());
  for (const char *bad :
       {"[]", "{\"tool\":\"slipcover\",\"files\":{\"a.py\":{\"lines\":[\"x\"]}}}", "{\"files\":{}}",
        "{\"tool\":\"slipcover\",\"files\":{\"a.py\":"
        "{\"branches\":[[1]]}}}",
        "{not json"}) {
    error.clear();
    EXPECT_FALSE(CaseCoverage::parse(bad, c, error)) << bad;
    EXPECT_FALSE(error.empty()) << bad;
  }
}

TEST(CompilerCoverage, AnAdapterWithoutItsToolMakesTheCampaignSayCoverageIsOff) {
  CaseCoverage off;
  std::string error;
  ASSERT_TRUE(CaseCoverage::parse(
      R"json({"off":"slipcover is not installed in /venv (pip install slipcover==1.1.0)"})json",
      off, error));
  CoverageTotals totals;
  EXPECT_EQ(totals.add(off, 1.0), 0u);
  const CoverageSummary s = totals.summary();
  EXPECT_EQ(s.state, "off");
  EXPECT_EQ(formatCoverageLine(s),
            "compiler coverage: off (slipcover is not installed in /venv (pip install "
            "slipcover==1.1.0))");
  // A backend whose adapter never measures says so too.
  EXPECT_EQ(formatCoverageLine(CoverageTotals().summary()), "compiler coverage: not measured");
}

TEST(CompilerCoverage, TheUnionCountsEachLineAndBranchOnceAndGrowsOverCases) {
  CoverageTotals totals;
  const std::string f = "torch/_inductor/scheduler.py";
  EXPECT_EQ(totals.add(reached(f, {1, 2, 3}, {{1, 3}}), 1.0), 4u);
  EXPECT_EQ(totals.add(reached(f, {2, 3, 4}, {{1, 3}, {1, 2}}), 2.0), 2u);
  EXPECT_EQ(totals.add(reached("torch/_inductor/ir.py", {2}), 3.0), 1u);
  EXPECT_EQ(totals.lineCount(), 5u);
  EXPECT_EQ(totals.branchCount(), 2u);
  const CoverageSummary s = totals.summary();
  EXPECT_EQ(s.state, "on");
  ASSERT_EQ(s.growth.size(), 3u);
  EXPECT_EQ(s.growth[1].cases, 2u);
  EXPECT_EQ(s.growth[1].lines, 4u);
  EXPECT_EQ(s.growth[1].branches, 2u);
  EXPECT_DOUBLE_EQ(s.growth[2].seconds, 3.0);
  EXPECT_NE(coveragePlotSvg(s, false).find("<polyline"), std::string::npos);
}

TEST(CompilerCoverage, WhatTheCampaignReadItselfCountsNoCase) {
  // ptoas's profiles, read every so many cases: the cases said "measured,
  // nothing of my own", and the read brings the lines.
  CoverageTotals totals;
  const std::string f = "ptoas/lib/PTO/Transforms/InsertSync.cpp";
  CaseCoverage off;
  off.off = "llvm-cov is not installed";
  EXPECT_EQ(totals.addRead(off, 0.5), 0u);
  EXPECT_EQ(totals.summary().state, "off");
  EXPECT_EQ(totals.add(reached(f, {}), 1.0), 0u);
  EXPECT_EQ(totals.add(reached(f, {}), 2.0), 0u);
  EXPECT_EQ(totals.addRead(reached(f, {7, 8}, {{7, 1}}), 2.5), 3u);
  EXPECT_EQ(totals.addRead(reached(f, {8}), 3.0), 0u);
  const CoverageSummary s = totals.summary();
  EXPECT_EQ(s.state, "on");
  EXPECT_EQ(s.cases, 2u);
  EXPECT_EQ(s.lines, 2u);
  EXPECT_EQ(s.branches, 1u);
  // The read is a point of its own, at the cases it came after.
  ASSERT_FALSE(s.growth.empty());
  EXPECT_EQ(s.growth.back().cases, 2u);
  EXPECT_EQ(s.growth.back().lines, 2u);
  EXPECT_DOUBLE_EQ(s.growth.back().seconds, 2.5);
  // A read that fails once cases were measured leaves the campaign on.
  EXPECT_EQ(totals.addRead(off, 4.0), 0u);
  EXPECT_EQ(totals.summary().state, "on");
}

TEST(CompilerCoverage, AResumedCampaignKeepsItsUnion) {
  const std::string dir = emptyDirectory("npufuzz-compiler-coverage-");
  CoverageTotals totals;
  totals.add(reached("torch/_inductor/ir.py", {7, 9}, {{7, 9}}), 1.5);
  std::string error;
  ASSERT_TRUE(totals.save(dir, error)) << error;
  CoverageTotals resumed;
  ASSERT_TRUE(resumed.load(dir, error)) << error;
  EXPECT_EQ(resumed.lineCount(), 2u);
  EXPECT_EQ(resumed.branchCount(), 1u);
  EXPECT_EQ(resumed.casesMeasured(), 1u);
  EXPECT_EQ(resumed.tool(), "slipcover 1.1.0");
  // What the first run reached is not new to the resumed one.
  EXPECT_EQ(resumed.add(reached("torch/_inductor/ir.py", {7, 8}), 2.0), 1u);
  EXPECT_EQ(resumed.growth().size(), 2u);
  std::filesystem::remove_all(dir);
}

// The union does not depend on the order cases finish in (workers finish
// in any order): the same cases in another order give the same counts.
RC_GTEST_PROP(CompilerCoverage, TheUnionIsTheSameInAnyOrder, ()) {
  const auto cases = *rc::gen::container<std::vector<std::vector<int>>>(
      rc::gen::container<std::vector<int>>(rc::gen::inRange(1, 40)));
  std::set<int64_t> distinct;
  std::vector<CaseCoverage> coverages;
  for (const std::vector<int> &lines : cases) {
    std::vector<int64_t> sorted(lines.begin(), lines.end());
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    distinct.insert(sorted.begin(), sorted.end());
    coverages.push_back(reached("a.py", sorted, {}));
  }
  CoverageTotals forward, backward;
  uint64_t fresh = 0;
  for (const CaseCoverage &c : coverages)
    fresh += forward.add(c, 0);
  for (auto it = coverages.rbegin(); it != coverages.rend(); ++it)
    backward.add(*it, 0);
  RC_ASSERT(forward.lineCount() == distinct.size());
  RC_ASSERT(backward.lineCount() == distinct.size());
  RC_ASSERT(fresh == distinct.size());
}

RC_GTEST_PROP(CompilerCoverage, ShardsJoinedGiveTheUnionOfAllTheirCases, ()) {
  // Each case goes to one of two shards; the shards joined reach what one
  // campaign of all the cases reaches, and count every case once.
  const auto cases = *rc::gen::container<std::vector<std::pair<bool, std::vector<int>>>>(
      rc::gen::pair(rc::gen::arbitrary<bool>(),
                    rc::gen::container<std::vector<int>>(rc::gen::inRange(1, 40))));
  CoverageTotals whole, shards[2];
  for (const auto &[second, lines] : cases) {
    std::vector<int64_t> sorted(lines.begin(), lines.end());
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    const CaseCoverage c = reached("a.py", sorted, {{sorted.empty() ? 0 : sorted[0], 1}});
    whole.add(c, 0);
    shards[second].add(c, 0);
  }
  CoverageTotals joined;
  joined.absorb(shards[0]);
  joined.absorb(shards[1]);
  RC_ASSERT(joined.lineCount() == whole.lineCount());
  RC_ASSERT(joined.branchCount() == whole.branchCount());
  RC_ASSERT(joined.casesMeasured() == cases.size());
  RC_ASSERT(joined.summary().state == (cases.empty() ? "not-measured" : "on"));
}

// `npufuzz merge` joins its inputs' coverage and counts each input once:
// a shard merged again after it grew replaces what it counted before, and
// the merged directory's file keeps the inputs for the next merge.
TEST(CompilerCoverage, AMergeCountsEachInputOnceThoughMergedAgain) {
  const std::string dir = emptyDirectory("npufuzz-merged-coverage-");
  CoverageTotals shardA, shardB;
  shardA.add(reached("a.py", {1, 2}), 1);
  shardA.add(reached("a.py", {2, 3}), 2);
  shardB.add(reached("a.py", {9}), 1);
  CoverageTotals merged;
  merged.mergeInput("/runs/a", shardA);
  merged.mergeInput("/runs/b", shardB);
  EXPECT_EQ(merged.casesMeasured(), 3u);
  EXPECT_EQ(merged.lineCount(), 4u);
  EXPECT_TRUE(merged.growth().empty());
  std::string error;
  ASSERT_TRUE(merged.save(dir, error)) << error;
  // Shard a ran one more case; it is merged into the same directory again.
  shardA.add(reached("a.py", {4}), 3);
  CoverageTotals again;
  ASSERT_TRUE(again.load(dir, error)) << error;
  again.mergeInput("/runs/a", shardA);
  EXPECT_EQ(again.casesMeasured(), 4u);
  EXPECT_EQ(again.lineCount(), 5u);
  EXPECT_EQ(again.summary().state, "on");
  // An input that measured nothing (no compiler-coverage.json) adds no case.
  again.mergeInput("/runs/c", CoverageTotals());
  EXPECT_EQ(again.casesMeasured(), 4u);
  // Totals that were not a merge's keep their own cases when one joins them.
  CoverageTotals campaign = shardB;
  campaign.mergeInput("/runs/a", shardA);
  EXPECT_EQ(campaign.casesMeasured(), 4u);
  // A merge's file whose inputs are not case counts is refused.
  std::ofstream(dir + "/compiler-coverage.json")
      << R"({"tool":"slipcover 1.1.0","cases":1,"files":{},"merged_inputs":{"/runs/a":-1}})";
  CoverageTotals corrupt;
  EXPECT_FALSE(corrupt.load(dir, error));
  EXPECT_NE(error.find("merged_inputs"), std::string::npos) << error;
  std::filesystem::remove_all(dir);
}

TEST(CompilerCoverage, EveryLineAndBranchACaseReachedIsAFeedbackKey) {
  const Case c = npufuzz::testing::parseOrFail("npufuzz-case 1\n%0 = input : f32[4]\n"
                                               "%1 = exp %0 : f32[4]\nreturn %1\n");
  BackendRun run;
  const std::vector<uint32_t> without = caseFeedback(c, run, CaseCoverage());
  CaseCoverage one = reached("torch/_inductor/ir.py", {7}, {{7, 9}});
  const std::vector<uint32_t> with = caseFeedback(c, run, one);
  EXPECT_EQ(with.size(), without.size() + 2);
  CaseCoverage other = reached("torch/_inductor/ir.py", {8}, {{7, 9}});
  const std::vector<uint32_t> otherKeys = caseFeedback(c, run, other);
  // Another line is another key; the same branch is the same key.
  EXPECT_NE(with, otherKeys);
  std::vector<uint32_t> shared;
  std::set_intersection(with.begin(), with.end(), otherKeys.begin(), otherKeys.end(),
                        std::back_inserter(shared));
  EXPECT_EQ(shared.size(), without.size() + 1);
}
