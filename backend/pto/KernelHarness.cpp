//===- backend/pto/KernelHarness.cpp - main() around ptoas's kernels ------===//
#include "backend/pto/KernelHarness.h"

#include "backend/KernelTrace.h"
#include "backend/emit/PtoEmitter.h"
#include "backend/external/ExternalBackend.h"
#include "backend/pto/TraceShim.h"
#include "ir/TensorData.h"

#include <algorithm>
#include <cstdint>
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
template <size_t N, typename... Ps> void npfCall(void (*f)(Ps...), void **bufs, const int64_t *ints) {
  static_assert(sizeof...(Ps) == N, "the kernel's parameters are not the case's");
  npfCallWith(f, bufs, ints, std::index_sequence_for<Ps...>{});
}
)";

const char *kFiles = R"(
static bool npfFile(const char *dir, const char *name, void *data, size_t size, bool write) {
  char path[4096];
  std::snprintf(path, sizeof path, "%s/%s", dir, name);
  std::FILE *f = std::fopen(path, write ? "wb" : "rb");
  if (!f)
    return false;
  const size_t n = write ? std::fwrite(data, 1, size, f) : std::fread(data, 1, size, f);
  std::fclose(f);
  return n == size;
}
static bool npfFile(const char *dir, int k, void *data, size_t size, bool write) {
  char name[32];
  std::snprintf(name, sizeof name, "arg%d.bin", k);
  return npfFile(dir, name, data, size, write);
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

/// Block `blk` of `blocks` writes its share of a GM tensor of `bytes` from
/// its stage: a run of whole elements that starts on a cache line
/// (KernelTrace.h's line). By DMA, the kernel's own TSTORE is the write the
/// trace records (TraceShim's remap); by scalar stores, the harness records
/// them, and the dcci and the dsb that push them out. A planted bug is a
/// constant of the harness.
const char *kShare = R"(
static void npfShareRange(size_t bytes, size_t elem, int blocks, int blk, size_t &lo, size_t &hi) {
  const size_t n = bytes / elem;
  const size_t line = NPF_LINE_BYTES;
  size_t share = ((n * elem + blocks - 1) / blocks + line - 1) / line * line / elem;
  if (npfBug == 3) // pack-shares
    share = (n + blocks - 1) / blocks;
  lo = std::min(n, blk * share);
  hi = std::min(n, lo + share);
}
static void npfShare(unsigned char *gm, const unsigned char *stage, size_t bytes, size_t elem,
                     int blocks, int blk, bool scalar) {
  size_t lo, hi;
  npfShareRange(bytes, elem, blocks, blk, lo, hi);
  if (lo == hi)
    return;
  std::memcpy(gm + lo * elem, stage + lo * elem, (hi - lo) * elem);
  if (!scalar)
    return;
  NPF_GM('I', "STORE", NPF_PIPE_S, gm + lo * elem, (hi - lo) * elem, true);
  if (npfBug == 1) // drop-flush
    return;
  NPF_GM('C', "", 0, gm + lo * elem, (hi - lo) * elem, true);
  if (npfBug != 2) // drop-fence
    NPF_GM('D', "", 0, gm, 0, false);
}
)";

/// Task `t`'s scratch tensor `k`: one per block, each on cache lines of
/// its own (blocks are cores, and share no line).
std::string taskScratch(const HarnessTask &t, size_t k) {
  return "npfScratchT" + std::to_string(t.task) + "_" + std::to_string(k);
}
size_t blockScratchStride(const HarnessTask &t, size_t k) {
  return (t.scratchBytes[k] + kGmCacheLineBytes - 1) / kGmCacheLineBytes * kGmCacheLineBytes;
}

