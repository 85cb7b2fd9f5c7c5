//===- backend/DmaTrace.h - What a program's DMAs moved, in order -*- C++ -*-===//
//
// Backend-neutral record of the memory a compiled program's DMAs touch, for
// compilers whose values npufuzz does not run but whose data movement it can
// decode (PyTorchSim's kernels: backend/pytorchsim/). The footprint oracle
// (oracles/DmaFootprint.h) replays it: nothing read or written outside its
// storage, nothing read that nobody wrote, every returned element written.
//
// Storages are the buffers the program's tensors live in: its inputs
// (defined from the start), its outputs and its temporaries (undefined until
// written). Positions are bytes from a storage's start, so views of one
// storage with other offsets or element types meet.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_DMATRACE_H
#define NPUFUZZ_BACKEND_DMATRACE_H

#include <cstdint>
#include <string>
#include <vector>

namespace npufuzz {

struct DmaTrace {
  struct Storage {
    enum class Role : uint8_t { Input, Output, Temporary };
    Role role = Role::Temporary;
    int index = -1; ///< the program's input or output number
    int64_t bytes = 0;
  };
  /// One DMA of a kernel: what names it in a finding.
  struct Dma {
    std::string kernel;   ///< the kernel's file
    int number = 0;       ///< its position among the kernel's DMAs, from 0
    bool write = false;   ///< scratchpad to memory (a store)
    std::string argument; ///< the kernel argument it moves to or from
    std::string text;     ///< the op as the compiler wrote it
    /// A store's: the kernel ops that computed what it stores, from what
    /// the kernel loads or stores elsewhere (`arith.cmpf one f32,
    /// arith.extsi i1>i8`; `copy`), when the backend can tell.
    std::string computedBy;
  };
  /// One element a DMA moved, in execution order.
  struct Access {
    uint32_t dma = 0; ///< index into dmas
    uint32_t storage = 0;
    /// Byte position of the element in the storage: may lie outside it.
    int64_t byte = 0;
    /// The element's position in its kernel argument (elements from the
    /// argument's start) and how many elements the argument has, as the
    /// kernel declares it.
    int64_t element = 0, argumentElements = 0;
    uint32_t elementBytes = 0;
  };
  /// A view the program returns: its storage, first byte, shape and
  /// strides (elements).
  struct View {
    uint32_t storage = 0;
    int64_t byteOffset = 0;
    uint32_t elementBytes = 0;
    std::vector<int64_t> shape, strides;
  };
  /// A DMA that moves, for some slot of its tile, another element than the
  /// one the program's index asks for at that slot's iteration point (the
  /// map oracle, oracles/DmaMap.h), with its first such slot.
  struct WrongMap {
    uint32_t dma = 0;          ///< index into dmas
    std::string index;         ///< the index asked for, as its compiler prints it
    bool indexDivides = false; ///< a floor/mod index
    std::vector<int64_t> slot;
    std::string point; ///< the slot's iteration point, `index0=0, index1=8`
    int64_t moved = 0, wanted = 0;
    uint64_t wrongSlots = 0, slots = 0;
    /// Judged by the elements its tile moves, not slot by slot (a tile of
    /// another rank than its index's variables): `slot` is the first that
    /// moved an element no point of the tile asks for; or, when an element
    /// asked for (`wanted`, at `point`) is not moved, `moved` is INT64_MIN.
    bool asSet = false;
    /// Judged slot by slot: some execution's first slot moved a wrong
    /// element (the DRAM index the DMA starts from is wrong); otherwise
    /// only its strides are.
    bool baseWrong = false;
  };
  std::vector<Storage> storages;
  std::vector<Dma> dmas;
  std::vector<WrongMap> wrongMaps;
  /// DMAs whose map was not judged, each with why: `kernel0.mlir DMA #2:
  /// no loop of index1 around it`.
  std::vector<std::string> unjudgedMaps;
  /// The DMAs of the called kernels whose map was judged.
  uint32_t judgedMaps = 0;
  std::vector<Access> accesses;
  std::vector<View> outputs;
  /// Kernels whose DMAs could not be decoded (a loop bound that is not a
  /// constant, an index that is not affine): nothing is judged of what
  /// they touch, and an output they may write is not called unwritten.
  std::vector<std::string> undecoded;
};

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_DMATRACE_H
