//===- backend/emit/PtoEmitter.cpp - A case as PTO tile text --------------===//
//
// The syntax follows PTOAS's own tests and ISA pages (DPS form): tiles are
// `!pto.tile_buf<loc=vec, ...>` with dynamic v_row/v_col so that
// pto.set_validshape applies, allocated with their valid shape as operands.
//
//===----------------------------------------------------------------------===//
#include "backend/emit/PtoEmitter.h"

#include "ir/Verifier.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>

namespace npufuzz {

namespace {

/// PTO element type names (the case model's); empty for types PTO tiles do
/// not hold here.
std::string ptoType(DType t) {
  switch (t) {
  case DType::F32:
  case DType::F16:
  case DType::BF16:
  case DType::I8:
  case DType::I32: return std::string(dtypeName(t));
  default: return "";
  }
}

std::string unaryTOpName(OpKind k) {
  switch (k) {
  case OpKind::Exp: return "texp";
  case OpKind::Log: return "tlog";
  case OpKind::Sqrt: return "tsqrt";
  case OpKind::Rsqrt: return "trsqrt";
  case OpKind::Abs: return "tabs";
  case OpKind::Neg: return "tneg";
  case OpKind::Relu: return "trelu";
  case OpKind::Not: return "tnot";
  case OpKind::Tanh: // no t-op
  case OpKind::Erf:
  case OpKind::Sigmoid:
  case OpKind::Silu:
  case OpKind::Round: // not emitted (tcvt rounds only across types)
  case OpKind::Clamp: // not emitted (a tmaxs, tmins pair would do)
#define NPF_HANDLED_CATEGORY Unary
#include "ir/OpCasesOutside.def"
    return "";
  }
  return ""; // unreachable: every OpKind is a case above
}

std::string binaryTOpName(OpKind k) {
  switch (k) {
  case OpKind::Add: return "tadd";
  case OpKind::Sub: return "tsub";
  case OpKind::Mul: return "tmul";
  case OpKind::Div: return "tdiv";
  case OpKind::Max: return "tmax";
  case OpKind::Min: return "tmin";
  case OpKind::And: return "tand";
  case OpKind::Or: return "tor";
  case OpKind::Xor: return "txor";
#define NPF_HANDLED_CATEGORY Binary
#include "ir/OpCasesOutside.def"
    return "";
  }
  return ""; // unreachable: every OpKind is a case above
}

/// PTO t-op names of the ops with a direct equivalent. Float-only entries
/// are checked by the caller.
std::string tOpName(OpKind k) {
  switch (opCategory(k)) {
  case OpCategory::Unary: return unaryTOpName(k);
  case OpCategory::Binary: return binaryTOpName(k);
  case OpCategory::Source:
  case OpCategory::Compare:
  case OpCategory::RowExpand: // the caller names them by their base op
  case OpCategory::ColExpand:
  case OpCategory::View:
  case OpCategory::Other: return "";
  }
  return ""; // unreachable: every OpCategory is a case above
}

/// PTO round modes of tcvt.
const char *roundMode(RoundingMode m) {
  switch (m) {
  case RoundingMode::NearestEven: return "RINT";
  case RoundingMode::NearestAway: return "ROUND";
  case RoundingMode::TowardZero: return "TRUNC";
  case RoundingMode::Down: return "FLOOR";
  case RoundingMode::Up: return "CEIL";
  }
  return "RINT";
}

/// The element types the A2/A3 verifier of ptoas (its default --pto-arch)
/// accepts for the t-op of `k`, as its diagnostics state them; empty when
/// `t` is one of them. The case model has no i16, so ops that take only i16
/// (tnot) are never expressible.
std::string dtypeRule(OpKind k, DType t) {
  const bool f = t == DType::F32 || t == DType::F16;
  switch (opCategory(k)) {
  case OpCategory::Binary:
    switch (k) {
    case OpKind::Add:
    case OpKind::Sub:
    case OpKind::Mul:
    case OpKind::Max:
    case OpKind::Min: return f || t == DType::I32 ? "" : "i16/i32/f16/f32";
    case OpKind::And:
    case OpKind::Or: return t == DType::I8 ? "" : "i8/i16";
    case OpKind::Xor: return "i8/i16 and a tmp tile (not emitted)";
    case OpKind::Div: return f ? "" : "f16/f32";
#define NPF_HANDLED_CATEGORY Binary
#include "ir/OpCasesOutside.def"
      return "";
    }
    return "";
  case OpCategory::Unary:
    switch (k) {
    case OpKind::Not: return "i16";
    case OpKind::Relu: return f || t == DType::I32 ? "" : "i32/f16/f32";
    case OpKind::Abs:
    case OpKind::Exp:
    case OpKind::Log:
    case OpKind::Sqrt:
    case OpKind::Rsqrt: return f ? "" : "f16/f32";
    case OpKind::Neg:  // no rule recorded
    case OpKind::Tanh: // no t-op
    case OpKind::Erf:
    case OpKind::Sigmoid:
    case OpKind::Silu:
    case OpKind::Round:
    case OpKind::Clamp:
#define NPF_HANDLED_CATEGORY Unary
#include "ir/OpCasesOutside.def"
      return "";
    }
    return "";
  case OpCategory::Source: // no t-op of their own (tOpName)
  case OpCategory::Compare:
  case OpCategory::RowExpand:
  case OpCategory::ColExpand:
  case OpCategory::View:
  case OpCategory::Other: return "";
  }
  return ""; // unreachable: every OpCategory is a case above
}

/// The tile number `%tN` at `text[at]` ("%t" then digits), or -1.
int tileAt(const std::string &text, size_t at) {
  if (text.compare(at, 2, "%t") != 0 || at + 2 >= text.size() || !std::isdigit(text[at + 2]))
    return -1;
  return std::atoi(text.c_str() + at + 2);
}

/// The `!pto.tile_buf<...>` type `line` ends with.
std::string tileTypeIn(const std::string &line) {
  const size_t at = line.rfind("!pto.tile_buf<");
  return at == std::string::npos ? std::string() : line.substr(at);
}

/// Bytes of tile type `type`.
int64_t tileBytesOf(const std::string &type) {
  auto field = [&](const char *key) {
    const size_t at = type.find(key);
    return at == std::string::npos
               ? std::string()
               : type.substr(at + std::strlen(key), type.find(',', at) - at - std::strlen(key));
  };
  const std::string dtype = field("dtype=");
  const int64_t element = dtype == "i8" ? 1 : dtype == "f16" || dtype == "bf16" ? 2 : 4;
  return std::atoll(field("rows=").c_str()) * std::atoll(field("cols=").c_str()) * element;
}

/// Places a kernel's tiles in UB as PyPTO's passes do (MemoryReuse, then
/// AllocateMemoryAddr, at the pinned ptoas's PyPTO), giving each
/// `pto.alloc_tile` its address (ptoas's level 3):
/// - a tile lives from the line that first names it after its alloc_tile
///   (the op that writes it) to the last line naming it or a sub-tile of it
///   (pto.subset); lifetimes that only touch (a tile's last read is the op
///   that writes the other) do not overlap, for an op reads its inputs
///   before it writes its output;
/// - a tile takes the buffer of the earliest earlier tile of the same tile
///   type (dtype, shape, layout, pad; the valid shape may differ) whose
///   tiles all have lifetimes apart from its own: so an op may write over
///   an operand it reads last, every elementwise op here being one PyPTO
///   registers in-place safe;
/// - buffers get consecutive 32-byte-aligned addresses from 0.
/// Rewrites `body`, adds the addresses to `addresses`, and returns the
/// bytes the buffers take.
int64_t placeTiles(std::string &body, std::set<int64_t> &addresses) {
  std::vector<std::string> lines;
  for (size_t at = 0; at < body.size();) {
    const size_t end = body.find('\n', at);
    lines.push_back(body.substr(at, end - at));
    at = end == std::string::npos ? body.size() : end + 1;
  }
  std::map<int, int> root; // a sub-tile's tile, through subsets
  auto rootOf = [&](int t) {
    const auto r = root.find(t);
    return r == root.end() ? t : r->second;
  };
  struct Tile {
    int id = 0;
    size_t allocLine = 0, def = 0, last = 0;
    bool written = false;
    std::string type;
  };
  std::map<int, Tile> tiles;
  std::vector<int> order; // tiles in alloc order
  for (size_t l = 0; l < lines.size(); ++l) {
    const std::string &line = lines[l];
    const int defined = tileAt(line, line.find_first_not_of(' '));
    const size_t sub = line.find(" = pto.subset ");
    if (defined >= 0 && line.find(" = pto.alloc_tile ") != std::string::npos) {
      tiles[defined] = Tile{defined, l, l, l, false, tileTypeIn(line)};
      order.push_back(defined);
      continue;
    }
    if (defined >= 0 && sub != std::string::npos)
      root[defined] = rootOf(tileAt(line, sub + std::strlen(" = pto.subset ")));
    for (size_t at = line.find("%t"); at != std::string::npos; at = line.find("%t", at + 2))
      if (const int t = tileAt(line, at); t >= 0 && tiles.count(rootOf(t))) {
        Tile &tile = tiles[rootOf(t)];
        if (!tile.written)
          tile.def = l, tile.written = true;
        tile.last = l;
      }
  }
  // The operands each line's op may write its result over: those it reads
  // element by element where it writes them (every operand of an
  // elementwise op, the full-size operand of a row or column expand), not
  // the broadcast operand of an expand, nor a transpose's source (PyPTO's
  // tile.transpose inherits its input's memory as a view, and its expand
  // operands are tiles of their own shape, so it never reuses those).
  // Two tiles an op writes both (a result and its temporary) never touch.
  std::map<size_t, std::set<int>> inPlace;
  for (size_t l = 0; l < lines.size(); ++l) {
    const std::string &line = lines[l];
    const size_t op = line.find("pto.t"), ins = line.find(" ins(");
    if (op == std::string::npos || ins == std::string::npos)
      continue;
    const std::string name = line.substr(op + 4, ins - op - 4);
    const bool expand = name.rfind("trowexpand", 0) == 0 || name.rfind("tcolexpand", 0) == 0;
    if (name == "ttrans" || name == "trowexpand" || name == "tcolexpand")
      continue;
    for (size_t at = line.find("%t", ins); at != std::string::npos && at < line.find(" : ", ins);
         at = line.find("%t", at + 2)) {
      if (const int t = tileAt(line, at); t >= 0)
        inPlace[l].insert(rootOf(t));
      if (expand)
        break; // the first operand only
    }
  }
  auto before = [&](const Tile &a, const Tile &b) {
    return a.def < b.def && (a.last < b.def || (a.last == b.def && inPlace.count(b.def) &&
                                                inPlace[b.def].count(a.id)));
  };
  auto apart = [&](const Tile &a, const Tile &b) { return before(a, b) || before(b, a); };
  std::vector<std::vector<int>> buffers; // the tiles of each buffer
  std::map<int, size_t> bufferOf;
  for (const int t : order) {
    const Tile &tile = tiles[t];
    size_t chosen = buffers.size();
    for (size_t b = 0; b < buffers.size() && chosen == buffers.size(); ++b)
      if (tiles[buffers[b].front()].type == tile.type &&
          std::all_of(buffers[b].begin(), buffers[b].end(),
                      [&](int other) { return apart(tiles[other], tile); }))
        chosen = b;
    if (chosen == buffers.size())
      buffers.emplace_back();
    buffers[chosen].push_back(t);
    bufferOf[tiles[t].allocLine] = chosen;
  }
  std::vector<int64_t> addressOf;
  int64_t next = 0;
  for (const std::vector<int> &tilesOf : buffers) {
    addressOf.push_back(next);
    next = (next + tileBytesOf(tiles[tilesOf.front()].type) + 31) / 32 * 32;
  }
  std::string placed;
  for (size_t l = 0; l < lines.size(); ++l) {
    std::string line = lines[l];
    if (const auto b = bufferOf.find(l); b != bufferOf.end()) {
      const int64_t address = addressOf[b->second];
      const size_t at = line.find("pto.alloc_tile ") + std::strlen("pto.alloc_tile ");
      line.insert(at, "addr = %ub" + std::to_string(address) + " ");
      addresses.insert(address);
    }
    placed += line + "\n";
  }
  body = std::move(placed);
  return next;
}

class Emitter {
public:
  /// The kernel of `c` as the entry function `name`; with `placeTiles`,
  /// it places its tiles in UB itself (placeTiles).
  Emitter(const Case &c, std::string name, bool placeTiles = false)
      : c_(c), name_(std::move(name)), placesTiles_(placeTiles) {}
  /// Appends the function to `out`.
  bool run(std::string &out, std::string &unsupported);
  /// The computed values the kernel stages through a GM scratch tensor of
  /// their own, in the order of their scratch arguments.
  std::vector<ValueId> stagedValues() const {
    std::vector<ValueId> staged;
    for (const Op &op : c_.ops)
      if (const std::optional<ValueId> v = stagedBy(op);
          v && std::find(staged.begin(), staged.end(), *v) == staged.end())
        staged.push_back(*v);
    return staged;
  }

private:
  std::string idx(int64_t n) {
    constants_.insert(n);
    return "%c" + std::to_string(n);
  }
  /// The tile type of `v`. Tiles are row_major, with rows padded to whole
  /// 32-byte blocks (the pad columns lie outside the valid shape); the R×1
  /// operand of a row expand is col_major (columnar_).
  std::string tileType(ValueId v) const { return tileType(v, columnar_.count(v) != 0); }
  std::string tileType(ValueId v, bool column) const {
    const TensorType &t = c_.typeOf(v);
    const auto padded = pads_.find(v);
    const int pad = padded == pads_.end() ? 0 : padded->second;
    return "!pto.tile_buf<loc=vec, dtype=" + ptoType(t.dtype) +
           ", rows=" + std::to_string(tileRows(t, column)) +
           ", cols=" + std::to_string(tileCols(t, column)) +
           ", v_row=?, v_col=?, blayout=" + (column ? "col_major" : "row_major") +
           ", slayout=none_box, fractal=512, pad=" + std::to_string(pad) + ">";
  }
  /// Columns of the tile of a value of type `t`: row_major rows are whole
  /// 32-byte blocks (pto-isa's static_assert), so narrower rows are padded,
  /// to a multiple of 32 elements: whole blocks for every dtype, so that a
  /// tcvt's source and destination tiles have the same shape.
  static int64_t tileCols(const TensorType &t, bool column) {
    if (column)
      return t.shape[1];
    return (t.shape[1] + 31) / 32 * 32;
  }
  /// Rows of the tile: a col_major tile's columns are whole 32-byte blocks,
  /// so its rows are padded like a row_major tile's columns.
  static int64_t tileRows(const TensorType &t, bool column) {
    if (!column)
      return t.shape[0];
    const int64_t perBlock = 32 / byteSize(t.dtype);
    return (t.shape[0] + perBlock - 1) / perBlock * perBlock;
  }
  /// The partition of `v`'s tensor that moves to or from its tile: the
  /// whole tensor, or its valid part (`valid`).
  std::string viewType(ValueId v, bool valid = false) const {
    const auto [rows, cols] = viewSizes(v, valid);
    return "!pto.partition_tensor_view<" + std::to_string(rows) + "x" + std::to_string(cols) + "x" +
           ptoType(c_.typeOf(v).dtype) + ">";
  }
  std::pair<int64_t, int64_t> viewSizes(ValueId v, bool valid) const {
    const TensorType &t = c_.typeOf(v);
    if (valid && t.valid)
      return {t.valid->rows, t.valid->cols};
    return {t.shape[0], t.shape[1]};
  }
  std::string tile(ValueId v) const { return "%t" + std::to_string(tiles_.at(v)); }
  /// The tile and tile type a row expand reads its R×1 operand `v` from: a
  /// col_major copy when `v` also has row_major uses.
  std::pair<std::string, std::string> rowOperand(ValueId v) const {
    const auto copy = columnTiles_.find(v);
    if (copy == columnTiles_.end())
      return {tile(v), tileType(v)};
    return {"%t" + std::to_string(copy->second), tileType(v, true)};
  }
  /// Allocates the tile of value `v` with its valid shape (the whole value
  /// when `whole`, `valid` when given).
  void alloc(ValueId v, int pad = 0, bool whole = false,
             std::optional<ValidShape> valid = std::nullopt) {
    const TensorType &t = c_.typeOf(v);
    const ValidShape full{t.shape[0], t.shape[1], false};
    const ValidShape vs = valid ? *valid : whole ? full : t.valid.value_or(full);
    tiles_[v] = nextTile_++;
    pads_[v] = pad;
    body_ += "    " + tile(v) + " = pto.alloc_tile valid_row = " + idx(vs.rows) +
             " valid_col = " + idx(vs.cols) + " : " + tileType(v) + "\n";
  }
  /// A block of a GM tensor the DMA moves, an input's or a staged value's
  /// (its `source`, laid out row-major): element (i, j) of the block is
  /// element base + i * rowStride + j of the tensor.
  struct Block {
    ValueId source;
    int64_t base = 0, rowStride = 1;
  };
  /// `%p` viewed as the tensor of value `v`, partitioned to one tile: the
  /// whole tensor, or its valid part (`valid`). With `block`, `%p` holds
  /// its source's tensor instead, viewed as rows `rowStride` elements apart
  /// (the DMA's row stride), and `v` is the partition of it at the block's
  /// base. A block whose rows run past the end of a view row (a row stride
  /// below its width, or a base not at a row's start that leaves too few
  /// columns) views rows that long, overlapping the next: the DMA reads
  /// base + i * rowStride + j all the same.
  std::string view(const std::string &ptr, ValueId v, bool valid = false,
                   std::optional<Block> block = std::nullopt) {
    const TensorType &t = c_.typeOf(block ? block->source : v);
    const int64_t stride = block ? block->rowStride : t.shape[1], base = block ? block->base : 0;
    const auto [rows, cols] = viewSizes(v, valid);
    const std::string tv = "%tv" + std::to_string(nextView_),
                      pv = "%pv" + std::to_string(nextView_);
    ++nextView_;
    const std::string el = ptoType(t.dtype);
    body_ += "    " + tv + " = pto.make_tensor_view " + ptr + ", shape = [" +
             idx(std::max((t.numElements() + stride - 1) / stride, base / stride + rows)) + ", " +
             idx(std::max(stride, base % stride + cols)) + "], strides = [" + idx(stride) + ", " +
             idx(1) + "] : !pto.tensor_view<?x?x" + el + ">\n";
    body_ += "    " + pv + " = pto.partition_view " + tv + ", offsets = [" + idx(base / stride) +
             ", " + idx(base % stride) + "], sizes = [" + idx(rows) + ", " + idx(cols) +
             "] : !pto.tensor_view<?x?x" + el + "> -> " + viewType(v, valid) + "\n";
    return pv;
  }
  /// The block of a GM tensor a rank-2 slice, chunk, reshape or index map
  /// `op` is, when the DMA can move it from where it lies: its elements
  /// in rows of unit steps, a positive row stride apart (ptoas's
  /// partition_view of a tensor_view with that row stride). The tensor is an input's, through any
  /// chain of such views of it; with `staging`, else that of the computed tile `op` reads, stored
  /// to scratch (stagedBy). A column step moves other elements on the NPU than on pto-isa's CPU
  /// simulator (its TLOAD reads no column stride), so it is never a block. A narrowed valid shape
  /// narrows no element of the tensor: the block is loaded whole and its tile narrowed (as an
  /// input's is).
  std::optional<Block> gmBlock(const Op &op, bool staging) const {
    // Checked element by element, and asked of each view several times
    // (check, the scratch arguments, the emission): once each.
    const auto key = std::make_pair(&op, staging);
    if (const auto known = gmBlocks_.find(key); known != gmBlocks_.end())
      return known->second;
    std::optional<Block> b;
    if (op.operands.empty() || c_.typeOf(op.operands[0]).rank() != 2)
      return gmBlocks_[key] = b;
    const ValueId x = op.operands[0];
    const int32_t def = c_.values[x].defOp;
    // The operand's own tensor, or the block of an input it is; else,
    // staged, the computed tile's own.
    if (isInput(x))
      b = blockOver(op, Block{x, 0, c_.typeOf(x).shape[1]});
    else if (def >= 0) {
      if (const std::optional<Block> inner = gmBlock(c_.ops[def], false))
        b = blockOver(op, *inner);
      if (!b && staging)
        b = blockOver(op, Block{x, 0, c_.typeOf(x).shape[1]});
    }
    return gmBlocks_[key] = b;
  }
  /// The block view `op` is of `from`, where its operand's elements lie,
  /// when its elements lie in rows of unit steps, a positive row stride
  /// apart; a single row keeps its source's row length.
  std::optional<Block> blockOver(const Op &op, const Block &from) const {
    if (op.kind != OpKind::Slice && op.kind != OpKind::Chunk && op.kind != OpKind::Reshape &&
        op.kind != OpKind::IndexMap)
      return std::nullopt;
    const TensorType &r = c_.typeOf(op.results[0]);
    const std::vector<IndexExpr> map = viewIndexMap(c_, op);
    if (r.rank() != 2 || c_.typeOf(op.operands[0]).rank() != 2 || map.size() != 2 ||
        r.numElements() > (1 << 16))
      return std::nullopt;
    const int64_t rows = r.shape[0], cols = r.shape[1];
    auto at = [&](int64_t i, int64_t j) {
      return from.base + map[0].eval({i, j}) * from.rowStride + map[1].eval({i, j});
    };
    Block b{from.source, at(0, 0), rows > 1 ? at(1, 0) - at(0, 0) : from.rowStride};
    if (b.rowStride < 1)
      return std::nullopt;
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        if (at(i, j) != b.base + i * b.rowStride + j)
          return std::nullopt;
    return b;
  }
  /// The block of an input view `op` is (gmBlock without staging).
  std::optional<Block> blockOfInput(const Op &op) const {
    const std::optional<Block> b = gmBlock(op, false);
    return b && isInput(b->source) ? b : std::nullopt;
  }
  /// Where a slice or chunk `op` of a computed tile starts in it, when it
  /// is a sub-tile view, pto.subset, as PyPTO writes a tile slice: unit
  /// steps, whole rows of the tile or a window of whole 32-element column
  /// blocks (the window's tile type is then the value's own), no narrowed
  /// valid shape. (A value a slice reads is never columnar_: that is for
  /// values only row expands read.)
  std::optional<std::pair<int64_t, int64_t>> tileWindow(const Op &op) const {
    if (op.kind != OpKind::Slice && op.kind != OpKind::Chunk)
      return std::nullopt;
    const TensorType &r = c_.typeOf(op.results[0]), &t = c_.typeOf(op.operands[0]);
    if (t.rank() != 2)
      return std::nullopt;
    const int64_t cols = t.shape[1];
    const std::optional<Block> w = blockOver(op, Block{op.operands[0], 0, cols});
    if (!w || w->rowStride != cols || r.valid || t.valid ||
        (r.shape[1] != cols && r.shape[1] % 32 != 0))
      return std::nullopt;
    return std::pair<int64_t, int64_t>{w->base / cols, w->base % cols};
  }
  /// A view of a computed tile that is no sub-tile (a row step, part of a
  /// 32-element column block, a narrowed valid shape, a reshape, an index
  /// map): UB cannot address it, so the tile goes to a GM scratch tensor
  /// of its own and the DMA moves the view from there, as a compiler
  /// stages such a window.
  std::optional<Block> blockOfStaged(const Op &op) const {
    if (blockOfInput(op) || tileWindow(op))
      return std::nullopt;
    const std::optional<Block> b = gmBlock(op, true);
    return b && !isInput(b->source) ? b : std::nullopt;
  }
  /// Whether value `v` is an input's tile, loaded from its GM tensor.
  bool isInput(ValueId v) const {
    const int32_t def = c_.values[v].defOp;
    return def >= 0 && c_.ops[def].kind == OpKind::Input;
  }
  /// The value `op` reads through a GM scratch tensor: the source of a
  /// staged block.
  std::optional<ValueId> stagedBy(const Op &op) const {
    if (const std::optional<Block> b = blockOfStaged(op))
      return b->source;
    return std::nullopt;
  }
  /// The GM scratch tensor of staged value `v`, its valid part stored there
  /// the first time a view reads it (the rest keeps the run's poison).
  const std::string &staged(ValueId v) {
    const std::string &ptr = stagedPtrs_.at(v);
    if (stored_.insert(v).second)
      body_ += "    pto.tstore ins(" + tile(v) + " : " + tileType(v) + ") outs(" +
               view(ptr, v, true) + " : " + viewType(v, true) + ")\n";
    return ptr;
  }
  /// Sets the valid shape of `v`'s tile to its value's, when narrowed.
  void narrowToValid(ValueId v) {
    if (const std::optional<ValidShape> &vs = c_.typeOf(v).valid)
      body_ += "    pto.set_validshape " + tile(v) + ", " + idx(vs->rows) + ", " + idx(vs->cols) +
               " : " + tileType(v) + "\n";
  }
  /// Loads the GM view `pv` into a new tile of `v`: TLOAD moves the view
  /// into the tile's valid shape, which must be the view's, so the whole
  /// tensor or block is loaded and the valid shape narrowed after.
  void loadWhole(const std::string &pv, ValueId v) {
    alloc(v, 0, true);
    body_ += "    pto.tload ins(" + pv + " : " + viewType(v) + ") outs(" + tile(v) + " : " +
             tileType(v) + ")\n";
    narrowToValid(v);
  }
  bool check(const Op &op, std::string &unsupported) const;
  bool usedOnlyBy(ValueId v, const Op &user) const;
  void chooseLayouts();
  ValidShape validOf(ValueId v) const {
    const TensorType &t = c_.typeOf(v);
    return t.valid.value_or(ValidShape{t.shape[0], t.shape[1], false});
  }
  /// A tile no value of the case owns (a narrowed copy, a mode-2 block, a
  /// temporary) of `like`'s tile type, valid on rows x cols; it counts
  /// against the vector buffer.
  std::string scratchTile(ValueId like, int64_t rows, int64_t cols) {
    const std::string name = "%t" + std::to_string(nextTile_++);
    extraTiles_.push_back({c_.typeOf(like), false});
    body_ += "    " + name + " = pto.alloc_tile valid_row = " + idx(rows) +
             " valid_col = " + idx(cols) + " : " + tileType(like) + "\n";
    return name;
  }
  /// A new tile of `v`'s tile type holding `v` narrowed to `want`: a copy
  /// (TMOV over `v`'s valid shape) whose valid shape is then set.
  std::pair<std::string, std::string> narrowed(ValueId v, ValidShape want) {
    const ValidShape have = validOf(v);
    const std::string type = tileType(v), copy = scratchTile(v, have.rows, have.cols);
    body_ += "    pto.tmov ins(" + tile(v) + " : " + type + ") outs(" + copy + " : " + type + ")\n";
    body_ += "    pto.set_validshape " + copy + ", " + idx(want.rows) + ", " + idx(want.cols) +
             " : " + type + "\n";
    return {copy, type};
  }
  /// Mode 2 of a row expand: a row_major tile whose first 32-byte block of
  /// each of `rows` rows repeats the R×1 value `v`'s element (trowexpand).
  std::pair<std::string, std::string> blockOperand(ValueId v, int64_t rows) {
    const std::string type = tileType(v),
                      block = scratchTile(v, rows, 32 / byteSize(c_.typeOf(v).dtype));
    body_ += "    pto.trowexpand ins(" + tile(v) + " : " + type + ") outs(" + block + " : " + type +
             ")\n";
    return {block, type};
  }

