//===- backend/mlir/RunningStage.cpp - What a dying process was doing -----===//
#include "backend/mlir/RunningStage.h"

#include "llvm/Support/Signals.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unistd.h>

namespace npufuzz {

namespace {
/// The mark, preformatted, so the handler only calls write(2): it runs in a
/// signal handler and may neither allocate nor lock.
constexpr size_t kMarkBytes = 512;
char gMark[kMarkBytes];
std::atomic<size_t> gMarkLength{0};

constexpr const char kPrefix[] = "npufuzz: died while ";

void reportMark(void *) {
  const size_t n = gMarkLength.load(std::memory_order_acquire);
  if (n == 0)
    return;
  ssize_t ignored = ::write(STDERR_FILENO, gMark, n);
  (void)ignored;
}

void setMark(const std::string &text) {
  // The handler runs on this thread, between any two instructions: the
  // length is 0 while the bytes change (signal fences keep the compiler
  // from moving the copy across the stores).
  gMarkLength.store(0, std::memory_order_relaxed);
  std::atomic_signal_fence(std::memory_order_seq_cst);
  const size_t n = std::min(text.size(), kMarkBytes - 1);
  if (n == 0)
    return;
  std::memcpy(gMark, text.data(), n);
  gMark[n - 1] = '\n'; // text always ends in a newline; a cut one still does
  std::atomic_signal_fence(std::memory_order_seq_cst);
  gMarkLength.store(n, std::memory_order_relaxed);
}
} // namespace

void installRunningStageReporter() {
  static std::once_flag once;
  std::call_once(once, [] { llvm::sys::AddSignalHandler(reportMark, nullptr); });
}

void markRunningStage(RunningStage stage, int passIndex, const std::string &passName) {
  switch (stage) {
  case RunningStage::None: clearRunningStage(); return;
  case RunningStage::Pass:
    setMark(kPrefix + std::string("running pass ") + std::to_string(passIndex) + ": " + passName +
            "\n");
    return;
  case RunningStage::Codegen: setMark(kPrefix + std::string("generating code\n")); return;
  case RunningStage::Kernel: setMark(kPrefix + std::string("executing the kernel\n")); return;
  }
}

void clearRunningStage() { gMarkLength.store(0, std::memory_order_release); }

DiedIn diedIn(const std::string &stderrText) {
  DiedIn d;
  const size_t at = stderrText.rfind(kPrefix);
  if (at == std::string::npos)
    return d;
  const size_t begin = at + sizeof(kPrefix) - 1;
  const std::string line = stderrText.substr(begin, stderrText.find('\n', begin) - begin);
  const std::string pass = "running pass ";
  if (line.compare(0, pass.size(), pass) == 0) {
    const size_t colon = line.find(": ", pass.size());
    if (colon == std::string::npos)
      return d;
    d.stage = RunningStage::Pass;
    d.passIndex = std::atoi(line.substr(pass.size(), colon - pass.size()).c_str());
    d.passName = line.substr(colon + 2);
  } else if (line == "generating code") {
    d.stage = RunningStage::Codegen;
  } else if (line == "executing the kernel") {
    d.stage = RunningStage::Kernel;
  }
  return d;
}

std::string withoutStageMark(const std::string &stderrText) {
  std::string out;
  size_t begin = 0;
  while (begin < stderrText.size()) {
    size_t end = stderrText.find('\n', begin);
    end = end == std::string::npos ? stderrText.size() : end + 1;
    if (stderrText.compare(begin, sizeof(kPrefix) - 1, kPrefix) != 0)
      out.append(stderrText, begin, end - begin);
    begin = end;
  }
  return out;
}

} // namespace npufuzz
