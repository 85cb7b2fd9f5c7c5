//===- backend/pto/PrecompiledSimulator.cpp - pto-isa built once ----------===//
#include "backend/pto/PrecompiledSimulator.h"

#include "backend/external/CommandProcess.h"
#include "backend/external/ExternalBackend.h"
#include "backend/pto/PtoBackend.h"
#include "backend/pto/TraceShim.h"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <unistd.h>

namespace npufuzz {

namespace {
namespace fs = std::filesystem;

/// What the precompiled header holds: pto-inst.hpp needs <cstdint> before
/// it; the rest is what the harness uses.
///
/// pto-isa's own loop helpers (pto/cpu/parallel.hpp) are replaced, under
/// that header's include guard, by sequential ones with the same interface.
/// Its helpers split a loop over a tile's rows across std::threads when the
/// tile has 16,384 elements or more, so every loop body (one per
/// instruction and tile type) instantiated and compiled std::thread's
/// machinery: about a fifth of compiling a kernel, for a branch the fuzzed
/// tiles hardly take. The rows are independent, so the order they run in
/// changes no result; a simulator that runs them in one thread is the one
/// the race oracle assumes anyway (backend/pto/TraceShim.h). Its
/// vectorisation hint is a pragma that does nothing at -O0.
///
/// pto-isa marks every instruction and helper always_inline (PTO_INLINE,
/// for the device compiler). On the CPU that only makes the compiler inline
/// each instruction's whole implementation at every call at -O0, and then
/// select code for one huge kernel function: a sixth of compiling a kernel.
/// Plain `inline` computes the same, each instantiation compiled once.
const char *kPrelude = R"(#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <type_traits>
#include <utility>
#define PTO_CPU_PARALLEL_HPP
#define PTO_CPU_VECTORIZE_LOOP
namespace pto::cpu {
inline unsigned get_thread_count() noexcept { return 1; }
template <typename Fn> inline void parallel_for_1d(std::size_t begin, std::size_t end, std::size_t, Fn fn) {
  for (std::size_t i = begin; i < end; ++i)
    fn(i);
}
template <typename Fn> inline void parallel_for_rows(std::size_t rows, std::size_t, Fn fn) {
  parallel_for_1d(0, rows, 0, fn);
}
} // namespace pto::cpu
#include "pto/common/type.hpp"
#undef PTO_INLINE
#define PTO_INLINE inline
#include "pto/pto-inst.hpp"
)";

/// The prelude and pipe trace's recorder (backend/pto/TraceShim.h), which
/// every harness with the race oracle on would otherwise compile again.
std::string preludeText() { return std::string(kPrelude) + traceDefinitions(); }

bool writeText(const std::string &path, const std::string &text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  return static_cast<bool>(out << text) && static_cast<bool>(out.flush());
}

/// Runs one build step; false with the compiler's output otherwise.
bool build(const std::vector<std::string> &argv, const std::string &scratch, std::string &error) {
  ExternalToolchain limits;
  limits.timeoutSeconds = 600;
  const CommandEnd end = runCommand(limits, argv, scratch + ".out", scratch + ".err");
  std::remove((scratch + ".out").c_str());
  std::remove((scratch + ".err").c_str());
  if (end.kind == CommandEnd::Kind::Exited && end.exitCode == 0)
    return true;
  error = "cannot precompile pto-isa's pto-inst.hpp (" + argv.front() + "):\n" + end.stderrText;
  return false;
}
} // namespace

std::vector<std::string> simulatorFlags(const PtoToolchain &t) {
  return {"-std=c++20", "-D__CPU_SIM", "-D__DAV_VEC__", "-O0", "-fPIC", "-w", "-I", t.ptoIsa};
}

