//===- tests/driver/BusyMachineTest.cpp - The machine is never the finding ===//
//
// Campaigns through a persistent adapter on upstream MLIR (npufuzz
// external-mlir behind the persistent protocol) that is made slow in the ways
// a busy machine makes adapters slow: a start slower than a case's limit,
// and a case that hangs the first time it is run but not again. Neither may
// be filed; a case that hangs every time still is. Each delay is planted, so
// none of these can pass or fail by the machine's load.
//
//===----------------------------------------------------------------------===//
#include "driver/Campaign.h"
#include "driver/JsonFile.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace npufuzz;

namespace {
// START: seconds its start takes (an interpreter importing a compiler);
// READY=1: it says `ready` once started; HANG: never, once (the first time
// it sees a kernel, kept in $STATE) or always.
const char *kAdapter = R"(#!/bin/sh
sleep "$START"
[ "$READY" = 1 ] && echo ready
while IFS= read -r d; do
  key=$(cksum < "$d/kernel.mlir" | cut -d' ' -f1)
  case $HANG in
    always) sleep 1000 ;;
    once) if [ ! -e "$STATE/$key" ]; then : > "$STATE/$key"; sleep 1000; fi ;;
  esac
  "$NPUFUZZ" external-mlir "$d" --opt mlir-opt-22 --runner mlir-runner-22 2>>"$d/stderr.txt" >&2
  echo "done $?"
done
)";

class BusyMachine : public ::testing::Test {
protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("npufuzz-busy-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_ / "state");
    std::ofstream(root_ / "adapter.sh") << kAdapter;
  }
  void TearDown() override { fs::remove_all(root_); }

  CampaignOptions campaign(unsigned start, const char *hang, unsigned timeout, uint64_t cases) {
    CampaignOptions o;
    o.outDir = (root_ / "out").string();
    o.maxCases = cases;
    o.jobs = 2;
    o.progress = false;
    o.reduce = false;
    // The adapter runs the MLIR styles (npufuzz external-mlir).
    o.policy = mlirPolicy();
    o.config.metamorphicShare = 0;
    o.config.backend = BackendKind::External;
    ExternalToolchain &cmd = o.config.external;
    cmd.argv = {"/bin/sh", (root_ / "adapter.sh").string()};
    cmd.persistent = true;
    cmd.timeoutSeconds = timeout;
    cmd.startSeconds = 120;
    cmd.environment = {{"START", std::to_string(start)},
                       {"READY", "1"},
                       {"HANG", hang},
                       {"STATE", (root_ / "state").string()},
                       {"NPUFUZZ", NPUFUZZ_BINARY}};
    // The worker's limit holds the command's, with its start (as
    // caseSeconds gives the command line).
    o.limits.wallSeconds = timeout + cmd.startSeconds + 30.0;
    return o;
  }
  static uint64_t total(const std::map<std::string, uint64_t> &counts) {
    uint64_t n = 0;
    for (const auto &[k, v] : counts)
      n += v;
    return n;
  }
  static std::string summaryOf(const CampaignResult &r) {
    std::ostringstream os;
    printCampaignSummary(r, os);
    return os.str();
  }

  fs::path root_;
};
} // namespace

// The start outlasts a case's limit, as eager torch's import did on a busy
// machine: the case that starts the adapter has its start on top, the start
// is measured and shown, and nothing is filed.
TEST_F(BusyMachine, AStartSlowerThanTheLimitIsNoHang) {
  MlirJit jit;
  const CampaignResult r = runCampaign(campaign(18, "never", 15, 4), jit);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.cases, 4u);
  EXPECT_TRUE(r.findings.empty()) << summaryOf(r);
  EXPECT_EQ(r.runVerdicts.count("hang"), 0u) << summaryOf(r);
  EXPECT_EQ(r.runVerdicts.count("ok") ? r.runVerdicts.at("ok") : 0, 4u) << summaryOf(r);
  EXPECT_TRUE(r.environmentEvents.empty()) << summaryOf(r);
  // Each worker started one adapter, and said how long it took.
  EXPECT_GE(r.adapterStarts.count, 1u);
  EXPECT_LE(r.adapterStarts.count, 2u);
  EXPECT_GE(r.adapterStarts.maxSeconds, 18.0);
  EXPECT_NE(summaryOf(r).find("adapter starts: "), std::string::npos) << summaryOf(r);
}

// What a busy machine does to a case: it runs past its limit once and
// through when run again. Confirmed alone with four times every limit, it
// is an environment event, counted apart with its reason, never a finding.
TEST_F(BusyMachine, AHangThatRunsThroughAloneIsAnEnvironmentEventNotAFinding) {
  MlirJit jit;
  const CampaignOptions o = campaign(0, "once", 3, 3);
  const CampaignResult r = runCampaign(o, jit);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.cases, 3u);
  EXPECT_TRUE(r.findings.empty()) << summaryOf(r);
  EXPECT_EQ(r.runVerdicts.count("hang"), 0u) << summaryOf(r);
  ASSERT_EQ(total(r.environmentEvents), 3u) << summaryOf(r);
  EXPECT_NE(r.environmentEvents.begin()->first.find("hang"), std::string::npos)
      << r.environmentEvents.begin()->first;
  EXPECT_NE(r.environmentEvents.begin()->first.find("ok alone with 4x every limit"),
            std::string::npos)
      << r.environmentEvents.begin()->first;
  EXPECT_NE(summaryOf(r).find("environment events: 3"), std::string::npos) << summaryOf(r);
  std::string why;
  const std::optional<llvm::json::Value> summary =
      readJsonFile((fs::path(o.outDir) / "summary.json").string(), why);
  ASSERT_TRUE(summary) << why;
  const llvm::json::Object *events = summary->getAsObject()->getObject("environment_events");
  ASSERT_TRUE(events);
  EXPECT_EQ(events->size(), 1u);
}

// A case that hangs alone with four times the time too is a hang, filed.
TEST_F(BusyMachine, ACaseThatHangsAloneTooIsAHang) {
  MlirJit jit;
  const CampaignResult r = runCampaign(campaign(0, "always", 2, 2), jit);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.cases, 2u);
  EXPECT_EQ(r.runVerdicts.count("hang") ? r.runVerdicts.at("hang") : 0, 2u) << summaryOf(r);
  EXPECT_FALSE(r.findings.empty());
  EXPECT_TRUE(r.environmentEvents.empty()) << summaryOf(r);
}
