//===- backend/pto/PtoBackend.cpp - ptoas + the pto-isa CPU simulator -----===//
#include "backend/pto/PtoBackend.h"

#include "backend/emit/PtoEmitter.h"
#include "backend/external/CommandProcess.h"
#include "backend/external/ExternalBackend.h"
#include "backend/pto/PrecompiledSimulator.h"
#include "ir/FileText.h"

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

double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

bool writeBytes(const std::string &path, const void *data, size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  return static_cast<bool>(out.write(static_cast<const char *>(data),
                                     static_cast<std::streamsize>(size))) &&
         static_cast<bool>(out.flush());
}

/// The C++ element type of a kernel buffer does not matter to the harness:
/// it passes each pointer as whatever the kernel's parameter is, deduced
/// from the function's type, and each int as the parameter's integer type.
const char *kHarnessCall = R"(
template <typename P> P npfArg(void *buf, int64_t value) {
  if constexpr (std::is_pointer_v<P>)
    return reinterpret_cast<P>(buf);
  else
    return static_cast<P>(value);
}
template <typename... Ps, size_t... I>
void npfCallWith(void (*f)(Ps...), void **bufs, const int64_t *ints, std::index_sequence<I...>) {
  f(npfArg<Ps>(bufs[I], ints[I])...);
}
template <typename... Ps> void npfCall(void (*f)(Ps...), void **bufs, const int64_t *ints) {
  static_assert(sizeof...(Ps) == NPF_NUM_ARGS, "the kernel's parameters are not the case's");
  npfCallWith(f, bufs, ints, std::index_sequence_for<Ps...>{});
}

static bool npfFile(const char *dir, int k, void *data, size_t size, bool write) {
  char path[4096];
  std::snprintf(path, sizeof path, "%s/arg%d.bin", dir, k);
  std::FILE *f = std::fopen(path, write ? "wb" : "rb");
  if (!f)
    return false;
  const size_t n = write ? std::fwrite(data, 1, size, f) : std::fread(data, 1, size, f);
  std::fclose(f);
  return n == size;
}
)";

/// The harness: buffers for the kernel's pointer arguments, read from
/// argK.bin; the int arguments; one call; the outputs written back.
std::string harness(const std::vector<size_t> &bufferBytes, const std::vector<bool> &isOutput,
                    const std::vector<int64_t> &ints) {
  const size_t n = bufferBytes.size() + ints.size();
  std::ostringstream h;
  h << "#define NPF_NUM_ARGS " << n << "\n#include \"kernel.cpp\"\n" << kHarnessCall;
  for (size_t k = 0; k < bufferBytes.size(); ++k)
    h << "alignas(64) static unsigned char npfBuf" << k << "[" << std::max<size_t>(1, bufferBytes[k])
      << "];\n";
  h << "int main(int argc, char **argv) {\n  const char *dir = argc > 1 ? argv[1] : \".\";\n";
  h << "  void *bufs[" << n << "] = {";
  for (size_t k = 0; k < n; ++k)
    h << (k ? ", " : "") << (k < bufferBytes.size() ? "npfBuf" + std::to_string(k) : "nullptr");
  h << "};\n  const int64_t ints[" << n << "] = {";
  for (size_t k = 0; k < n; ++k)
    h << (k ? ", " : "") << (k < bufferBytes.size() ? 0 : ints[k - bufferBytes.size()]);
  h << "};\n";
  for (size_t k = 0; k < bufferBytes.size(); ++k)
    h << "  if (!npfFile(dir, " << k << ", npfBuf" << k << ", " << bufferBytes[k]
      << ", false)) { std::fprintf(stderr, \"harness: cannot read arg" << k
      << ".bin\\n\"); return 2; }\n";
  h << "  npfCall(&npf_kernel, bufs, ints);\n";
  for (size_t k = 0; k < bufferBytes.size(); ++k)
    if (isOutput[k])
      h << "  if (!npfFile(dir, " << k << ", npfBuf" << k << ", " << bufferBytes[k]
        << ", true)) { std::fprintf(stderr, \"harness: cannot write arg" << k
        << ".bin\\n\"); return 2; }\n";
  h << "  return 0;\n}\n";
  return h.str();
}

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

