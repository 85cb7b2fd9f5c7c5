//===- shrink/Interestingness.cpp - Is a reduced candidate still the bug? -===//
#include "shrink/Interestingness.h"

#include "backend/mlir/Pipelines.h"
#include "generators/Shrinks.h"
#include "ir/FileText.h"
#include "ir/Text.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <fstream>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace npufuzz {

CandidateSize measure(const Candidate &cand, MlirStyle style) {
  CandidateSize s;
  s.caseSize = caseSize(cand.c);
  s.computeOps = cand.c.numComputeOps();
  for (const Value &v : cand.c.values)
    for (int64_t d : v.type.shape)
      s.maxDim = std::max(s.maxDim, d);
  Pipeline p;
  std::string error;
  if (resolvePipeline(cand.pipeline, style, p, error))
    s.passes = p.passes.size();
  return s;
}

std::vector<Answer> SameSignature::test(const std::vector<Candidate> &batch) {
  const std::vector<Observation> seen = run_(batch);
  std::vector<Answer> out;
  for (const Observation &o : seen) {
    if (!o.ran || (o.signature.kind == VerdictKind::Hang && target_.kind != VerdictKind::Hang))
      out.push_back(Answer::Error);
    else if (sameRootCause(target_, o.signature))
      out.push_back(Answer::Interesting);
    else
      out.push_back(Answer::NotInteresting);
  }
  return out;
}

ExternalCommand::ExternalCommand(std::vector<std::string> argv, double timeoutSeconds)
    : argv_(std::move(argv)), timeoutSeconds_(timeoutSeconds) {
  if (argv_.empty() || argv_[0].empty()) {
    error_ = "empty interestingness command";
    return;
  }
  // Checked now, as the PATH lookup is: a program that is not there would
  // otherwise make every candidate, the input too, "not interesting".
  if (argv_[0].find('/') != std::string::npos) {
    std::string why;
    if (!isRegularFile(argv_[0], why)) {
      error_ = "cannot run the interestingness command: " + why;
      return;
    }
    if (::access(argv_[0].c_str(), X_OK) != 0) {
      error_ = "cannot run the interestingness command: " + argv_[0] + ": is not executable";
      return;
    }
    program_ = argv_[0];
  } else if (auto found = llvm::sys::findProgramByName(argv_[0])) {
    program_ = *found;
  } else {
    error_ = "cannot find '" + argv_[0] + "' in PATH";
    return;
  }
  llvm::SmallString<128> dir;
  if (std::error_code ec = llvm::sys::fs::createUniqueDirectory("npufuzz-reduce", dir))
    error_ = "cannot create a temporary directory: " + ec.message();
  tempDir_ = dir.str().str();
}

ExternalCommand::~ExternalCommand() {
  if (!tempDir_.empty())
    llvm::sys::fs::remove_directories(tempDir_);
}

std::vector<ExternalCommand::Ended> ExternalCommand::run(const std::vector<Candidate> &batch) {
  std::vector<Ended> out(batch.size());
  if (!error_.empty()) {
    for (Ended &e : out)
      e.error = error_;
    return out;
  }
  // ExecuteAndWait's timeout is a process-wide alarm, so concurrent runs
  // start without waiting and are polled against their own deadlines.
  struct Running {
    llvm::sys::ProcessInfo info;
    bool live = false;
  };
  std::vector<Running> running(batch.size());
  std::vector<std::string> paths(batch.size());
  const std::optional<llvm::StringRef> devNull = llvm::StringRef();
  for (size_t i = 0; i < batch.size(); ++i) {
    llvm::SmallString<128> path(tempDir_);
    llvm::sys::path::append(path, "candidate-" + std::to_string(i) + ".npf");
    paths[i] = path.str().str();
    std::ofstream(paths[i], std::ios::binary | std::ios::trunc) << printCase(batch[i].c);
    std::vector<llvm::StringRef> args(argv_.begin(), argv_.end());
    args.push_back(paths[i]);
    bool failed = false;
    std::string why;
    running[i].info = llvm::sys::ExecuteNoWait(program_, args, std::nullopt,
                                               {devNull, devNull, devNull}, 0, &why, &failed);
    running[i].live = !failed && running[i].info.Pid > 0;
    out[i].started = running[i].live;
    if (!running[i].live)
      out[i].error = why.empty() ? "it could not be started" : why;
  }
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(timeoutSeconds_);
  for (;;) {
    bool anyLive = false;
    for (size_t i = 0; i < batch.size(); ++i) {
      Running &r = running[i];
      if (!r.live)
        continue;
      std::string why;
      const llvm::sys::ProcessInfo done = llvm::sys::Wait(r.info, 0, &why);
      if (done.Pid == 0) {
        anyLive = true;
        continue;
      }
      r.live = false;
      out[i].returnCode = done.ReturnCode;
      out[i].error = why;
    }
    if (!anyLive)
      break;
    if (std::chrono::steady_clock::now() >= deadline) {
      for (size_t i = 0; i < batch.size(); ++i)
        if (running[i].live) {
          ::kill(running[i].info.Pid, SIGKILL);
          llvm::sys::Wait(running[i].info, std::nullopt);
          out[i].timedOut = true;
        }
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return out;
}

namespace {
Answer answerOf(bool started, bool timedOut, int returnCode) {
  if (!started || timedOut || returnCode < 0 || returnCode == 126 || returnCode == 127)
    return Answer::Error;
  return returnCode == 0 ? Answer::Interesting : Answer::NotInteresting;
}
} // namespace

std::vector<Answer> ExternalCommand::test(const std::vector<Candidate> &batch) {
  std::vector<Answer> out;
  for (const Ended &e : run(batch))
    out.push_back(answerOf(e.started, e.timedOut, e.returnCode));
  return out;
}

ExternalCommand::Judgement ExternalCommand::judge(const Candidate &cand) {
  const Ended e = run({cand})[0];
  Judgement j;
  j.answer = answerOf(e.started, e.timedOut, e.returnCode);
  std::ostringstream why;
  if (!e.started) {
    j.cannotRun = true;
    why << e.error;
  } else if (e.timedOut) {
    why << "it ran past its time limit of " << timeoutSeconds_ << " s";
  } else if (e.returnCode == 126 || e.returnCode == 127) {
    j.cannotRun = true;
    why << "it exited " << e.returnCode
        << (e.returnCode == 127 ? " (a program it runs was not found)" : " (cannot execute)");
  } else if (e.returnCode < 0) {
    why << "it died" << (e.error.empty() ? std::string() : ": " + e.error);
  } else if (e.returnCode > 0) {
    why << "it exited " << e.returnCode;
  }
  j.why = why.str();
  return j;
}

} // namespace npufuzz
