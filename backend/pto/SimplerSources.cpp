//===- backend/pto/SimplerSources.cpp - A case as simpler's task graph ----===//
#include "backend/pto/SimplerSources.h"

#include "backend/KernelTrace.h"
#include "backend/emit/PtoEmitter.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <sstream>

namespace npufuzz {

namespace {
/// One task as simpler runs it: `function` on `blocks` blocks, given GM
/// tensors `reads`, then `writes`, then `ints`. A staged task's tiles store
/// into its stage (a GM tensor of its own, a slice per block) and each block
/// writes its share from there; a case that is one kernel stores straight
/// into its outputs on one block.
struct SimplerTask {
  std::string function;
  int32_t blocks = 1;
  bool scalar = false;
  bool staged = false;
  std::vector<size_t> reads, writes;
  std::vector<int64_t> ints;
  size_t stage = 0; ///< its stage's GM tensor, when staged
  /// Where each value it writes sits in a block's slice of the stage, each
  /// on a line of its own, as the share it becomes starts on one; and the
  /// slice's bytes.
  std::vector<size_t> stageOffsets;
  size_t slice = 0;
};

size_t lineUp(size_t bytes) {
  return (bytes + kGmCacheLineBytes - 1) / kGmCacheLineBytes * kGmCacheLineBytes;
}

/// What every task's wrapper starts with: simpler's headers, ptoas's C++
/// and the parts the harness shares (npfCall, npfShare), with a share's GM
/// events made the flushes they stand for. pto-isa's CPU stub has no dcci
/// and no dsb (simpler's own sim kernels define them away the same way).
const char *kPrelude = R"(#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include <pto/pto-inst.hpp>

#include "tensor.h"

#ifndef __gm__
#define __gm__
#endif
#ifndef __aicore__
#define __aicore__ [aicore]
#endif

#include "intrinsic.h"

#include "kernel.cpp"

namespace npf_simpler {
#ifdef PTO_CPUSTUB_HPP
static inline void npfFlushLine(void *) {}
static inline void npfFence() {}
#else
static inline void npfFlushLine(void *p) { dcci(p, SINGLE_CACHE_LINE, CACHELINE_OUT); }
static inline void npfFence() { dsb(DSB_DDR); }
#endif
static inline void npfGmEvent(char kind, unsigned char *p, size_t n) {
  if (kind == 'C')
    for (size_t at = 0; at < n; at += NPF_LINE_BYTES)
      npfFlushLine(p + at);
  if (kind == 'D')
    npfFence();
}
constexpr int npfBug = 0;
#define NPF_GM(kind, name, pipe, p, n, w) npfGmEvent(kind, p, n)
)";

/// The tail of the prelude, after blockShareSource().
const char *kPreludeEnd = R"(#undef NPF_GM
static inline unsigned char *npfTensor(__gm__ int64_t *args, int k) {
  __gm__ ChipTensor *t = reinterpret_cast<__gm__ ChipTensor *>(args[k]);
  return reinterpret_cast<unsigned char *>(t->buffer.addr) + t->start_offset;
}
} // namespace npf_simpler
using namespace npf_simpler;
)";