bool resolvePtoToolchain(PtoToolchain &t, std::string &error) {
  if (t.ptoas.empty())
    if (const char *env = std::getenv("NPUFUZZ_PTOAS"))
      t.ptoas = env;
  if (t.ptoIsa.empty())
    if (const char *env = std::getenv("NPUFUZZ_PTO_ISA"))
      t.ptoIsa = env;
  const std::string help = "; `bash ci/install-pto.sh` builds ptoas and unpacks pto-isa from "
                           "../shared/third_party and prints both paths";
  if (t.ptoas.empty() || t.ptoIsa.empty()) {
    error = "--backend pto needs --ptoas PATH and --pto-isa DIR (or NPUFUZZ_PTOAS and "
            "NPUFUZZ_PTO_ISA)" + help;
    return false;
  }
  if (::access(resolveProgram(t.ptoas).c_str(), X_OK) != 0) {
    error = "--ptoas " + t.ptoas + ": not an executable" + help;
    return false;
  }
  std::error_code ec;
  if (!fs::exists(fs::path(t.ptoIsa) / "pto" / "pto-inst.hpp", ec)) {
    error = "--pto-isa " + t.ptoIsa + ": no pto/pto-inst.hpp there" + help;
    return false;
  }
  if (t.memcheckShare > 0 && ::access(resolveProgram(t.valgrind).c_str(), X_OK) != 0) {
    error = "--backend pto runs a share of kernels under valgrind memcheck, and there is no " +
            t.valgrind + ": `bash ci/install-deps.sh` installs it, or --pto-memcheck 0 runs none";
    return false;
  }
  if (t.arch != "a3" && t.arch != "a5") {
    error = "--pto-arch takes a3 or a5, not '" + t.arch + "'";
    return false;
  }
  return true;
}

namespace {
/// A case directory under the toolchain's work directory, and what ends a
/// run in it: paths made machine-independent in the message, the directory
/// removed unless kept.
class CaseDir {
public:
  CaseDir(const PtoToolchain &t) : t(t) {
    std::error_code ec;
    const fs::path parent =
        t.workDir.empty() ? fs::temp_directory_path(ec) : fs::path(t.workDir);
    std::string pattern = (parent / "npufuzz-pto-XXXXXX").string();
    if (::mkdtemp(pattern.data()))
      dir = pattern;
  }
  ~CaseDir() {
    std::error_code ec;
    if (!dir.empty() && !t.keepCaseDir)
      fs::remove_all(dir, ec);
  }
  bool made() const { return !dir.empty(); }
  std::string file(const std::string &name) const { return dir + "/" + name; }
  const std::string &path() const { return dir; }

  /// Paths differ from run to run and machine to machine; signatures must
  /// not: files are named by what they are.
  BackendRun &finish(BackendRun &r) const {
    auto replaceAll = [&](const std::string &from, const std::string &to) {
      for (size_t at = r.message.find(from); !from.empty() && at != std::string::npos;
           at = r.message.find(from, at + to.size()))
        r.message.replace(at, from.size(), to);
    };
    replaceAll(dir + "/", "");
    replaceAll(fs::path(t.ptoIsa).lexically_normal().string() + "/", "pto-isa/");
    replaceAll(t.ptoIsa + "/", "pto-isa/");
    return r;
  }

private:
  const PtoToolchain &t;
  std::string dir;
};

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
  uint64_t h = 1469598103934665603ull; // FNV-1a
  for (const unsigned char ch : kernel)
    h = (h ^ ch) * 1099511628211ull;
  return static_cast<double>(h % 1000000) < t.memcheckShare * 1e6;
}

