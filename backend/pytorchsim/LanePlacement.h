//===- backend/pytorchsim/LanePlacement.h - A tile across PyTorchSim's vector lanes -*- C++ -*-===//
//
// Where each element of a DMA's tile lies on PyTorchSim's NPU: which vector
// lane's scratchpad, and at which offset in it. Spike's torchsim_mvin and
// torchsim_mvout (PSAL-POSTECH/riscv-isa-sim, riscv/insns/
// torchsim_mvin_common.h) place a tile, left-padded to four dimensions, in
// blocks of `laneStride` consecutive elements of the split dimension, lane
// after lane, `used` lanes at a time; the scratchpad strides larger than the
// split dimension's are scaled to one lane's share.
//
// A tile whose split dimension is not a whole number of those blocks has
// lane slots past its end: Spike reads their DRAM address from a table it
// never filled for them. Such a tile is not placed, and says why.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_PYTORCHSIM_LANEPLACEMENT_H
#define NPUFUZZ_BACKEND_PYTORCHSIM_LANEPLACEMENT_H

#include <cstdint>
#include <string>
#include <vector>

namespace npufuzz {

/// The lanes of PyTorchSim's NPU in the configuration the adapter gives it
/// (`vpu_num_lanes` of systolic_ws_128x128_c1_simple_noc_tpuv3.json).
constexpr int64_t kPyTorchSimLanes = 128;

struct LanePlacement {
  int32_t usedLanes = 1;
  /// Per tile slot (row-major): its lane and its offset in the lane's
  /// scratchpad buffer.
  std::vector<int32_t> laneOf;
  std::vector<int64_t> spadOf;
  /// The offsets of one lane's share (every lane's share has the same).
  std::vector<int64_t> laneShare;
};

/// Places `tile` (at most four dimensions) with scratchpad strides
/// `sramStride`, split along `axis` in blocks of `laneStride`, over
/// `lanes` lanes; false with `why` when it cannot be placed.
bool placeTile(const std::vector<int64_t> &tile, const std::vector<int64_t> &sramStride,
               int64_t axis, int64_t laneStride, int64_t lanes, LanePlacement &out,
               std::string &why);

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_PYTORCHSIM_LANEPLACEMENT_H
