//===- tests/driver/IsolationTest.cpp - Workers die alone -----------------===//
#include "driver/Isolation.h"
#include "driver/CaseTask.h"
#include "tests/driver/QuickLimits.h"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <unistd.h>
#include <vector>

using namespace npufuzz;

TEST(Isolation, ReturnedPayloadArrives) {
  const ChildOutcome o = runIsolated([] { return std::string(100000, 'x'); }, quickLimits());
  EXPECT_EQ(o.end, ChildOutcome::End::Returned);
  EXPECT_EQ(o.payload.size(), 100000u);
}

TEST(Isolation, AbortIsACrashWithItsStderr) {
  const ChildOutcome o = runIsolated(
      [] {
        std::fprintf(stderr, "Assertion `candidate_found' failed.\n");
        std::abort();
        return std::string();
      },
      quickLimits());
  EXPECT_EQ(o.end, ChildOutcome::End::Signalled);
  EXPECT_EQ(o.signal, SIGABRT);
  const CaseReport r = reportOf(o);
  EXPECT_EQ(r.result.verdict, VerdictKind::Crash);
  EXPECT_EQ(r.signature.where, "Assertion `candidate_found' failed.");
}

TEST(Isolation, SegfaultIsACrash) {
  const ChildOutcome o = runIsolated(
      [] {
        volatile int *p = nullptr;
        *p = 1;
        return std::string();
      },
      quickLimits());
  EXPECT_EQ(o.end, ChildOutcome::End::Signalled);
  EXPECT_EQ(o.signal, SIGSEGV);
  EXPECT_EQ(reportOf(o).result.verdict, VerdictKind::Crash);
}

TEST(Isolation, EndlessLoopIsAHang) {
  const IsolationLimits l = quickLimits(0.5);
  const ChildOutcome o = runIsolated(
      [] {
        for (volatile bool spin = true; spin;) {
        }
        return std::string();
      },
      l);
  EXPECT_EQ(o.end, ChildOutcome::End::TimedOut);
  EXPECT_GE(o.seconds, 0.5); // not sooner; how much later is the machine's
  EXPECT_EQ(reportOf(o).result.verdict, VerdictKind::Hang);
}

TEST(Isolation, MemoryBlowUpIsAnOom) {
  const ChildOutcome o = runIsolated(
      [] {
        std::vector<std::vector<char>> hoard;
        for (;;)
          hoard.emplace_back(64 << 20, 1);
        return std::string();
      },
      quickLimits());
  EXPECT_NE(o.end, ChildOutcome::End::Returned);
  EXPECT_EQ(reportOf(o).result.verdict, VerdictKind::Oom) << o.stderrText;
}

namespace {
/// This process's mapped address space: a child starts with all of it, so
/// a limit below it would fail the first allocation.
uint64_t addressSpaceInUse() {
  std::ifstream statm("/proc/self/statm");
  uint64_t pages = 0;
  statm >> pages;
  return pages * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
}
} // namespace

// Memory that fills slower than the wall limit: every chunk is touched and
// followed by a pause, so the limit cannot be reached before the deadline on
// any machine. It must still end as an oom, never as a hang.
TEST(Isolation, ASlowMemoryBlowUpIsAnOomNotAHang) {
  IsolationLimits l = quickLimits(0.3);
  l.addressSpaceBytes = addressSpaceInUse() + (256ull << 20);
  const ChildOutcome o = runIsolated(
      [] {
        std::vector<std::vector<char>> hoard;
        for (;;) {
          hoard.emplace_back(8 << 20, 1);
          ::usleep(30000);
        }
        return std::string();
      },
      l);
  EXPECT_NE(o.end, ChildOutcome::End::TimedOut);
  EXPECT_GT(o.seconds, 0.3);
  EXPECT_EQ(reportOf(o).result.verdict, VerdictKind::Oom) << o.stderrText;
}

// A black-box failure traced to the op that first went wrong is that op's,
// whichever verdict the case showed it by: its signature is the op's
// (a wrong value of its arithmetic, an undefined result of its form), the
// verdict and symptom stay the case's, and both survive the worker's JSON.
TEST(Isolation, AFailureRootedAtAnOpIsFiledUnderTheOp) {
  auto reportFor = [](VerdictKind kind) {
    return reportOf(runIsolated(
        [kind] {
          TaskResult t;
          t.verdict = kind;
          t.where = "row_expand_*";
          t.difference = "undefined";
          t.rootedAtOp = true;
          t.symptom = std::string(verdictName(kind)) + ": simulator: Assertion `x' failed.";
          t.message = "simulator: Assertion `x' failed.";
          return t.toJson();
        },
        quickLimits()));
  };
  for (const VerdictKind kind :
       {VerdictKind::Crash, VerdictKind::UninitializedRead, VerdictKind::Mismatch}) {
    const CaseReport r = reportFor(kind);
    EXPECT_EQ(r.result.verdict, kind);
    EXPECT_TRUE(r.result.rootedAtOp);
    EXPECT_EQ(r.result.symptom.rfind(std::string(verdictName(kind)), 0), 0u);
    EXPECT_EQ(r.signature.text(), "mismatch |  | row_expand_* | undefined");
  }
}
