//===- backend/runtime/PyTorchSimDma.cpp - PyTorchSim's DMA engine, modelled -===//
#include "backend/runtime/PyTorchSimDma.h"

#include <algorithm>
#include <cstring>

namespace npufuzz {

namespace {
thread_local PyTorchSimDmaEngine *bound = nullptr;
} // namespace

void bindPyTorchSimDmaEngine(PyTorchSimDmaEngine *engine) { bound = engine; }

} // namespace npufuzz

using namespace npufuzz;

extern "C" void npf_pts_lane(int64_t lane) {
  if (!bound)
    return;
  bound->lane = lane;
  bound->next.assign(bound->dmas.size(), 0);
}

namespace {

/// Runs execution `x` of DMA `dma` for lane `lane`, whose scratchpad (the
/// DMA's operand) starts at `spad`.
void runExecution(PyTorchSimDmaEngine &e, int64_t dma, const PyTorchSimDmaEngine::Execution &x,
                  int64_t lane, unsigned char *memory, unsigned char *spad) {
  const PyTorchSimDmaEngine::Dma &d = e.dmas[dma];
  const uint32_t n = d.elementBytes;
  if (!d.write) {
    for (int64_t s : d.laneShare)
      std::memset(spad + s * n, 0, n);
  }
  for (size_t m = x.first; m < x.first + x.count; ++m) {
    const int64_t slot = e.moveSlot[m], element = e.moveElement[m];
    if (d.laneOf[slot] != lane)
      continue;
    if (element < 0 || element >= d.argumentElements) {
      e.fault = "DMA #" + std::to_string(dma) + " moves element " + std::to_string(element) +
                " of an argument of " + std::to_string(d.argumentElements);
      return;
    }
    unsigned char *at = spad + d.spadOf[slot] * n, *far = memory + element * n;
    if (d.write)
      std::memcpy(far, at, n);
    else
      std::memcpy(at, far, n);
  }
}

/// The next execution of DMA `dma`, checked against the kernel's own DRAM
/// index; null (and the fault set) when there is none to run.
const PyTorchSimDmaEngine::Execution *nextExecution(PyTorchSimDmaEngine *e, int64_t dma,
                                                    int64_t dram_index) {
  if (!e || !e->fault.empty())
    return nullptr;
  if (dma < 0 || static_cast<size_t>(dma) >= e->dmas.size()) {
    e->fault = "a DMA the decoder never saw run ran (DMA #" + std::to_string(dma) + ")";
    return nullptr;
  }
  size_t &k = e->next[dma];
  if (k >= e->executionsOf[dma].size()) {
    e->fault = "DMA #" + std::to_string(dma) + " ran more often than the decoder counted";
    return nullptr;
  }
  const PyTorchSimDmaEngine::Execution &x = e->executions[e->executionsOf[dma][k++]];
  if (x.base != dram_index) {
    e->fault = "DMA #" + std::to_string(dma) + " ran with DRAM index " +
               std::to_string(dram_index) + " where the decoder computed " + std::to_string(x.base);
    return nullptr;
  }
  return &x;
}

} // namespace

extern "C" void npf_pts_dma(int64_t dma, int64_t dram_index, int64_t dram, int64_t spad,
                            int64_t spad_offset) {
  PyTorchSimDmaEngine *e = bound;
  const PyTorchSimDmaEngine::Execution *x = nextExecution(e, dma, dram_index);
  if (!x)
    return;
  runExecution(*e, dma, *x, e->lane, reinterpret_cast<unsigned char *>(dram),
               reinterpret_cast<unsigned char *>(spad) + spad_offset * e->dmas[dma].elementBytes);
}

extern "C" void npf_pts_dma_lanes(int64_t dma, int64_t dram_index, int64_t dram, int64_t spad,
                                  int64_t spad_offset, int64_t lanes, int64_t lane_pitch) {
  PyTorchSimDmaEngine *e = bound;
  const PyTorchSimDmaEngine::Execution *x = nextExecution(e, dma, dram_index);
  if (!x)
    return;
  for (int64_t lane = 0; lane < lanes && e->fault.empty(); ++lane)
    runExecution(*e, dma, *x, lane, reinterpret_cast<unsigned char *>(dram),
                 reinterpret_cast<unsigned char *>(spad) + lane * lane_pitch +
                     spad_offset * e->dmas[dma].elementBytes);
}

extern "C" void npf_pts_matmul_f32(int64_t x, int64_t w, int64_t y, int64_t m, int64_t k, int64_t n,
                                   int64_t x_pitch, int64_t w_pitch, int64_t y_pitch,
                                   int64_t array) {
  const int64_t P = array;
  auto at = [](int64_t base, int64_t pitch, int64_t lane, int64_t offset) {
    return reinterpret_cast<float *>(base + lane * pitch) + offset;
  };
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) {
      float *out = at(y, y_pitch, j % P, (j / P) * m + i);
      for (int64_t chunk = 0; chunk < k; chunk += P) {
        // The array's sum of one chunk of k, from zero, in k's order; the
        // pop then adds it to what Y holds.
        float sum = 0.0f;
        for (int64_t l = chunk; l < std::min(k, chunk + P); ++l) {
          const float product =
              *at(x, x_pitch, l % P, (l / P) * m + i) * *at(w, w_pitch, j % P, (j / P) * k + l);
          sum = sum + product;
        }
        *out = *out + sum;
      }
    }
}
