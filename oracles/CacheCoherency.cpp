//===- oracles/CacheCoherency.cpp - Each core's data cache over GM --------===//
#include "oracles/CacheCoherency.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <tuple>
#include <utility>

namespace npufuzz {

std::string_view CoherenceFinding::verdict() const {
  switch (kind) {
  case Kind::StaleRead: return "stale-read";
  case Kind::LostWrite: return "lost-write";
  }
  return "?";
}

namespace {
constexpr size_t kNone = std::numeric_limits<size_t>::max();
/// A block of a task: the core that runs it.
using Core = std::pair<int, int>;

Core coreOf(const TraceEvent &e) { return {e.task, e.block}; }

std::string_view causeName(CoherenceFinding::Cause c) {
  switch (c) {
  case CoherenceFinding::Cause::NoDcci: return "no dcci";
  case CoherenceFinding::Cause::NoDsb: return "no dsb";
  case CoherenceFinding::Cause::Cached: return "cached";
  case CoherenceFinding::Cause::SharedLine: return "shared line";
  }
  return "?";
}

/// `STORE (S, task 0 block 1, line 12)`, or `the host`.
std::string describe(const TraceEvent &e) {
  if (e.kind == TraceEvent::Kind::HostRead)
    return "the host";
  std::string s = eventKindName(e) + " (" + std::string(pipeName(e.pipe)) + ", task " +
                  std::to_string(e.task) + " block " + std::to_string(e.block);
  if (e.line > 0)
    s += ", line " + std::to_string(e.line);
  return s + ")";
}

/// A line in one core's cache.
struct CachedLine {
  std::vector<size_t> fetched; ///< each byte's GM version when it was fetched
  std::vector<size_t> storeOf; ///< the store that dirtied each byte, or kNone
};

/// A line of GM.
struct GmLine {
  /// The write whose value each byte holds (kNone: the host's).
  std::vector<size_t> version;
  /// The dcci that pushed each byte with no dsb after it yet, or kNone.
  std::vector<size_t> unfencedBy;
};

/// What one block of a task flushed of one line: each byte's store, or
/// kNone.
struct BlockFlushes {
  std::vector<size_t> storeOf;
  size_t flushStore = kNone; ///< the first store it flushed
};

/// A DMA write: GM bytes [begin, end) by trace event `event`.
struct DmaWrite {
  uint64_t begin = 0, end = 0;
  size_t event = 0;
};

class CoherenceModel {
public:
  CoherenceModel(const std::vector<TraceEvent> &trace, uint64_t lineBytes)
      : trace(trace), lineBytes(lineBytes) {}

  std::vector<CoherenceFinding> run() {
    for (size_t i = 0; i < trace.size(); ++i)
      step(i);
    findLostWrites();
    return std::move(findings);
  }

private:
  const std::vector<TraceEvent> &trace;
  const uint64_t lineBytes;
  std::map<uint64_t, GmLine> gm;
  std::map<uint64_t, std::map<Core, CachedLine>> cached;
  std::map<Core, std::vector<uint64_t>> unfencedLines;
  /// Flushes by task, line and block; DMA writes by task and block. Lost
  /// writes are looked for on flushed lines only, which a campaign's
  /// kernels have few of beside their DMA traffic.
  std::map<int, std::map<uint64_t, std::map<int, BlockFlushes>>> flushes;
  std::map<int, std::map<int, std::vector<DmaWrite>>> dmaWrites;
  /// What was reported: a stale read once for each line it reads, a lost
  /// write once for each pair of writes.
  std::set<std::tuple<CoherenceFinding::Kind, size_t, uint64_t, size_t>> seen;
  std::vector<CoherenceFinding> findings;

  GmLine &gmLine(uint64_t line) {
    GmLine &g = gm[line];
    if (g.version.empty()) {
      g.version.assign(lineBytes, kNone);
      g.unfencedBy.assign(lineBytes, kNone);
    }
    return g;
  }

