//===- oracles/DmaFootprint.cpp - What a program's DMAs must and must not touch -===//
#include "oracles/DmaFootprint.h"

#include <algorithm>
#include <vector>

namespace npufuzz {

namespace {
const char *roleName(DmaTrace::Storage::Role r) {
  switch (r) {
  case DmaTrace::Storage::Role::Input: return "input";
  case DmaTrace::Storage::Role::Output: return "output";
  case DmaTrace::Storage::Role::Temporary: return "temporary";
  }
  return "?";
}

std::string storageName(const DmaTrace::Storage &s) {
  return std::string(roleName(s.role)) +
         (s.index >= 0 ? " " + std::to_string(s.index) : std::string());
}

std::string dmaName(const DmaTrace::Dma &d) {
  return d.kernel + " DMA #" + std::to_string(d.number) + " (" +
         (d.write ? "store of " : "load of ") + d.argument + ")";
}

std::string indexText(const std::vector<int64_t> &index) {
  std::string s = "[";
  for (size_t i = 0; i < index.size(); ++i)
    s += (i ? ", " : "") + std::to_string(index[i]);
  return s + "]";
}
} // namespace

std::optional<FootprintFinding> checkDmaFootprint(const DmaTrace &trace) {
  const bool complete = trace.undecoded.empty();
  std::vector<std::vector<uint8_t>> defined(trace.storages.size());
  for (size_t s = 0; s < trace.storages.size(); ++s)
    defined[s].assign(static_cast<size_t>(std::max<int64_t>(0, trace.storages[s].bytes)),
                      trace.storages[s].role == DmaTrace::Storage::Role::Input);
  for (const DmaTrace::Access &a : trace.accesses) {
    const DmaTrace::Dma &d = trace.dmas[a.dma];
    const DmaTrace::Storage &s = trace.storages[a.storage];
    const std::string where =
        std::string(d.write ? "memref.dma_start store" : "memref.dma_start load") + " | " +
        roleName(s.role);
    const bool outsideArgument = a.element < 0 || a.element >= a.argumentElements;
    const bool outsideStorage = a.byte < 0 || a.byte + a.elementBytes > s.bytes;
    if (outsideArgument || outsideStorage) {
      FootprintFinding f;
      f.verdict = d.write ? VerdictKind::OutOfBoundsWrite : VerdictKind::OutOfBoundsRead;
      f.text = dmaName(d) + " " + (d.write ? "writes" : "reads") + " element " +
               std::to_string(a.element) + " of " + d.argument + ", which has " +
               std::to_string(a.argumentElements) +
               (outsideArgument ? "" : " but whose storage (") +
               (outsideArgument ? "" : storageName(s) + ") ends before it") + ": " + d.text;
      f.where = where;
      return f;
    }
    uint8_t *bytes = defined[a.storage].data() + a.byte;
    if (d.write) {
      std::fill(bytes, bytes + a.elementBytes, 1);
      continue;
    }
    if (!complete)
      continue;
    for (uint32_t b = 0; b < a.elementBytes; ++b)
      if (!bytes[b]) {
        FootprintFinding f;
        f.verdict = VerdictKind::UninitializedRead;
        f.text = dmaName(d) + " reads element " + std::to_string(a.element) + " of " + d.argument +
                 " (" + storageName(s) + "), which nothing wrote before: " + d.text;
        f.where = where;
        return f;
      }
  }
  if (!complete)
    return std::nullopt;
  for (size_t k = 0; k < trace.outputs.size(); ++k) {
    const DmaTrace::View &v = trace.outputs[k];
    const std::vector<uint8_t> &bytes = defined[v.storage];
    size_t missing = 0, total = 0;
    std::vector<int64_t> first;
    std::vector<int64_t> i(v.shape.size(), 0);
    bool empty = false;
    for (int64_t n : v.shape)
      empty |= n <= 0;
    while (!empty) {
      int64_t at = v.byteOffset;
      for (size_t d = 0; d < i.size(); ++d)
        at += i[d] * v.strides[d] * v.elementBytes;
      bool written = at >= 0 && at + v.elementBytes <= static_cast<int64_t>(bytes.size());
      for (uint32_t b = 0; written && b < v.elementBytes; ++b)
        written = bytes[at + b];
      ++total;
      if (!written && missing++ == 0)
        first = i;
      size_t d = i.size();
      while (d > 0 && ++i[d - 1] == v.shape[d - 1])
        i[--d] = 0;
      if (d == 0)
        break;
    }
    if (missing) {
      FootprintFinding f;
      f.verdict = VerdictKind::UnwrittenOutput;
      f.text = "output " + std::to_string(k) + ": " + std::to_string(missing) + " of " +
               std::to_string(total) + " elements never written by any DMA, first " +
               indexText(first);
      f.where = "memref.dma_start store | " + std::string(roleName(trace.storages[v.storage].role));
      return f;
    }
  }
  return std::nullopt;
}

} // namespace npufuzz
