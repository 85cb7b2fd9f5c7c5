//===- backend/mlir/NpuLowering.cpp - The npu lowering style --------------===//
//
// Plans and their blocks, DRAM buffers, and the op dispatch. What each op
// computes on its tiles is in NpuCompute.cpp; tiles and DMA in NpuDma.cpp.
//
//===----------------------------------------------------------------------===//
#include "backend/mlir/NpuLowering.h"

#include "backend/runtime/NpuSim.h"
#include "ir/Verifier.h"

namespace npufuzz {

namespace {
int64_t alignUp(int64_t v, int64_t a) { return (v + a - 1) / a * a; }
} // namespace

// --- Buffers ----------------------------------------------------------------------

const DramBuf &NpuEmitter::alloc(ValueId v) {
  DramBuf b;
  b.type = memrefType(c_.typeOf(v));
  b.memref = fresh("dram");
  b.extent = c_.typeOf(v).numElements();
  // A chain's ops run in block loops, and later tasks read what they wrote.
  hoisting = chain_;
  line(b.memref + " = memref.alloc() : " + b.type);
  b.ptr = pointerOf(b.memref, b.type);
  hoisting = false;
  allocs_.push_back(b.memref + " : " + b.type);
  return bufs_[v] = b;
}

TileSpec NpuEmitter::resultTile(DType t, size_t rank) {
  TileSpec s;
  s.dtype = t;
  for (size_t k = 0; k < rank; ++k)
    s.follows.push_back(static_cast<int>(k));
  s.whole.assign(rank, 0);
  return s;
}

Access NpuEmitter::rowMajor(int tile, ValueId v) const {
  Access a;
  a.tile = tile;
  a.dram = bufs_.at(v);
  a.stride = rowMajorStrides(c_.typeOf(v).shape);
  a.originCoeff = a.stride;
  return a;
}

// --- Plans ------------------------------------------------------------------------

void NpuEmitter::emitPlan(const Plan &p) {
  const size_t rank = p.space.size();
  auto followsBlock = [](const TileSpec &s) {
    for (int f : s.follows)
      if (f >= 0)
        return true;
    return false;
  };
  // Halve the outermost splittable dim until the tiles that scale with the
  // block fit; non-divisors leave tail blocks, which the block loops clip.
  std::vector<int64_t> block = p.space;
  auto blockBytes = [&] {
    int64_t n = 0;
    for (const TileSpec &s : p.tiles)
      if (followsBlock(s))
        n += alignUp(layout(s, block).size, kNpuSimSpadAlign);
    return n;
  };
  while (blockBytes() > opt_.blockBytes) {
    size_t k = 0;
    while (k < rank && !(p.splittable[k] && block[k] > 1))
      ++k;
    if (k == rank)
      break;
    block[k] = (block[k] + 1) / 2;
  }
  std::vector<SpadTile> tiles;
  int64_t offset = 0;
  for (const TileSpec &s : p.tiles) {
    SpadTile t = layout(s, block);
    t.offset = offset;
    offset += alignUp(t.size, kNpuSimSpadAlign);
    tiles.push_back(t);
  }
  if (offset > opt_.spadBytes) {
    unsupported = "an op needs " + std::to_string(offset) + " bytes of scratchpad, more than " +
                  std::to_string(opt_.spadBytes);
    return;
  }
  for (SpadTile &t : tiles)
    bindTile(t);

  auto extentsOf = [&](Block &b) {
    b.tileExtent.clear();
    for (size_t i = 0; i < tiles.size(); ++i) {
      std::vector<std::string> e;
      for (size_t d = 0; d < p.tiles[i].follows.size(); ++d) {
        const int f = p.tiles[i].follows[d];
        e.push_back(f >= 0 ? b.extent[f] : indexConst(p.tiles[i].whole[d]));
      }
      b.tileExtent.push_back(e);
    }
  };
  Block b;
  for (const SpadTile &t : tiles)
    b.tiles.push_back(&t);
  // Tiles that do not follow the block are staged once, before the loops.
  b.origin.assign(rank, indexConst(0));
  b.extent.clear();
  for (int64_t s : p.space)
    b.extent.push_back(indexConst(s));
  extentsOf(b);
  for (const Access &a : p.loads)
    if (!followsBlock(p.tiles[a.tile]))
      dma(false, a, tiles[a.tile], b, a.tile);

  size_t loops = 0;
  for (size_t k = 0; k < rank; ++k) {
    if (block[k] == p.space[k])
      continue;
    const std::string o = fresh("o");
    line("scf.for " + o + " = " + indexConst(0) + " to " + indexConst(p.space[k]) + " step " +
         indexConst(block[k]) + " {");
    indent_ += 2;
    ++loops;
    const std::string e = fresh("e");
    line(e + " = affine.min affine_map<(d0) -> (" + std::to_string(block[k]) + ", " +
         std::to_string(p.space[k]) + " - d0)>(" + o + ")");
    b.origin[k] = o;
    b.extent[k] = e;
  }
  extentsOf(b);
  for (const Access &a : p.loads)
    if (followsBlock(p.tiles[a.tile]))
      dma(false, a, tiles[a.tile], b, a.tile);
  if (p.compute)
    p.compute(b);
  for (const Access &a : p.stores)
    dma(true, a, tiles[a.tile], b, a.tile);
  closeFor(loops);
}

void NpuEmitter::planCopy(ValueId from, const DramBuf &to, const std::vector<int64_t> &toShape,
                          const std::vector<int64_t> &at) {
  const TensorType &t = c_.typeOf(from);
  Plan p;
  p.space = t.shape;
  p.splittable.assign(t.rank(), true);
  p.tiles.push_back(resultTile(t.dtype, t.rank()));
  p.loads.push_back(rowMajor(0, from));
  Access out = rowMajor(0, from);
  out.dram = to;
  if (!toShape.empty()) {
    out.stride = rowMajorStrides(toShape);
    out.originCoeff = out.stride;
    for (size_t d = 0; d < at.size(); ++d)
      out.base += at[d] * out.stride[d];
  }
  if (t.valid) {
    // Its valid region only: the rest of the destination keeps what it
    // held (ir/Case.h).
    const DramBuf &fb = bufs_.at(from);
    out.clipRows = fb.rows.empty() ? std::to_string(t.valid->rows) : fb.rows;
    out.clipCols = fb.cols.empty() ? std::to_string(t.valid->cols) : fb.cols;
  }
  p.stores.push_back(out);
  emitPlan(p);
}

void NpuEmitter::emitView(const Op &op) {
  const ValueId src = op.operands[0], res = op.results[0];
  const TensorType &st = c_.typeOf(src), &rt = c_.typeOf(res);
  const std::vector<IndexExpr> map = viewIndexMap(c_, op);
  alloc(res);
  Plan p;
  p.space = rt.shape;
  p.splittable.assign(rt.rank(), true);
  // A map without floordiv/mod is a strided access: the DMA engine does the
  // view (stride 0 broadcasts), and the tile it fills is the result block.
  const std::vector<int64_t> srcStrides = rowMajorStrides(st.shape);
  Access in;
  in.dram = bufs_.at(src);
  in.stride.assign(rt.rank(), 0);
  bool linear = true;
  std::function<bool(const IndexExpr &, int64_t)> addTerms = [&](const IndexExpr &e,
                                                                 int64_t scale) {
    switch (e.kind()) {
    case IndexExpr::Kind::Dim: in.stride[e.value()] += scale; return true;
    case IndexExpr::Kind::Const: in.base += scale * e.value(); return true;
    case IndexExpr::Kind::Add:
      for (const IndexExpr *t : sumTerms(e))
        if (!addTerms(*t, scale))
          return false;
      return true;
    case IndexExpr::Kind::Mul: return addTerms(e.lhs(), scale * e.value());
    case IndexExpr::Kind::FloorDiv:
    case IndexExpr::Kind::Mod: return false; // not linear: staged whole and gathered
    }
    return false;
  };
  for (size_t j = 0; j < map.size() && linear; ++j)
    linear = addTerms(map[j], srcStrides[j]);
  if (linear) {
    p.tiles.push_back(resultTile(rt.dtype, rt.rank()));
    in.originCoeff = in.stride;
    p.loads.push_back(in);
    p.stores.push_back(rowMajor(0, res));
    return emitPlan(p);
  }
  // floordiv/mod: stage the whole source and index it with the affine map.
  TileSpec whole;
  whole.dtype = st.dtype;
  whole.follows.assign(st.rank(), -1);
  whole.whole = st.shape;
  p.tiles.push_back(whole);
  p.tiles.push_back(resultTile(rt.dtype, rt.rank()));
  p.loads.push_back(rowMajor(0, src));
  p.loads.back().originCoeff.assign(rt.rank(), 0);
  p.stores.push_back(rowMajor(1, res));
  p.compute = [this, map](const Block &b) {
    const std::vector<std::string> ivs = openFor(b.extent);
    std::vector<std::string> global;
    for (size_t k = 0; k < ivs.size(); ++k) {
      global.push_back(fresh("g"));
      line(global.back() + " = arith.addi " + b.origin[k] + ", " + ivs[k] + " : index");
    }
    std::vector<std::string> sub;
    for (const IndexExpr &e : map)
      sub.push_back(indexOf(e, global));
    store(load(*b.tiles[0], sub), *b.tiles[1], ivs);
    closeFor(ivs.size());
  };
  emitPlan(p);
}

// --- Ops --------------------------------------------------------------------------

void NpuEmitter::emitInsert(const Op &op) {
  const ValueId dest = op.operands[0], src = op.operands[1], res = op.results[0];
  alloc(res);
  // The destination's copy (its valid region: the rest is undefined in the
  // result too), then the source's valid region at the offsets.
  planCopy(dest, bufs_.at(res));
  if (!unsupported.empty())
    return;
  bufs_[res].rows = bufs_.at(dest).rows;
  bufs_[res].cols = bufs_.at(dest).cols;
  planCopy(src, bufs_.at(res), c_.typeOf(dest).shape, op.attrs.offsets);
}

void NpuEmitter::emitSetValidShape(const Op &op, const std::string &rows, const std::string &cols) {
  // No data moves: the result aliases its operand with a narrower region.
  DramBuf b = bufs_.at(op.operands[0]);
  b.rows = rows;
  b.cols = cols;
  bufs_[op.results[0]] = b;
}

bool NpuEmitter::run() {
  const std::vector<std::string> params = kernelParams(&memrefType, &memrefType);
  const std::string spadType = "memref<" + std::to_string(opt_.spadBytes) + "xi8>";
  // Its contents are the runtime's: npf_sim_begin fills it with the scratch
  // poison on every run.
  declareRuntime("memref.global \"private\" @npf_spad : " + spadType +
                 " = dense<0> {alignment = 64 : i64}");
  declareRuntime("func.func private @npf_sim_begin(!llvm.ptr, i64)");
  spad_ = fresh("spad");
  line(spad_ + " = memref.get_global @npf_spad : " + spadType);
  line("func.call @npf_sim_begin(" + pointerOf(spad_, spadType) + ", " +
       intConst(opt_.spadBytes, DType::I64) + ") : (!llvm.ptr, i64) -> ()");
  int inputOrdinal = 0;
  for (size_t i = 0; i < c_.ops.size(); ++i) {
    const Op &op = c_.ops[i];
    if (op.kind != OpKind::Input)
      continue;
    const ValueId v = op.results[0];
    DramBuf b;
    b.memref = inputArg(inputOrdinal++);
    b.type = memrefType(c_.typeOf(v));
    b.extent = c_.typeOf(v).numElements();
    b.ptr = pointerOf(b.memref, b.type);
    if (const auto &valid = c_.typeOf(v).valid)
      std::tie(b.rows, b.cols) = validBounds(i, *valid);
    bufs_[v] = b;
  }
  chain_ = !taskOps(c_).empty();
  if (chain_)
    emitChain();
  else
    for (size_t i = 0; i < c_.ops.size() && unsupported.empty(); ++i)
      emitOp(i);
  for (size_t k = 0; k < c_.outputs.size() && unsupported.empty(); ++k) {
    line("// output " + std::to_string(k));
    DramBuf out;
    out.memref = outputArg(k);
    out.type = memrefType(c_.typeOf(c_.outputs[k]));
    out.extent = c_.typeOf(c_.outputs[k]).numElements();
    out.ptr = pointerOf(out.memref, out.type);
    planCopy(c_.outputs[k], out);
  }
  if (!unsupported.empty())
    return false;
  for (const std::string &a : allocs_)
    line("memref.dealloc " + a);
  assemble(params);
  return true;
}

} // namespace npufuzz
