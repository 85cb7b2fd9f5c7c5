//===- backend/runtime/PyTorchSimDma.cpp - PyTorchSim's DMA engine, modelled -===//
#include "backend/runtime/PyTorchSimDma.h"

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

extern "C" void npf_pts_dma(int64_t dma, int64_t dram_index, int64_t dram, int64_t spad,
                            int64_t spad_offset) {
  PyTorchSimDmaEngine *e = bound;
  if (!e || !e->fault.empty())
    return;
  if (dma < 0 || static_cast<size_t>(dma) >= e->dmas.size()) {
    e->fault = "a DMA the decoder never saw run ran (DMA #" + std::to_string(dma) + ")";
    return;
  }
  const PyTorchSimDmaEngine::Dma &d = e->dmas[dma];
  size_t &k = e->next[dma];
  if (k >= e->executionsOf[dma].size()) {
    e->fault = "DMA #" + std::to_string(dma) + " ran more often than the decoder counted";
    return;
  }
  const PyTorchSimDmaEngine::Execution &x = e->executions[e->executionsOf[dma][k++]];
  if (x.base != dram_index) {
    e->fault = "DMA #" + std::to_string(dma) + " ran with DRAM index " +
               std::to_string(dram_index) + " where the decoder computed " + std::to_string(x.base);
    return;
  }
  auto *memory = reinterpret_cast<unsigned char *>(dram);
  auto *lane = reinterpret_cast<unsigned char *>(spad) + spad_offset * d.elementBytes;
  const uint32_t n = d.elementBytes;
  if (!d.write) {
    for (int64_t s : d.laneShare)
      std::memset(lane + s * n, 0, n);
  }
  for (size_t m = x.first; m < x.first + x.count; ++m) {
    const int64_t slot = e->moveSlot[m], element = e->moveElement[m];
    if (d.laneOf[slot] != e->lane)
      continue;
    if (element < 0 || element >= d.argumentElements) {
      e->fault = "DMA #" + std::to_string(dma) + " moves element " + std::to_string(element) +
                 " of an argument of " + std::to_string(d.argumentElements);
      return;
    }
    unsigned char *at = lane + d.spadOf[slot] * n, *far = memory + element * n;
    if (d.write)
      std::memcpy(far, at, n);
    else
      std::memcpy(at, far, n);
  }
}
