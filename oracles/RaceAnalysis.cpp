//===- oracles/RaceAnalysis.cpp - Happens-before over a PTO kernel's trace ===//
#include "oracles/RaceAnalysis.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <tuple>

namespace npufuzz {

std::string_view RaceFinding::verdict() const {
  switch (kind) {
  case Kind::Race: return "race";
  case Kind::SyncDeadlock: return "sync-deadlock";
  case Kind::SyncMisuse: return "sync-misuse";
  case Kind::UnflushedStore: return "unflushed-store";
  }
  return "?";
}

namespace {
using Clock = std::array<uint64_t, kPipes>;

size_t index(Pipe p) { return static_cast<size_t>(p); }

/// The pipe an event runs on: a set on its source, a wait on its
/// destination.
Pipe pipeOf(const TraceEvent &e) {
  return e.kind == TraceEvent::Kind::SetFlag    ? e.src
         : e.kind == TraceEvent::Kind::WaitFlag ? e.dst
                                                : e.pipe;
}

/// `TADD (V, kernel.cpp:14)`.
std::string where(const TraceEvent &e) {
  std::string name = eventKindName(e);
  if (e.kind == TraceEvent::Kind::SetFlag || e.kind == TraceEvent::Kind::WaitFlag)
    name += "(" + std::string(pipeName(e.src)) + ", " + std::string(pipeName(e.dst)) +
            ", EVENT_ID" + std::to_string(e.event) + ")";
  else
    name += " (" + std::string(pipeName(e.pipe));
  if (e.line > 0)
    name += std::string(e.kind == TraceEvent::Kind::Instruction ? ", " : " at ") +
            "kernel.cpp:" + std::to_string(e.line);
  if (e.kind == TraceEvent::Kind::Instruction || e.kind == TraceEvent::Kind::Barrier)
    name += ")";
  return name;
}

std::string range(Memory m, uint64_t begin, uint64_t end) {
  return std::string(memoryName(m)) + " [" + std::to_string(begin) + ", " + std::to_string(end) +
         ")";
}

/// The overlap of two accesses of which one writes, if any.
std::optional<std::pair<uint64_t, uint64_t>> conflict(const MemoryAccess &a,
                                                      const MemoryAccess &b) {
  if (a.memory != b.memory || (!a.write && !b.write))
    return std::nullopt;
  const uint64_t begin = std::max(a.begin, b.begin), end = std::min(a.end, b.end);
  if (begin >= end)
    return std::nullopt;
  return std::pair(begin, end);
}
} // namespace

/// An event's kind as a signature names it: the vector pipe's instructions
/// are one kind (`vector`), since what races is the pipe, not whether it
/// adds or multiplies; a data mover or a cube op keeps its name.
static std::string signatureKind(const TraceEvent &e) {
  return e.kind == TraceEvent::Kind::Instruction && e.pipe == Pipe::V ? "vector" : eventKindName(e);
}

/// The two instruction kinds and the pipes of a finding: what its
/// signature and `where` keep.
static std::pair<std::string, std::string> kindsAndPipes(const RaceFinding &f,
                                                         const std::vector<TraceEvent> &trace) {
  const TraceEvent &a = trace.at(f.first), &b = trace.at(f.second);
  std::string kinds = signatureKind(a), pipes(pipeName(pipeOf(a)));
  if (f.first != f.second)
    kinds += "/" + signatureKind(b);
  if (a.kind == TraceEvent::Kind::SetFlag || a.kind == TraceEvent::Kind::WaitFlag)
    pipes = std::string(pipeName(a.src)) + "->" + std::string(pipeName(a.dst));
  else if (f.first != f.second)
    pipes += "->" + std::string(pipeName(pipeOf(b)));
  return {kinds, pipes};
}

std::string RaceFinding::where(const std::vector<TraceEvent> &trace) const {
  const auto [kinds, pipes] = kindsAndPipes(*this, trace);
  return kinds + " " + pipes;
}

std::string RaceFinding::signature(const std::vector<TraceEvent> &trace) const {
  const auto [kinds, pipes] = kindsAndPipes(*this, trace);
  return std::string(verdict()) + " | " + kinds + " | " + pipes;
}

/// The findings of one core's run of one kernel: `section` holds its
/// events' indices in `trace`, in order.
static void analyzeCore(const std::vector<TraceEvent> &trace, const std::vector<size_t> &section,
                        std::vector<RaceFinding> &findings) {
  std::array<Clock, kPipes> clocks{};
  std::vector<Clock> stamps(section.size());
  /// Sets not yet waited on, by (src, dst, event): the set and its clock.
  std::map<std::tuple<Pipe, Pipe, int>, std::pair<size_t, Clock>> pending;
  auto tick = [&](Pipe p, size_t k) {
    ++clocks[index(p)][index(p)];
    stamps[k] = clocks[index(p)];
  };
  for (size_t k = 0; k < section.size(); ++k) {
    const size_t i = section[k];
    const TraceEvent &e = trace[i];
    switch (e.kind) {
    case TraceEvent::Kind::Instruction: {
      tick(e.pipe, k);
      // An earlier access on another pipe that is not ordered before this.
      for (size_t m = 0; m < k; ++m) {
        const size_t j = section[m];
        const TraceEvent &o = trace[j];
        if (o.kind != TraceEvent::Kind::Instruction || o.pipe == e.pipe ||
            stamps[m][index(o.pipe)] <= stamps[k][index(o.pipe)])
          continue;
        std::optional<std::tuple<Memory, uint64_t, uint64_t, bool, bool>> hit;
        for (const MemoryAccess &a : o.accesses)
          for (const MemoryAccess &b : e.accesses)
            if (!hit)
              if (auto overlap = conflict(a, b))
                hit = std::tuple(a.memory, overlap->first, overlap->second, a.write, b.write);
        if (!hit)
          continue;
        const auto [memory, begin, end, firstWrites, secondWrites] = *hit;
        RaceFinding f;
        f.kind = RaceFinding::Kind::Race;
        f.first = j;
        f.second = i;
        f.memory = memory;
        f.begin = begin;
        f.end = end;
        f.text = where(o) + (firstWrites ? " writes " : " reads ") + range(memory, begin, end) +
                 " and " + where(e) + (secondWrites ? " writes it" : " reads it") +
                 " with no order between them";
        findings.push_back(std::move(f));
      }
      break;
    }
    case TraceEvent::Kind::SetFlag: {
      tick(e.src, k);
      const auto key = std::tuple(e.src, e.dst, e.event);
      auto it = pending.find(key);
      if (it != pending.end()) {
        RaceFinding f;
        f.kind = RaceFinding::Kind::SyncMisuse;
        f.first = it->second.first;
        f.second = i;
        f.text = where(e) + " sets an event already set by " + where(trace[it->second.first]) +
                 " and not yet waited on";
        findings.push_back(std::move(f));
      }
      pending[key] = {i, clocks[index(e.src)]};
      break;
    }
    case TraceEvent::Kind::WaitFlag: {
      const auto key = std::tuple(e.src, e.dst, e.event);
      auto it = pending.find(key);
      if (it == pending.end()) {
        RaceFinding f;
        f.kind = RaceFinding::Kind::SyncDeadlock;
        f.first = f.second = i;
        f.text = where(e) + " waits for an event no earlier set_flag sets";
        findings.push_back(std::move(f));
      } else {
        Clock &c = clocks[index(e.dst)];
        for (size_t p = 0; p < kPipes; ++p)
          c[p] = std::max(c[p], it->second.second[p]);
        pending.erase(it);
      }
      tick(e.dst, k);
      break;
    }
    case TraceEvent::Kind::Barrier:
      if (e.pipe == Pipe::All) {
        Clock all{};
        for (const Clock &c : clocks)
          for (size_t p = 0; p < kPipes; ++p)
            all[p] = std::max(all[p], c[p]);
        clocks.fill(all);
      }
      tick(e.pipe == Pipe::All ? Pipe::S : e.pipe, k);
      break;
    // The data cache's operations and the task's end order no pipe: they
    // are the cache-coherency oracle's (oracles/CacheCoherency.h).
    case TraceEvent::Kind::Dcci:
    case TraceEvent::Kind::Dsb:
    case TraceEvent::Kind::TaskEnd:
    case TraceEvent::Kind::HostRead: break;
    }
  }
  for (const auto &[key, set] : pending) {
    RaceFinding f;
    f.kind = RaceFinding::Kind::SyncMisuse;
    f.first = f.second = set.first;
    f.text = where(trace[set.first]) + " is never waited on";
    findings.push_back(std::move(f));
  }
  // The kernel ends on the scalar pipe: a GM write must be ordered before.
  const Clock &end = clocks[index(Pipe::S)];
  for (size_t k = 0; k < section.size(); ++k) {
    const size_t i = section[k];
    const TraceEvent &e = trace[i];
    if (e.kind != TraceEvent::Kind::Instruction || stamps[k][index(e.pipe)] <= end[index(e.pipe)])
      continue;
    for (const MemoryAccess &a : e.accesses)
      if (a.write && a.memory == Memory::GM) {
        RaceFinding f;
        f.kind = RaceFinding::Kind::UnflushedStore;
        f.first = f.second = i;
        f.memory = a.memory;
        f.begin = a.begin;
        f.end = a.end;
        f.text = where(e) + " writes " + range(a.memory, a.begin, a.end) +
                 " and nothing orders it before the kernel's end";
        findings.push_back(std::move(f));
        break;
      }
  }
}

std::vector<RaceFinding> analyzeRaces(const std::vector<TraceEvent> &trace) {
  // Pipes order only the instructions of one core: each block of each
  // task is analysed on its own, in the order the trace first names it.
  std::vector<std::pair<std::pair<int, int>, std::vector<size_t>>> sections;
  for (size_t i = 0; i < trace.size(); ++i) {
    if (trace[i].kind == TraceEvent::Kind::HostRead)
      continue;
    const std::pair<int, int> core{trace[i].task, trace[i].block};
    auto it = std::find_if(sections.begin(), sections.end(),
                           [&](const auto &s) { return s.first == core; });
    if (it == sections.end())
      it = sections.insert(sections.end(), {core, {}});
    it->second.push_back(i);
  }
  std::vector<RaceFinding> findings;
  for (const auto &[core, section] : sections)
    analyzeCore(trace, section, findings);
  return findings;
}

} // namespace npufuzz