/// The body of a chain's npfMain between reading its buffers and writing
/// them back: every task in order, each block of it in turn.
std::string chainRun(const KernelBuffers &b, bool trace) {
  std::ostringstream h;
  const size_t nb = b.bytes.size();
  auto gm = [&](size_t g) {
    return g < nb ? "npfBuf" + std::to_string(g) : "npfGm" + std::to_string(g - nb);
  };
  // What no task writes of what they hand on is the run's poison, as the
  // outputs' is: a later task that reads it reads what a rerun changes.
  h << "  {\n    unsigned char poison[4];\n    if (!npfFile(dir, \"poison.bin\", poison, 4, "
       "false)) "
       "{ std::fprintf(stderr, \"harness: cannot read poison.bin\\n\"); return "
    << kExternalExitEnvironment << "; }\n";
  for (size_t g = nb; g < b.gmBytes.size(); ++g)
    h << "    for (size_t i = 0; i < sizeof npfGm" << g - nb << "; ++i)\n      npfGm" << g - nb
      << "[i] = poison[i % 4];\n";
  for (const HarnessTask &t : b.tasks)
    for (size_t k = 0; k < t.scratchBytes.size(); ++k)
      h << "    for (size_t i = 0; i < sizeof " << taskScratch(t, k) << "; ++i)\n      "
        << taskScratch(t, k) << "[i] = poison[i % 4];\n";
  h << "  }\n";
  for (const HarnessTask &t : b.tasks) {
    const size_t n = t.reads.size() + t.writes.size() + t.scratchBytes.size() + t.numInts;
    h << "  for (int blk = 0; blk < " << t.blocks << "; ++blk) { // task " << t.task << "\n";
    if (trace)
      h << "    ::npf_trace::block(" << t.task << ", blk);\n";
    h << "    void *args[" << n << "] = {";
    size_t k = 0;
    for (size_t g : t.reads)
      h << (k++ ? ", " : "") << gm(g);
    for (size_t g : t.writes)
      h << (k++ ? ", " : "") << "npfStage" << g;
    for (size_t j = 0; j < t.scratchBytes.size(); ++j)
      h << (k++ ? ", " : "") << taskScratch(t, j) << " + blk * " << blockScratchStride(t, j);
    for (size_t i = 0; i < t.numInts; ++i)
      h << (k++ ? ", " : "") << "nullptr";
    h << "};\n    const int64_t argInts[" << n << "] = {";
    k = 0;
    for (size_t i = 0; i < t.reads.size() + t.writes.size() + t.scratchBytes.size(); ++i)
      h << (k++ ? ", " : "") << 0;
    for (size_t i = 0; i < t.numInts; ++i)
      h << (k++ ? ", " : "") << b.ints[t.firstInt + i];
    h << "};\n";
    // What the block's tiles do not store is what GM held.
    for (size_t g : t.writes)
      h << "    std::memcpy(npfStage" << g << ", " << gm(g) << ", sizeof npfStage" << g << ");\n";
    const bool dma = t.store == TaskStore::Tile;
    if (trace && dma)
      for (size_t g : t.writes)
        h << "    { size_t lo, hi; npfShareRange(" << b.gmBytes[g] << ", " << b.gmElementBytes[g]
          << ", " << t.blocks << ", blk, lo, hi); ::npf_trace::remap(npfStage" << g
          << ", sizeof npfStage" << g << ", " << gm(g) << ", lo * " << b.gmElementBytes[g]
          << ", hi * " << b.gmElementBytes[g] << "); }\n";
    h << "    npfCall<" << n << ">(&" << ptoTaskFunction(t.task) << ", args, argInts);\n";
    if (trace && dma)
      h << "    ::npf_trace::endRemaps();\n";
    for (size_t g : t.writes)
      h << "    npfShare(" << gm(g) << ", npfStage" << g << ", " << b.gmBytes[g] << ", "
        << b.gmElementBytes[g] << ", " << t.blocks << ", blk, "
        << (t.store == TaskStore::Scalar ? "true" : "false") << ");\n";
    if (trace)
      h << "    ::npf_trace::gm('E', \"\", 0, nullptr, 0, false);\n";
    h << "  }\n";
  }
  if (trace)
    for (size_t k = 0; k < nb; ++k)
      if (b.isOutput[k])
        h << "  ::npf_trace::gm('H', \"\", 0, npfBuf" << k << ", " << b.bytes[k] << ", false);\n";
  return h.str();
}