  BlockFlushes &blockFlushes(const Core &core, uint64_t line) {
    BlockFlushes &f = flushes[core.first][line][core.second];
    if (f.storeOf.empty())
      f.storeOf.assign(lineBytes, kNone);
    return f;
  }

  /// Calls f(line, first, last) for each line [begin, end) touches, with
  /// the byte offsets [first, last) inside it.
  template <typename F> void forEachLine(uint64_t begin, uint64_t end, F f) {
    for (uint64_t line = begin / lineBytes * lineBytes; line < end; line += lineBytes)
      f(line, std::max(begin, line) - line, std::min(end, line + lineBytes) - line);
  }

  void report(CoherenceFinding::Kind kind, CoherenceFinding::Cause cause, size_t write, size_t read,
              uint64_t line) {
    const size_t pair = kind == CoherenceFinding::Kind::LostWrite ? write : 0;
    if (!seen.insert({kind, read, line, pair}).second)
      return;
    CoherenceFinding f;
    f.kind = kind;
    f.cause = cause;
    f.write = write;
    f.read = read;
    f.line = line;
    char hex[32];
    std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(line));
    const std::string lineText = "the GM line at " + std::string(hex);
    const TraceEvent &w = trace[write], &r = trace[read];
    switch (kind) {
    case CoherenceFinding::Kind::StaleRead:
      f.text =
          describe(r) + " reads " + lineText + ", which " + describe(w) +
          (cause == CoherenceFinding::Cause::NoDcci ? " left in its core's data cache (no dcci)"
           : cause == CoherenceFinding::Cause::NoDsb
               ? " pushed out by a dcci with no dsb before its task's end"
               : " wrote by DMA after the reader's core cached the line (no dcci between)");
      break;
    case CoherenceFinding::Kind::LostWrite:
      f.text = describe(w) + " and " + describe(r) + " write different bytes of " + lineText +
               " and the second's core flushes the whole line, so the last to flush wins";
      break;
    }
    findings.push_back(std::move(f));
  }

  /// A read of GM bytes [first, last) of `line` by event `i` straight from
  /// GM (DMA, a scalar load that misses, the host).
  void readGm(size_t i, uint64_t line, uint64_t first, uint64_t last) {
    const TraceEvent &r = trace[i];
    const bool host = r.kind == TraceEvent::Kind::HostRead;
    // Whether the reader is ordered after a write of `writer`'s core: a
    // later task's blocks and the host are; the writer's own DMA reads
    // GM, not its cache; another block of the same task is a race.
    const auto after = [&](const TraceEvent &writer) {
      return host || writer.task != r.task ||
             (writer.block == r.block && r.kind == TraceEvent::Kind::Instruction &&
              !r.scalarGmAccess());
    };
    if (auto it = cached.find(line); it != cached.end())
      for (const auto &[core, copy] : it->second)
        for (uint64_t b = first; b < last; ++b)
          if (size_t s = copy.storeOf[b]; s != kNone && after(trace[s]))
            report(CoherenceFinding::Kind::StaleRead, CoherenceFinding::Cause::NoDcci, s, i, line);
    if (auto it = gm.find(line); it != gm.end())
      for (uint64_t b = first; b < last; ++b)
        if (size_t d = it->second.unfencedBy[b]; d != kNone && (host || trace[d].task != r.task))
          report(CoherenceFinding::Kind::StaleRead, CoherenceFinding::Cause::NoDsb,
                 it->second.version[b], i, line);
  }

  CachedLine &fetch(const Core &core, uint64_t line) {
    CachedLine &copy = cached[line][core];
    if (copy.fetched.empty()) {
      copy.fetched = gmLine(line).version;
      copy.storeOf.assign(lineBytes, kNone);
    }
    return copy;
  }

