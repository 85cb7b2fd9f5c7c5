//===- backend/pytorchsim/NpuModel.cpp - PyTorchSim's kernels run on a model of its NPU -===//
#include "backend/pytorchsim/NpuModel.h"

#include "backend/mlir/MlirJit.h"
#include "backend/mlir/Pipelines.h"
#include "backend/runtime/PyTorchSimDma.h"

#include "ir/DType.h"

#include <algorithm>
#include <cstring>
#include <memory>

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
    PyTorchSimDmaEngine engine;
    engineOf(kd, engine);
    JitOptions options;
    options.locateFailingPass = false;
    bindPyTorchSimDmaEngine(&engine);
    BackendRun r = jit().execute(kd.runnable, loweringTail(), "npufuzz_lanes", buffers, options);
    bindPyTorchSimDmaEngine(nullptr);
    if (!r.ok()) {
      why = file + ": the model's run " + std::string(statusName(r.status)) + ": " +
            r.message.substr(0, r.message.find('\n'));
      return false;
    }
    if (!engine.fault.empty()) {
      why = file + ": the model's DMA engine: " + engine.fault;
      return false;
    }
    for (size_t a = 0; a < kd.arguments.size(); ++a)
      if (written[a])
        copyIn(storages[call.arguments[a].storage], call.arguments[a].byteOffset,
               r.outputs[a].data(), static_cast<int64_t>(r.outputs[a].bytes.size()));
  }
  return true;
}

} // namespace npufuzz