/// The GM tensors and stages of a chain, and npfShare.
std::string chainBuffers(const KernelBuffers &b, bool trace) {
  std::ostringstream h;
  h << "constexpr int npfBug = " << static_cast<int>(b.bug) << ";\n#define NPF_LINE_BYTES "
    << kGmCacheLineBytes << "\n#define NPF_PIPE_S " << static_cast<int>(Pipe::S) << "\n";
  if (trace)
    h << "#define NPF_GM(kind, name, pipe, p, n, w) ::npf_trace::gm(kind, name, pipe, p, n, w)\n";
  else
    h << "#define NPF_GM(kind, name, pipe, p, n, w) ((void)(p))\n";
  h << kShare << "#undef NPF_GM\n#undef NPF_LINE_BYTES\n#undef NPF_PIPE_S\n";
  for (size_t g = b.bytes.size(); g < b.gmBytes.size(); ++g)
    h << "alignas(64) static unsigned char npfGm" << g - b.bytes.size() << "["
      << std::max<size_t>(1, b.gmBytes[g]) << "];\n";
  for (size_t g = 0; g < b.gmBytes.size(); ++g)
    h << "alignas(64) static unsigned char npfStage" << g << "["
      << std::max<size_t>(1, b.gmBytes[g]) << "];\n";
  for (const HarnessTask &t : b.tasks)
    for (size_t k = 0; k < t.scratchBytes.size(); ++k)
      h << "alignas(64) static unsigned char " << taskScratch(t, k) << "["
        << blockScratchStride(t, k) * static_cast<size_t>(t.blocks) << "];\n";
  return h.str();
}

/// `npfMain(dir)` for the npf_kernel in scope, in the current namespace.
std::string runner(const KernelBuffers &b, bool trace) {
  const size_t nb = b.bytes.size(), ns = b.scratchBytes.size(), n = nb + ns + b.ints.size();
  std::ostringstream h;
  h << kCall << kFiles;
  for (size_t k = 0; k < nb; ++k)
    h << "alignas(64) static unsigned char npfBuf" << k << "[" << std::max<size_t>(1, b.bytes[k])
      << "];\n";
  for (size_t k = 0; k < ns; ++k)
    h << "alignas(64) static unsigned char npfScratch" << k << "["
      << std::max<size_t>(1, b.scratchBytes[k]) << "];\n";
  if (!b.tasks.empty())
    h << chainBuffers(b, trace);
  h << "int npfMain(const char *dir) {\n";
  h << "  void *bufs[" << n << "] = {";
  for (size_t k = 0; k < n; ++k)
    h << (k ? ", " : "")
      << (k < nb        ? "npfBuf" + std::to_string(k)
          : k < nb + ns ? "npfScratch" + std::to_string(k - nb)
                        : "nullptr");
  h << "};\n  const int64_t ints[" << n << "] = {";
  for (size_t k = 0; k < n; ++k)
    h << (k ? ", " : "") << (k < nb + ns ? 0 : b.ints[k - nb - ns]);
  h << "};\n";
  // A file the harness cannot read or write is the machine's (a full disk),
  // never the kernel's: the exit status classifyEnd takes for that.
  const std::string machine = "return " + std::to_string(kExternalExitEnvironment) + "; }\n";
  for (size_t k = 0; k < nb; ++k)
    h << "  if (!npfFile(dir, " << k << ", npfBuf" << k << ", " << b.bytes[k]
      << ", false)) { std::fprintf(stderr, \"harness: cannot read arg" << k << ".bin\\n\"); "
      << machine;
  // What the kernel has not stored to its scratch is the run's poison, as
  // an output's is: a view of a value's undefined part reads what a rerun
  // changes.
  if (ns) {
    h << "  {\n    unsigned char poison[4];\n    if (!npfFile(dir, \"poison.bin\", poison, 4, "
         "false)) "
         "{ std::fprintf(stderr, \"harness: cannot read poison.bin\\n\"); "
      << machine;
    for (size_t k = 0; k < ns; ++k)
      h << "    for (size_t i = 0; i < sizeof npfScratch" << k << "; ++i)\n      npfScratch" << k
        << "[i] = poison[i % 4];\n";
    h << "  }\n";
  }
  if (b.tasks.empty())
    h << "  npfCall<" << n << ">(&npf_kernel, bufs, ints);\n";
  else
    h << chainRun(b, trace);
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

const char *kernelCallSource() { return kCall; }
const char *blockShareSource() { return kShare; }

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
  for (const TensorType &type : ptoScratchTensors(c))
    b.scratchBytes.push_back(TensorData::filled(type, 0).bytes.size());
  for (const Op &op : c.ops)
    if (op.kind == OpKind::SetValidShape && op.attrs.dynamic)
      b.ints.insert(b.ints.end(), {op.attrs.rows, op.attrs.cols});
  if (!ptoIsChain(c))
    return b;
  // A chain: its GM tensors are the case's buffers, then what its tasks
  // hand on that it does not return.
  // (An input the case returns has two: the host's, and the output.)
  std::vector<size_t> inputGm(c.values.size(), SIZE_MAX), gmOf(c.values.size(), SIZE_MAX);
  auto addGm = [&](ValueId v, std::vector<size_t> &in) {
    const TensorType &type = c.typeOf(v);
    in[v] = b.gmBytes.size();
    b.gmElementBytes.push_back(static_cast<size_t>(byteSize(type.dtype)));
    b.gmBytes.push_back(static_cast<size_t>(type.numElements()) * b.gmElementBytes.back());
  };
  for (const Op &op : c.ops)
    if (op.kind == OpKind::Input)
      addGm(op.results[0], inputGm);
  for (ValueId v : c.outputs)
    addGm(v, gmOf);
  const std::vector<TaskOps> tasks = taskOps(c);
  std::vector<HarnessTask> byCase;
  size_t ints = 0;
  for (const TaskOps &k : tasks) {
    const TaskBoundary boundary = ptoTaskBoundary(c, k);
    HarnessTask t;
    t.task = k.task;
    t.blocks = c.tasks[k.task].blocks;
    t.store = c.tasks[k.task].store;
    for (ValueId v : boundary.reads)
      t.reads.push_back(inputGm[v] != SIZE_MAX ? inputGm[v] : gmOf[v]);
    for (ValueId v : boundary.handsOn) {
      if (gmOf[v] == SIZE_MAX)
        addGm(v, gmOf);
      t.writes.push_back(gmOf[v]);
    }
    t.firstInt = ints;
    for (const TensorType &type : ptoTaskScratchTensors(c, k))
      t.scratchBytes.push_back(TensorData::filled(type, 0).bytes.size());
    for (size_t i : k.ops)
      if (c.ops[i].kind == OpKind::SetValidShape && c.ops[i].attrs.dynamic)
        t.numInts += 2;
    ints += t.numInts;
    byCase.push_back(std::move(t));
  }
  if (((c.dataSeed >> 1) & 1) == 0) {
    b.tasks = std::move(byCase);
    return b;
  }
  for (const TaskOps &k : lastReadyTaskOrder(c))
    for (const HarnessTask &t : byCase)
      if (t.task == k.task)
        b.tasks.push_back(t);
  return b;
}

