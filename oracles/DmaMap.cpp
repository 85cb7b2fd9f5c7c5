//===- oracles/DmaMap.cpp - Which element each DMA slot moves -------------===//
#include "oracles/DmaMap.h"

#include <climits>

namespace npufuzz {

namespace {
std::string listText(const std::vector<int64_t> &v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}
} // namespace

std::optional<FootprintFinding> checkDmaMap(const DmaTrace &trace) {
  if (trace.wrongMaps.empty())
    return std::nullopt;
  const DmaTrace::WrongMap &w = trace.wrongMaps.front();
  const DmaTrace::Dma &d = trace.dmas[w.dma];
  FootprintFinding f;
  f.verdict = VerdictKind::WrongDmaElement;
  f.text = d.kernel + " DMA #" + std::to_string(d.number) + " (" +
           (d.write ? "store of " : "load of ") + d.argument + ") " +
           (d.write ? "stores tile slot " : "loads into tile slot ") + listText(w.slot) + " (" +
           w.point + ") element " + std::to_string(w.moved) + " of " + d.argument +
           ", where the index asked for, " + w.index + ", wants element " +
           (w.wanted == INT64_MIN ? std::string("(none: it does not evaluate there)")
                                  : std::to_string(w.wanted)) +
           "; " + std::to_string(w.wrongSlots) + " of " + std::to_string(w.slots) +
           " slots wrong: " + d.text;
  f.where = std::string(d.write ? "memref.dma_start store" : "memref.dma_start load") + " | " +
            (w.indexDivides ? "floor/mod index" : "affine index");
  return f;
}

std::optional<FootprintFinding> checkDmaTrace(const DmaTrace &trace) {
  if (std::optional<FootprintFinding> f = checkDmaMap(trace))
    return f;
  return checkDmaFootprint(trace);
}

} // namespace npufuzz
