//===- backend/pytorchsim/LanePlacement.cpp - A tile across PyTorchSim's vector lanes -===//
#include "backend/pytorchsim/LanePlacement.h"

#include <array>

namespace npufuzz {

bool placeTile(const std::vector<int64_t> &tile, const std::vector<int64_t> &sramStride,
               int64_t axis, int64_t laneStride, int64_t lanes, LanePlacement &out,
               std::string &why) {
  const size_t rank = tile.size();
  if (rank == 0 || rank > 4 || sramStride.size() != rank) {
    why = "a tile of " + std::to_string(rank) + " dimensions with " +
          std::to_string(sramStride.size()) + " scratchpad strides";
    return false;
  }
  if (axis < 0 || axis >= static_cast<int64_t>(rank) || laneStride <= 0) {
    why = "a DMA whose lane axis (" + std::to_string(axis) + ") or lane stride (" +
          std::to_string(laneStride) + ") does not fit its tile";
    return false;
  }
  // Left-padded to four dimensions, as the fork's lowering configures the
  // DMA engine; a padded dimension has one element, so its stride is never
  // used.
  std::array<int64_t, 4> size{1, 1, 1, 1}, spad{0, 0, 0, 0};
  int64_t numel = 1;
  for (size_t d = 0; d < rank; ++d) {
    size[4 - rank + d] = tile[d];
    spad[4 - rank + d] = sramStride[d];
    numel *= tile[d];
  }
  const size_t a = 4 - rank + static_cast<size_t>(axis);
  const int64_t outer = (size[a] + laneStride * lanes - 1) / (laneStride * lanes);
  const int64_t used = outer > 1 ? lanes : (size[a] + laneStride - 1) / laneStride;
  std::array<int64_t, 4> block = size, blockStride = spad;
  block[a] = laneStride;
  for (size_t i = 0; i < 4; ++i)
    if (blockStride[i] > spad[a])
      blockStride[i] = (blockStride[i] / size[a]) * laneStride * outer;
  const std::array<int64_t, 4> rowMajor{size[1] * size[2] * size[3], size[2] * size[3], size[3], 1};
  out = LanePlacement();
  out.usedLanes = static_cast<int32_t>(used);
  out.laneOf.assign(numel, -1);
  out.spadOf.assign(numel, 0);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t lane = 0; lane < used; ++lane)
      for (int64_t n = 0; n < block[0]; ++n)
        for (int64_t c = 0; c < block[1]; ++c)
          for (int64_t h = 0; h < block[2]; ++h)
            for (int64_t w = 0; w < block[3]; ++w) {
              std::array<int64_t, 4> at{n, c, h, w};
              const int64_t s = o * blockStride[a] * laneStride + blockStride[0] * n +
                                blockStride[1] * c + blockStride[2] * h + blockStride[3] * w;
              if (lane == 0)
                out.laneShare.push_back(s);
              at[a] = (o * used + lane) * laneStride + at[a];
              if (at[a] >= size[a]) {
                why = "a tile whose split dimension (" + std::to_string(size[a]) +
                      " elements) is not a whole number of blocks of " +
                      std::to_string(laneStride) + " over " + std::to_string(used) +
                      " lanes: the DMA engine moves slots past its end";
                return false;
              }
              const int64_t slot =
                  at[0] * rowMajor[0] + at[1] * rowMajor[1] + at[2] * rowMajor[2] + at[3];
              if (out.laneOf[slot] != -1) {
                why = "a tile slot the DMA engine places twice";
                return false;
              }
              out.laneOf[slot] = static_cast<int32_t>(lane);
              out.spadOf[slot] = s;
            }
  return true;
}

} // namespace npufuzz
