//===- backend/runtime/NpuSim.cpp - The simulated NPU DMA engine ----------===//
#include "backend/runtime/NpuSim.h"

#include "backend/runtime/KernelHeap.h"
#include "ir/TensorData.h"

#include <cstring>

namespace {

struct SimState {
  unsigned char *spad = nullptr;
  int64_t capacity = 0;
  bool faulted = false;
  std::string fault;
};

thread_local SimState state;

struct Descriptor {
  int64_t direction, dramExtent, dramOffset, spadOffset, elemBytes, rank;
  int64_t sizes[4], dramStrides[4], spadStrides[4];
};

std::string list(const int64_t *v, int64_t n) {
  std::string s = "[";
  for (int64_t i = 0; i < n; ++i)
    s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

std::string describe(const Descriptor &d) {
  // A rank outside [1, 4] prints the four slots the call carried.
  const int64_t n = d.rank >= 1 && d.rank <= kNpuSimMaxRank ? d.rank : kNpuSimMaxRank;
  return std::string("{dir=") +
         (d.direction == 0   ? "dram->spad"
          : d.direction == 1 ? "spad->dram"
                             : std::to_string(d.direction)) +
         ", rank=" + std::to_string(d.rank) + ", sizes=" + list(d.sizes, n) +
         ", dram_strides=" + list(d.dramStrides, n) + ", spad_strides=" + list(d.spadStrides, n) +
         ", dram_offset=" + std::to_string(d.dramOffset) +
         ", dram_extent=" + std::to_string(d.dramExtent) +
         ", spad_offset=" + std::to_string(d.spadOffset) +
         ", elem_bytes=" + std::to_string(d.elemBytes) +
         ", spad_capacity=" + std::to_string(state.capacity) + "}";
}

/// The lowest and highest element offset a block reaches from its base.
void span(const int64_t *sizes, const int64_t *strides, int64_t rank, int64_t &lo, int64_t &hi) {
  lo = hi = 0;
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t reach = (sizes[i] - 1) * strides[i];
    (reach < 0 ? lo : hi) += reach;
  }
}

/// Why `d` is invalid, or empty.
std::string check(const Descriptor &d) {
  if (!state.spad)
    return "no scratchpad bound";
  if (d.direction != 0 && d.direction != 1)
    return "unknown direction";
  if (d.rank < 1 || d.rank > kNpuSimMaxRank)
    return "descriptor has " + std::to_string(d.rank) + " dims; the engine takes 1 to " +
           std::to_string(kNpuSimMaxRank);
  for (int64_t i = 0; i < d.rank; ++i)
    if (d.sizes[i] < 1)
      return "size of dim " + std::to_string(i) + " is not positive";
  if (d.elemBytes != 1 && d.elemBytes != 2 && d.elemBytes != 4 && d.elemBytes != 8)
    return "element size is not 1, 2, 4 or 8 bytes";
  if (d.spadOffset % kNpuSimSpadAlign != 0)
    return "scratchpad offset is not a multiple of " + std::to_string(kNpuSimSpadAlign) + " bytes";
  int64_t lo, hi;
  span(d.sizes, d.dramStrides, d.rank, lo, hi);
  if (d.dramOffset + lo < 0 || d.dramOffset + hi >= d.dramExtent)
    return "DRAM elements [" + std::to_string(d.dramOffset + lo) + ", " +
           std::to_string(d.dramOffset + hi) + "] leave the buffer of " +
           std::to_string(d.dramExtent);
  span(d.sizes, d.spadStrides, d.rank, lo, hi);
  const int64_t first = d.spadOffset + lo * d.elemBytes;
  const int64_t end = d.spadOffset + (hi + 1) * d.elemBytes;
  if (first < 0 || end > state.capacity)
    return "scratchpad bytes [" + std::to_string(first) + ", " + std::to_string(end) +
           ") leave the capacity of " + std::to_string(state.capacity);
  return "";
}

} // namespace

extern "C" void npf_sim_begin(void *spad, int64_t capacity) {
  state.spad = static_cast<unsigned char *>(spad);
  state.capacity = capacity;
  // Filled as every other temporary is, run by run: a tile read before it
  // is written (a dropped loop or DMA) reads the poison, which a rerun
  // with another poison changes, not a zero a result may happen to hold.
  npufuzz::fillPattern(state.spad, static_cast<size_t>(capacity), npufuzz::scratchPoisonPattern());
}

extern "C" void npf_sim_dma(int64_t direction, void *dram, int64_t dram_extent, int64_t dram_offset,
                            int64_t spad_offset, int64_t elem_bytes, int64_t rank, int64_t s0,
                            int64_t s1, int64_t s2, int64_t s3, int64_t ds0, int64_t ds1,
                            int64_t ds2, int64_t ds3, int64_t ps0, int64_t ps1, int64_t ps2,
                            int64_t ps3) {
  if (state.faulted)
    return; // the engine halted at the first fault
  const Descriptor d{direction,        dram_extent,          dram_offset,
                     spad_offset,      elem_bytes,           rank,
                     {s0, s1, s2, s3}, {ds0, ds1, ds2, ds3}, {ps0, ps1, ps2, ps3}};
  const std::string why = check(d);
  if (!why.empty()) {
    state.faulted = true;
    state.fault = "DMA fault: " + why + "; descriptor " + describe(d);
    return;
  }
  // Walk the block with dims padded to four (unit outer dims).
  int64_t sz[4] = {1, 1, 1, 1}, ds[4] = {0, 0, 0, 0}, ps[4] = {0, 0, 0, 0};
  const int64_t pad = kNpuSimMaxRank - rank;
  for (int64_t i = 0; i < rank; ++i) {
    sz[pad + i] = d.sizes[i];
    ds[pad + i] = d.dramStrides[i];
    ps[pad + i] = d.spadStrides[i];
  }
  auto *mem = static_cast<unsigned char *>(dram);
  for (int64_t a = 0; a < sz[0]; ++a)
    for (int64_t b = 0; b < sz[1]; ++b)
      for (int64_t c = 0; c < sz[2]; ++c)
        for (int64_t e = 0; e < sz[3]; ++e) {
          const int64_t di = dram_offset + a * ds[0] + b * ds[1] + c * ds[2] + e * ds[3];
          const int64_t si = a * ps[0] + b * ps[1] + c * ps[2] + e * ps[3];
          unsigned char *dp = mem + di * elem_bytes;
          unsigned char *sp = state.spad + spad_offset + si * elem_bytes;
          if (direction == 0)
            std::memcpy(sp, dp, elem_bytes);
          else
            std::memcpy(dp, sp, elem_bytes);
        }
}

namespace npufuzz {

void resetSimulator() { state = SimState(); }

bool takeSimulatorFault(std::string &message) {
  if (!state.faulted)
    return false;
  message = std::move(state.fault);
  state.faulted = false;
  return true;
}

} // namespace npufuzz
