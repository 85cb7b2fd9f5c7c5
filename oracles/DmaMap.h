//===- oracles/DmaMap.h - Which element each DMA slot moves -----*- C++ -*-===//
//
// The map oracle judges what the footprint oracle cannot see: where each
// element goes. A backend that knows the index its compiler was asked for
// at every load and store (PyTorchSim's: Inductor's index, recorded by the
// adapter) records in its DMA trace each DMA whose tile slot moves another
// element than that index wants at the slot's iteration point
// (DmaTrace::wrongMaps). A permutation of the right set (two strides
// swapped inside bounds, a floor/mod index flattened to one affine stride)
// is such a DMA, in bounds or out.
//
// Each finding names the kernel, its DMA and dram_stride, the slot, the
// element it moved and the one wanted; its signature keeps the direction,
// the class of the index (affine or floor/mod) and what is wrong: the DRAM
// index the DMA starts from (its first slot wrong, as an index printed
// wrong gives), only its strides, or, for a tile judged by the elements it
// moves (a floor-split tile), its set: one signature per wrong map, not per
// case or shape.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_ORACLES_DMAMAP_H
#define NPUFUZZ_ORACLES_DMAMAP_H

#include "backend/DmaTrace.h"
#include "oracles/DmaFootprint.h"

#include <optional>

namespace npufuzz {

/// The first DMA of `trace` with a wrong map, as a wrong-dma-element
/// finding, or nothing.
std::optional<FootprintFinding> checkDmaMap(const DmaTrace &trace);

/// What a DMA trace shows first: a wrong map, else the footprint's
/// finding (a wrong map that also leaves its buffer is named by its map:
/// that is its root).
std::optional<FootprintFinding> checkDmaTrace(const DmaTrace &trace);

} // namespace npufuzz

#endif // NPUFUZZ_ORACLES_DMAMAP_H