/// A function name without its template arguments, parameters and return
/// type: what stays the same across kernels of other dtypes and shapes.
std::string bareFunction(std::string name) {
  int depth = 0;
  std::string out;
  for (const char ch : name) {
    if (ch == '<')
      ++depth;
    else if (ch == '>')
      depth = std::max(0, depth - 1);
    else if (ch == '(' && depth == 0)
      break;
    else if (depth == 0)
      out += ch;
  }
  if (const size_t space = out.rfind(' '); space != std::string::npos)
    out = out.substr(space + 1);
  return out;
}

/// memcheck's first error as one line: what it is, the PTO instruction
/// the kernel was in (the frame the kernel called), and the line of the
/// generated C++.
std::string memcheckHeadline(const std::string &err) {
  std::istringstream in(err);
  std::string line, what;
  std::vector<std::string> frames;
  for (; std::getline(in, line);) {
    // "==123== Conditional jump or move depends on uninitialised value(s)",
    // then "==123==    at 0x...: function (file:line)", "   by 0x...".
    const size_t mark = line.find("== ");
    if (mark == std::string::npos)
      continue;
    const size_t start = line.find_first_not_of(' ', mark + 2);
    const std::string body = start == std::string::npos ? std::string() : line.substr(start);
    const bool frame = body.rfind("at 0x", 0) == 0 || body.rfind("by 0x", 0) == 0;
    if (what.empty()) {
      if (!frame && !body.empty())
        what = body;
      continue;
    }
    if (!frame)
      break; // the end of the first error's stack
    if (body.find(": ") == std::string::npos)
      continue;
    frames.push_back(body.substr(body.find(": ") + 2));
  }
  std::string out = "memcheck: " + (what.empty() ? std::string("an error") : what);
  for (size_t k = 0; k < frames.size(); ++k) {
    if (frames[k].find("npf_kernel(") == std::string::npos)
      continue;
    if (k > 0)
      out += " in " + bareFunction(frames[k - 1].substr(0, frames[k - 1].rfind(" (")));
    const size_t file = frames[k].find("(kernel.cpp:");
    if (file != std::string::npos)
      out += ", reached from " + frames[k].substr(file + 1, frames[k].find(')', file) - file - 1);
    break;
  }
  return out;
}
} // namespace

struct PtoBuilds {
  std::string key;
  std::unique_ptr<CaseDir> dir;
};

std::shared_ptr<PtoBuilds> newPtoBuilds() { return std::make_shared<PtoBuilds>(); }

