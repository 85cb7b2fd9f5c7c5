//===- backend/pytorchsim/DmaStart.h - PyTorchSim's dma_start, as upstream reads it -*- C++ -*-===//
//
// PyTorchSim writes `memref.dma_start` in the custom syntax with an attribute
// dictionary after its types,
//
//   memref.dma_start %src[%i], %dst[%c0, %c0], %TYPE, %tag[%c0], %AXIS, %VSTRIDE
//       : memref<320xf32>, memref<8x40xf32, 1>, memref<1xi32> {dram_stride=[40, 1], ...}
//
// which only its LLVM fork parses. Upstream MLIR takes the same op in its
// generic form, attributes kept:
//
//   "memref.dma_start"(%src, %i, %dst, %c0, %c0, %TYPE, %tag, %c0, %AXIS, %VSTRIDE)
//       {dram_stride = [40, 1], ...} : (memref<320xf32>, index, memref<8x40xf32, 1>,
//       index, index, index, memref<1xi32>, index, index, index) -> ()
//
// so the rest of the kernel is verified by upstream MLIR as PyTorchSim wrote
// it. Plain text, no MLIR: the rewrite is tested on kernels recorded from
// PyTorchSim.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_PYTORCHSIM_DMASTART_H
#define NPUFUZZ_BACKEND_PYTORCHSIM_DMASTART_H

#include <string>
#include <vector>

namespace npufuzz {

/// One `memref.dma_start` as PyTorchSim wrote it.
struct DmaStartText {
  std::string source, destination, tag; ///< SSA names (`%in_ptr0`)
  std::vector<std::string> sourceIndices, destinationIndices, tagIndices;
  std::string type, axis, vstride; ///< SSA names of the three scalar operands
  std::string sourceType, destinationType, tagType;
  std::string attributes;    ///< `{...}` as written, or empty
  size_t begin = 0, end = 0; ///< its span in the kernel text
};

/// Parses the dma_start whose text starts at `at` (the `m` of its name);
/// false with `error` when it is not in PyTorchSim's form.
bool parseDmaStart(const std::string &kernel, size_t at, DmaStartText &out, std::string &error);

/// `kernel` with every dma_start in generic form (the rest unchanged, line
/// for line: a diagnostic's line names the line PyTorchSim wrote). False
/// with `error` naming the first dma_start that is not in PyTorchSim's form.
bool genericDmaStarts(const std::string &kernel, std::string &out, std::string &error);

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_PYTORCHSIM_DMASTART_H
