//===- tests/driver/RootCauseTest.cpp - One id per bug --------------------===//
//
// The planted pass npufuzz-test-two-bugs holds two miscompiles that need
// different IR: long loops lose their last iteration (in whatever op's loop
// is long), strided loads lose their stride (only in strided views). Each
// bug must get one id however it first shows, and the two different ids.
//
//===----------------------------------------------------------------------===//
#include "driver/Campaign.h"
#include "driver/JsonFile.h"
#include "driver/ReduceCommand.h"
#include "ir/FileText.h"

#include "llvm/Support/JSON.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace npufuzz;

namespace {
const char *kTwoBugs = "func.func(npufuzz-test-two-bugs)";

std::string freshDir(const std::string &name) {
  const fs::path dir =
      fs::temp_directory_path() / ("npufuzz-rootcause-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  return dir.string();
}

/// Each ends in an op whose loop is long (past 16), or reads a strided
/// view with every loop short; their ops, dtypes and shapes differ.
const char *kLongNeg = "npufuzz-case 1\n"
                       "data seed=3 edge_rate=0\n"
                       "%0 = input : f32[2,40]\n"
                       "%1 = neg %0 : f32[2,40]\n"
                       "return %1\n";
const char *kLongAdd = "npufuzz-case 1\n"
                       "data seed=4 edge_rate=0\n"
                       "%0 = input : i32[3,24]\n"
                       "%1 = input : i32[3,24]\n"
                       "%2 = add %0, %1 : i32[3,24]\n"
                       "%3 = abs %2 : i32[3,24]\n"
                       "return %3\n";
const char *kStridedNeg = "npufuzz-case 1\n"
                          "data seed=5 edge_rate=0\n"
                          "%0 = input : f32[4,8]\n"
                          "%1 = slice %0 {offsets=[0,0], sizes=[4,4], strides=[1,2]} : f32[4,4]\n"
                          "%2 = neg %1 : f32[4,4]\n"
                          "return %2\n";
const char *kStridedMul = "npufuzz-case 1\n"
                          "data seed=6 edge_rate=0\n"
                          "%0 = input : i32[6,9]\n"
                          "%1 = slice %0 {offsets=[1,0], sizes=[2,3], strides=[2,3]} : i32[2,3]\n"
                          "%2 = mul %1, %1 : i32[2,3]\n"
                          "return %2\n";

struct Reduced {
  std::string root, bucket, bucketKey;
};

/// `npufuzz reduce` of `text` under the two-bug pass.
Reduced reduceCase(MlirJit &jit, const std::string &name, const char *text) {
  const std::string dir = freshDir(name);
  fs::create_directories(dir);
  std::string error;
  EXPECT_TRUE(writeFileAtomically(dir + "/case.npf", text, error)) << error;
  ReduceCommandOptions o;
  o.casePath = dir + "/case.npf";
  o.outDir = dir + "/reduced";
  o.pipeline = kTwoBugs;
  o.maxSeconds = 0; // to the fixpoint: the result must not depend on speed
  o.candidateTimeout = 120;
  o.progress = false;
  o.jit = &jit;
  std::ostringstream log;
  EXPECT_EQ(runReduceCommand(o, log), 0) << log.str();
  Reduced r;
  const std::optional<llvm::json::Value> report = readJsonFile(dir + "/reduced/report.json");
  EXPECT_TRUE(report.has_value());
  if (const llvm::json::Object *obj = report ? report->getAsObject() : nullptr) {
    r.root = obj->getString("signature_id").value_or("").str();
    r.bucket = obj->getString("bucket").value_or("").str();
    r.bucketKey = obj->getString("bucket_key").value_or("").str();
  }
  fs::remove_all(dir);
  return r;
}
} // namespace

TEST(RootCause, TwoBugsOfOnePassGetTwoIdsAndEachBugOne) {
  MlirJit jit;
  std::string error;
  ASSERT_TRUE(jit.loadPassPlugin(NPUFUZZ_TEST_PLUGIN, error)) << error;
  const Reduced longNeg = reduceCase(jit, "long-neg", kLongNeg);
  const Reduced longAdd = reduceCase(jit, "long-add", kLongAdd);
  const Reduced stridedNeg = reduceCase(jit, "strided-neg", kStridedNeg);
  const Reduced stridedMul = reduceCase(jit, "strided-mul", kStridedMul);
  // The loop bug shows in a neg or an abs: one root cause, any op.
  EXPECT_EQ(longNeg.root, longAdd.root);
  EXPECT_EQ(longNeg.bucket, longAdd.bucket) << longNeg.bucketKey << "\n" << longAdd.bucketKey;
  EXPECT_NE(longNeg.bucketKey.find("any op"), std::string::npos) << longNeg.bucketKey;
  // The stride bug needs a strided view, in floats or integers.
  EXPECT_EQ(stridedNeg.bucket, stridedMul.bucket) << stridedNeg.bucketKey << "\n"
                                                  << stridedMul.bucketKey;
  EXPECT_NE(stridedNeg.bucketKey.find("d*c"), std::string::npos) << stridedNeg.bucketKey;
  // Two bugs, two ids.
  EXPECT_NE(longNeg.bucket, stridedNeg.bucket);
  EXPECT_NE(longNeg.root, stridedNeg.root);
}

TEST(RootCause, ACampaignFilesOneBugThatShowsInManyOpsOnce) {
  MlirJit jit;
  std::string error;
  ASSERT_TRUE(jit.loadPassPlugin(NPUFUZZ_TEST_PLUGIN, error)) << error;
  CampaignOptions o;
  o.outDir = freshDir("campaign");
  o.maxCases = 120;
  o.jobs = 2;
  // Only the loop bug: no case of the default policy has a strided load
  // whose loops are all short, checked below by the case signatures.
  o.config.pipeline = kTwoBugs;
  o.limits.wallSeconds = 120;
  o.progress = false;
  o.reduce = false;
  const CampaignResult r = runCampaign(o, jit);
  ASSERT_TRUE(r.error.empty()) << r.error;
  // Many case signatures (the op where the loop broke first), one finding.
  const std::optional<llvm::json::Value> state = readJsonFile(o.outDir + "/state.json");
  ASSERT_TRUE(state && state->getAsObject());
  const llvm::json::Object *roots = state->getAsObject()->getObject("roots");
  ASSERT_NE(roots, nullptr);
  std::set<std::string> rootTexts;
  for (const auto &[caseId, root] : *roots)
    rootTexts.insert(root.getAsString().value_or("").str());
  EXPECT_GE(roots->size(), 3u);
  EXPECT_EQ(rootTexts.size(), 1u);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_NE(r.findings[0].text.find(" | any op | "), std::string::npos) << r.findings[0].text;
  EXPECT_EQ(r.generalized, roots->size());
  fs::remove_all(o.outDir);
}