  const Case &c_;
  const std::string name_;
  std::string body_;
  std::set<int64_t> constants_;
  std::map<ValueId, int> tiles_;
  std::map<ValueId, int> pads_; ///< pad kind of each tile (0: none)
  std::set<ValueId> columnar_;  ///< values held in col_major tiles
  /// Inputs that row expands read col_major while other ops read them
  /// row_major: the same tensor loaded a second time (its tile number).
  std::set<ValueId> columnCopies_;
  std::map<ValueId, int> columnTiles_;
  /// Tiles that hold no value of the case (narrowed copies, mode-2 blocks,
  /// temporaries): the type of the value they are shaped like, and whether
  /// col_major.
  std::vector<std::pair<TensorType, bool>> extraTiles_;
  /// The pointer argument each input arrives by: its slices are loaded from
  /// it too.
  std::map<ValueId, std::string> inputPtrs_;
  std::set<ValueId> subTiles_; ///< values held in a pto.subset of a tile
  const bool placesTiles_;
  /// The scratch pointer argument of each staged value, and those stored.
  std::map<ValueId, std::string> stagedPtrs_;
  std::set<ValueId> stored_;
  mutable std::map<std::pair<const Op *, bool>, std::optional<Block>> gmBlocks_;
  int nextTile_ = 0, nextView_ = 0;
};

bool Emitter::usedOnlyBy(ValueId v, const Op &user) const {
  for (ValueId o : c_.outputs)
    if (o == v)
      return false;
  for (const Op &op : c_.ops)
    for (ValueId u : op.operands)
      if (u == v && &op != &user)
        return false;
  return true;
}

/// Whether PTO can express `op`, with the reason when not.
bool Emitter::check(const Op &op, std::string &unsupported) const {
  const std::string name(opName(op.kind));
  for (ValueId v : op.results) {
    const TensorType &t = c_.typeOf(v);
    if (t.rank() != 2)
      return unsupported = "pto: " + name + " result " + t.str() + " is not a rank-2 tile", false;
    if (ptoType(t.dtype).empty())
      return unsupported = "pto: no " + std::string(dtypeName(t.dtype)) + " tiles", false;
  }
  const DType in = op.operands.empty() ? DType::F32 : c_.typeOf(op.operands[0]).dtype;
  switch (opCategory(op.kind)) {
  case OpCategory::Unary:
  case OpCategory::Binary:
  case OpCategory::RowExpand:
  case OpCategory::ColExpand: {
    const OpKind base =
        opCategory(op.kind) == OpCategory::RowExpand || opCategory(op.kind) == OpCategory::ColExpand
            ? expandBaseOp(op.kind)
            : op.kind;
    if (tOpName(base).empty())
      return unsupported = "pto: no t-op for " + name, false;
    if (base == OpKind::Div && !isFloat(in))
      return unsupported = "pto: integer div (floor, x div 0 == 0) has no t-op", false;
    if (base == OpKind::Div)
      // The ISA manual (TDIV, TROWEXPAND*): "Division by Zero: Behavior is
      // target-defined; the CPU simulator asserts". The case model defines
      // it (IEEE), and the emitter cannot know a divisor is never zero.
      return unsupported = "pto: division by zero is target-defined in PTO (the CPU "
                           "simulator asserts); the case defines it",
             false;
    // abs of an integer is max(x, -x) (both wrap at the minimum, as the
    // case's abs does): tabs takes floats only.
    const OpKind ruled = base == OpKind::Abs && !isFloat(in) ? OpKind::Max : base;
    if (const std::string why = dtypeRule(ruled, in); !why.empty())
      return unsupported = "pto: " + tOpName(base) + " on A2/A3 takes " + why + ", not " +
                           std::string(dtypeName(in)),
             false;
    // pto-isa computes on one valid shape: "Valid shapes of all I/O tiles
    // should be the same", and a row (column) expand's broadcast operand has
    // the destination's valid rows (columns). The case model lets operands
    // be valid beyond the result (which is their intersection): those are
    // narrowed first (narrowed()); an operand valid on less than the result
    // cannot be.
    const TensorType &rt = c_.typeOf(op.results[0]);
    auto valid = [](const TensorType &t) {
      return t.valid.value_or(ValidShape{t.shape[0], t.shape[1], false});
    };
    const ValidShape want = valid(rt);
    for (size_t i = 0; i < op.operands.size(); ++i) {
      const ValidShape have = valid(c_.typeOf(op.operands[i]));
      const bool rowsMatter = !(opCategory(op.kind) == OpCategory::ColExpand && i == 1);
      const bool colsMatter = !(opCategory(op.kind) == OpCategory::RowExpand && i == 1);
      if ((rowsMatter && have.rows < want.rows) || (colsMatter && have.cols < want.cols))
        return unsupported = "pto: " + name + " operand " + std::to_string(i) + " is valid " +
                             std::to_string(have.rows) + "x" + std::to_string(have.cols) +
                             ", its result " + std::to_string(want.rows) + "x" +
                             std::to_string(want.cols) + " (PTO ops take one valid shape)",
               false;
    }
    if (opCategory(op.kind) == OpCategory::ColExpand && base != OpKind::Sub &&
        base != OpKind::Add && base != OpKind::Mul && base != OpKind::Div && base != OpKind::Max &&
        base != OpKind::Min)
      return unsupported = "pto: no t-op for " + name, false;
    return true;
  }
  case OpCategory::Compare: return unsupported = "pto: no tile op for " + name, false;
  case OpCategory::View:
    switch (op.kind) {
    case OpKind::Slice:
    case OpKind::Chunk:
    case OpKind::Reshape:
    case OpKind::IndexMap:
      if (blockOfInput(op) || tileWindow(op) || blockOfStaged(op))
        return true;
      // A column step moves other elements on the NPU than on the
      // simulator (TLOAD reads no column stride).
      return unsupported = "pto: a " + name +
                           " that is no block of rows of unit steps (the NPU's DMA moves "
                           "unit-stride rows)",
             false;
    case OpKind::Transpose:
      // TTRANS: row_major to row_major through a tmp tile, over the
      // source's valid shape; the result's is then the swapped one.
      return true;
    case OpKind::Broadcast:
    case OpKind::Squeeze:
    case OpKind::Unsqueeze:
#define NPF_HANDLED_CATEGORY View
#include "ir/OpCasesOutside.def"
      return unsupported = "pto: no tile op for " + name, false;
    }
    return false;
  case OpCategory::Source:
    switch (op.kind) {
    case OpKind::Input: return true;
    case OpKind::Const:
    case OpKind::Iota:
#define NPF_HANDLED_CATEGORY Source
#include "ir/OpCasesOutside.def"
      return unsupported = "pto: no tile op for " + name, false;
    }
    return false;
  case OpCategory::Other: break;
  }
  switch (op.kind) {
  case OpKind::FillPad: return true;
  case OpKind::Insert:
    // TINSERT takes vec -> vec tiles on A5 only; ptoas's A2/A3 verifier (the
    // arch the kernels are built for) takes acc -> mat.
    return unsupported = "pto: insert is tinsert, vec->vec on A5 only", false;
  case OpKind::Cast:
    if (isFloat(in) || isFloat(op.attrs.dtype))
      return true;
    return unsupported = "pto: integer casts have no tcvt form here", false;
  case OpKind::SetValidShape:
    // In place on the tile, or on a copy when the source is read again.
    return true;
  case OpKind::Select:
  case OpKind::MaskedFill:
  case OpKind::ReduceSum:
  case OpKind::ReduceMax:
  case OpKind::ReduceMin:
  case OpKind::ArgMax:
  case OpKind::TopK:
  case OpKind::Matmul:
  case OpKind::Gather:
  case OpKind::Concat:
  case OpKind::Pad:
  case OpKind::ReduceMean:
  case OpKind::AvgPool2d:
  case OpKind::MaxPool2d:
  case OpKind::Addmm:
  case OpKind::Conv2d:
#define NPF_HANDLED_CATEGORY Other
#include "ir/OpCasesOutside.def"
    return unsupported = "pto: no tile op for " + name, false;
  }
  return false; // unreachable: every OpKind is a case above
}

/// An R×1 value that is only ever the R×1 operand of row expands lives in
/// a col_major tile, which those take; every other tile is row_major, which
/// elementwise ops and the other expand operands require.
void Emitter::chooseLayouts() {
  std::map<ValueId, bool> onlyRowOperand;
  for (const Op &op : c_.ops)
    for (size_t i = 0; i < op.operands.size(); ++i) {
      const bool rowOperand = opCategory(op.kind) == OpCategory::RowExpand && i == 1;
      auto [it, fresh] = onlyRowOperand.emplace(op.operands[i], rowOperand);
      if (!fresh)
        it->second = it->second && rowOperand;
    }
  for (const auto &[v, only] : onlyRowOperand) {
    const TensorType &t = c_.typeOf(v);
    const ValueId value = v;
    const bool rowOperand = std::any_of(c_.ops.begin(), c_.ops.end(), [&](const Op &op) {
      return opCategory(op.kind) == OpCategory::RowExpand && op.operands[1] == value;
    });
    if (!rowOperand)
      continue;
    // pto-isa takes it col_major with the destination's valid rows (mode
    // 1), or row_major with one 32-byte block of valid columns (mode 2).
    // Only TLOAD makes a col_major tile here (t-ops write row_major ones),
    // so a loaded operand is read col_major where it can be: R > 1 (a
    // col_major tile's rows are whole blocks), and every row expand reading
    // it valid on all its rows. An input that other ops read too is loaded
    // twice. Every other R×1 operand is broadcast over a block first
    // (blockOperand).
    const bool loaded = c_.values[v].defOp >= 0 && c_.ops[c_.values[v].defOp].kind == OpKind::Input;
    const bool allRows = std::all_of(c_.ops.begin(), c_.ops.end(), [&](const Op &op) {
      return opCategory(op.kind) != OpCategory::RowExpand || op.operands[1] != value ||
             validOf(op.results[0]).rows == t.shape[0];
    });
    if (loaded && t.shape[0] > 1 && !t.valid && allRows)
      (only ? columnar_ : columnCopies_).insert(v);
  }
}

bool Emitter::run(std::string &out, std::string &unsupported) {
  for (const Op &op : c_.ops)
    if (!check(op, unsupported))
      return false;
  chooseLayouts();
  std::string params;
  std::vector<std::string> inputPtrs;
  int arg = 0;
  auto param = [&](const std::string &type) {
    const std::string p = "%arg" + std::to_string(arg++);
    params += (params.empty() ? "" : ", ") + p + ": " + type;
    return p;
  };
  for (const Op &op : c_.ops)
    if (op.kind == OpKind::Input)
      inputPtrs.push_back(param("!pto.ptr<" + ptoType(c_.typeOf(op.results[0]).dtype) + ">"));
  std::vector<std::string> outputPtrs;
  for (ValueId v : c_.outputs)
    outputPtrs.push_back(param("!pto.ptr<" + ptoType(c_.typeOf(v).dtype) + ">"));
  for (ValueId v : stagedValues())
    stagedPtrs_[v] = param("!pto.ptr<" + ptoType(c_.typeOf(v).dtype) + ">");
  std::map<size_t, std::pair<std::string, std::string>> validArgs;
  for (size_t i = 0; i < c_.ops.size(); ++i)
    if (c_.ops[i].kind == OpKind::SetValidShape && c_.ops[i].attrs.dynamic)
      validArgs[i] = {param("index"), param("index")};

  size_t input = 0;
  for (size_t i = 0; i < c_.ops.size(); ++i) {
    const Op &op = c_.ops[i];
    const ValueId r = op.results[0];
    const std::string x = op.operands.empty() ? "" : tile(op.operands[0]);
    const std::string xt = op.operands.empty() ? "" : tileType(op.operands[0]);
    switch (opCategory(op.kind)) {
    case OpCategory::Unary:
    case OpCategory::Binary:
    case OpCategory::RowExpand:
    case OpCategory::ColExpand:
    case OpCategory::Compare: break; // check() lets no compare through
    case OpCategory::View: {
      if (const std::optional<Block> block = blockOfInput(op)) {
        // The DMA moves the block from where it lies in the input.
        loadWhole(view(inputPtrs_.at(block->source), r, false, *block), r);
        continue;
      }
      if (const std::optional<Block> block = blockOfStaged(op)) {
        loadWhole(view(staged(block->source), r, false, *block), r);
        continue;
      }
      if (const std::optional<std::pair<int64_t, int64_t>> at = tileWindow(op)) {
        // A sub-tile view: no copy. Whole rows take the tile's pad columns
        // too; its valid shape is the value's.
        const TensorType &t = c_.typeOf(r);
        const int64_t cols =
            t.shape[1] == c_.typeOf(op.operands[0]).shape[1] ? tileCols(t, false) : t.shape[1];
        tiles_[r] = nextTile_++;
        pads_[r] = pads_.at(op.operands[0]);
        subTiles_.insert(r);
        body_ += "    " + tile(r) + " = pto.subset " + x + "[" + idx(at->first) + ", " +
                 idx(at->second) + "] sizes [" + std::to_string(t.shape[0]) + ", " +
                 std::to_string(cols) + "] : " + xt + "\n";
        continue;
      }
      // A transpose (check() lets no other view through).
      alloc(r, 0, true);
      const TensorType &t = c_.typeOf(r);
      const std::string tmp = scratchTile(r, t.shape[0], t.shape[1]);
      body_ += "    pto.ttrans ins(" + x + ", " + tmp + " : " + xt + ", " + tileType(r) +
               ") outs(" + tile(r) + " : " + tileType(r) + ")\n";
      narrowToValid(r);
      continue;
    }
    case OpCategory::Source:
      switch (op.kind) {
      case OpKind::Input: {
        inputPtrs_[r] = inputPtrs[input];
        loadWhole(view(inputPtrs[input++], r), r);
        if (columnCopies_.count(r)) {
          const std::string copy = "%t" + std::to_string(nextTile_);
          columnTiles_[r] = nextTile_++;
          const TensorType &t = c_.typeOf(r);
          const std::string pc = view(inputPtrs[input - 1], r);
          body_ += "    " + copy + " = pto.alloc_tile valid_row = " + idx(t.shape[0]) +
                   " valid_col = " + idx(t.shape[1]) + " : " + tileType(r, true) + "\n";
          body_ += "    pto.tload ins(" + pc + " : " + viewType(r) + ") outs(" + copy + " : " +
                   tileType(r, true) + ")\n";
        }
        continue;
      }
      case OpKind::Const: // check() lets neither through
      case OpKind::Iota:
#define NPF_HANDLED_CATEGORY Source
#include "ir/OpCasesOutside.def"
        break;
      }
      break;
    case OpCategory::Other:
      switch (op.kind) {
      case OpKind::SetValidShape: {
        const ValueId src = op.operands[0];
        const auto dyn = validArgs.find(i);
        const std::string rows = dyn != validArgs.end() ? dyn->second.first : idx(op.attrs.rows);
        const std::string cols = dyn != validArgs.end() ? dyn->second.second : idx(op.attrs.cols);
        // ptoas sets the valid shape of a tile it allocated, not of a
        // sub-tile ("requires a locally bound tile source").
        if (usedOnlyBy(src, op) && !subTiles_.count(src)) { // in place
          tiles_[r] = tiles_.at(src);
          pads_[r] = pads_.at(src);
        } else {
          // The source is read again, or a sub-tile: narrow a copy (TMOV,
          // vec to vec, over the source's valid shape).
          const TensorType &st = c_.typeOf(src);
          alloc(r, pads_.at(src), false,
                st.valid.value_or(ValidShape{st.shape[0], st.shape[1], false}));
          body_ += "    pto.tmov ins(" + x + " : " + xt + ") outs(" + tile(r) + " : " +
                   tileType(r) + ")\n";
        }
        body_ += "    pto.set_validshape " + tile(r) + ", " + rows + ", " + cols + " : " +
                 tileType(r) + "\n";
        continue;
      }
      case OpKind::FillPad: {
        // pad: 1 zero, 2 max, 3 min (0 is no padding).
        const int pad = op.attrs.pad == PadKind::Zero ? 1 : op.attrs.pad == PadKind::Max ? 2 : 3;
        alloc(r, pad);
        body_ += "    pto.tfillpad ins(" + x + " : " + xt + ") outs(" + tile(r) + " : " +
                 tileType(r) + ")\n";
        continue;
      }
      case OpKind::Cast:
        alloc(r);
        body_ += "    pto.tcvt ins(" + x + " {rmode = #pto<round_mode " +
                 roundMode(op.attrs.rounding) + ">} : " + xt + ") outs(" + tile(r) + " : " +
                 tileType(r) + ")\n";
        continue;
      case OpKind::Select: // check() lets none of these through
      case OpKind::MaskedFill:
      case OpKind::ReduceSum:
      case OpKind::ReduceMax:
      case OpKind::ReduceMin:
      case OpKind::ArgMax:
      case OpKind::TopK:
      case OpKind::Matmul:
      case OpKind::Gather:
      case OpKind::Insert:
      case OpKind::Concat:
      case OpKind::Pad:
      case OpKind::ReduceMean:
      case OpKind::AvgPool2d:
      case OpKind::MaxPool2d:
      case OpKind::Addmm:
      case OpKind::Conv2d:
#define NPF_HANDLED_CATEGORY Other
#include "ir/OpCasesOutside.def"
        break;
      }
      break;
    }
    const OpCategory cat = opCategory(op.kind);
    std::string name = tOpName(op.kind);
    if (cat == OpCategory::RowExpand)
      name = "trowexpand" + tOpName(expandBaseOp(op.kind)).substr(1);
    else if (cat == OpCategory::ColExpand)
      name = "tcolexpand" + tOpName(expandBaseOp(op.kind)).substr(1);
    // The result takes its first operand's pad kind: pto-isa's elementwise
    // ops need one tile type for all their tiles (ptoas accepts mixed pads,
    // a contract gap that a case with two differently padded operands still
    // finds).
    // Each operand as the op takes it: narrowed to the result's valid shape
    // in the dimensions that must agree, and a row expand's R×1 operand
    // col_major (mode 1) or broadcast over a block (mode 2).
    const ValidShape want = validOf(r);
    std::string ins, types;
    for (size_t i = 0; i < op.operands.size(); ++i) {
      const ValueId v = op.operands[i];
      std::pair<std::string, std::string> operand{tile(v), tileType(v)};
      const ValidShape have = validOf(v);
      if (cat == OpCategory::RowExpand && i == 1) {
        operand = columnar_.count(v) || columnTiles_.count(v) ? rowOperand(v)
                                                              : blockOperand(v, want.rows);
      } else if (cat == OpCategory::ColExpand && i == 1) {
        if (have.cols != want.cols)
          operand = narrowed(v, {have.rows, want.cols, false});
      } else if (have.rows != want.rows || have.cols != want.cols) {
        operand = narrowed(v, want);
      }
      ins += (i ? ", " : "") + operand.first;
      types += (i ? ", " : "") + operand.second;
    }
    alloc(r, pads_.at(op.operands[0]));
    if (op.kind == OpKind::Abs && !isFloat(c_.typeOf(r).dtype)) {
      // max(x, -x): the negation in a tile of its own.
      const std::string neg = scratchTile(r, want.rows, want.cols);
      body_ += "    pto.tneg ins(" + ins + " : " + types + ") outs(" + neg + " : " + types + ")\n";
      ins += ", " + neg, types += ", " + types, name = "tmax";
    }
    body_ += "    pto." + name + " ins(" + ins + " : " + types + ") outs(" + tile(r) + " : " +
             tileType(r) + ")\n";
  }
  for (size_t k = 0; k < c_.outputs.size(); ++k) {
    const ValueId v = c_.outputs[k];
    // TSTORE moves the tile's valid shape: into that part of the tensor
    // (the rest is undefined, and keeps the poison).
    const std::string pv = view(outputPtrs[k], v, true);
    body_ += "    pto.tstore ins(" + tile(v) + " : " + tileType(v) + ") outs(" + pv + " : " +
             viewType(v, true) + ")\n";
  }
  // Every tile lives in the 192 KiB vector buffer at once when ptoas places
  // them (counted as it allocates them, statically).
  int64_t bufferBytes = 0;
  std::set<int> counted;
  auto count = [&](ValueId v, int tileNo, bool column) {
    if (!counted.insert(tileNo).second)
      return; // an in-place set_validshape shares its source's tile
    const TensorType &t = c_.typeOf(v);
    bufferBytes += tileRows(t, column) * tileCols(t, column) * byteSize(t.dtype);
  };
  for (const auto &[v, tileNo] : tiles_)
    count(v, tileNo, columnar_.count(v) != 0);
  for (const auto &[v, tileNo] : columnTiles_)
    count(v, tileNo, true);
  for (const auto &[type, column] : extraTiles_)
    bufferBytes += tileRows(type, column) * tileCols(type, column) * byteSize(type.dtype);
  // Placed, only the tiles live at once share it.
  std::set<int64_t> addresses;
  if (placesTiles_)
    bufferBytes = placeTiles(body_, addresses);
  if (bufferBytes > kPtoVecBufferBytes)
    return unsupported = "pto: the tiles need " + std::to_string(bufferBytes) +
                         " bytes, more than the 192 KiB vector buffer",
           false;
  std::string consts;
  for (int64_t n : constants_)
    consts +=
        "    %c" + std::to_string(n) + " = arith.constant " + std::to_string(n) + " : index\n";
  for (int64_t a : addresses)
    consts += "    %ub" + std::to_string(a) + " = arith.constant " + std::to_string(a) + " : i64\n";
  out += "  func.func @" + name_ + "(" + params +
         ")\n"
         "      attributes {pto.entry, pto.kernel_kind = #pto.kernel_kind<vector>} {\n" +
         consts + body_ + "    return\n  }\n";
  return true;
}

} // namespace

bool emitPto(const Case &c, std::string &out, std::string &unsupported) {
  std::string functions;
  const bool chain = ptoIsChain(c);
  if (!chain) {
    if (!Emitter(c, "npf_kernel", ptoPlacesTiles(c)).run(functions, unsupported))
      return false;
  } else {
    if (std::set<ValueId>(c.outputs.begin(), c.outputs.end()).size() != c.outputs.size())
      return unsupported = "pto: a chain returns one value twice (one GM tensor per value)", false;
    // Each task a kernel of its own, in one module: ptoas assembles every
    // entry function, and their tiles share UB as tasks on one core would.
    for (const TaskOps &k : taskOps(c))
      if (!Emitter(taskAsCase(c, k, ptoTaskBoundary(c, k)), ptoTaskFunction(k.task),
                   ptoPlacesTiles(c))
               .run(functions, unsupported))
        return false;
  }
  out = "// Generated by npufuzz (backend/emit/PtoEmitter.h): PTO tile assembly.\n" +
        std::string(
            chain ? "// A chain: one entry function per task, taking a !pto.ptr per value it\n"
                    "// reads, then per value it hands on, then (rows, cols) index pairs for\n"
                    "// each runtime set_validshape of its ops, in op order.\n"
                  : "// Arguments: a !pto.ptr per input, then per output, then (rows, cols)\n"
                    "// index pairs for each runtime set_validshape, in op order.\n") +
        "module {\n" + functions + "}\n";
  return true;
}

std::vector<TensorType> ptoScratchTensors(const Case &c) {
  std::vector<TensorType> types;
  if (!ptoIsChain(c))
    for (ValueId v : Emitter(c, "npf_kernel").stagedValues())
      types.push_back(c.typeOf(v));
  return types;
}

std::vector<TensorType> ptoTaskScratchTensors(const Case &c, const TaskOps &k) {
  const Case task = taskAsCase(c, k, ptoTaskBoundary(c, k));
  std::vector<TensorType> types;
  for (ValueId v : Emitter(task, ptoTaskFunction(k.task)).stagedValues())
    types.push_back(task.typeOf(v));
  return types;
}

bool ptoPlacesTiles(const Case &c) { return ((c.dataSeed >> 2) & 1) != 0; }

bool ptoIsChain(const Case &c) { return !c.tasks.empty() && !taskOps(c).empty(); }

TaskBoundary ptoTaskBoundary(const Case &c, const TaskOps &k) {
  TaskBoundary b = taskBoundary(c, k);
  const std::vector<TaskOps> tasks = taskOps(c);
  if (tasks.empty() || tasks.front().task != k.task)
    return b;
  for (ValueId v : c.outputs)
    if (c.ops[c.values[v].defOp].kind == OpKind::Input &&
        std::find(b.handsOn.begin(), b.handsOn.end(), v) == b.handsOn.end()) {
      if (std::find(b.reads.begin(), b.reads.end(), v) == b.reads.end())
        b.reads.push_back(v);
      b.handsOn.push_back(v);
    }
  return b;
}

std::string ptoTaskFunction(int32_t task) { return "npf_task" + std::to_string(task); }

} // namespace npufuzz
