//===- backend/pytorchsim/InductorIndex.h - An index Inductor asked for -*- C++ -*-===//
//
// The index expression of one load or store as Inductor's scheduler node
// gave it to PyTorchSim's kernel code (MLIRKernel.load, store,
// store_reduction), over the kernel's iteration variables `index0`,
// `index1`, ..., with Inductor's own integer functions. The adapter writes
// it as a tree in JSON (tools/adapters/pytorchsim_server.py, `_index_tree`):
//
//   7                                   an integer
//   "index1"                            a variable
//   ["add", A, B, ...], ["mul", A, B, ...]
//   ["floordiv", A, B]                  FloorDiv: floor(A / B)
//   ["modular_indexing", X, D, M]       ModularIndexing: floor(X / D) mod M
//   ["mod", A, B]                       sympy's Mod, the sign of B's
//   ["min", A, B, ...], ["max", A, B, ...]
//
// Evaluated exactly, in 64 bits, at an iteration point: the element the
// program wants at that point, which the DMA map oracle compares with the
// element a DMA moved there.
//
//===----------------------------------------------------------------------===//
#ifndef NPUFUZZ_BACKEND_PYTORCHSIM_INDUCTORINDEX_H
#define NPUFUZZ_BACKEND_PYTORCHSIM_INDUCTORINDEX_H

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace llvm::json {
class Value;
} // namespace llvm::json

namespace npufuzz {

class InductorIndex {
public:
  /// Reads the adapter's tree; false with `error` saying what it could not
  /// read.
  static bool parse(const llvm::json::Value &tree, InductorIndex &out, std::string &error);
  /// The same from the tree's JSON text.
  static bool parseText(const std::string &json, InductorIndex &out, std::string &error);

  /// The index at `point` (each variable's value); nothing when a variable
  /// has none there or a division is by zero.
  std::optional<int64_t> evaluate(const std::map<std::string, int64_t> &point) const;

  /// The variables it reads, sorted.
  std::vector<std::string> variables() const;
  /// Whether it divides (floordiv, modular_indexing or mod): a floor/mod
  /// index, which a tile's affine strides cannot always follow.
  bool divides() const;
  /// As Inductor prints it, near enough: for findings.
  std::string text() const;

private:
  enum class Kind : uint8_t {
    Integer,
    Variable,
    Add,
    Mul,
    FloorDiv,
    ModularIndexing,
    Mod,
    Min,
    Max
  };
  struct Node {
    Kind kind = Kind::Integer;
    int64_t value = 0;
    std::string name;
    std::vector<uint32_t> operands;
  };
  bool read(const llvm::json::Value &v, uint32_t &at, std::string &error, int depth);
  std::optional<int64_t> at(uint32_t node, const std::map<std::string, int64_t> &point) const;
  std::string textOf(uint32_t node) const;
  std::vector<Node> nodes; ///< the root last
};

} // namespace npufuzz

#endif // NPUFUZZ_BACKEND_PYTORCHSIM_INDUCTORINDEX_H
