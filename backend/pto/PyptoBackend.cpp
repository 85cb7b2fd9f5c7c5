//===- backend/pto/PyptoBackend.cpp - PyPTO, then ptoas and pto-isa -------===//
#include "backend/pto/PyptoBackend.h"

#include "backend/emit/PyptoEmitter.h"
#include "backend/external/CommandProcess.h"
#include "backend/external/ExternalBackend.h"
#include "backend/pto/CaseDir.h"
#include "ir/Elapsed.h"
#include "ir/FileText.h"

#include <chrono>
#include <cstdlib>
#include <unistd.h>

namespace npufuzz {

namespace {
using Clock = std::chrono::steady_clock;

/// The adapter's own "npufuzz pypto adapter:" line, else PyPTO's last
/// line (its exception) of what it printed.
std::string adapterLine(const std::string &stderrText) {
  const std::string mark = "npufuzz pypto adapter: ";
  size_t at = stderrText.find(mark);
  if (at != std::string::npos) {
    at += mark.size();
    return stderrText.substr(at, stderrText.find('\n', at) - at);
  }
  size_t end = stderrText.find_last_not_of('\n');
  if (end == std::string::npos)
    return "";
  const size_t begin = stderrText.rfind('\n', end);
  return stderrText.substr(begin == std::string::npos ? 0 : begin + 1,
                           end + 1 - (begin == std::string::npos ? 0 : begin + 1));
}
} // namespace

std::string defaultPyptoAdapter() {
  if (const char *env = std::getenv("NPUFUZZ_PYPTO_ADAPTER"); env && *env)
    return env;
  return NPUFUZZ_PYPTO_ADAPTER;
}

bool checkPyptoToolchain(const PtoToolchain &t, std::string &error) {
  if (t.pyptoPython.empty()) {
    error = "--backend pypto needs PyPTO's Python, ptoas and pto-isa (see docs/toolchains.md)";
    return false;
  }
  if (t.pyptoAdapter.empty() || ::access(t.pyptoAdapter.c_str(), R_OK) != 0) {
    error = "--backend pypto runs the adapter '" + t.pyptoAdapter +
            "', which cannot be read (set $NPUFUZZ_PYPTO_ADAPTER to "
            "tools/adapters/pypto_compile.py)";
    return false;
  }
  return checkPtoToolchain(t, error);
}

namespace {
/// PyPTO's `.pto` for `program` into `text`; false with `r` saying why
/// (its status and message).
bool pyptoKernel(const PtoToolchain &t, const std::string &program, std::string &text,
                 BackendRun &r) {
  using Status = BackendRun::Status;
  CaseDir dir(t, "npufuzz-pypto");
  if (!dir.made()) {
    r.status = Status::EnvironmentError;
    r.message = "cannot create a case directory for PyPTO (set TMPDIR to a writable directory)";
    return false;
  }
  if (!writeBytes(dir.file("program.py"), program.data(), program.size()))
    return cannotWrite(dir.path(), r), dir.finish(r), false;
  ExternalToolchain limits;
  // PyPTO imports torch first, seconds on a loaded machine: its limit is
  // simpler's, far above what a tiny kernel's passes take.
  limits.timeoutSeconds = t.simplerTimeoutSeconds;
  // PyPTO imports torch, which maps more than a kernel's limit.
  limits.addressSpaceBytes = 0;
  const CommandEnd end = runCommand(limits, {t.pyptoPython, t.pyptoAdapter, dir.path()},
                                    dir.file("pypto.out"), dir.file("pypto.err"));
  if (end.kind == CommandEnd::Kind::Exited && end.exitCode == kExternalExitCompileError) {
    r.status = Status::CompileError;
    r.message = "pypto: " + adapterLine(end.stderrText) + "\n" + end.stderrText;
    return dir.finish(r), false;
  }
  if (end.kind == CommandEnd::Kind::Exited && end.exitCode == kExternalExitEnvironment) {
    r.status = Status::EnvironmentError;
    r.message = "pypto adapter: " + adapterLine(end.stderrText) + "\n" + end.stderrText;
    return dir.finish(r), false;
  }
  if (end.kind != CommandEnd::Kind::Exited || end.exitCode != 0) {
    r.status = classifyEnd(end, r.message);
    r.message = "pypto: " + r.message;
    return dir.finish(r), false;
  }
  std::string error;
  if (!readFileBytes(dir.file("kernel.pto"), text, error)) {
    r.status = Status::EnvironmentError;
    r.message = "pypto adapter: exited 0 and wrote no kernel.pto: " + error;
    return dir.finish(r), false;
  }
  return true;
}
} // namespace

BackendRun runPypto(const PtoToolchain &t, const Case &c, const std::vector<TensorData> &inputs,
                    uint32_t poison) {
  BackendRun r;
  const auto t0 = Clock::now();
  std::string program, text;
  if (!emitPypto(c, program, r.message)) {
    r.status = BackendRun::Status::Unsupported;
    return r;
  }
  if (t.builds && t.builds->pyptoProgram == program) {
    text = t.builds->pyptoKernel;
  } else {
    if (!pyptoKernel(t, program, text, r))
      return r;
    if (t.builds) {
      t.builds->pyptoProgram = program;
      t.builds->pyptoKernel = text;
    }
  }
  r.emitSeconds = secondsSince(t0);
  // PyPTO gives every tile its address: ptoas's level 3.
  return runPtoText(t, c, text, true, inputs, poison, std::move(r));
}

std::map<std::string, std::string> pyptoPrograms(const PtoToolchain &t, const Case &c) {
  std::map<std::string, std::string> files;
  std::string program, reason, text;
  if (!emitPypto(c, program, reason))
    return files;
  files["program.py"] = program;
  BackendRun r;
  if (pyptoKernel(t, program, text, r))
    files["kernel.pto"] = text;
  return files;
}

} // namespace npufuzz
