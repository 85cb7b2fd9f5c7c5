//===- backend/pto/PtoBackend.cpp - ptoas + the pto-isa CPU simulator -----===//
#include "backend/pto/PtoBackend.h"

#include "backend/emit/PtoEmitter.h"
#include "backend/external/CommandProcess.h"
#include "backend/external/ExternalBackend.h"
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

/// The compile flags of the simulator: its documented CPU-simulation macros,
/// C++20, and no optimisation (compiling is the cost of a case; -O0 halves
/// it and keeps line numbers exact for an assert or a memory checker).
std::vector<std::string> simulatorFlags(const PtoToolchain &t) {
  return {"-std=c++20", "-D__CPU_SIM", "-D__DAV_VEC__", "-O0", "-w", "-I", t.ptoIsa};
}

/// What every harness includes first: pto-inst.hpp needs <cstdint> before it.
const char *kPrelude = "#include <cstdint>\n#include <cstdio>\n#include <type_traits>\n"
                       "#include <utility>\n#include \"pto/pto-inst.hpp\"\n";

/// The precompiled prelude, built once per toolchain and shared by every
/// case (and process): made under a temporary name and renamed into place,
/// so concurrent workers never read a partial one.
bool precompiledPrelude(const PtoToolchain &t, const fs::path &parent, std::string &pch,
                        std::string &error) {
  // Once found or built, a worker process reuses it without looking again.
  static std::map<std::string, std::string> known;
  const std::string where = t.cxx + "\n" + t.ptoIsa + "\n" + parent.string();
  if (const auto it = known.find(where); it != known.end()) {
    pch = it->second;
    return true;
  }
  // Keyed by everything the header depends on, including the compiler
  // binary itself: a PCH from another compiler build is rejected.
  std::string key = t.cxx + "\n" + t.ptoIsa;
  for (const std::string &f : simulatorFlags(t))
    key += "\n" + f;
  std::error_code ec;
  const fs::path compiler = fs::canonical(resolveProgram(t.cxx), ec);
  if (!ec) {
    key += "\n" + compiler.string() + "\n" + std::to_string(fs::file_size(compiler, ec));
    key += "\n" + std::to_string(fs::last_write_time(compiler, ec).time_since_epoch().count());
  }
  const std::string id = std::to_string(std::hash<std::string>()(key));
  const fs::path dir = parent / ("npufuzz-pto-pch-" + id);
  pch = (dir / "prelude.h.pch").string();
  if (fs::exists(pch, ec)) {
    known[where] = pch;
    return true;
  }
  fs::create_directories(dir, ec);
  const std::string header = (dir / "prelude.h").string();
  if (!fs::exists(header, ec) && !writeBytes(header, kPrelude, std::strlen(kPrelude))) {
    error = "cannot write " + header;
    return false;
  }
  const std::string tmp = pch + ".tmp." + std::to_string(::getpid());
  ExternalToolchain cmd;
  cmd.timeoutSeconds = 300;
  std::vector<std::string> argv = {t.cxx};
  for (const std::string &f : simulatorFlags(t))
    argv.push_back(f);
  argv.insert(argv.end(), {"-x", "c++-header", header, "-o", tmp});
  const CommandEnd end = runCommand(cmd, argv, tmp + ".out", tmp + ".err");
  std::remove((tmp + ".out").c_str());
  std::remove((tmp + ".err").c_str());
  if (end.kind != CommandEnd::Kind::Exited || end.exitCode != 0) {
    std::remove(tmp.c_str());
    error = "cannot precompile pto-isa's pto-inst.hpp with " + t.cxx + ":\n" + end.stderrText;
    return false;
  }
  fs::rename(tmp, pch, ec);
  if (ec && !fs::exists(pch)) {
    error = "cannot move the precompiled header to " + pch + ": " + ec.message();
    return false;
  }
  known[where] = pch;
  return true;
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
  if (t.arch != "a3" && t.arch != "a5") {
    error = "--pto-arch takes a3 or a5, not '" + t.arch + "'";
    return false;
  }
  return true;
}