namespace {
/// Compiles dir/kernel.cpp with a harness for these buffers (unless
/// `built` already) and runs it, under memcheck when asked; fills `r`.
void simulate(const PtoToolchain &t, const CaseDir &dir, const std::vector<TensorData> &inputs,
              const std::vector<TensorType> &outputTypes,
              const std::vector<int64_t> &validShapes, uint32_t poison, bool memcheck,
              bool built, BackendRun &r) {
  using Status = BackendRun::Status;
  const ExternalToolchain limits = stageLimits(t);
  auto t0 = Clock::now();
  CommandEnd end;
  std::string error;
  std::vector<size_t> bytes;
  std::vector<bool> isOutput;
  std::vector<TensorData> outputs;
  for (const TensorData &in : inputs) {
    bytes.push_back(in.bytes.size());
    isOutput.push_back(false);
  }
  for (const TensorType &type : outputTypes) {
    outputs.push_back(TensorData::filled(type, poison));
    bytes.push_back(outputs.back().bytes.size());
    isOutput.push_back(true);
  }
  const std::string h = harness(bytes, isOutput, validShapes);
  if (!built) {
  PrecompiledSimulator sim;
  std::error_code ec;
  const fs::path parent = t.workDir.empty() ? fs::temp_directory_path(ec) : fs::path(t.workDir);
  if (!precompiledSimulator(t, parent.string(), sim, error)) {
    r.status = Status::RuntimeError;
    r.message = error;
    return;
  }
  writeBytes(dir.file("harness.cpp"), h.data(), h.size());
  end = runCommand(
      limits,
      kernelCompileCommand(t, sim, dir.path(), dir.file("harness.cpp"), dir.file("kernel"),
                           memcheck),
      dir.file("cxx.out"), dir.file("cxx.err"));
  r.codegenSeconds = since(t0);
  if (end.kind != CommandEnd::Kind::Exited || end.exitCode != 0) {
    if (end.kind == CommandEnd::Kind::Exited) {
      // ptoas accepted the kernel and pto-isa rejects what it made of it.
      r.status = Status::ContractGap;
      r.message = "pto-isa rejects ptoas's C++: " + firstError(end.stderrText) + "\n" +
                  end.stderrText;
    } else {
      r.status = classifyEnd(end, r.message);
      r.message = t.cxx + ": " + r.message;
    }
    return;
  }
  }

  t0 = Clock::now();
  for (size_t k = 0; k < inputs.size(); ++k)
    writeBytes(dir.file("arg" + std::to_string(k) + ".bin"), inputs[k].bytes.data(),
               inputs[k].bytes.size());
  for (size_t k = 0; k < outputs.size(); ++k)
    writeBytes(dir.file("arg" + std::to_string(inputs.size() + k) + ".bin"),
               outputs[k].bytes.data(), outputs[k].bytes.size());
  std::vector<std::string> argv = {dir.file("kernel"), dir.path()};
  // memcheck stops at the first error with an exit status of its own; a
  // kernel never exits with it (the harness returns 0 or 2).
  constexpr int kMemcheckError = 86;
  if (memcheck)
    argv.insert(argv.begin(), {t.valgrind, "--tool=memcheck", "-q", "--leak-check=no",
                               "--exit-on-first-error=yes",
                               "--error-exitcode=" + std::to_string(kMemcheckError)});
  end = runCommand(limits, argv, dir.file("run.out"), dir.file("run.err"));
  r.executeSeconds = since(t0);
  if (memcheck && end.kind == CommandEnd::Kind::Exited && end.exitCode == kMemcheckError) {
    r.status = Status::UninitializedRead;
    r.message = memcheckHeadline(end.stderrText) + "\n" + end.stderrText;
    return;
  }
  if (end.kind != CommandEnd::Kind::Exited || end.exitCode != 0) {
    r.status = classifyEnd(end, r.message);
    r.message = "simulator: " + r.message;
    return;
  }
  for (size_t k = 0; k < outputs.size(); ++k) {
    const std::string path = dir.file("arg" + std::to_string(inputs.size() + k) + ".bin");
    std::string data;
    if (!readFileBytes(path, data, error) || data.size() != outputs[k].bytes.size()) {
      r.status = Status::RuntimeError;
      r.message = "simulator: output " + std::to_string(k) + " was not written back";
      return;
    }
    std::memcpy(outputs[k].bytes.data(), data.data(), data.size());
  }
  r.outputs = std::move(outputs);
}

/// Runtime valid shapes, (rows, cols) per dynamic set_validshape in op
/// order: the kernel's trailing int arguments (PtoEmitter.h).
std::vector<int64_t> validShapeArguments(const Case &c) {
  std::vector<int64_t> ints;
  for (const Op &op : c.ops)
    if (op.kind == OpKind::SetValidShape && op.attrs.dynamic)
      ints.insert(ints.end(), {op.attrs.rows, op.attrs.cols});
  return ints;
}

/// emitPto's text for `c`, or why PTO cannot run it.
bool ptoText(const Case &c, std::string &text, std::string &reason) {
  if (!emitPto(c, text, reason))
    return false;
  for (const Value &v : c.values)
    if (v.type.dtype == DType::BF16) {
      // Documented in shared/third_party/README.md: no std::bfloat16_t with
      // this C++ library, so the simulator's bfloat16_t is _Float16.
      reason = "pto: pto-isa's CPU simulator holds bf16 as _Float16 (f16 arithmetic)";
      return false;
    }
  return true;
}

/// ptoas: dir/kernel.pto to dir/kernel.cpp; false with `r` saying why.
bool assemble(const PtoToolchain &t, const CaseDir &dir, const std::string &text,
              BackendRun &r) {
  const auto t0 = Clock::now();
  writeBytes(dir.file("kernel.pto"), text.data(), text.size());
  std::vector<std::string> argv = {t.ptoas, "--pto-arch=" + t.arch};
  argv.insert(argv.end(), t.ptoasFlags.begin(), t.ptoasFlags.end());
  argv.insert(argv.end(), {dir.file("kernel.pto"), "-o", dir.file("kernel.cpp")});
  const CommandEnd end =
      runCommand(stageLimits(t), argv, dir.file("ptoas.out"), dir.file("ptoas.err"));
  r.passSeconds = since(t0);
  if (end.kind == CommandEnd::Kind::Exited && end.exitCode == 0)
    return true;
  r.status = classifyEnd(end, r.message);
  if (r.status == BackendRun::Status::RuntimeError) // exited non-zero: it rejected the kernel
    r.status = BackendRun::Status::CompileError;
  r.message = "ptoas: " + r.message;
  return false;
}
} // namespace