std::string wrapper(const SimplerTask &t, const std::vector<size_t> &gmBytes,
                    const std::vector<size_t> &gmElementBytes, const std::string &what) {
  std::ostringstream h;
  h << "// " << what << " as simpler's AICore kernel: ptoas's " << t.function << " (kernel.cpp, "
    << "unchanged)\n// "
    << (t.staged ? "on block get_block_idx(args) of " + std::to_string(t.blocks)
                 : std::string("on one block, into its outputs"))
    << ".\n"
    << "#define NPF_LINE_BYTES " << kGmCacheLineBytes << "\n#define NPF_PIPE_S 0\n"
    << kPrelude << kernelCallSource() << blockShareSource() << kPreludeEnd;
  const size_t n = t.reads.size() + t.writes.size() + t.ints.size();
  const size_t stageArg = t.reads.size() + t.writes.size();
  h << "\nextern \"C\" __aicore__ void kernel_entry(__gm__ int64_t *args) {\n";
  if (t.staged) {
    h << "  const int blk = get_block_idx(args);\n"
      << "  unsigned char *stage = npfTensor(args, " << stageArg
      << ") + static_cast<size_t>(blk) * " << t.slice << ";\n";
    // What the block's tiles do not store of its share is what GM held.
    for (size_t w = 0; w < t.writes.size(); ++w) {
      const size_t g = t.writes[w], elem = gmElementBytes[g];
      h << "  { size_t lo, hi; npfShareRange(" << gmBytes[g] << ", " << elem << ", " << t.blocks
        << ", blk, lo, hi); std::memcpy(stage + " << t.stageOffsets[w] << " + lo * " << elem
        << ", npfTensor(args, " << t.reads.size() + w << ") + lo * " << elem << ", (hi - lo) * "
        << elem << "); }\n";
    }
  }
  h << "  void *bufs[" << std::max<size_t>(1, n) << "] = {";
  size_t k = 0;
  for (size_t r = 0; r < t.reads.size(); ++r)
    h << (k++ ? ", " : "") << "npfTensor(args, " << r << ")";
  for (size_t w = 0; w < t.writes.size(); ++w)
    h << (k++ ? ", " : "")
      << (t.staged ? "stage + " + std::to_string(t.stageOffsets[w])
                   : "npfTensor(args, " + std::to_string(t.reads.size() + w) + ")");
  for (size_t i = 0; i < t.ints.size(); ++i)
    h << (k++ ? ", " : "") << "nullptr";
  h << "};\n  const int64_t ints[" << std::max<size_t>(1, n) << "] = {";
  k = 0;
  for (size_t i = 0; i < t.reads.size() + t.writes.size(); ++i)
    h << (k++ ? ", " : "") << 0;
  for (int64_t v : t.ints)
    h << (k++ ? ", " : "") << v;
  h << "};\n  npfCall<" << n << ">(&" << t.function << ", bufs, ints);\n";
  if (t.staged)
    for (size_t w = 0; w < t.writes.size(); ++w) {
      const size_t g = t.writes[w];
      h << "  npfShare(npfTensor(args, " << t.reads.size() + w << "), stage + " << t.stageOffsets[w]
        << ", " << gmBytes[g] << ", " << gmElementBytes[g] << ", " << t.blocks << ", blk, "
        << (t.scalar ? "true" : "false") << ");\n";
    }
  h << "}\n";
  return h.str();
}
} // namespace

