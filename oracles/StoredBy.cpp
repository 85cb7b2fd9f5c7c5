//===- oracles/StoredBy.cpp - The code that computed a wrong element ------===//
#include "oracles/StoredBy.h"
#include "oracles/Signature.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <sstream>

namespace npufuzz {

std::string storedElementComputedBy(const DmaTrace &trace, size_t output, int64_t element) {
  if (output >= trace.outputs.size() || element < 0)
    return "";
  const DmaTrace::View &view = trace.outputs[output];
  // The element's byte in its storage, through the view's strides.
  int64_t offset = 0, rest = element;
  for (size_t d = view.shape.size(); d-- > 0;) {
    if (view.shape[d] <= 0)
      return "";
    offset += (rest % view.shape[d]) * view.strides[d];
    rest /= view.shape[d];
  }
  const int64_t byte = view.byteOffset + offset * static_cast<int64_t>(view.elementBytes);
  const DmaTrace::Access *last = nullptr;
  for (const DmaTrace::Access &a : trace.accesses)
    if (a.storage == view.storage && trace.dmas[a.dma].write && a.byte <= byte &&
        byte < a.byte + static_cast<int64_t>(a.elementBytes))
      last = &a;
  return last ? trace.dmas[last->dma].computedBy : "";
}

std::string withComputedBy(const std::string &where, const std::string &computedBy) {
  return computedBy.empty() ? where : where + kComputedBy + computedBy;
}

bool computedWith(const std::string &where, const std::vector<std::string> &ops) {
  const size_t at = where.find(kComputedBy);
  if (at == std::string::npos || ops.empty())
    return false;
  const std::vector<std::string> path = opsOfLine(where.substr(at + std::strlen(kComputedBy)));
  return std::all_of(ops.begin(), ops.end(), [&](const std::string &op) {
    return std::any_of(path.begin(), path.end(), [&](const std::string &on) {
      // `arith.uitofp i32` names `arith.uitofp i32>f32`.
      return on.rfind(op, 0) == 0 &&
             (on.size() == op.size() || on[op.size()] == ' ' || on[op.size()] == '>');
    });
  });
}

std::vector<std::string> opsOfLine(const std::string &text) {
  std::vector<std::string> ops;
  std::string rest = text;
  for (size_t comma; (comma = rest.find(',')) != std::string::npos; rest.erase(0, comma + 1))
    ops.push_back(rest.substr(0, comma));
  ops.push_back(rest);
  for (std::string &op : ops) {
    // Words single-spaced, as the path names them.
    std::istringstream words(op);
    std::string word, normal;
    while (words >> word)
      normal += (normal.empty() ? "" : " ") + word;
    if (normal.empty())
      return {};
    op = normal;
  }
  return ops;
}

bool knownByComputation(const std::string &signatureText, const std::set<std::string> &known) {
  const std::optional<Signature> s = parseSignatureText(signatureText);
  if (!s)
    return false;
  const std::string prefix =
      std::string(kComputedByWord) + " " + std::string(verdictName(s->kind)) + " ";
  for (auto it = known.lower_bound(prefix); it != known.end() && it->rfind(prefix, 0) == 0; ++it)
    if (computedWith(s->where, opsOfLine(it->substr(prefix.size()))))
      return true;
  return false;
}

bool knownUnreduced(const std::string &id, const std::string &signatureText,
                    const std::set<std::string> &known) {
  return known.count(id) != 0 || knownByComputation(signatureText, known);
}

} // namespace npufuzz