bool precompiledSimulator(const PtoToolchain &t, const std::string &parent,
                          PrecompiledSimulator &out, std::string &error) {
  // Once found or built, a worker process reuses it without looking again.
  static std::map<std::string, PrecompiledSimulator> known;
  const std::string where = t.cxx + "\n" + t.ptoIsa + "\n" + parent;
  if (const auto it = known.find(where); it != known.end()) {
    out = it->second;
    return true;
  }
  // Keyed by everything the build depends on, including the compiler binary
  // itself: a precompiled header from another compiler build is rejected.
  std::string key = t.cxx + "\n" + t.ptoIsa + "\n" + preludeText();
  for (const std::string &f : simulatorFlags(t))
    key += "\n" + f;
  std::error_code ec;
  const fs::path compiler = fs::canonical(resolveProgram(t.cxx), ec);
  if (!ec) {
    key += "\n" + compiler.string() + "\n" + std::to_string(fs::file_size(compiler, ec));
    key += "\n" + std::to_string(fs::last_write_time(compiler, ec).time_since_epoch().count());
  }
  const fs::path dir =
      fs::path(parent) / ("npufuzz-pto-sim-" + std::to_string(std::hash<std::string>()(key)));
  PrecompiledSimulator sim;
  sim.header = (dir / "prelude.h.pch").string();
  sim.library = (dir / "libpto-sim.so").string();
  if (fs::exists(sim.header, ec) && fs::exists(sim.library, ec)) {
    out = known[where] = sim;
    return true;
  }

  fs::create_directories(dir, ec);
  // The header keeps its final name: the precompiled header records it.
  // Temporary names keep their extensions: the compiler goes by them.
  const std::string tag = (dir / ("tmp-" + std::to_string(::getpid()))).string();
  // Written whole under a temporary name, then renamed: another process
  // may be reading it already (the same text).
  const std::string header = (dir / "prelude.h").string();
  if (!fs::exists(header, ec) &&
      (!writeText(tag + ".h", preludeText()) || (fs::rename(tag + ".h", header, ec), ec))) {
    error = "cannot write " + header;
    return false;
  }
  const std::string pch = tag + ".pch", object = tag + ".o", library = tag + ".so";
  std::vector<std::string> argv = {t.cxx};
  const std::vector<std::string> flags = simulatorFlags(t);
  argv.insert(argv.end(), flags.begin(), flags.end());
  std::vector<std::string> header_ = argv, object_ = argv;
  header_.insert(header_.end(), {"-fpch-instantiate-templates", "-fpch-codegen", "-x", "c++-header",
                                 header, "-o", pch});
  object_.insert(object_.end(), {"-c", pch, "-o", object});
  const bool built = build(header_, pch, error) && build(object_, object, error) &&
                     build({t.cxx, "-shared", object, "-o", library}, library, error);
  std::remove(object.c_str());
  if (!built) {
    std::remove(pch.c_str());
    std::remove(library.c_str());
    return false;
  }
  // The library first: the header's presence says both are there.
  fs::rename(library, sim.library, ec);
  if (!ec)
    fs::rename(pch, sim.header, ec);
  if (ec && !(fs::exists(sim.header) && fs::exists(sim.library))) {
    error = "cannot move the precompiled simulator into " + dir.string() + ": " + ec.message();
    return false;
  }
  std::remove(pch.c_str());
  std::remove(library.c_str());
  out = known[where] = sim;
  return true;
}

std::vector<std::string> kernelCompileCommand(const PtoToolchain &t,
                                              const PrecompiledSimulator &sim,
                                              const std::string &kernelDir,
                                              const std::string &harness, const std::string &binary,
                                              bool forMemcheck) {
  std::vector<std::string> argv = {t.cxx};
  const std::vector<std::string> flags = simulatorFlags(t);
  argv.insert(argv.end(), flags.begin(), flags.end());
  if (forMemcheck)
    argv.insert(argv.end(), {"-gline-tables-only", "-gdwarf-4"}); // valgrind 3.19 reads DWARF 4
  else
    // A local the kernel never initialises (a tile default-constructed, so
    // its valid shape is never set: seed 002) holds one pattern in every
    // run, not whatever the stack held: the kernel fails alike in every run
    // and in every cut op blame runs, so the failure is traced to the op
    // that made it, not by the luck of the stack to a later one. Memcheck's
    // kernels keep their garbage, which it reports as an uninitialised read.
    argv.push_back("-ftrivial-auto-var-init=pattern");
  // The header's code is compiled whole into the library, including parts
  // of it (pto-isa's cost-model reporter) that reference libstdc++ symbols
  // this libstdc++ does not export; nothing in a simulated kernel calls
  // them, and a call would fail loudly at run time (a crash, not a result).
  argv.insert(argv.end(),
              {"-include-pch", sim.header, "-I", kernelDir, harness, sim.library,
               "-Wl,--allow-shlib-undefined",
               "-Wl,-rpath," + fs::path(sim.library).parent_path().string(), "-o", binary});
  return argv;
}

} // namespace npufuzz
