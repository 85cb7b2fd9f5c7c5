//===- backend/pto/PtoBackend.cpp - ptoas + the pto-isa CPU simulator -----===//
#include "backend/pto/PtoBackend.h"

#include "backend/KernelTrace.h"
#include "backend/emit/PtoEmitter.h"
#include "backend/external/CommandProcess.h"
#include "backend/external/ExternalBackend.h"
#include "backend/pto/CaseDir.h"
#include "backend/pto/KernelHarness.h"
#include "backend/pto/Memcheck.h"
#include "backend/pto/PrecompiledSimulator.h"
#include "backend/pto/PtoasCoverage.h"
#include "backend/pto/TraceShim.h"
#include "ir/Elapsed.h"
#include "ir/FileText.h"
#include "ir/Hash.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <unistd.h>

namespace npufuzz {

namespace {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

/// The first line of a compiler's output that says "error:", or the first
/// line.
std::string firstError(const std::string &text) {
  std::istringstream lines(text);
  std::string first;
  for (std::string line; std::getline(lines, line);) {
    if (first.empty() && !line.empty())
      first = line;
    if (line.find("error:") != std::string::npos)
      return line;
  }
  return first;
}
} // namespace

bool checkPtoToolchain(const PtoToolchain &t, std::string &error) {
  if (t.ptoas.empty() || t.ptoIsa.empty()) {
    error = "--backend pto needs ptoas and pto-isa (see docs/toolchains.md)";
    return false;
  }
  if (t.memcheckShare > 0 && ::access(resolveProgram(t.valgrind).c_str(), X_OK) != 0) {
    error = "--backend pto runs a share of kernels under valgrind memcheck, and there is no " +
            t.valgrind + ": `bash ci/install-deps.sh` installs it, or --pto-memcheck 0 runs none";
    return false;
  }
  if (::access(resolveProgram(t.cxx).c_str(), X_OK) != 0) {
    error = "--backend pto compiles kernels with " + t.cxx +
            ", and there is none: `bash ci/install-deps.sh` installs it";
    return false;
  }
  if (t.arch != "a3" && t.arch != "a5") {
    error = "--pto-arch takes a3 or a5, not '" + t.arch + "'";
    return false;
  }
  return true;
}

namespace {
ExternalToolchain stageLimits(const PtoToolchain &t) {
  ExternalToolchain limits;
  limits.timeoutSeconds = t.timeoutSeconds;
  limits.addressSpaceBytes = t.addressSpaceBytes;
  return limits;
}

/// Whether memcheck watches this kernel: a fixed share of kernels, chosen
/// by a hash of their text, so that `--seed N` repeats the choice.
bool memcheckChosen(const PtoToolchain &t, const std::string &kernel) {
  if (t.memcheckShare <= 0)
    return false;
  if (t.memcheckShare >= 1)
    return true;
  return static_cast<double>(fnv1a(kernel) % 1000000) < t.memcheckShare * 1e6;
}

} // namespace

std::shared_ptr<PtoBuilds> newPtoBuilds() { return std::make_shared<PtoBuilds>(); }

namespace {
/// What a kernel's binary depends on besides the toolchain: its text, its
/// buffers and whether memcheck needs line tables.
std::string buildKey(const PtoToolchain &t, const std::string &text, const KernelBuffers &b,
                     bool memcheck) {
  std::string key = text + '\0' + (memcheck ? "memcheck" : "") + (t.raceTrace ? " trace" : "");
  for (const size_t n : b.bytes)
    key += ' ' + std::to_string(n);
  key += ';';
  for (const size_t n : b.scratchBytes)
    key += ' ' + std::to_string(n);
  key += ';';
  for (const int64_t n : b.ints)
    key += ' ' + std::to_string(n);
  // A chain's harness: its GM tensors, its tasks in order with what each
  // takes, and a planted bug; none of it is in the kernels' text.
  key += ';';
  for (size_t g = 0; g < b.gmBytes.size(); ++g)
    key += ' ' + std::to_string(b.gmBytes[g]) + '/' + std::to_string(b.gmElementBytes[g]);
  for (const HarnessTask &task : b.tasks) {
    key += "; t" + std::to_string(task.task) + " b" + std::to_string(task.blocks) + ' ' +
           std::string(taskStoreName(task.store)) + " r";
    for (const size_t g : task.reads)
      key += ' ' + std::to_string(g);
    key += " w";
    for (const size_t g : task.writes)
      key += ' ' + std::to_string(g);
    key += " s";
    for (const size_t n : task.scratchBytes)
      key += ' ' + std::to_string(n);
    key += " i" + std::to_string(task.firstInt) + '+' + std::to_string(task.numInts);
  }
  key += ' ' + std::string(harnessBugName(b.bug));
  return key;
}

/// Beside a prebuilt kernel's entry: what its ptoas run says of the
/// compiler's coverage (backend/pto/PtoasCoverage.h), which its case reports.
constexpr const char *kEntryCoverage = "ptoas-coverage.json";

/// Where a prebuilt batch files the kernel of `key`.
fs::path batchEntry(const PtoToolchain &t, const std::string &key) {
  char name[24];
  std::snprintf(name, sizeof name, "%016llx", static_cast<unsigned long long>(fnv1a(key)));
  return fs::path(t.batchDir) / name;
}

/// Compiles dir/kernel.cpp with a harness for `b` into dir/kernel; false
/// with `r` saying why.
bool compileSingle(const PtoToolchain &t, const CaseDir &dir, const KernelBuffers &b, bool memcheck,
                   BackendRun &r) {
  const auto t0 = Clock::now();
  PrecompiledSimulator sim;
  std::string error;
  if (!precompiledSimulator(t, workParent(t).string(), sim, error)) {
    // pto-isa's headers were checked at start-up and the compiler found:
    // a simulator that does not build is the machine's (a full disk, a
    // refused fork), not the kernel's.
    r.status = BackendRun::Status::EnvironmentError;
    r.message = error;
    return false;
  }
  // The pipe trace, unless the kernel has a t-op the shim cannot see, or
  // memcheck watches it: the trace reads each tile's valid shape, and an
  // uninitialised one must be reported at the kernel's t-op, not there.
  std::string cpp, readError;
  const bool trace = t.raceTrace && !memcheck &&
                     readFileBytes(dir.file("kernel.cpp"), cpp, readError) &&
                     untracedOps(cpp).empty();
  const std::string h = singleHarness(b, trace);
  if (!writeBytes(dir.file("harness.cpp"), h.data(), h.size()))
    return cannotWrite(dir.path(), r);
  const CommandEnd end =
      runCommand(stageLimits(t),
                 kernelCompileCommand(t, sim, dir.path(), dir.file("harness.cpp"),
                                      dir.file("kernel"), memcheck),
                 dir.file("cxx.out"), dir.file("cxx.err"));
  r.codegenSeconds = secondsSince(t0);
  if (end.kind == CommandEnd::Kind::Exited && end.exitCode == 0)
    return true;
  if (end.kind == CommandEnd::Kind::Exited &&
      end.stderrText.find("npufuzz: cannot execute") == std::string::npos) {
    // ptoas accepted the kernel and pto-isa rejects what it made of it.
    r.status = BackendRun::Status::ContractGap;
    r.message =
        "pto-isa rejects ptoas's C++: " + firstError(end.stderrText) + "\n" + end.stderrText;
  } else {
    r.status = classifyEnd(end, r.message);
    r.message = t.cxx + ": " + r.message;
  }
  return false;
}

/// Whether pto-isa's CPU simulator stopped a tile placed where it does not
/// fit in its on-chip buffer (NPUMemoryModel's bounds check, with UB at
/// A2/A3's size: KernelHarness.cpp). On the chip such a tile overwrites
/// what lies past the buffer, or hangs the kernel (seed 004's fourth tile at
/// UB's end).
bool tilePastItsBuffer(const std::string &stderrText) {
  return stderrText.find("Assertion `byteOffset + numel * sizeof(T) <= sizes_[region]' failed") !=
         std::string::npos;
}

/// Runs `binary dir [index]` (under memcheck when asked) on the inputs and
/// `poison`-filled outputs; fills `r`.
void runBinary(const PtoToolchain &t, const CaseDir &dir, const std::string &binary,
               const std::string &index, const std::vector<TensorData> &inputs,
               const std::vector<TensorType> &outputTypes, uint32_t poison, bool memcheck,
               BackendRun &r) {
  using Status = BackendRun::Status;
  const auto t0 = Clock::now();
  std::vector<TensorData> outputs;
  for (const TensorType &type : outputTypes)
    outputs.push_back(TensorData::filled(type, poison));
  if (!dir.writeRunBuffers(inputs, outputs, poison)) {
    cannotWrite(dir.path(), r);
    return;
  }
  std::vector<std::string> argv = {binary, dir.path()};
  if (!index.empty())
    argv.push_back(index);
  if (memcheck) {
    const std::vector<std::string> prefix = memcheckCommand(t.valgrind);
    argv.insert(argv.begin(), prefix.begin(), prefix.end());
  }
  const CommandEnd end = runCommand(stageLimits(t), argv, dir.file("run.out"), dir.file("run.err"));
  r.executeSeconds = secondsSince(t0);
  if (memcheck && end.kind == CommandEnd::Kind::Exited && end.exitCode == kMemcheckErrorStatus) {
    r.status = Status::UninitializedRead;
    r.message = memcheckHeadline(end.stderrText) + "\n" + end.stderrText;
    return;
  }
  if (end.kind != CommandEnd::Kind::Exited || end.exitCode != 0) {
    r.status = classifyEnd(end, r.message);
    r.message = "simulator: " + r.message;
    r.failedRunning = true;
    // Every access to such a tile is out of bounds; the first is, as a
    // rule, the write that fills it.
    if (r.status == Status::Crashed && tilePastItsBuffer(end.stderrText)) {
      r.status = Status::OutOfBoundsWrite;
      r.faultSite = "a tile past the end of its buffer";
      r.message = "simulator: " + r.faultSite + " (UB " + std::to_string(kPtoVecBufferBytes) +
                  " bytes on A2/A3)\n" + end.stderrText;
    }
    // Not the tile past its buffer, whose bounds check says where it is.
    r.memoryError = r.status == Status::Crashed && endedInMemoryError(end);
    return;
  }
  if (const size_t k = dir.readOutputs(inputs.size(), outputs); k < outputs.size()) {
    r.status = Status::RuntimeError;
    r.message = "simulator: output " + std::to_string(k) + " was not written back";
    return;
  }
  r.outputs = std::move(outputs);
  // TSTORE stores the valid region only: the rest must still hold the fill.
  r.outputFill = poison;
  // The pipe trace, when the kernel was built with it.
  std::string trace, error;
  if (t.raceTrace && readFileBytes(dir.file("trace.txt"), trace, error) &&
      !parseKernelTrace(trace, r.kernelTrace, error)) {
    // The harness wrote it: a torn file is the machine's, not the kernel's.
    r.status = Status::EnvironmentError;
    r.message = "simulator: " + error;
  }
}

/// emitPto's text for `c`, or why PTO cannot run it.
bool ptoText(const Case &c, std::string &text, std::string &reason) {
  if (!emitPto(c, text, reason))
    return false;
  for (const Value &v : c.values)
    if (v.type.dtype == DType::BF16) {
      // pto-isa's CPU simulator has no std::bfloat16_t with this C++
      // library, so its bfloat16_t is _Float16 (docs/toolchains.md#pto-isa).
      reason = "pto: pto-isa's CPU simulator holds bf16 as _Float16 (f16 arithmetic)";
      return false;
    }
  return true;
}

/// ptoas: dir/kernel.pto to dir/kernel.cpp; false with `r` saying why. A
/// kernel that places its own tiles (ptoPlacesTiles) is assembled at
/// ptoas's level 3, which takes their addresses, unless the user's ptoas
/// flags name a level.
bool assemble(const PtoToolchain &t, const std::string &dirPath, const std::string &text,
              bool placesTiles, BackendRun &r) {
  const auto t0 = Clock::now();
  const fs::path dir(dirPath);
  const auto file = [&](const char *name) { return (dir / name).string(); };
  if (!writeBytes(file("kernel.pto"), text.data(), text.size()))
    return cannotWrite(dirPath, r);
  std::vector<std::string> argv = {t.ptoas, "--pto-arch=" + t.arch};
  if (t.insertSync && std::find(t.ptoasFlags.begin(), t.ptoasFlags.end(), "--enable-insert-sync") ==
                          t.ptoasFlags.end())
    argv.push_back("--enable-insert-sync");
  if (placesTiles &&
      std::none_of(t.ptoasFlags.begin(), t.ptoasFlags.end(),
                   [](const std::string &f) { return f.rfind("--pto-level", 0) == 0; }))
    argv.push_back("--pto-level=level3");
  argv.insert(argv.end(), t.ptoasFlags.begin(), t.ptoasFlags.end());
  argv.insert(argv.end(), {file("kernel.pto"), "-o", file("kernel.cpp")});
  // A ptoas built with coverage writes its profile here, never where
  // npufuzz runs; read when the compiler's coverage is asked for.
  ExternalToolchain limits = stageLimits(t);
  limits.environment.push_back(ptoasProfileVariable(dirPath));
  const CommandEnd end = runCommand(limits, argv, file("ptoas.out"), file("ptoas.err"));
  r.passSeconds = secondsSince(t0);
  // A ptoas that crashed or was killed wrote no profile: nothing measured.
  // A campaign's profiles wait in its batch directory to be read together.
  if (compilerCoverageAsked() && end.kind == CommandEnd::Kind::Exited)
    r.compilerCoverage = takePtoasProfile(
        t.ptoas, dirPath, t.batchDir.empty() ? "" : ptoasProfilesDir(t.batchDir), t.timeoutSeconds);
  if (end.kind == CommandEnd::Kind::Exited && end.exitCode == 0)
    return true;
  r.status = classifyEnd(end, r.message);
  if (r.status == BackendRun::Status::RuntimeError) // exited non-zero: it rejected the kernel
    r.status = BackendRun::Status::CompileError;
  r.message = "ptoas: " + r.message;
  return false;
}

bool readLines(const fs::path &path, std::string &first, std::string &second) {
  std::ifstream in(path);
  return static_cast<bool>(std::getline(in, first)) && static_cast<bool>(std::getline(in, second));
}
} // namespace

BackendRun runPtoKernel(const PtoToolchain &t, const std::string &kernelCpp,
                        const std::vector<TensorData> &inputs,
                        const std::vector<TensorType> &outputTypes,
                        const std::vector<int64_t> &validShapes, uint32_t poison, bool memcheck) {
  BackendRun r;
  CaseDir dir(t, "npufuzz-pto");
  if (!dir.made()) {
    r.status = BackendRun::Status::EnvironmentError;
    r.message = "cannot create a case directory for the pto simulator (set TMPDIR to a writable "
                "directory)";
    return r;
  }
  KernelBuffers b;
  for (const TensorData &in : inputs) {
    b.bytes.push_back(in.bytes.size());
    b.isOutput.push_back(false);
  }
  for (const TensorType &type : outputTypes) {
    b.bytes.push_back(TensorData::filled(type, 0).bytes.size());
    b.isOutput.push_back(true);
  }
  b.ints = validShapes;
  if (!writeBytes(dir.file("kernel.cpp"), kernelCpp.data(), kernelCpp.size())) {
    cannotWrite(dir.path(), r);
    return dir.finish(r);
  }
  if (compileSingle(t, dir, b, memcheck, r))
    runBinary(t, dir, dir.file("kernel"), "", inputs, outputTypes, poison, memcheck, r);
  return dir.finish(r);
}

BackendRun runPto(const PtoToolchain &t, const Case &c, const std::vector<TensorData> &inputs,
                  uint32_t poison) {
  BackendRun r;
  const auto t0 = Clock::now();
  std::string text;
  if (!ptoText(c, text, r.message)) {
    r.status = BackendRun::Status::Unsupported;
    return r;
  }
  r.emitSeconds = secondsSince(t0);
  return runPtoText(t, c, text, ptoPlacesTiles(c), inputs, poison, std::move(r));
}

BackendRun runPtoText(const PtoToolchain &t, const Case &c, const std::string &text,
                      bool placesTiles, const std::vector<TensorData> &inputs, uint32_t poison,
                      BackendRun r) {
  KernelBuffers buffers = kernelBuffers(c);
  buffers.bug = t.harnessBug;
  const bool memcheck = memcheckChosen(t, text);
  const std::string key = buildKey(t, text, buffers, memcheck);
  auto dir = std::make_unique<CaseDir>(t, "npufuzz-pto");
  if (!dir->made()) {
    r.status = BackendRun::Status::EnvironmentError;
    r.message = "cannot create a case directory for ptoas (set TMPDIR to a writable directory)";
    return r;
  }
  // A build of this kernel: this case's earlier run, or a prebuilt batch.
  std::string binary, index;
  std::error_code ec;
  if (t.builds && t.builds->key == key) {
    binary = t.builds->binary;
    index = t.builds->index;
  } else if (!t.batchDir.empty() && fs::exists(batchEntry(t, key) / "entry", ec)) {
    if (!readLines(batchEntry(t, key) / "entry", binary, index) || !fs::exists(binary, ec))
      binary.clear(), index.clear(); // not a usable entry: build alone
    else if (std::string coverage, error;
             compilerCoverageAsked() &&
             readFileBytes((batchEntry(t, key) / kEntryCoverage).string(), coverage, error))
      r.compilerCoverage = std::move(coverage); // its ptoas ran when the batch was built
  }
  if (binary.empty()) {
    if (!assemble(t, dir->path(), text, placesTiles, r) ||
        !compileSingle(t, *dir, buffers, memcheck, r))
      return dir->finish(r);
    binary = dir->file("kernel");
  }
  runBinary(t, *dir, binary, index, inputs, c.outputTypes(), poison, memcheck, r);
  // An assertion names the program: a batch's as the kernel built alone
  // is named, so that the signature is the one `--seed N` gives.
  for (size_t at = r.message.find(binary); !index.empty() && at != std::string::npos;
       at = r.message.find(binary, at))
    r.message.replace(at, binary.size(), "kernel");
  dir->finish(r);
  if (t.builds && t.builds->key != key) {
    t.builds->key = key;
    t.builds->binary = binary;
    t.builds->index = index;
    if (index.empty())
      t.builds->dir = std::move(dir); // it holds the binary
  }
  return r;
}

unsigned prebuildPto(const PtoToolchain &t, const std::vector<Case> &cases) {
  if (t.batchDir.empty())
    return 0;
  struct Kernel {
    KernelBuffers buffers;
    std::string key, cpp;
    std::string compilerCoverage; ///< what its ptoas run says, which its case reports
  };
  std::vector<Kernel> kernels;
  std::error_code ec;
  for (const Case &c : cases) {
    std::string text, reason;
    // Kernels memcheck watches are built alone, with line tables.
    if (!ptoText(c, text, reason) || memcheckChosen(t, text))
      continue;
    Kernel k{kernelBuffers(c), "", "", ""};
    k.buffers.bug = t.harnessBug;
    k.key = buildKey(t, text, k.buffers, false);
    if (std::any_of(kernels.begin(), kernels.end(),
                    [&](const Kernel &o) { return o.key == k.key; }) ||
        fs::exists(batchEntry(t, k.key), ec))
      continue;
    // Scratch under the batch directory, which the campaign removes: a
    // build child killed at the end of a run leaves nothing elsewhere.
    CaseDir one(t, "npufuzz-pto", t.batchDir);
    BackendRun r;
    std::string error;
    if (!one.made() || !assemble(t, one.path(), text, ptoPlacesTiles(c), r) ||
        !readFileBytes(one.file("kernel.cpp"), k.cpp, error) ||
        (t.raceTrace && !untracedOps(k.cpp).empty()))
      continue; // the case's own run reports it, or builds it without the trace
    k.compilerCoverage = r.compilerCoverage;
    kernels.push_back(std::move(k));
  }
  PrecompiledSimulator sim;
  std::string error;
  if (kernels.empty() || !precompiledSimulator(t, workParent(t).string(), sim, error))
    return 0;
  // A kernel pto-isa rejects (a contract gap) fails the whole compile; its
  // errors point into its kK.cpp, so it is left to build alone, and the rest
  // compile again.
  for (int attempt = 0; attempt < 3 && !kernels.empty(); ++attempt) {
    CaseDir batch(t, "npufuzz-pto", t.batchDir);
    if (!batch.made())
      return 0;
    std::vector<KernelBuffers> buffers;
    for (size_t k = 0; k < kernels.size(); ++k) {
      writeBytes(batch.file("k" + std::to_string(k) + ".cpp"), kernels[k].cpp.data(),
                 kernels[k].cpp.size());
      buffers.push_back(kernels[k].buffers);
    }
    const std::string h = batchHarness(buffers, t.raceTrace);
    writeBytes(batch.file("harness.cpp"), h.data(), h.size());
    // The binary lives in the batch directory, beside the entries.
    const fs::path binary =
        fs::path(t.batchDir) / ("batch-" + fs::path(batch.path()).filename().string());
    ExternalToolchain limits = stageLimits(t);
    limits.timeoutSeconds *= static_cast<double>(kernels.size());
    const CommandEnd end =
        runCommand(limits,
                   kernelCompileCommand(t, sim, batch.path(), batch.file("harness.cpp"),
                                        binary.string(), false),
                   batch.file("cxx.out"), batch.file("cxx.err"));
    if (end.kind == CommandEnd::Kind::Exited && end.exitCode == 0) {
      for (size_t k = 0; k < kernels.size(); ++k) {
        const fs::path entry = batchEntry(t, kernels[k].key);
        // Another batch may file the same kernel at the same time.
        const fs::path tmp = entry.string() + ".tmp" + std::to_string(::getpid());
        fs::create_directories(tmp, ec);
        const std::string lines = binary.string() + "\n" + std::to_string(k) + "\n";
        const std::string &coverage = kernels[k].compilerCoverage;
        if (!writeBytes((tmp / "entry").string(), lines.data(), lines.size()) ||
            (!coverage.empty() &&
             !writeBytes((tmp / kEntryCoverage).string(), coverage.data(), coverage.size())) ||
            (fs::rename(tmp, entry, ec), ec))
          fs::remove_all(tmp, ec);
      }
      return static_cast<unsigned>(kernels.size());
    }
    fs::remove(binary, ec);
    if (end.kind != CommandEnd::Kind::Exited)
      return 0;
    std::vector<Kernel> kept;
    for (size_t k = 0; k < kernels.size(); ++k)
      if (end.stderrText.find("/k" + std::to_string(k) + ".cpp:") == std::string::npos)
        kept.push_back(std::move(kernels[k]));
    if (kept.size() == kernels.size())
      return 0; // an error no kernel is named in
    kernels = std::move(kept);
  }
  return 0;
}

bool assemblePto(const PtoToolchain &t, const Case &c, const std::string &dir, BackendRun &r) {
  std::string text;
  if (!ptoText(c, text, r.message)) {
    r.status = BackendRun::Status::Unsupported;
    return false;
  }
  return assemble(t, dir, text, ptoPlacesTiles(c), r);
}

std::map<std::string, std::string> ptoPrograms(const PtoToolchain &t, const Case &c) {
  std::map<std::string, std::string> files;
  std::string text, reason, error;
  if (!ptoText(c, text, reason))
    return files;
  files["kernel.pto"] = text;
  CaseDir dir(t, "npufuzz-pto");
  BackendRun r;
  if (!dir.made() || !assemble(t, dir.path(), text, ptoPlacesTiles(c), r))
    return files;
  std::string cpp;
  if (readFileBytes(dir.file("kernel.cpp"), cpp, error))
    files["kernel.cpp"] = cpp;
  return files;
}

} // namespace npufuzz
