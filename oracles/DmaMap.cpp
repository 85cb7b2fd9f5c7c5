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
  const std::string dma = d.kernel + " DMA #" + std::to_string(d.number) + " (" +
                          (d.write ? "store of " : "load of ") + d.argument + ")";
  const std::string wants = w.wanted == INT64_MIN
                                ? std::string("(none: it does not evaluate there)")
                                : std::to_string(w.wanted);
  if (!w.asSet)
    f.text = dma + (d.write ? " stores tile slot " : " loads into tile slot ") + listText(w.slot) +
             " (" + w.point + ") element " + std::to_string(w.moved) + " of " + d.argument +
             ", where the index asked for, " + w.index + ", wants element " + wants;
  else if (w.moved != INT64_MIN)
    f.text = dma + (d.write ? " stores tile slot " : " loads into tile slot ") + listText(w.slot) +
             " element " + std::to_string(w.moved) + " of " + d.argument +
             ", which the index asked for, " + w.index + ", wants at no point of the tile";
  else
    f.text = dma + " moves no slot's element " + wants + " of " + d.argument +
             ", which the index asked for, " + w.index + ", wants at " + w.point;
  f.text += "; " + std::to_string(w.wrongSlots) + " of " + std::to_string(w.slots) +
            " slots wrong: " + d.text;
  // A tile judged as a set is a layout the slot-by-slot judgment does not
  // reach (a floor-split tile): its wrong map is a root of its own.
  f.where = std::string(d.write ? "memref.dma_start store" : "memref.dma_start load") + " | " +
            (w.indexDivides ? "floor/mod index" : "affine index") +
            (w.asSet       ? " | tile of another rank"
             : w.baseWrong ? " | first slot wrong"
                           : " | strides wrong");
  return f;
}

std::optional<FootprintFinding> checkDmaTrace(const DmaTrace &trace) {
  if (std::optional<FootprintFinding> f = checkDmaMap(trace))
    return f;
  return checkDmaFootprint(trace);
}

} // namespace npufuzz
