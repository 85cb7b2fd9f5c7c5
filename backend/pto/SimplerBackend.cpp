//===- backend/pto/SimplerBackend.cpp - ptoas's kernels on simpler's runtime ===//
#include "backend/pto/SimplerBackend.h"

#include "backend/external/CommandProcess.h"
#include "backend/external/ExternalBackend.h"
#include "backend/pto/CaseDir.h"
#include "backend/pto/KernelHarness.h"
#include "backend/pto/SimplerSources.h"
#include "ir/Elapsed.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <unistd.h>

namespace npufuzz {

namespace {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

BackendRun &environment(BackendRun &r, const std::string &message) {
  r.status = BackendRun::Status::EnvironmentError;
  r.message = message;
  return r;
}

/// The adapter's first line of stderr that says what went wrong: its own
/// "npufuzz simpler adapter:" line, else classifyEnd's headline.
std::string adapterLine(const std::string &stderrText) {
  const std::string mark = "npufuzz simpler adapter: ";
  const size_t at = stderrText.find(mark);
  if (at == std::string::npos)
    return "";
  const size_t end = stderrText.find('\n', at);
  return stderrText.substr(at + mark.size(),
                           end == std::string::npos ? std::string::npos : end - at - mark.size());
}
} // namespace

std::string defaultSimplerAdapter() {
  if (const char *env = std::getenv("NPUFUZZ_SIMPLER_ADAPTER"); env && *env)
    return env;
  return NPUFUZZ_SIMPLER_ADAPTER;
}

bool checkSimplerToolchain(const PtoToolchain &t, std::string &error) {
  if (t.ptoas.empty() || t.simplerPython.empty()) {
    error = "--backend simpler needs ptoas and simpler's Python (see docs/toolchains.md)";
    return false;
  }
  if (t.simplerAdapter.empty() || ::access(t.simplerAdapter.c_str(), R_OK) != 0) {
    error = "--backend simpler runs the adapter '" + t.simplerAdapter +
            "', which cannot be read (set $NPUFUZZ_SIMPLER_ADAPTER to "
            "tools/adapters/simpler_run.py)";
    return false;
  }
  if (t.arch != "a3") {
    error =
        "--backend simpler runs simpler's a2a3sim platform: --pto-arch a3, not '" + t.arch + "'";
    return false;
  }
  return true;
}

BackendRun runSimpler(const PtoToolchain &t, const Case &c, const std::vector<TensorData> &inputs,
                      uint32_t poison) {
  using Status = BackendRun::Status;
  BackendRun r;
  CaseDir dir(t, "npufuzz-simpler");
  if (!dir.made())
    return environment(r, "cannot create a directory for simpler (set TMPDIR to a writable "
                          "directory)");
  const auto t0 = Clock::now();
  if (!assemblePto(t, c, dir.path(), r))
    return dir.finish(r);
  r.passSeconds = secondsSince(t0);
  std::map<std::string, std::string> files;
  if (!simplerSources(kernelBuffers(c), files, r.message)) {
    r.status = Status::Unsupported;
    return r;
  }
  bool written = true;
  for (const auto &[name, text] : files)
    written &= writeBytes(dir.file(name), text.data(), text.size());
  std::vector<TensorData> outputs;
  for (const TensorType &type : c.outputTypes())
    outputs.push_back(TensorData::filled(type, poison));
  if (!written || !dir.writeRunBuffers(inputs, outputs, poison)) {
    cannotWrite(dir.path(), r);
    return r;
  }

  const auto t1 = Clock::now();
  ExternalToolchain limits;
  limits.timeoutSeconds = t.simplerTimeoutSeconds;
  // simpler's runtime maps its simulated device memory up front.
  limits.addressSpaceBytes = 0;
  std::vector<std::string> argv = {t.simplerPython, t.simplerAdapter, dir.path()};
  // The oracles run a case again (another poison, variants): simpler's
  // builds of its kernels, by source, serve them all.
  if (t.builds) {
    if (!t.builds->simplerBuilds)
      t.builds->simplerBuilds = std::make_unique<CaseDir>(t, "npufuzz-simpler-builds");
    if (t.builds->simplerBuilds->made())
      argv.push_back(t.builds->simplerBuilds->path());
  }
  const CommandEnd end = runCommand(limits, argv, dir.file("run.out"), dir.file("run.err"));
  r.executeSeconds = secondsSince(t1);
  std::error_code ec;
  const bool running = fs::exists(dir.file(kExternalRunningMarker), ec);
  if (end.kind == CommandEnd::Kind::Exited && end.exitCode == kExternalExitCompileError) {
    // ptoas accepted the kernel and the pto-isa simpler pins rejects what
    // it made of it: the two tools' contract, as for --backend pto.
    r.status = Status::ContractGap;
    r.message = "simpler's pto-isa rejects ptoas's C++: " + adapterLine(end.stderrText) + "\n" +
                end.stderrText;
    return dir.finish(r);
  }
  if (end.kind == CommandEnd::Kind::Exited && end.exitCode == kExternalExitEnvironment) {
    environment(r, "simpler adapter: " + adapterLine(end.stderrText) + "\n" + end.stderrText);
    return dir.finish(r);
  }
  if (end.kind != CommandEnd::Kind::Exited || end.exitCode != 0) {
    r.status = classifyEnd(end, r.message);
    // Before the run starts, the adapter only builds: a compiler killed
    // or out of time is the machine's (it reports the compiler's own
    // errors itself), never a finding.
    if (!running && end.kind != CommandEnd::Kind::Exited) {
      environment(r, "simpler adapter, building: " + r.message);
      return dir.finish(r);
    }
    r.message = "simpler: " + r.message;
    r.failedRunning = running && r.status == Status::Crashed;
    return dir.finish(r);
  }
  if (const size_t k = dir.readOutputs(inputs.size(), outputs); k < outputs.size()) {
    r.status = Status::RuntimeError;
    r.message = "simpler: output " + std::to_string(k) + " was not written back";
    return dir.finish(r);
  }
  r.outputs = std::move(outputs);
  // TSTORE stores the valid region only: the rest must still hold the fill.
  r.outputFill = poison;
  return dir.finish(r);
}

std::map<std::string, std::string> simplerPrograms(const PtoToolchain &t, const Case &c) {
  std::map<std::string, std::string> files = ptoPrograms(t, c);
  std::map<std::string, std::string> sources;
  std::string reason;
  if (files.count("kernel.cpp") && simplerSources(kernelBuffers(c), sources, reason))
    for (auto &[name, text] : sources)
      files["simpler-" + name] = std::move(text);
  return files;
}

} // namespace npufuzz
