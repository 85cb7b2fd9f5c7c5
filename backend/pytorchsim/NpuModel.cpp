//===- backend/pytorchsim/NpuModel.cpp - PyTorchSim's kernels run on a model of its NPU -===//
#include "backend/pytorchsim/NpuModel.h"

#include "backend/mlir/MlirJit.h"
#include "backend/mlir/Pipelines.h"
#include "backend/runtime/PyTorchSimDma.h"

#include "ir/DType.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <memory>
#include <new>

#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace npufuzz {

namespace {

/// One JIT for the process: its context and pass managers are kept.
MlirJit &jit() {
  static std::unique_ptr<MlirJit> j = std::make_unique<MlirJit>();
  return *j;
}

/// The engine's tables for `kd` (runnable): each DMA's placement across
/// the lanes, the decoder's executions and moves.
void engineOf(const KernelDmas &kd, PyTorchSimDmaEngine &e) {
  for (const KernelDmas::Dma &d : kd.dmas) {
    PyTorchSimDmaEngine::Dma dma;
    dma.write = d.write;
    dma.elementBytes = d.elementBytes;
    dma.argumentElements = kd.arguments[d.argument].elements;
    dma.laneOf = d.placement.laneOf;
    dma.spadOf = d.placement.spadOf;
    dma.laneShare = d.placement.laneShare;
    e.dmas.push_back(std::move(dma));
  }
  e.executionsOf.assign(kd.dmas.size(), {});
  for (const KernelDmas::Execution &x : kd.executions) {
    e.executionsOf[x.dma].push_back(static_cast<uint32_t>(e.executions.size()));
    e.executions.push_back({x.dma, x.base, x.first, x.count});
  }
  e.moveSlot.reserve(kd.moves.size());
  e.moveElement.reserve(kd.moves.size());
  for (const KernelDmas::Move &m : kd.moves) {
    e.moveSlot.push_back(m.slot);
    e.moveElement.push_back(m.element);
  }
}

/// Bytes [offset, offset + n) of `storage`, zero where it ends first.
void copyOut(const std::vector<uint8_t> &storage, int64_t offset, uint8_t *to, int64_t n) {
  std::memset(to, 0, static_cast<size_t>(n));
  const int64_t first = std::max<int64_t>(offset, 0);
  const int64_t last = std::min<int64_t>(offset + n, static_cast<int64_t>(storage.size()));
  if (first < last)
    std::memcpy(to + (first - offset), storage.data() + first, static_cast<size_t>(last - first));
}

void copyIn(std::vector<uint8_t> &storage, int64_t offset, const uint8_t *from, int64_t n) {
  const int64_t first = std::max<int64_t>(offset, 0);
  const int64_t last = std::min<int64_t>(offset + n, static_cast<int64_t>(storage.size()));
  if (first < last)
    std::memcpy(storage.data() + first, from + (first - offset), static_cast<size_t>(last - first));
}

/// What a child that ran the model leaves its parent: how it ended, and
/// the written arguments' bytes after it.
struct SharedResult {
  int ended = 0; // 1 once the child wrote everything below
  int ok = 0;
  char why[1024] = {};
};

/// The model's CPU time for one call: a kernel of the small tiles npufuzz
/// generates runs in milliseconds; one that has not ended in this much
/// CPU time (not wall time, which a busy machine stretches) loops.
constexpr rlim_t kModelCpuSeconds = 120;

/// Runs `kd` on `buffers` in a child process and copies back the written
/// ones. A kernel the model runs is npufuzz's to run: a fault of its run
/// (a signal, a loop) must not take the worker down or be read as the
/// compiler's crash; it leaves the values uncomputed with its reason.
bool runInChild(const KernelDmas &kd, std::vector<TensorData> &buffers,
                const std::vector<bool> &written, std::string &why) {
  size_t bytes = sizeof(SharedResult);
  for (size_t a = 0; a < buffers.size(); ++a)
    if (written[a])
      bytes += buffers[a].bytes.size();
  void *shared = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) {
    why = std::string("the model has no shared memory for its run: ") + std::strerror(errno);
    return false;
  }
  auto *result = new (shared) SharedResult();
  (void)jit(); // made once, here: each child starts from it
  uint8_t *area = static_cast<uint8_t *>(shared) + sizeof(SharedResult);
  const pid_t child = ::fork();
  if (child == 0) {
    struct rlimit cpu = {kModelCpuSeconds, kModelCpuSeconds};
    ::setrlimit(RLIMIT_CPU, &cpu);
    PyTorchSimDmaEngine engine;
    engineOf(kd, engine);
    JitOptions options;
    options.locateFailingPass = false;
    bindPyTorchSimDmaEngine(&engine);
    BackendRun r = jit().execute(kd.runnable, loweringTail(), "npufuzz_lanes", buffers, options);
    bindPyTorchSimDmaEngine(nullptr);
    std::string said;
    if (!r.ok())
      said = "the model's run " + std::string(statusName(r.status)) + ": " +
             r.message.substr(0, r.message.find('\n'));
    else if (!engine.fault.empty())
      said = "the model's DMA engine: " + engine.fault;
    else
      for (size_t a = 0, at = 0; a < buffers.size(); ++a)
        if (written[a]) {
          std::memcpy(area + at, r.outputs[a].data(), buffers[a].bytes.size());
          at += buffers[a].bytes.size();
        }
    std::strncpy(result->why, said.c_str(), sizeof(result->why) - 1);
    result->ok = said.empty();
    result->ended = 1;
    ::_exit(0);
  }
  bool ok = false;
  if (child < 0) {
    why = std::string("the model cannot start a process for its run: ") + std::strerror(errno);
  } else {
    int status = 0;
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU)
      why = "the model's run took more than " + std::to_string(kModelCpuSeconds) +
            " s of CPU time (npufuzz's model, not the compiler)";
    else if (WIFSIGNALED(status))
      why = "the model's run died of signal " + std::to_string(WTERMSIG(status)) + " (" +
            ::strsignal(WTERMSIG(status)) + "): npufuzz's model, not the compiler";
    else if (!result->ended)
      why = "the model's run ended without its result";
    else if (!result->ok)
      why = result->why;
    else {
      ok = true;
      for (size_t a = 0, at = 0; a < buffers.size(); ++a)
        if (written[a]) {
          std::memcpy(buffers[a].data(), area + at, buffers[a].bytes.size());
          at += buffers[a].bytes.size();
        }
    }
  }
  ::munmap(shared, bytes);
  return ok;
}

} // namespace

