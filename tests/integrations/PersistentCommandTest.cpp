//===- tests/integrations/PersistentCommandTest.cpp - One adapter, many cases ===//
//
// A persistent command written in sh that does, per case, what the case
// directory's `mode` file says: answer, fail with a status, crash, hang,
// answer garbage or exit. Each end must map like a one-shot run's, and the
// process must be reused, or replaced when it can no longer be trusted.
//
//===----------------------------------------------------------------------===//
#include "backend/external/PersistentCommand.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace npufuzz;

namespace {
const char *kAdapter = R"(#!/bin/sh
while IFS= read -r d; do
  case $(cat "$d/mode") in
    ok) echo "$$" > "$d/pid"; echo "done 0" ;;
    status) echo "the toolchain said no" > "$d/stderr.txt"; echo "done 78" ;;
    crash) echo "dying mid-case" >&2; kill -9 $$ ;;
    hang) sleep 100 ;;
    garbage) echo "hello" ;;
    exit) exit 0 ;;
  esac
done
)";

class PersistentCommandTest : public ::testing::Test {
protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("npufuzz-persistent-" + std::to_string(::getpid()));
    fs::create_directories(root_);
    std::ofstream(root_ / "adapter.sh") << kAdapter;
    cmd_.argv = {"/bin/sh", (root_ / "adapter.sh").string()};
    cmd_.persistent = true;
    // Far above what answering takes on any machine; the hang test sets
    // its own short limit for a command that never answers.
    cmd_.timeoutSeconds = 30;
  }
  void TearDown() override {
    command_.stop();
    fs::remove_all(root_);
  }
  /// A fresh case directory whose mode is `mode`.
  std::string caseDir(const std::string &mode) {
    const fs::path d = root_ / ("case" + std::to_string(next_++));
    fs::create_directories(d);
    std::ofstream(d / "mode") << mode << "\n";
    return d.string();
  }
  static std::string slurp(const std::string &path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  /// Runs the adapter behind `startUp`, shell lines run before it serves
  /// (a slow start, a `ready`), as the command.
  void startWith(const std::string &name, const std::string &startUp) {
    std::ofstream(root_ / name) << startUp << kAdapter;
    cmd_.argv = {"/bin/sh", (root_ / name).string()};
  }
  /// Runs an `ok` case and returns the pid of the process that served it.
  std::string servedBy() {
    const std::string d = caseDir("ok");
    const CommandEnd end = command_.run(cmd_, d);
    EXPECT_EQ(end.kind, CommandEnd::Kind::Exited) << end.stderrText;
    EXPECT_EQ(end.exitCode, 0) << end.stderrText;
    return slurp(d + "/pid");
  }

  fs::path root_;
  ExternalToolchain cmd_;
  PersistentCommand command_;
  int next_ = 0;
};
} // namespace

TEST_F(PersistentCommandTest, OneProcessServesManyCases) {
  const std::string first = servedBy();
  EXPECT_EQ(servedBy(), first);
  EXPECT_EQ(servedBy(), first);
  EXPECT_EQ(command_.started(), 1u);
  EXPECT_EQ(command_.served(), 3u);
}