  void scalarAccess(size_t i, const MemoryAccess &a) {
    const Core core = coreOf(trace[i]);
    forEachLine(a.begin, a.end, [&](uint64_t line, uint64_t first, uint64_t last) {
      auto hit = cached[line].find(core);
      if (a.write) {
        CachedLine &copy = hit != cached[line].end() ? hit->second : fetch(core, line);
        std::fill(copy.storeOf.begin() + first, copy.storeOf.begin() + last, i);
        return;
      }
      if (hit == cached[line].end()) {
        readGm(i, line, first, last);
        fetch(core, line);
        return;
      }
      // A hit: bytes of the copy that GM has since changed under it. Only
      // the core's own DMA can have, in a trace that runs one block at a
      // time; another block's writes are a race.
      const GmLine &g = gmLine(line);
      for (uint64_t b = first; b < last; ++b)
        if (size_t v = g.version[b]; hit->second.storeOf[b] == kNone &&
                                     v != hit->second.fetched[b] && v != kNone &&
                                     coreOf(trace[v]) == core && !trace[v].scalarGmAccess())
          report(CoherenceFinding::Kind::StaleRead, CoherenceFinding::Cause::Cached, v, i, line);
    });
  }

  void dmaAccess(size_t i, const MemoryAccess &a) {
    const Core core = coreOf(trace[i]);
    if (a.write)
      dmaWrites[core.first][core.second].push_back({a.begin, a.end, i});
    forEachLine(a.begin, a.end, [&](uint64_t line, uint64_t first, uint64_t last) {
      if (!a.write) {
        readGm(i, line, first, last);
        return;
      }
      // Only lines a core has cached or flushed keep versions: a line
      // fetched later takes what GM holds then, whoever wrote it.
      auto it = gm.find(line);
      if (it == gm.end())
        return;
      for (uint64_t b = first; b < last; ++b) {
        it->second.version[b] = i;
        it->second.unfencedBy[b] = kNone;
      }
    });
  }

  /// dcci: each line of the core's cache in the range is written back
  /// whole when dirty, then dropped.
  void dcci(size_t i) {
    const Core core = coreOf(trace[i]);
    const MemoryAccess &a = trace[i].accesses.at(0);
    forEachLine(a.begin, a.end, [&](uint64_t line, uint64_t, uint64_t) {
      auto lineIt = cached.find(line);
      if (lineIt == cached.end())
        return;
      auto hit = lineIt->second.find(core);
      if (hit == lineIt->second.end())
        return;
      const CachedLine &copy = hit->second;
      GmLine &g = gmLine(line);
      bool dirty = false;
      for (uint64_t b = 0; b < lineBytes; ++b)
        if (size_t s = copy.storeOf[b]; s != kNone) {
          BlockFlushes &f = blockFlushes(core, line);
          g.version[b] = s;
          g.unfencedBy[b] = i;
          f.storeOf[b] = s;
          if (f.flushStore == kNone)
            f.flushStore = s;
          dirty = true;
        }
      if (dirty)
        unfencedLines[core].push_back(line);
      lineIt->second.erase(hit);
      if (lineIt->second.empty())
        cached.erase(lineIt);
    });
  }

  void dsb(size_t i) {
    const Core core = coreOf(trace[i]);
    for (uint64_t line : unfencedLines[core])
      for (size_t &d : gmLine(line).unfencedBy)
        if (d != kNone && coreOf(trace[d]) == core)
          d = kNone;
    unfencedLines[core].clear();
  }