bool runOnNpuModel(const std::vector<KernelDmas> &kernels, const std::vector<std::string> &files,
                   const std::vector<NpuModelCall> &calls,
                   std::vector<std::vector<uint8_t>> &storages, std::string &why) {
  for (const NpuModelCall &call : calls) {
    const KernelDmas &kd = kernels.at(call.kernel);
    const std::string &file = files.at(call.kernel);
    if (kd.runnable.empty()) {
      why = file + ": " + (kd.notRunnable.empty() ? "not decoded" : kd.notRunnable);
      return false;
    }
    if (call.arguments.size() != kd.arguments.size()) {
      why = file + ": a call with another number of arguments";
      return false;
    }
    std::vector<bool> written(kd.arguments.size(), false);
    for (const KernelDmas::Dma &d : kd.dmas)
      if (d.write)
        written[d.argument] = true;
    std::vector<TensorData> buffers;
    for (size_t a = 0; a < kd.arguments.size(); ++a) {
      const KernelDmas::Argument &arg = kd.arguments[a];
      std::optional<DType> dtype = parseDType(arg.elementType);
      if (arg.elementType == "index")
        dtype = DType::I64;
      if (!dtype || byteSize(*dtype) != arg.elementBytes) {
        why = file + ": an argument of " + arg.elementType + ", which the model does not hold";
        return false;
      }
      // Arguments of one call that share memory, one of them written: the
      // order of their accesses would matter, and the model runs lanes one
      // after another.
      const int64_t bytes = arg.elements * arg.elementBytes;
      for (size_t b = 0; b < a; ++b) {
        const KernelDmas::Argument &other = kd.arguments[b];
        const int64_t start = call.arguments[b].byteOffset,
                      end = start + other.elements * other.elementBytes;
        if (call.arguments[b].storage == call.arguments[a].storage &&
            start < call.arguments[a].byteOffset + bytes && call.arguments[a].byteOffset < end &&
            (written[a] || written[b])) {
          why = file + ": two arguments of one call share memory, one of them written";
          return false;
        }
      }
      TensorData t;
      t.type.dtype = *dtype;
      t.type.shape = {arg.elements};
      t.bytes.resize(static_cast<size_t>(bytes));
      copyOut(storages.at(call.arguments[a].storage), call.arguments[a].byteOffset, t.data(),
              bytes);
      buffers.push_back(std::move(t));
    }
    if (!runInChild(kd, buffers, written, why)) {
      why = file + ": " + why;
      return false;
    }
    for (size_t a = 0; a < kd.arguments.size(); ++a)
      if (written[a])
        copyIn(storages[call.arguments[a].storage], call.arguments[a].byteOffset, buffers[a].data(),
               static_cast<int64_t>(buffers[a].bytes.size()));
  }
  return true;
}

} // namespace npufuzz