BackendRun runPto(const PtoToolchain &t, const Case &c, const std::vector<TensorData> &inputs,
                  uint32_t poison) {
  BackendRun r;
  using Status = BackendRun::Status;
  auto t0 = Clock::now();
  std::string text, reason;
  if (!emitPto(c, text, reason)) {
    r.status = Status::Unsupported;
    r.message = reason;
    return r;
  }
  for (const Value &v : c.values)
    if (v.type.dtype == DType::BF16) {
      // Documented in shared/third_party/README.md: no std::bfloat16_t with
      // this C++ library, so the simulator's bfloat16_t is _Float16.
      r.status = Status::Unsupported;
      r.message = "pto: pto-isa's CPU simulator holds bf16 as _Float16 (f16 arithmetic)";
      return r;
    }
  r.emitSeconds = since(t0);

  std::error_code ec;
  const fs::path parent = t.workDir.empty() ? fs::temp_directory_path(ec) : fs::path(t.workDir);
  std::string pattern = (parent / "npufuzz-pto-XXXXXX").string();
  if (!::mkdtemp(pattern.data())) {
    r.status = Status::RuntimeError;
    r.message = "cannot create a case directory under " + parent.string();
    return r;
  }
  const std::string dir = pattern;
  auto file = [&](const std::string &name) { return dir + "/" + name; };
  auto finish = [&]() -> BackendRun & {
    // Paths differ from run to run and machine to machine; signatures must
    // not: name files by what they are.
    auto replaceAll = [&](const std::string &from, const std::string &to) {
      for (size_t at = r.message.find(from); !from.empty() && at != std::string::npos;
           at = r.message.find(from, at + to.size()))
        r.message.replace(at, from.size(), to);
    };
    replaceAll(dir + "/", "");
    replaceAll(fs::path(t.ptoIsa).lexically_normal().string() + "/", "pto-isa/");
    replaceAll(t.ptoIsa + "/", "pto-isa/");
    if (!t.keepCaseDir)
      fs::remove_all(dir, ec);
    return r;
  };
  ExternalToolchain limits;
  limits.timeoutSeconds = t.timeoutSeconds;
  limits.addressSpaceBytes = t.addressSpaceBytes;

  // 1. ptoas: tile assembly to C++.
  t0 = Clock::now();
  writeBytes(file("kernel.pto"), text.data(), text.size());
  std::vector<std::string> argv = {t.ptoas, "--pto-arch=" + t.arch};
  argv.insert(argv.end(), t.ptoasFlags.begin(), t.ptoasFlags.end());
  argv.insert(argv.end(), {file("kernel.pto"), "-o", file("kernel.cpp")});
  CommandEnd end = runCommand(limits, argv, file("ptoas.out"), file("ptoas.err"));
  r.passSeconds = since(t0);
  if (end.kind != CommandEnd::Kind::Exited || end.exitCode != 0) {
    r.status = classifyEnd(end, r.message);
    if (r.status == Status::RuntimeError) // exited non-zero: it rejected the kernel
      r.status = Status::CompileError;
    r.message = "ptoas: " + r.message;
    return finish();
  }

  // 2. The simulator: ptoas's C++ with the harness, against pto-isa.
  t0 = Clock::now();
  std::string pch, error;
  if (!precompiledPrelude(t, parent, pch, error)) {
    r.status = Status::RuntimeError;
    r.message = error;
    return finish();
  }
  std::vector<size_t> bytes;
  std::vector<bool> isOutput;
  std::vector<const std::vector<uint8_t> *> initial;
  std::vector<TensorData> outputs;
  for (const TensorData &in : inputs) {
    bytes.push_back(in.bytes.size());
    isOutput.push_back(false);
  }
  for (const TensorType &type : c.outputTypes()) {
    outputs.push_back(TensorData::filled(type, poison));
    bytes.push_back(outputs.back().bytes.size());
    isOutput.push_back(true);
  }
  // Runtime valid shapes, (rows, cols) per dynamic set_validshape in op
  // order: the kernel's trailing int arguments (PtoEmitter.h).
  std::vector<int64_t> ints;
  for (const Op &op : c.ops)
    if (op.kind == OpKind::SetValidShape && op.attrs.dynamic)
      ints.insert(ints.end(), {op.attrs.rows, op.attrs.cols});
  const std::string h = harness(bytes, isOutput, ints);
  writeBytes(file("harness.cpp"), h.data(), h.size());
  argv = {t.cxx};
  for (const std::string &f : simulatorFlags(t))
    argv.push_back(f);
  argv.insert(argv.end(), {"-include-pch", pch, "-I", dir, file("harness.cpp"), "-o",
                           file("kernel")});
  end = runCommand(limits, argv, file("cxx.out"), file("cxx.err"));
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
    return finish();
  }

  // 3. Run it.
  t0 = Clock::now();
  for (size_t k = 0; k < inputs.size(); ++k)
    writeBytes(file("arg" + std::to_string(k) + ".bin"), inputs[k].bytes.data(),
               inputs[k].bytes.size());
  for (size_t k = 0; k < outputs.size(); ++k)
    writeBytes(file("arg" + std::to_string(inputs.size() + k) + ".bin"), outputs[k].bytes.data(),
               outputs[k].bytes.size());
  end = runCommand(limits, {file("kernel"), dir}, file("run.out"), file("run.err"));
  r.executeSeconds = since(t0);
  if (end.kind != CommandEnd::Kind::Exited || end.exitCode != 0) {
    r.status = classifyEnd(end, r.message);
    r.message = "simulator: " + r.message;
    return finish();
  }
  for (size_t k = 0; k < outputs.size(); ++k) {
    const std::string path = file("arg" + std::to_string(inputs.size() + k) + ".bin");
    std::string data;
    if (!readFileBytes(path, data, error) || data.size() != outputs[k].bytes.size()) {
      r.status = Status::RuntimeError;
      r.message = "simulator: output " + std::to_string(k) + " was not written back";
      return finish();
    }
    std::memcpy(outputs[k].bytes.data(), data.data(), data.size());
  }
  r.outputs = std::move(outputs);
  return finish();
}

} // namespace npufuzz