bool simplerSources(const KernelBuffers &b, std::map<std::string, std::string> &files,
                    std::string &reason) {
  // simpler's runtime hands a kernel the tensors of its task graph; a
  // kernel's own GM scratch is none of them.
  if (!b.scratchBytes.empty() ||
      std::any_of(b.tasks.begin(), b.tasks.end(),
                  [](const HarnessTask &t) { return !t.scratchBytes.empty(); }))
    return reason = "simpler: the kernel stages a view through a GM scratch tensor, which is "
                    "no tensor of the task graph",
           false;
  const size_t nb = b.bytes.size();
  std::vector<size_t> gmBytes = b.tasks.empty() ? b.bytes : b.gmBytes;
  std::vector<size_t> gmElementBytes =
      b.tasks.empty() ? std::vector<size_t>(nb, 1) : b.gmElementBytes;
  std::vector<SimplerTask> tasks;
  if (b.tasks.empty()) {
    SimplerTask t;
    t.function = "npf_kernel";
    for (size_t g = 0; g < nb; ++g)
      (b.isOutput[g] ? t.writes : t.reads).push_back(g);
    t.ints = b.ints;
    tasks.push_back(std::move(t));
  }
  for (const HarnessTask &h : b.tasks) {
    SimplerTask t;
    t.function = ptoTaskFunction(h.task);
    t.blocks = h.blocks;
    t.scalar = h.store == TaskStore::Scalar;
    t.staged = true;
    t.reads = h.reads;
    t.writes = h.writes;
    t.ints.assign(b.ints.begin() + static_cast<std::ptrdiff_t>(h.firstInt),
                  b.ints.begin() + static_cast<std::ptrdiff_t>(h.firstInt + h.numInts));
    for (size_t g : t.writes) {
      t.stageOffsets.push_back(t.slice);
      t.slice += lineUp(gmBytes[g]);
    }
    t.stage = gmBytes.size();
    gmBytes.push_back(static_cast<size_t>(t.blocks) * t.slice);
    gmElementBytes.push_back(1);
    tasks.push_back(std::move(t));
  }

  if (gmBytes.size() > kSimplerMaxChipTensors) {
    reason = "simpler: a case of " + std::to_string(gmBytes.size()) +
             " GM tensors (its orchestrations take at most " +
             std::to_string(kSimplerMaxChipTensors) + ")";
    return false;
  }
  llvm::json::Array tensors, taskEntries, orchSignature;
  for (size_t g = 0; g < gmBytes.size(); ++g) {
    const bool hostInput = g < nb && !b.isOutput[g];
    llvm::json::Object e{{"bytes", static_cast<int64_t>(gmBytes[g])},
                         {"direction", hostInput ? "in" : "out"}};
    // The host's buffers come from their files (an output's holds the
    // poison it starts as); the rest start as the poison, as in the harness.
    e["init"] = g < nb ? "arg" + std::to_string(g) + ".bin" : std::string("poison");
    if (g < nb && b.isOutput[g])
      e["write_back"] = "arg" + std::to_string(g) + ".bin";
    orchSignature.push_back(hostInput ? "in" : "out");
    tensors.push_back(std::move(e));
  }

  std::ostringstream orch;
  orch << "// The case's task graph as simpler's orchestration: its tasks in the order npufuzz's\n"
          "// harness runs them, each on its blocks; the runtime orders them by the GM tensors\n"
          "// they share.\n#include <stddef.h>\n#include <stdint.h>\n\n"
          "#include \"pto_orchestration_api.h\"\n\nextern \"C\" {\n\n"
          "__attribute__((visibility(\"default\"))) PTO2OrchestrationConfig\n"
          "aicpu_orchestration_config(const ChipTaskArgs &orch_args) {\n  (void)orch_args;\n"
          "  return PTO2OrchestrationConfig{.expected_arg_count = "
       << gmBytes.size()
       << "};\n}\n\n"
          "__attribute__((visibility(\"default\"))) void aicpu_orchestration_entry(const "
          "ChipTaskArgs &orch_args) {\n";
  for (size_t g = 0; g < gmBytes.size(); ++g)
    orch << "  const ChipTensor &g" << g << " = orch_args.tensor(" << g << ").ref();\n";
  for (size_t p = 0; p < tasks.size(); ++p) {
    const SimplerTask &t = tasks[p];
    const size_t tensorArgs = t.reads.size() + t.writes.size() + (t.staged ? 1 : 0);
    if (tensorArgs > kSimplerMaxTaskTensors) {
      reason = "simpler: a task of " + std::to_string(tensorArgs) +
               " GM tensors (its kernels take at most " + std::to_string(kSimplerMaxTaskTensors) +
               ")";
      return false;
    }
    llvm::json::Array signature;
    orch << "  {\n    CoreTaskArgs t;\n";
    for (size_t g : t.reads) {
      orch << "    t.add_input(g" << g << ");\n";
      signature.push_back("in");
    }
    for (size_t g : t.writes) {
      orch << "    t.add_output(g" << g << ");\n";
      signature.push_back("out");
    }
    if (t.staged) {
      orch << "    t.add_output(g" << t.stage << ");\n";
      signature.push_back("out");
    }
    orch << "    t.launch_spec.set_block_num(" << t.blocks << ");\n    rt_submit_aiv_task(" << p
         << ", t);\n  }\n";
    const std::string source = "task" + std::to_string(p) + ".cpp";
    const std::string what =
        b.tasks.empty() ? "The case's kernel" : "Task t" + std::to_string(b.tasks[p].task);
    files[source] = wrapper(t, gmBytes, gmElementBytes, what);
    taskEntries.push_back(llvm::json::Object{{"func_id", static_cast<int64_t>(p)},
                                             {"source", source},
                                             {"blocks", t.blocks},
                                             {"signature", std::move(signature)}});
  }
  orch << "}\n\n}  // extern \"C\"\n";
  files["orchestration.cpp"] = orch.str();

  std::string json;
  llvm::raw_string_ostream os(json);
  os << llvm::formatv("{0:2}", llvm::json::Value(llvm::json::Object{
                                   {"platform", "a2a3sim"},
                                   {"runtime", "tensormap_and_ringbuffer"},
                                   {"orchestration", "orchestration.cpp"},
                                   {"orchestration_function", "aicpu_orchestration_entry"},
                                   {"orchestration_signature", std::move(orchSignature)},
                                   {"tensors", std::move(tensors)},
                                   {"tasks", std::move(taskEntries)}}))
     << "\n";
  files["simpler.json"] = os.str();
  return true;
}

} // namespace npufuzz