// A process forked after its parent ran a case (a campaign's worker) starts
// an adapter of its own: writing into the parent's would mix their answers.
// The parent's adapter is left running, and still serves the parent.
TEST_F(PersistentCommandTest, AForkedChildStartsItsOwnProcessAndLeavesTheParentsAlone) {
  const std::string parents = servedBy();
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const std::string d = caseDir("ok");
    const CommandEnd end = command_.run(cmd_, d);
    const bool own = end.kind == CommandEnd::Kind::Exited && end.exitCode == 0 &&
                     slurp(d + "/pid") != parents && command_.started() == 2;
    command_.stop();
    ::_exit(own ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << "the child used the parent's adapter";
  EXPECT_EQ(servedBy(), parents);
  EXPECT_EQ(command_.started(), 1u);
}

TEST_F(PersistentCommandTest, AnAnsweredStatusCarriesTheCasesStderr) {
  const CommandEnd end = command_.run(cmd_, caseDir("status"));
  EXPECT_EQ(end.kind, CommandEnd::Kind::Exited);
  EXPECT_EQ(end.exitCode, 78);
  EXPECT_NE(end.stderrText.find("the toolchain said no"), std::string::npos);
  std::string message;
  EXPECT_EQ(classifyEnd(end, message), BackendRun::Status::CompileError);
  servedBy();
  EXPECT_EQ(command_.started(), 1u) << "an answered failure keeps the process";
}

TEST_F(PersistentCommandTest, ACrashEndsOnlyItsCaseAndTheNextStartsAfresh) {
  const std::string before = servedBy();
  const CommandEnd end = command_.run(cmd_, caseDir("crash"));
  EXPECT_EQ(end.kind, CommandEnd::Kind::Signalled);
  EXPECT_EQ(end.signal, SIGKILL);
  EXPECT_NE(end.stderrText.find("dying mid-case"), std::string::npos) << end.stderrText;
  std::string message;
  EXPECT_EQ(classifyEnd(end, message), BackendRun::Status::Crashed);
  EXPECT_NE(servedBy(), before);
  EXPECT_EQ(command_.started(), 2u);
}

TEST_F(PersistentCommandTest, AHangIsTimedOutAndTheProcessReplaced) {
  // Only the hanging case gets the short limit: on a loaded machine an ok
  // case may take longer than a second, and that is no hang.
  const unsigned usual = cmd_.timeoutSeconds;
  const std::string before = servedBy();
  cmd_.timeoutSeconds = 1;
  const CommandEnd end = command_.run(cmd_, caseDir("hang"));
  cmd_.timeoutSeconds = usual;
  EXPECT_EQ(end.kind, CommandEnd::Kind::TimedOut);
  EXPECT_NE(servedBy(), before);
}

// A command that takes its time to start (an adapter importing and
// instrumenting its compiler) is given startSeconds more for the case that
// starts it, and only for that one.
TEST_F(PersistentCommandTest, TheCaseThatStartsTheCommandAlsoGetsItsStartTime) {
  startWith("slow.sh", "sleep 2\n");
  // The start alone outlasts the case's limit: without start time, the
  // first case is timed out whatever the machine's load.
  cmd_.timeoutSeconds = 1;
  EXPECT_EQ(command_.run(cmd_, caseDir("ok")).kind, CommandEnd::Kind::TimedOut);
  cmd_.startSeconds = 60;
  const CommandEnd first = command_.run(cmd_, caseDir("ok"));
  EXPECT_EQ(first.kind, CommandEnd::Kind::Exited) << first.stderrText;
  // The running command's cases get the case's limit alone.
  EXPECT_EQ(command_.run(cmd_, caseDir("hang")).kind, CommandEnd::Kind::TimedOut);
}

// An adapter that says `ready` once started (tools/adapters/case_loop.py)
// has its start measured, and the case that started it gets the case's whole
// limit from then on, however long the start took.
TEST_F(PersistentCommandTest, AReadyAdaptersStartIsMeasuredAndTheLimitCountsFromReady) {
  startWith("ready.sh", "sleep 3\necho ready\n");
  // The start alone outlasts the case's limit.
  cmd_.timeoutSeconds = 2;
  cmd_.startSeconds = 60;
  const CommandEnd first = command_.run(cmd_, caseDir("ok"));
  EXPECT_EQ(first.kind, CommandEnd::Kind::Exited) << first.stderrText;
  EXPECT_EQ(first.exitCode, 0);
  EXPECT_GE(first.startSeconds, 2.9);
  EXPECT_GE(first.seconds, first.startSeconds);
  // A running adapter's cases start nothing; `ready` is not an answer.
  const CommandEnd second = command_.run(cmd_, caseDir("ok"));
  EXPECT_EQ(second.kind, CommandEnd::Kind::Exited) << second.stderrText;
  EXPECT_LT(second.startSeconds, 0);
  EXPECT_EQ(command_.started(), 1u);
  EXPECT_EQ(command_.run(cmd_, caseDir("hang")).kind, CommandEnd::Kind::TimedOut);
}

// A start that never ends is ended at its allowance on top of the limit,
// with no start measured.
TEST_F(PersistentCommandTest, AStartThatNeverSaysReadyIsTimedOut) {
  startWith("stuck.sh", "sleep 100\necho ready\n");
  cmd_.timeoutSeconds = 1;
  cmd_.startSeconds = 1;
  const CommandEnd end = command_.run(cmd_, caseDir("ok"));
  EXPECT_EQ(end.kind, CommandEnd::Kind::TimedOut);
  EXPECT_LT(end.startSeconds, 0);
  // The deadline is polled in steps of whole milliseconds.
  EXPECT_GE(end.seconds, 1.9);
}

TEST_F(PersistentCommandTest, AnAnswerOutOfProtocolOrAnExitIsAFailure) {
  CommandEnd end = command_.run(cmd_, caseDir("garbage"));
  EXPECT_EQ(end.kind, CommandEnd::Kind::ProtocolError);
  EXPECT_NE(end.stderrText.find("not 'done N'"), std::string::npos) << end.stderrText;
  // The adapter's fault, never a finding of the compiler it drives, and
  // never "exited with status 1".
  std::string message;
  EXPECT_EQ(classifyEnd(end, message), BackendRun::Status::EnvironmentError);
  EXPECT_EQ(message.rfind("external command out of protocol: the persistent command answered '", 0),
            0u)
      << message;
  servedBy();
  end = command_.run(cmd_, caseDir("exit"));
  EXPECT_EQ(end.kind, CommandEnd::Kind::Exited);
  EXPECT_NE(end.exitCode, 0) << "exiting instead of answering is no success";
  EXPECT_NE(end.stderrText.find("exited without answering"), std::string::npos);
  servedBy();
  EXPECT_EQ(command_.started(), 3u);
}

TEST_F(PersistentCommandTest, AProcessIsRetiredAfterItsCases) {
  cmd_.casesPerProcess = 2;
  const std::string a = servedBy(), b = servedBy(), c = servedBy();
  EXPECT_EQ(a, b);
  EXPECT_NE(b, c);
}

TEST_F(PersistentCommandTest, AMissingProgramIsAClearFailure) {
  cmd_.argv = {(root_ / "no-such-adapter").string()};
  const CommandEnd end = command_.run(cmd_, caseDir("ok"));
  std::string message;
  // npufuzz's environment, not the command's fault: never a finding.
  EXPECT_EQ(classifyEnd(end, message), BackendRun::Status::EnvironmentError);
  EXPECT_NE(message.find("cannot execute"), std::string::npos) << message;
}
