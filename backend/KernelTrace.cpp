//===- backend/KernelTrace.cpp - What a PTO kernel did, pipe by pipe ----===//
#include "backend/KernelTrace.h"

#include <sstream>
#include <tuple>

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

bool TraceEvent::scalarGmAccess() const {
  if (kind != Kind::Instruction || pipe != Pipe::S)
    return false;
  for (const MemoryAccess &a : accesses)
    if (a.memory == Memory::GM)
      return true;
  return false;
}

std::string eventKindName(const TraceEvent &e) {
  switch (e.kind) {
  case TraceEvent::Kind::Instruction: return e.name;
  case TraceEvent::Kind::SetFlag: return "set_flag";
  case TraceEvent::Kind::WaitFlag: return "wait_flag";
  case TraceEvent::Kind::Barrier: return "pipe_barrier";
  case TraceEvent::Kind::Dcci: return "dcci";
  case TraceEvent::Kind::Dsb: return "dsb";
  case TraceEvent::Kind::TaskEnd: return "end";
  case TraceEvent::Kind::HostRead: return "host";
  }
  return "?";
}

std::string printKernelTrace(const std::vector<TraceEvent> &trace) {
  std::ostringstream out;
  std::tuple<int, int> block{0, 0};
  for (const TraceEvent &e : trace) {
    if (e.kind != TraceEvent::Kind::HostRead && std::tuple(e.task, e.block) != block) {
      block = {e.task, e.block};
      out << "K " << e.task << ' ' << e.block << '\n';
    }
    const auto number = [](Pipe p) { return static_cast<int>(p); };
    switch (e.kind) {
    case TraceEvent::Kind::Instruction:
      out << "I " << e.name << ' ' << number(e.pipe) << ' ' << e.line << ' ' << e.accesses.size();
      for (const MemoryAccess &a : e.accesses)
        out << ' ' << static_cast<int>(a.memory) << ' ' << a.begin << ' ' << a.end << ' '
            << (a.write ? 1 : 0);
      break;
    case TraceEvent::Kind::SetFlag:
    case TraceEvent::Kind::WaitFlag:
      out << (e.kind == TraceEvent::Kind::SetFlag ? "S " : "W ") << number(e.src) << ' '
          << number(e.dst) << ' ' << e.event << ' ' << e.line;
      break;
    case TraceEvent::Kind::Barrier: out << "B " << number(e.pipe) << ' ' << e.line; break;
    case TraceEvent::Kind::Dcci:
      out << "C " << e.accesses.at(0).begin << ' ' << e.accesses.at(0).end << ' ' << e.line;
      break;
    case TraceEvent::Kind::Dsb: out << "D " << e.line; break;
    case TraceEvent::Kind::TaskEnd: out << "E " << e.line; break;
    case TraceEvent::Kind::HostRead:
      out << "H " << e.accesses.at(0).begin << ' ' << e.accesses.at(0).end;
      break;
    }
    out << '\n';
  }
  return out.str();
}

namespace {
bool pipeOf(int n, Pipe &p) {
  if (n < 0 || n >= static_cast<int>(kPipes))
    return false;
  p = static_cast<Pipe>(n);
  return true;
}
} // namespace

bool parseKernelTrace(const std::string &text, std::vector<TraceEvent> &out, std::string &error) {
  out.clear();
  std::istringstream lines(text);
  int lineNo = 0, task = 0, block = 0;
  for (std::string l; std::getline(lines, l);) {
    ++lineNo;
    std::istringstream in(l);
    std::string kind;
    in >> kind;
    TraceEvent e;
    int pipe = 0, src = 0, dst = 0;
    bool ok = true;
    // A GM range [BEGIN, END) of a dcci or a host read.
    const auto gmRange = [&](bool write) {
      MemoryAccess a;
      a.write = write;
      const bool read = static_cast<bool>(in >> a.begin >> a.end) && a.begin <= a.end;
      e.accesses.push_back(a);
      return read;
    };
    if (kind == "K") {
      int t = 0, b = 0;
      std::string rest;
      if (in >> t >> b && t >= 0 && b >= 0 && !(in >> rest)) {
        task = t;
        block = b;
        continue;
      }
      ok = false;
    } else if (kind == "C") {
      e.kind = TraceEvent::Kind::Dcci;
      ok = gmRange(true) && static_cast<bool>(in >> e.line);
    } else if (kind == "D" || kind == "E") {
      e.kind = kind == "D" ? TraceEvent::Kind::Dsb : TraceEvent::Kind::TaskEnd;
      ok = static_cast<bool>(in >> e.line);
    } else if (kind == "H") {
      e.kind = TraceEvent::Kind::HostRead;
      ok = gmRange(false);
    } else if (kind == "I") {
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
    if (e.kind != TraceEvent::Kind::HostRead) {
      e.task = task;
      e.block = block;
    }
    out.push_back(std::move(e));
  }
  return true;
}

} // namespace npufuzz
