//===- backend/pto/PipeTrace.cpp - What a PTO kernel did, pipe by pipe ----===//
#include "backend/pto/PipeTrace.h"

#include <sstream>

namespace npufuzz {

std::string_view pipeName(Pipe p) {
  switch (p) {
  case Pipe::S: return "S";
  case Pipe::V: return "V";
  case Pipe::MTE1: return "MTE1";
  case Pipe::MTE2: return "MTE2";
  case Pipe::MTE3: return "MTE3";
  case Pipe::M: return "M";
  case Pipe::All: return "ALL";
  case Pipe::FIX: return "FIX";
  }
  return "?";
}

std::string_view memoryName(Memory m) {
  switch (m) {
  case Memory::GM: return "GM";
  case Memory::UB: return "UB";
  case Memory::L1: return "L1";
  case Memory::L0A: return "L0A";
  case Memory::L0B: return "L0B";
  case Memory::L0C: return "L0C";
  }
  return "?";
}

namespace {
bool pipeOf(int n, Pipe &p) {
  if (n < 0 || n >= static_cast<int>(kPipes))
    return false;
  p = static_cast<Pipe>(n);
  return true;
}
} // namespace

bool parsePipeTrace(const std::string &text, std::vector<TraceEvent> &out, std::string &error) {
  out.clear();
  std::istringstream lines(text);
  int lineNo = 0;
  for (std::string l; std::getline(lines, l);) {
    ++lineNo;
    std::istringstream in(l);
    std::string kind;
    in >> kind;
    TraceEvent e;
    int pipe = 0, src = 0, dst = 0;
    bool ok = true;
    if (kind == "I") {
      size_t n = 0;
      e.kind = TraceEvent::Kind::Instruction;
      ok =
          static_cast<bool>(in >> e.name >> pipe >> e.line >> n) && pipeOf(pipe, e.pipe) && n <= 16;
      for (size_t k = 0; ok && k < n; ++k) {
        MemoryAccess a;
        int memory = 0, write = 0;
        ok = static_cast<bool>(in >> memory >> a.begin >> a.end >> write) && memory >= 0 &&
             memory < static_cast<int>(kMemories) && a.begin <= a.end;
        a.memory = static_cast<Memory>(memory);
        a.write = write != 0;
        e.accesses.push_back(a);
      }
    } else if (kind == "S" || kind == "W") {
      e.kind = kind == "S" ? TraceEvent::Kind::SetFlag : TraceEvent::Kind::WaitFlag;
      ok = static_cast<bool>(in >> src >> dst >> e.event >> e.line) && pipeOf(src, e.src) &&
           pipeOf(dst, e.dst);
    } else if (kind == "B") {
      e.kind = TraceEvent::Kind::Barrier;
      ok = static_cast<bool>(in >> pipe >> e.line) && pipeOf(pipe, e.pipe);
    } else {
      ok = false;
    }
    std::string rest;
    if (!ok || in >> rest) {
      error = "trace.txt line " + std::to_string(lineNo) + " is not a trace event: " + l;
      return false;
    }
    out.push_back(std::move(e));
  }
  return true;
}

} // namespace npufuzz
