//===- backend/pytorchsim/InductorIndex.cpp - An index Inductor asked for -===//
#include "backend/pytorchsim/InductorIndex.h"

#include "llvm/Support/JSON.h"

#include <algorithm>
#include <set>

namespace npufuzz {

namespace {
/// Python's floor division and modulo (the remainder has the divisor's
/// sign), as FloorDiv, ModularIndexing and Mod compute them.
int64_t floorDiv(int64_t a, int64_t b) {
  const int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
int64_t floorMod(int64_t a, int64_t b) { return a - b * floorDiv(a, b); }

} // namespace

bool InductorIndex::parse(const llvm::json::Value &tree, InductorIndex &out, std::string &error) {
  out.nodes.clear();
  uint32_t root = 0;
  return out.read(tree, root, error, 0);
}

bool InductorIndex::parseText(const std::string &json, InductorIndex &out, std::string &error) {
  llvm::Expected<llvm::json::Value> v = llvm::json::parse(json);
  if (!v) {
    error = "an index that is not JSON: " + llvm::toString(v.takeError());
    return false;
  }
  return parse(*v, out, error);
}

bool InductorIndex::read(const llvm::json::Value &v, uint32_t &at, std::string &error, int depth) {
  if (depth > 64) {
    error = "an index nested deeper than 64";
    return false;
  }
  Node n;
  if (std::optional<int64_t> i = v.getAsInteger()) {
    n.value = *i;
  } else if (std::optional<llvm::StringRef> s = v.getAsString()) {
    n.kind = Kind::Variable;
    n.name = s->str();
  } else if (const llvm::json::Array *a = v.getAsArray()) {
    const std::optional<llvm::StringRef> op = a->empty() ? std::nullopt : (*a)[0].getAsString();
    static const struct {
      const char *name;
      Kind kind;
      size_t minOperands, maxOperands;
    } kOperators[] = {
        {"add", Kind::Add, 1, 64},          {"mul", Kind::Mul, 1, 64},
        {"floordiv", Kind::FloorDiv, 2, 2}, {"modular_indexing", Kind::ModularIndexing, 3, 3},
        {"mod", Kind::Mod, 2, 2},           {"min", Kind::Min, 1, 64},
        {"max", Kind::Max, 1, 64}};
    bool known = false;
    for (const auto &o : kOperators)
      if (op && *op == o.name) {
        known = true;
        n.kind = o.kind;
        if (a->size() - 1 < o.minOperands || a->size() - 1 > o.maxOperands) {
          error = std::string("an index's ") + o.name + " with " + std::to_string(a->size() - 1) +
                  " operands";
          return false;
        }
      }
    if (!known) {
      error =
          "an index operator npufuzz does not know: " + (op ? op->str() : std::string("(no name)"));
      return false;
    }
    for (size_t k = 1; k < a->size(); ++k) {
      uint32_t operand = 0;
      if (!read((*a)[k], operand, error, depth + 1))
        return false;
      n.operands.push_back(operand);
    }
  } else {
    error = "an index that is neither an integer, a variable nor an operator";
    return false;
  }
  at = static_cast<uint32_t>(nodes.size());
  nodes.push_back(std::move(n));
  return true;
}

std::optional<int64_t> InductorIndex::evaluate(const std::map<std::string, int64_t> &point) const {
  if (nodes.empty())
    return std::nullopt;
  return at(static_cast<uint32_t>(nodes.size() - 1), point);
}

std::optional<int64_t> InductorIndex::at(uint32_t node,
                                         const std::map<std::string, int64_t> &point) const {
  const Node &n = nodes[node];
  std::vector<int64_t> v;
  for (uint32_t o : n.operands) {
    std::optional<int64_t> x = at(o, point);
    if (!x)
      return std::nullopt;
    v.push_back(*x);
  }
  int64_t r = 0;
  switch (n.kind) {
  case Kind::Integer: return n.value;
  case Kind::Variable: {
    auto it = point.find(n.name);
    if (it == point.end())
      return std::nullopt;
    return it->second;
  }
  case Kind::Add:
    for (int64_t x : v)
      if (__builtin_add_overflow(r, x, &r))
        return std::nullopt;
    return r;
  case Kind::Mul:
    r = 1;
    for (int64_t x : v)
      if (__builtin_mul_overflow(r, x, &r))
        return std::nullopt;
    return r;
  case Kind::FloorDiv:
    if (v[1] == 0 || (v[0] == INT64_MIN && v[1] == -1))
      return std::nullopt;
    return floorDiv(v[0], v[1]);
  case Kind::ModularIndexing:
    if (v[1] == 0 || v[2] == 0 || (v[0] == INT64_MIN && v[1] == -1))
      return std::nullopt;
    return floorMod(floorDiv(v[0], v[1]), v[2]);
  case Kind::Mod:
    if (v[1] == 0 || (v[0] == INT64_MIN && v[1] == -1))
      return std::nullopt;
    return floorMod(v[0], v[1]);
  case Kind::Min: return *std::min_element(v.begin(), v.end());
  case Kind::Max: return *std::max_element(v.begin(), v.end());
  }
  return std::nullopt;
}

std::vector<std::string> InductorIndex::variables() const {
  std::set<std::string> names;
  for (const Node &n : nodes)
    if (n.kind == Kind::Variable)
      names.insert(n.name);
  return {names.begin(), names.end()};
}

bool InductorIndex::divides() const {
  return std::any_of(nodes.begin(), nodes.end(), [](const Node &n) {
    return n.kind == Kind::FloorDiv || n.kind == Kind::ModularIndexing || n.kind == Kind::Mod;
  });
}

std::string InductorIndex::text() const {
  return nodes.empty() ? std::string() : textOf(static_cast<uint32_t>(nodes.size() - 1));
}

std::string InductorIndex::textOf(uint32_t node) const {
  const Node &n = nodes[node];
  auto list = [&](const char *separator) {
    std::string s;
    for (size_t k = 0; k < n.operands.size(); ++k)
      s += (k ? separator : "") + textOf(n.operands[k]);
    return s;
  };
  switch (n.kind) {
  case Kind::Integer: return std::to_string(n.value);
  case Kind::Variable: return n.name;
  case Kind::Add: return "(" + list(" + ") + ")";
  case Kind::Mul: return list("*");
  case Kind::FloorDiv: return "FloorDiv(" + list(", ") + ")";
  case Kind::ModularIndexing: return "ModularIndexing(" + list(", ") + ")";
  case Kind::Mod: return "Mod(" + list(", ") + ")";
  case Kind::Min: return "Min(" + list(", ") + ")";
  case Kind::Max: return "Max(" + list(", ") + ")";
  }
  return "?";
}

} // namespace npufuzz
