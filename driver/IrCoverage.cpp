//===- driver/IrCoverage.cpp - Which MLIR the user's passes were given ----===//
#include "driver/IrCoverage.h"
#include "driver/JsonFile.h"

#include "backend/mlir/MlirEmitter.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <set>

namespace npufuzz {

void IrCoverage::add(const std::vector<std::string> &entryOps,
                     const std::vector<std::string> &passesThatChanged) {
  if (entryOps.empty())
    return;
  ++cases;
  std::set<std::string> names;
  for (const std::string &op : entryOps) {
    ++ops[op];
    names.insert(op.substr(0, op.find(' ')));
  }
  for (const std::string &name : names)
    ++opNames[name];
  for (const std::string &pass : passesThatChanged)
    ++changedBy[pass];
}

void IrCoverage::add(const IrCoverage &other) {
  cases += other.cases;
  for (const auto &[k, n] : other.ops)
    ops[k] += n;
  for (const auto &[k, n] : other.opNames)
    opNames[k] += n;
  for (const auto &[k, n] : other.changedBy)
    changedBy[k] += n;
}

llvm::json::Object IrCoverage::toJson() const {
  return llvm::json::Object{{"cases", static_cast<int64_t>(cases)},
                            {"ops", countsJson(ops)},
                            {"op_names", countsJson(opNames)},
                            {"changed_by", countsJson(changedBy)}};
}

IrCoverage IrCoverage::fromJson(const llvm::json::Object *o) {
  IrCoverage c;
  if (!o)
    return c;
  c.cases = static_cast<uint64_t>(o->getInteger("cases").value_or(0));
  readCounts(o->getObject("ops"), c.ops);
  readCounts(o->getObject("op_names"), c.opNames);
  readCounts(o->getObject("changed_by"), c.changedBy);
  return c;
}

std::string formatIrCoverage(const IrCoverage &c) {
  std::string s = llvm::formatv("{0} cases reached the user passes' entry\n", c.cases).str();
  auto table = [&](const char *title, const std::map<std::string, uint64_t> &counts) {
    std::vector<std::pair<std::string, uint64_t>> rows(counts.begin(), counts.end());
    // Most frequent first; ties by name, so the output is the same anywhere.
    std::sort(rows.begin(), rows.end(), [](const auto &a, const auto &b) {
      return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    s += llvm::formatv("\n{0} ({1}):\n", title, rows.size()).str();
    for (const auto &[key, n] : rows)
      s += llvm::formatv("  {0,6:F1}%  {1,8}  {2}\n", c.cases ? 100.0 * n / c.cases : 0.0, n, key)
               .str();
  };
  // A mask bug shows only where a mask ends before its buffer does.
  const auto masked = c.opNames.find("vector.create_mask");
  const auto inside = c.ops.find(kMaskInsideBufferEntry);
  const uint64_t withMasks = masked == c.opNames.end() ? 0 : masked->second;
  const uint64_t withInside = inside == c.ops.end() ? 0 : inside->second;
  s += llvm::formatv("masks: {0} of the {1} cases with a vector.create_mask ({2:F1}%) have one "
                     "that may end inside its buffer\n",
                     withInside, withMasks, withMasks ? 100.0 * withInside / withMasks : 0.0)
           .str();
  table("op names at the entry (any element type), share of cases", c.opNames);
  table("ops at the entry, share of cases", c.ops);
  table("user passes that changed the IR, share of cases", c.changedBy);
  return s;
}

} // namespace npufuzz