BackendRun runPtoKernel(const PtoToolchain &t, const std::string &kernelCpp,
                        const std::vector<TensorData> &inputs,
                        const std::vector<TensorType> &outputTypes,
                        const std::vector<int64_t> &validShapes, uint32_t poison, bool memcheck) {
  BackendRun r;
  CaseDir dir(t);
  if (!dir.made()) {
    r.status = BackendRun::Status::RuntimeError;
    r.message = "cannot create a case directory for the pto simulator";
    return r;
  }
  writeBytes(dir.file("kernel.cpp"), kernelCpp.data(), kernelCpp.size());
  simulate(t, dir, inputs, outputTypes, validShapes, poison, memcheck, false, r);
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
  r.emitSeconds = since(t0);
  const std::vector<int64_t> ints = validShapeArguments(c);
  const bool memcheck = memcheckChosen(t, text);
  // What the binary depends on besides the toolchain, which stays the same
  // for the span of `t.builds`.
  std::string key = text + '\0' + (memcheck ? "memcheck" : "");
  for (const TensorData &in : inputs)
    key += ' ' + std::to_string(in.bytes.size());
  for (const int64_t n : ints)
    key += ' ' + std::to_string(n);
  if (t.builds && t.builds->dir && t.builds->key == key) {
    simulate(t, *t.builds->dir, inputs, c.outputTypes(), ints, poison, memcheck, true, r);
    return t.builds->dir->finish(r);
  }
  auto dir = std::make_unique<CaseDir>(t);
  if (!dir->made()) {
    r.status = BackendRun::Status::RuntimeError;
    r.message = "cannot create a case directory for ptoas";
    return r;
  }
  if (assemble(t, *dir, text, r))
    simulate(t, *dir, inputs, c.outputTypes(), ints, poison, memcheck, false, r);
  dir->finish(r);
  std::error_code ec;
  if (t.builds && fs::exists(dir->file("kernel"), ec)) {
    t.builds->key = std::move(key);
    t.builds->dir = std::move(dir);
  }
  return r;
}

std::map<std::string, std::string> ptoPrograms(const PtoToolchain &t, const Case &c) {
  std::map<std::string, std::string> files;
  std::string text, reason, error;
  if (!ptoText(c, text, reason))
    return files;
  files["kernel.pto"] = text;
  CaseDir dir(t);
  BackendRun r;
  if (!dir.made() || !assemble(t, dir, text, r))
    return files;
  std::string cpp;
  if (readFileBytes(dir.file("kernel.cpp"), cpp, error))
    files["kernel.cpp"] = cpp;
  return files;
}

} // namespace npufuzz
