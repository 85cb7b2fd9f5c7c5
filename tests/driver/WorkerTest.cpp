//===- tests/driver/WorkerTest.cpp - A persistent worker per request ------===//
//
// A worker serves many requests from one process, gives each request its own
// stderr, time limit and CPU backstop, and after a crash, hang or memory
// blow-up answers the next request from a fresh process.
//
//===----------------------------------------------------------------------===//
#include "driver/Worker.h"
#include "driver/CaseTask.h"
#include "tests/driver/QuickLimits.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>
#include <vector>

using namespace npufuzz;

namespace {

/// Requests: "pid" answers the process id; "say:TEXT" writes TEXT to stderr;
/// "abort", "segv", "spin", "hoard" fail the way their names say; "burn:S"
/// uses S seconds of CPU.
std::string handle(const std::string &request) {
  if (request == "abort")
    std::abort();
  if (request == "segv") {
    volatile int *p = nullptr;
    *p = 1;
  }
  if (request == "spin")
    for (volatile bool spin = true; spin;) {
    }
  if (request == "hoard") {
    std::vector<std::vector<char>> hoard;
    for (;;)
      hoard.emplace_back(64 << 20, 1);
  }
  if (request.rfind("say:", 0) == 0)
    std::fprintf(stderr, "%s\n", request.substr(4).c_str());
  if (request.rfind("burn:", 0) == 0) {
    const double s = std::atof(request.c_str() + 5);
    const std::clock_t end = std::clock() + static_cast<std::clock_t>(s * CLOCKS_PER_SEC);
    while (std::clock() < end) {
    }
  }
  return std::to_string(::getpid());
}

const ChildOutcome &run(Worker &w, const std::string &request) {
  w.start(request);
  while (!w.poll())
    ::usleep(1000);
  return w.outcome();
}
} // namespace

TEST(Worker, ServesManyRequestsFromOneProcess) {
  Worker w(handle, quickLimits(), 100);
  const std::string first = run(w, "pid").payload;
  EXPECT_EQ(w.servedBefore(), 0u);
  for (unsigned k = 1; k < 5; ++k) {
    const ChildOutcome &o = run(w, "pid");
    EXPECT_EQ(o.end, ChildOutcome::End::Returned);
    EXPECT_EQ(o.payload, first);
    EXPECT_EQ(w.servedBefore(), k);
  }
  EXPECT_NE(first, std::to_string(::getpid())) << "requests run in the parent";
}

TEST(Worker, EachRequestGetsOnlyItsOwnStderr) {
  Worker w(handle, quickLimits(), 100);
  EXPECT_EQ(run(w, "say:first").stderrText, "first\n");
  EXPECT_EQ(run(w, "pid").stderrText, "");
  EXPECT_EQ(run(w, "say:third").stderrText, "third\n");
}

TEST(Worker, ACrashEndsOnlyItsRequestAndTheNextRunsFresh) {
  Worker w(handle, quickLimits(), 100);
  const std::string before = run(w, "pid").payload;
  run(w, "say:about to fail");
  const ChildOutcome crash = run(w, "abort");
  EXPECT_EQ(crash.end, ChildOutcome::End::Signalled);
  EXPECT_EQ(crash.signal, SIGABRT);
  EXPECT_EQ(crash.stderrText, "") << "stderr of an earlier request leaked into the crash";
  EXPECT_EQ(reportOf(crash).result.verdict, VerdictKind::Crash);
  EXPECT_EQ(w.servedBefore(), 2u);

  const std::string after = run(w, "pid").payload;
  EXPECT_NE(after, before);
  EXPECT_EQ(w.servedBefore(), 0u);
  EXPECT_EQ(run(w, "segv").signal, SIGSEGV);
  EXPECT_EQ(run(w, "pid").end, ChildOutcome::End::Returned);
}

TEST(Worker, AHangIsKilledAtItsOwnDeadline) {
  // Not sooner than its deadline; how much later depends on the machine.
  const IsolationLimits l = quickLimits(3);
  Worker w(handle, l, 100);
  run(w, "pid");
  const ChildOutcome hang = run(w, "spin");
  EXPECT_EQ(hang.end, ChildOutcome::End::TimedOut);
  EXPECT_GE(hang.seconds, 3);
  EXPECT_EQ(reportOf(hang).result.verdict, VerdictKind::Hang);
  EXPECT_EQ(run(w, "pid").end, ChildOutcome::End::Returned);
}

TEST(Worker, AMemoryBlowUpIsAnOomAndTheNextRequestRuns) {
  Worker w(handle, quickLimits(), 100);
  const ChildOutcome oom = run(w, "hoard");
  EXPECT_EQ(reportOf(oom).result.verdict, VerdictKind::Oom) << oom.stderrText;
  EXPECT_EQ(run(w, "pid").end, ChildOutcome::End::Returned);
}

TEST(Worker, AProcessIsRetiredAfterItsRequests) {
  Worker w(handle, quickLimits(), 3);
  std::vector<std::string> pids;
  for (int k = 0; k < 7; ++k)
    pids.push_back(run(w, "pid").payload);
  EXPECT_EQ(pids[0], pids[2]);
  EXPECT_NE(pids[2], pids[3]);
  EXPECT_EQ(pids[3], pids[5]);
  EXPECT_NE(pids[5], pids[6]);
}

TEST(Worker, TheCpuBackstopIsPerRequestNotPerProcess) {
  // CPU time, not wall time: load does not change it. Each request may use
  // 2 s of CPU beyond what the process had used; eight requests of 0.5 s
  // use 4 s together, so a backstop armed once per process would end one.
  IsolationLimits l = quickLimits(300);
  l.cpuSeconds = 2;
  Worker w(handle, l, 100);
  for (int k = 0; k < 8; ++k) {
    const ChildOutcome &o = run(w, "burn:0.5");
    ASSERT_EQ(o.end, ChildOutcome::End::Returned) << "request " << k << " ended early";
  }
  EXPECT_EQ(w.servedBefore(), 7u);
  // And it does stop a request that spins, by SIGXCPU (a hang), long
  // before the wall limit.
  const ChildOutcome &spin = run(w, "spin");
  EXPECT_EQ(spin.end, ChildOutcome::End::TimedOut);
  EXPECT_LT(spin.seconds, l.wallSeconds);
}
