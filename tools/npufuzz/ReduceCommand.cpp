//===- tools/npufuzz/ReduceCommand.cpp - npufuzz reduce ---------------------===//
#include "tools/npufuzz/BackendOptions.h"
#include "tools/npufuzz/Commands.h"

#include "driver/ReduceCommand.h"
#include "ir/FileText.h"
#include "oracles/RunConfig.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"

#include <atomic>
#include <csignal>
#include <filesystem>
#include <iostream>
#include <signal.h>
#include <tuple>
#include <unistd.h>

namespace npufuzz::tool {

cl::SubCommand &ReduceCommand() {
  static cl::SubCommand c("reduce", "Reduce a failing case and its pipeline");
  return c;
}

namespace {
cl::SubCommand &sub() { return ReduceCommand(); }
cl::opt<std::string> file(cl::Positional, cl::desc("<case.npf>"), cl::Required, cl::sub(sub()),
                          cl::cat(category()));
cl::opt<std::string> outDir("o", cl::desc("Output directory (case.npf, kernel.mlir, report.json)"),
                            cl::value_desc("DIR"), cl::Required, cl::sub(sub()),
                            cl::cat(category()));
cl::opt<std::string> pipeline("pipeline", cl::desc("O0, O2, random:SEED or passes"), cl::init("O0"),
                              cl::sub(sub()), cl::cat(category()));
cl::opt<std::string> style("style", cl::desc("Lowering style: affine, tensor or npu"),
                           cl::init("affine"), cl::sub(sub()), cl::cat(category()));
cl::list<std::string> plugins("load-pass-plugin", cl::desc("Load an MLIR pass plugin"),
                              cl::sub(sub()), cl::cat(category()));
cl::opt<double, false, RealParser<ReduceSeconds>>
    maxTime("max-time", cl::desc("Stop reducing after this many seconds (1 to 604800)"),
            cl::init(300), cl::sub(sub()), cl::cat(category()));
cl::opt<unsigned, false, CountParser<unsigned, 1, 64>>
    jobs("jobs", cl::desc("Candidates tested at once (1 to 64)"), cl::init(1), cl::sub(sub()),
         cl::cat(category()));
SecondsOpt timeout("timeout", cl::desc("Seconds per candidate before it is a hang (1 to 86400)"),
                   cl::init(30), cl::sub(sub()), cl::cat(category()));
cl::opt<std::string> interestingness(
    "interestingness-cmd",
    cl::desc("Command (one quoted string, split like a shell would, but run without one) "
             "given the candidate .npf as its last argument; exit 0 = interesting"),
    cl::value_desc("ARGV"), cl::sub(sub()), cl::cat(category()));
cl::opt<bool> quiet("quiet", cl::desc("No progress lines"), cl::sub(sub()), cl::cat(category()));
BackendOptions backend(sub());
PassStageOption stage(sub());
LoweringSeedOption loweringSeed(sub());

/// -o DIR, made now and shown writable by a file made and removed in it
/// (a read-only mount or another user's directory passes a stat): a
/// reduction may take an hour, and an output it cannot write must not be
/// found at its end. `created`: DIR was not there. False with why printed.
bool prepareOutDir(const std::string &dir, bool &created) {
  namespace fs = std::filesystem;
  created = false;
  auto refuse = [&](const std::string &why) {
    fail("-o " + dir + ": " + why);
    return false;
  };
  if (dir.empty())
    return refuse("an empty path");
  std::error_code ec;
  const fs::file_status st = fs::status(dir, ec);
  if (st.type() == fs::file_type::not_found) {
    fs::create_directories(dir, ec);
    if (ec)
      return refuse("cannot create it: " + ec.message());
    created = true;
  } else if (st.type() == fs::file_type::none) {
    return refuse(ec.message());
  } else if (!fs::is_directory(st)) {
    return refuse("exists and is not a directory");
  }
  llvm::SmallString<256> probe;
  int fd = -1;
  if (std::error_code e =
          llvm::sys::fs::createUniqueFile(dir + "/.npufuzz-probe-%%%%%%", fd, probe)) {
    if (created)
      (void)fs::remove(dir, ec);
    return refuse("cannot write in it: " + e.message());
  }
  ::close(fd);
  llvm::sys::fs::remove(probe);
  return true;
}

/// Set by the first SIGINT; the reduction stops and writes its best case.
std::atomic<bool> interruptRequested{false};
static_assert(std::atomic<bool>::is_always_lock_free,
              "a signal handler may only store to a lock-free atomic");
void onSigint(int) { interruptRequested.store(true, std::memory_order_relaxed); }
} // namespace

int runReduce() {
  if (!checkPath("<case.npf>", file, PathKind::RegularFile))
    return kExitError;
  if (!checkPlugins(plugins))
    return kExitError;
  ReduceCommandOptions o;
  o.casePath = file;
  o.outDir = outDir;
  o.pipeline = pipeline;
  o.style = style;
  RunConfig staged;
  staged.loweringSeed = loweringSeed.given();
  if (!stage.set(staged))
    return kExitError;
  // The reducer reads the case itself; its expect line is read here.
  std::string text, error;
  if (readFileBytes(file, text, error, 64u << 20)) {
    if (!checkExpectLine(file, text))
      return kExitError;
    lowerAsRecorded(text, loweringSeed, stage, staged);
    std::tie(o.pipeline, o.style) = pipelineAsRecorded(text, pipeline, style);
  }
  o.loweringSeed = staged.loweringSeed;
  o.drawsModes = staged.drawsModes;
  o.stage = staged.stage;
  o.plugins = plugins;
  o.maxSeconds = maxTime;
  o.jobs = jobs;
  o.progress = !quiet;
  if (!interestingness.empty() &&
      (!splitCommand("interestingness-cmd", interestingness, o.interestingnessCmd) ||
       !checkProgram("--interestingness-cmd", o.interestingnessCmd[0])))
    return kExitError;
  RunConfig config;
  if (!backend.setUp(config))
    return kExitError;
  o.backend = config.backend;
  // As a campaign's case: a slow compile is the backend's time-out, never
  // the worker's.
  o.candidateTimeout = caseSeconds(timeout, config);
  o.external = config.external;
  o.pto = config.pto;
  o.pytorchsim = config.pytorchsim;
  o.backendFlags = backend.reproFlags();
  o.knownSignatures = config.knownSignatures;
  bool created = false;
  if (!prepareOutDir(outDir, created))
    return kExitError;
  // Ctrl-C keeps what was reduced, as C-Reduce does: the reducer stops at
  // its next test and the smallest case so far is written. SA_RESETHAND
  // makes a second Ctrl-C end npufuzz at once (workers die with it).
  interruptRequested.store(false);
  o.stop = &interruptRequested;
  struct sigaction onInterrupt = {};
  onInterrupt.sa_handler = onSigint;
  sigemptyset(&onInterrupt.sa_mask);
  onInterrupt.sa_flags = SA_RESTART | SA_RESETHAND;
  struct sigaction previous = {};
  ::sigaction(SIGINT, &onInterrupt, &previous);
  // SIGINT ignored by whoever started npufuzz (a script's background job,
  // nohup) stays ignored: that Ctrl-C was meant for someone else.
  if (!(previous.sa_flags & SA_SIGINFO) && previous.sa_handler == SIG_IGN)
    ::sigaction(SIGINT, &previous, nullptr);
  const int status = runReduceCommand(o, std::cout);
  ::sigaction(SIGINT, &previous, nullptr);
  // A run that wrote nothing leaves no empty directory of its own making.
  if (created && status != kExitOk) {
    std::error_code ec;
    (void)std::filesystem::remove(outDir.getValue(), ec); // only when still empty
  }
  return status;
}

} // namespace npufuzz::tool