  void step(size_t i) {
    const TraceEvent &e = trace[i];
    switch (e.kind) {
    case TraceEvent::Kind::Instruction:
      for (const MemoryAccess &a : e.accesses)
        if (a.memory == Memory::GM && a.begin < a.end) {
          if (e.pipe == Pipe::S)
            scalarAccess(i, a);
          else
            dmaAccess(i, a);
        }
      break;
    case TraceEvent::Kind::Dcci: dcci(i); break;
    case TraceEvent::Kind::Dsb: dsb(i); break;
    case TraceEvent::Kind::HostRead: {
      const MemoryAccess &a = e.accesses.at(0);
      forEachLine(a.begin, a.end, [&](uint64_t line, uint64_t first, uint64_t last) {
        readGm(i, line, first, last);
      });
      break;
    }
    // A task's end pushes nothing out: that is the point. Flags and
    // barriers order pipes inside a core, the race oracle's concern.
    case TraceEvent::Kind::TaskEnd:
    case TraceEvent::Kind::SetFlag:
    case TraceEvent::Kind::WaitFlag:
    case TraceEvent::Kind::Barrier: break;
    }
  }

  /// What block `block` of `task` wrote of `line`, by flushed stores and
  /// by DMA: each byte's write, or kNone.
  std::vector<size_t> written(int task, int block, uint64_t line) {
    std::vector<size_t> w(lineBytes, kNone);
    if (auto t = flushes.find(task); t != flushes.end())
      if (auto l = t->second.find(line); l != t->second.end())
        if (auto f = l->second.find(block); f != l->second.end())
          w = f->second.storeOf;
    if (auto t = dmaWrites.find(task); t != dmaWrites.end())
      if (auto d = t->second.find(block); d != t->second.end())
        for (const DmaWrite &x : d->second)
          for (uint64_t b = std::max(x.begin, line); b < std::min(x.end, line + lineBytes); ++b)
            w[b - line] = x.event;
    return w;
  }

  /// Blocks of one task run at once: a block that flushes a line dirty can
  /// write back its stale copy of any byte another block wrote and it did
  /// not, whichever order the trace ran them in.
  void findLostWrites() {
    for (const auto &[task, lines] : flushes)
      for (const auto &[line, blocks] : lines)
        for (const auto &[flusher, own] : blocks) {
          const std::vector<size_t> mine = written(task, flusher, line);
          std::set<int> others;
          for (const auto &[block, unused] : blocks)
            others.insert(block);
          if (auto d = dmaWrites.find(task); d != dmaWrites.end())
            for (const auto &[block, unused] : d->second)
              others.insert(block);
          for (int other : others) {
            if (other == flusher)
              continue;
            const std::vector<size_t> theirs = written(task, other, line);
            for (uint64_t b = 0; b < lineBytes; ++b)
              if (theirs[b] != kNone && mine[b] == kNone) {
                report(CoherenceFinding::Kind::LostWrite, CoherenceFinding::Cause::SharedLine,
                       theirs[b], own.flushStore, line);
                break;
              }
          }
        }
  }
};
} // namespace

/// The instruction at fault: the store never pushed out, the load that read
/// its core's stale copy, the store whose line's flush overwrote another's.
static const TraceEvent &atFault(const CoherenceFinding &f, const std::vector<TraceEvent> &trace) {
  switch (f.cause) {
  case CoherenceFinding::Cause::NoDcci:
  case CoherenceFinding::Cause::NoDsb: return trace.at(f.write);
  case CoherenceFinding::Cause::Cached:
  case CoherenceFinding::Cause::SharedLine: return trace.at(f.read);
  }
  return trace.at(f.write);
}

std::string CoherenceFinding::where(const std::vector<TraceEvent> &trace) const {
  return eventKindName(atFault(*this, trace)) + " " + std::string(causeName(cause));
}

std::string CoherenceFinding::signature(const std::vector<TraceEvent> &trace) const {
  return std::string(verdict()) + " | " + eventKindName(atFault(*this, trace)) + " | " +
         std::string(causeName(cause));
}

std::vector<CoherenceFinding> analyzeCoherence(const std::vector<TraceEvent> &trace,
                                               uint64_t lineBytes) {
  return CoherenceModel(trace, std::max<uint64_t>(lineBytes, 1)).run();
}

} // namespace npufuzz
