//===- backend/pto/KernelHarness.cpp - main() around ptoas's kernels ------===//
#include "backend/pto/KernelHarness.h"

#include "backend/emit/PtoEmitter.h"
#include "backend/external/ExternalBackend.h"
#include "backend/pto/TraceShim.h"
#include "ir/TensorData.h"

#include <algorithm>
#include <sstream>

namespace npufuzz {

namespace {
/// The C++ element type of a kernel buffer does not matter to the harness:
/// it passes each pointer as whatever the kernel's parameter is, deduced
/// from the function's type, and each int as the parameter's integer type.
const char *kCall = R"(
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
  static_assert(sizeof...(Ps) == npfNumArgs, "the kernel's parameters are not the case's");
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

/// The first statement of main(): pto-isa's CPU simulator gives UB a
/// 512 KiB scratch unless told its size, so a tile ptoas placed past the end
/// of A2/A3's 192 KiB would run as if it fit (on the chip, seed 004's fourth
/// tile at UB's end hung the kernel). Told, its bounds check asserts
/// (PtoBackend.cpp, tilePastItsBuffer). L1 and L0 already have A2/A3's sizes.
std::string ubSizeStatement() {
  return "  ::setenv(\"PTO_CPU_SIM_UB_BYTES\", \"" + std::to_string(kPtoVecBufferBytes) +
         "\", 1);\n";
}

/// `npfMain(dir)` for the npf_kernel in scope, in the current namespace.
std::string runner(const KernelBuffers &b, bool trace) {
  const size_t n = b.bytes.size() + b.ints.size();
  std::ostringstream h;
  h << "constexpr size_t npfNumArgs = " << n << ";\n" << kCall;
  for (size_t k = 0; k < b.bytes.size(); ++k)
    h << "alignas(64) static unsigned char npfBuf" << k << "[" << std::max<size_t>(1, b.bytes[k])
      << "];\n";
  h << "int npfMain(const char *dir) {\n";
  h << "  void *bufs[" << n << "] = {";
  for (size_t k = 0; k < n; ++k)
    h << (k ? ", " : "") << (k < b.bytes.size() ? "npfBuf" + std::to_string(k) : "nullptr");
  h << "};\n  const int64_t ints[" << n << "] = {";
  for (size_t k = 0; k < n; ++k)
    h << (k ? ", " : "") << (k < b.bytes.size() ? 0 : b.ints[k - b.bytes.size()]);
  h << "};\n";
  // A file the harness cannot read or write is the machine's (a full disk),
  // never the kernel's: the exit status classifyEnd takes for that.
  const std::string machine = "return " + std::to_string(kExternalExitEnvironment) + "; }\n";
  for (size_t k = 0; k < b.bytes.size(); ++k)
    h << "  if (!npfFile(dir, " << k << ", npfBuf" << k << ", " << b.bytes[k]
      << ", false)) { std::fprintf(stderr, \"harness: cannot read arg" << k << ".bin\\n\"); "
      << machine;
  h << "  npfCall(&npf_kernel, bufs, ints);\n";
  if (trace)
    h << "  if (!::npf_trace::write(dir)) { std::fprintf(stderr, \"harness: cannot write "
         "trace.txt\\n\"); "
      << machine;
  for (size_t k = 0; k < b.bytes.size(); ++k)
    if (b.isOutput[k])
      h << "  if (!npfFile(dir, " << k << ", npfBuf" << k << ", " << b.bytes[k]
        << ", true)) { std::fprintf(stderr, \"harness: cannot write arg" << k << ".bin\\n\"); "
        << machine;
  h << "  return 0;\n}\n";
  return h.str();
}
} // namespace

KernelBuffers kernelBuffers(const Case &c) {
  KernelBuffers b;
  for (const Op &op : c.ops)
    if (op.kind == OpKind::Input) {
      b.bytes.push_back(TensorData::filled(c.typeOf(op.results[0]), 0).bytes.size());
      b.isOutput.push_back(false);
    }
  for (const TensorType &type : c.outputTypes()) {
    b.bytes.push_back(TensorData::filled(type, 0).bytes.size());
    b.isOutput.push_back(true);
  }
  for (const Op &op : c.ops)
    if (op.kind == OpKind::SetValidShape && op.attrs.dynamic)
      b.ints.insert(b.ints.end(), {op.attrs.rows, op.attrs.cols});
  return b;
}

std::string singleHarness(const KernelBuffers &b, bool trace) {
  // The kernel stays at namespace scope, as ptoas wrote it: an assertion or
  // a memory checker names its functions as they are in kernel.cpp.
  return (trace ? traceShim() : std::string()) +
         "#include <cstdlib>\n#include \"kernel.cpp\"\nnamespace npf_run {\n" + runner(b, trace) +
         "} // namespace npf_run\n"
         "int main(int argc, char **argv) {\n" +
         ubSizeStatement() + "  return npf_run::npfMain(argc > 1 ? argv[1] : \".\");\n}\n";
}

std::string batchHarness(const std::vector<KernelBuffers> &kernels, bool trace) {
  std::string h = (trace ? traceShim() : std::string()) + "#include <cstdlib>\n";
  for (size_t k = 0; k < kernels.size(); ++k)
    h += "namespace npf_k" + std::to_string(k) + " {\n#include \"k" + std::to_string(k) +
         ".cpp\"\n" + runner(kernels[k], trace) + "} // namespace npf_k" + std::to_string(k) + "\n";
  h += "int main(int argc, char **argv) {\n" + ubSizeStatement() +
       "  if (argc < 3)\n    return 2;\n"
       "  switch (std::atoi(argv[2])) {\n";
  for (size_t k = 0; k < kernels.size(); ++k)
    h += "  case " + std::to_string(k) + ":\n    return npf_k" + std::to_string(k) +
         "::npfMain(argv[1]);\n";
  h += "  }\n  return 2;\n}\n";
  return h;
}

} // namespace npufuzz