std::string_view harnessBugName(HarnessBug b) {
  switch (b) {
  case HarnessBug::None: return "none";
  case HarnessBug::DropFlush: return "drop-flush";
  case HarnessBug::DropFence: return "drop-fence";
  case HarnessBug::PackShares: return "pack-shares";
  }
  return "none"; // unreachable: every HarnessBug is a case above
}

bool parseHarnessBug(std::string_view s, HarnessBug &out) {
  for (HarnessBug b :
       {HarnessBug::None, HarnessBug::DropFlush, HarnessBug::DropFence, HarnessBug::PackShares})
    if (harnessBugName(b) == s)
      return out = b, true;
  return false;
}

std::string singleHarness(const KernelBuffers &b, bool trace) {
  // The kernel stays at namespace scope, as ptoas wrote it: an assertion or
  // a memory checker names its functions as they are in kernel.cpp.
  return (trace ? traceShim() : std::string()) +
         "#include <algorithm>\n#include <cstdlib>\n#include <cstring>\n#include "
         "\"kernel.cpp\"\nnamespace npf_run {\n" +
         runner(b, trace) +
         "} // namespace npf_run\n"
         "int main(int argc, char **argv) {\n" +
         ubSizeStatement() + "  return npf_run::npfMain(argc > 1 ? argv[1] : \".\");\n}\n";
}

std::string batchHarness(const std::vector<KernelBuffers> &kernels, bool trace) {
  std::string h = (trace ? traceShim() : std::string()) +
                  "#include <algorithm>\n#include <cstdlib>\n#include <cstring>\n";
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
