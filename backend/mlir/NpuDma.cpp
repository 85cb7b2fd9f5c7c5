//===- backend/mlir/NpuDma.cpp - Scratchpad tiles and DMA descriptors -----===//
//
// A descriptor covers the tile dims whose largest block is not 1 (unit dims
// collapse away); when more than 4 remain, the outer ones are peeled into
// loops that each issue a 4-dim descriptor at its own DRAM and scratchpad
// offset. The scratchpad offset of a peeled slice must be aligned, so a
// tile's layout rounds the strides of its peeled dims up to the alignment.
//
//===----------------------------------------------------------------------===//
#include "backend/mlir/NpuLowering.h"

#include "backend/runtime/NpuSim.h"

namespace npufuzz {

namespace {
/// Scratchpad element type: i1 is stored as one i8 byte holding 0 or 1, so
/// vector loads see one lane per byte.
DType storageType(DType t) { return t == DType::I1 ? DType::I8 : t; }

std::string join(const std::vector<std::string> &v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + v[i];
  return s;
}
} // namespace

size_t NpuEmitter::peeledDims(const std::vector<int64_t> &shape) {
  size_t kept = 0;
  for (int64_t d : shape)
    kept += d > 1;
  return kept > kNpuSimMaxRank ? kept - kNpuSimMaxRank : 0;
}

SpadTile NpuEmitter::layout(const TileSpec &s, const std::vector<int64_t> &block) const {
  SpadTile t;
  t.dtype = s.dtype;
  for (size_t d = 0; d < s.follows.size(); ++d)
    t.shape.push_back(s.follows[d] >= 0 ? block[s.follows[d]] : s.whole[d]);
  const int64_t bytes = byteSize(storageType(s.dtype));
  const int64_t alignElems = kNpuSimSpadAlign / bytes;
  // The peeled dims are the outermost non-unit ones.
  std::vector<bool> peeled(t.shape.size(), false);
  for (size_t d = 0, left = peeledDims(t.shape); d < t.shape.size() && left; ++d)
    if (t.shape[d] > 1) {
      peeled[d] = true;
      --left;
    }
  t.strides.assign(t.shape.size(), 1);
  for (size_t d = t.shape.size(); d-- > 0;) {
    if (d + 1 < t.shape.size())
      t.strides[d] = t.strides[d + 1] * t.shape[d + 1];
    if (peeled[d])
      t.strides[d] = (t.strides[d] + alignElems - 1) / alignElems * alignElems;
  }
  int64_t last = 0;
  for (size_t d = 0; d < t.shape.size(); ++d)
    last += (t.shape[d] - 1) * t.strides[d];
  t.size = (last + 1) * bytes;
  return t;
}

void NpuEmitter::bindTile(SpadTile &t) {
  const std::string elem = elemType(storageType(t.dtype));
  const int64_t n = t.size / byteSize(storageType(t.dtype));
  const std::string flat = fresh("flat");
  line(flat + " = memref.view " + spad_ + "[" + indexConst(t.offset) + "][] : memref<" +
       std::to_string(opt_.spadBytes) + "xi8> to memref<" + std::to_string(n) + "x" + elem + ">");
  std::vector<std::string> sizes, strides;
  t.type = "memref<";
  for (size_t d = 0; d < t.shape.size(); ++d) {
    sizes.push_back(std::to_string(t.shape[d]));
    strides.push_back(std::to_string(t.strides[d]));
    t.type += std::to_string(t.shape[d]) + "x";
  }
  t.type += elem + ", strided<[" + join(strides) + "]>>";
  t.memref = fresh("tile");
  line(t.memref + " = memref.reinterpret_cast " + flat + " to offset: [0], sizes: [" + join(sizes) +
       "], strides: [" + join(strides) + "] : memref<" + std::to_string(n) + "x" + elem + "> to " +
       t.type);
}

std::string NpuEmitter::pointerOf(const std::string &memref, const std::string &type) {
  const std::string addr = fresh("addr"), addr64 = fresh("addr"), ptr = fresh("ptr");
  line(addr + " = memref.extract_aligned_pointer_as_index " + memref + " : " + type + " -> index");
  line(addr64 + " = arith.index_cast " + addr + " : index to i64");
  line(ptr + " = llvm.inttoptr " + addr64 + " : i64 to !llvm.ptr");
  return ptr;
}

void NpuEmitter::dma(bool toDram, const Access &a, const SpadTile &t, const Block &b,
                     size_t tileIndex) {
  declareRuntime("func.func private @npf_sim_dma(i64, !llvm.ptr, i64, i64, i64, i64, i64, "
                 "i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)");
  std::vector<std::string> extent = b.tileExtent[tileIndex];
  const int64_t bytes = byteSize(storageType(t.dtype));
  // A clipped store moves the part of the block inside the valid region,
  // when there is one (the engine takes no empty transfer).
  const bool clipped = toDram && !a.clipRows.empty();
  if (clipped) {
    extent[0] = clip(b, 0, a.clipRows);
    extent[1] = clip(b, 1, a.clipCols);
    const std::string rowsLeft = fresh(), colsLeft = fresh(), any = fresh();
    line(rowsLeft + " = arith.cmpi sgt, " + extent[0] + ", " + indexConst(0) + " : index");
    line(colsLeft + " = arith.cmpi sgt, " + extent[1] + ", " + indexConst(0) + " : index");
    line(any + " = arith.andi " + rowsLeft + ", " + colsLeft + " : i1");
    line("scf.if " + any + " {");
    indent_ += 2;
  }
  // DRAM offset of the block: base + sum(coeff * origin), as an affine map.
  std::string dims, expr = std::to_string(a.base), args;
  for (size_t k = 0, n = 0; k < a.originCoeff.size(); ++k) {
    if (a.originCoeff[k] == 0 || b.origin[k] == indexConst(0))
      continue;
    dims += (n ? ", d" : "d") + std::to_string(n);
    expr += " + d" + std::to_string(n) + " * " + std::to_string(a.originCoeff[k]);
    args += (n ? ", " : "") + b.origin[k];
    ++n;
  }
  std::string dramOffset = indexConst(a.base);
  if (!args.empty()) {
    dramOffset = fresh("doff");
    line(dramOffset + " = affine.apply affine_map<(" + dims + ") -> (" + expr + ")>(" + args + ")");
  }
  std::string spadOffset = indexConst(t.offset);
  std::vector<size_t> kept;
  for (size_t d = 0; d < t.shape.size(); ++d)
    if (t.shape[d] > 1)
      kept.push_back(d);
  // Peel the outer dims past 4 (seed 003): each slice gets its own offsets.
  const size_t peel = peeledDims(t.shape);
  for (size_t i = 0; i < peel; ++i) {
    const size_t d = kept[i];
    const std::string p = fresh("peel");
    line("scf.for " + p + " = " + indexConst(0) + " to " + extent[d] + " step " + indexConst(1) +
         " {");
    indent_ += 2;
    const std::string nd = fresh("doff"), ns = fresh("soff");
    line(nd + " = affine.apply affine_map<(d0, d1) -> (d0 + d1 * " + std::to_string(a.stride[d]) +
         ")>(" + dramOffset + ", " + p + ")");
    line(ns + " = affine.apply affine_map<(d0, d1) -> (d0 + d1 * " +
         std::to_string(t.strides[d] * bytes) + ")>(" + spadOffset + ", " + p + ")");
    dramOffset = nd;
    spadOffset = ns;
  }
  std::vector<std::string> sizes, dramStrides, spadStrides;
  for (size_t i = peel; i < kept.size(); ++i) {
    const std::string s = fresh();
    line(s + " = arith.index_cast " + extent[kept[i]] + " : index to i64");
    sizes.push_back(s);
    dramStrides.push_back(intConst(a.stride[kept[i]], DType::I64));
    spadStrides.push_back(intConst(t.strides[kept[i]], DType::I64));
  }
  const std::string rank = intConst(std::max<int64_t>(1, sizes.size()), DType::I64);
  while (sizes.size() < kNpuSimMaxRank) {
    sizes.push_back(intConst(1, DType::I64));
    dramStrides.push_back(intConst(0, DType::I64));
    spadStrides.push_back(intConst(0, DType::I64));
  }
  const std::string d64 = fresh(), s64 = fresh();
  line(d64 + " = arith.index_cast " + dramOffset + " : index to i64");
  line(s64 + " = arith.index_cast " + spadOffset + " : index to i64");
  line("func.call @npf_sim_dma(" + intConst(toDram ? 1 : 0, DType::I64) + ", " + a.dram.ptr + ", " +
       intConst(a.dram.extent, DType::I64) + ", " + d64 + ", " + s64 + ", " +
       intConst(bytes, DType::I64) + ", " + rank + ", " + join(sizes) + ", " + join(dramStrides) +
       ", " + join(spadStrides) +
       ") : (i64, !llvm.ptr, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, "
       "i64, i64, i64, i64) -> ()");
  closeFor(peel);
  if (clipped) {
    indent_ -= 2;
    line("}");
  }
}

} // namespace npufuzz
