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
  npufuzz::SimFault faultKind = npufuzz::SimFault::Descriptor;
  /// The kernel trace of a chain: the block running (recording), the
  /// buffers in order of first use, the events.
  bool recording = false;
  int task = 0, block = 0;
  std::vector<const void *> buffers;
  std::vector<npufuzz::TraceEvent> trace;
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
  if (first < 0 || end > state.capacity) {
    state.faultKind =
        d.direction == 0 ? npufuzz::SimFault::ScratchpadWrite : npufuzz::SimFault::ScratchpadRead;
    return "scratchpad bytes [" + std::to_string(first) + ", " + std::to_string(end) +
           ") leave the capacity of " + std::to_string(state.capacity);
  }
  return "";
}

/// The trace's GM address of byte `offset` of the buffer at `base`.
uint64_t gmAddress(const void *base, int64_t offset) {
  size_t id = 0;
  while (id < state.buffers.size() && state.buffers[id] != base)
    ++id;
  if (id == state.buffers.size())
    state.buffers.push_back(base);
  return (static_cast<uint64_t>(id) << 32) + static_cast<uint64_t>(offset);
}

/// An event of the running block.
npufuzz::TraceEvent &record(npufuzz::TraceEvent::Kind kind) {
  npufuzz::TraceEvent e;
  e.kind = kind;
  e.task = state.task;
  e.block = state.block;
  state.trace.push_back(std::move(e));
  return state.trace.back();
}

npufuzz::MemoryAccess gmRange(const void *base, int64_t offset, int64_t bytes, bool write) {
  const uint64_t begin = gmAddress(base, offset);
  return {npufuzz::Memory::GM, begin, begin + static_cast<uint64_t>(bytes), write};
}

} // namespace

extern "C" void npf_task_begin(int64_t task, int64_t block) {
  state.recording = true;
  state.task = static_cast<int>(task);
  state.block = static_cast<int>(block);
}

extern "C" void npf_task_end() {
  if (state.recording)
    record(npufuzz::TraceEvent::Kind::TaskEnd);
  state.recording = false;
}

namespace {
/// A scalar load or store of the running block. A run of them over
/// consecutive bytes is one event (the oracles see which bytes a core
/// read or stored, not how many instructions it took); a load and a store
/// that alternate, as a copy loop's do, extend the last two events.
void scalarAccess(const char *name, void *base, int64_t offset, int64_t bytes, bool write) {
  if (!state.recording)
    return;
  const npufuzz::MemoryAccess a = gmRange(base, offset, bytes, write);
  const size_t n = state.trace.size();
  for (size_t back = 1; back <= 2 && back <= n; ++back) {
    npufuzz::TraceEvent &last = state.trace[n - back];
    if (!last.scalarGmAccess() || last.task != state.task || last.block != state.block)
      break;
    if (last.name == name && last.accesses.size() == 1 && last.accesses[0].end == a.begin) {
      last.accesses[0].end = a.end;
      return;
    }
  }
  npufuzz::TraceEvent &e = record(npufuzz::TraceEvent::Kind::Instruction);
  e.name = name;
  e.pipe = npufuzz::Pipe::S;
  e.accesses.push_back(a);
}
} // namespace

extern "C" void npf_scalar_store(void *base, int64_t offset, int64_t bytes) {
  scalarAccess("STORE", base, offset, bytes, true);
}

extern "C" void npf_scalar_load(void *base, int64_t offset, int64_t bytes) {
  scalarAccess("LOAD", base, offset, bytes, false);
}

extern "C" void npf_dcci(void *base, int64_t offset, int64_t bytes) {
  if (state.recording)
    record(npufuzz::TraceEvent::Kind::Dcci).accesses.push_back(gmRange(base, offset, bytes, true));
}

extern "C" void npf_dsb() {
  if (state.recording)
    record(npufuzz::TraceEvent::Kind::Dsb);
}

extern "C" void npf_host_read(void *base, int64_t extent) {
  if (state.trace.empty())
    return;
  npufuzz::TraceEvent e;
  e.kind = npufuzz::TraceEvent::Kind::HostRead;
  e.accesses.push_back(gmRange(base, 0, extent, false));
  state.trace.push_back(std::move(e));
}

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
  if (state.recording) {
    int64_t lo, hi;
    span(d.sizes, d.dramStrides, d.rank, lo, hi);
    // The engine is synchronous: everything before a transfer is done
    // when it starts, and it is done when the next starts.
    record(npufuzz::TraceEvent::Kind::Barrier).pipe = npufuzz::Pipe::All;
    npufuzz::TraceEvent &e = record(npufuzz::TraceEvent::Kind::Instruction);
    e.name = direction == 0 ? "TLOAD" : "TSTORE";
    e.pipe = direction == 0 ? npufuzz::Pipe::MTE2 : npufuzz::Pipe::MTE3;
    e.accesses.push_back(
        gmRange(dram, (dram_offset + lo) * elem_bytes, (hi - lo + 1) * elem_bytes, direction == 1));
    record(npufuzz::TraceEvent::Kind::Barrier).pipe = npufuzz::Pipe::All;
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

void takeKernelTrace(std::vector<TraceEvent> &out) {
  out = std::move(state.trace);
  state.trace.clear();
  state.buffers.clear();
}

bool takeSimulatorFault(std::string &message, SimFault *kind) {
  if (!state.faulted)
    return false;
  message = std::move(state.fault);
  if (kind)
    *kind = state.faultKind;
  state.faulted = false;
  return true;
}

} // namespace npufuzz
