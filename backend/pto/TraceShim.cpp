//===- backend/pto/TraceShim.cpp - A PTO kernel that records its trace ----===//
#include "backend/pto/TraceShim.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace npufuzz {

namespace {

/// T-ops whose pipe is the row of the same name in pto-isa's OpPipeEntry.
const char *const kFixedPipe[] = {
    "TLOAD",         "TADD",          "TADDS",         "TSUB",          "TSUBS",
    "TMUL",          "TMULS",         "TDIV",          "TDIVS",         "TMIN",
    "TMINS",         "TMAX",          "TMAXS",         "TAND",          "TOR",
    "TXOR",          "TNOT",          "TABS",          "TNEG",          "TEXP",
    "TLOG",          "TSQRT",         "TRSQRT",        "TRELU",         "TRECIP",
    "TCVT",          "TEXPANDS",      "TSEL",          "TROWEXPAND",    "TROWEXPANDADD",
    "TROWEXPANDSUB", "TROWEXPANDMUL", "TROWEXPANDDIV", "TROWEXPANDMAX", "TROWEXPANDMIN",
    "TCOLEXPAND",    "TCOLEXPANDADD", "TCOLEXPANDSUB", "TCOLEXPANDMUL", "TCOLEXPANDDIV",
    "TCOLEXPANDMAX", "TCOLEXPANDMIN", "TROWSUM",       "TROWMAX",       "TROWMIN",
    "TCOLSUM",       "TCOLMAX",       "TCOLMIN",       "TMATMUL",
};

/// T-ops whose pipe depends on their tiles' locations: a functor of the
/// shim computes it.
const char *const kLocationPipe[][2] = {
    {"TSTORE", "StorePipe"},
    {"TMOV", "MovePipe"},
    {"TFILLPAD", "FillPadPipe"},
};

/// Not instructions: they run on the scalar unit and touch no buffer.
const char *const kNotInstructions[] = {"TASSIGN"};

/// The recorder itself, kept apart from the macros so that the simulator's
/// precompiled header holds it, compiled once (backend/pto/PrecompiledSimulator.h);
/// a harness's own copy is skipped by its guard then.
const char *const kDefinitions = R"(#ifndef NPF_TRACE_DEFINITIONS
#define NPF_TRACE_DEFINITIONS
#include "pto/pto-inst.hpp"
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>
namespace npf_trace {
struct Access { int memory; std::uint64_t begin, end; bool write; };
struct Event { char kind; const char *name; int pipe, src, dst, id, line; std::vector<Access> accesses; };
inline std::vector<Event> &events() { static std::vector<Event> e; return e; }
// Memories as backend/KernelTrace.h numbers them.
template <typename T> constexpr int memoryOf() {
  switch (T::Loc) {
  case ::pto::TileType::Mat: return 2;
  case ::pto::TileType::Left: return 3;
  case ::pto::TileType::Right: return 4;
  case ::pto::TileType::Acc: return 5;
  default: return 1;
  }
}
template <typename X> void access(std::vector<Access> &out, X &x, bool write) {
  using T = std::decay_t<X>;
  if constexpr (::pto::is_tile_data_v<T>) {
    const std::uint64_t rows = x.GetValidRow(), cols = x.GetValidCol();
    const std::uint64_t elems = rows == 0 || cols == 0 ? 0
                                : T::isRowMajor ? (rows - 1) * T::Cols + cols
                                                : (cols - 1) * T::Rows + rows;
    const auto begin = reinterpret_cast<std::uint64_t>(x.data());
    out.push_back({memoryOf<T>(), begin, begin + elems * sizeof(typename T::DType), write});
  } else if constexpr (::pto::is_global_data_v<T>) {
    std::uint64_t last = 0;
    for (int d = 0; d < 5; ++d) {
      const std::int64_t n = x.GetShape(d);
      if (n == 0)
        return;
      last += static_cast<std::uint64_t>(n - 1) * static_cast<std::uint64_t>(x.GetStride(d));
    }
    const auto begin = reinterpret_cast<std::uint64_t>(x.data());
    out.push_back({0, begin, begin + (last + 1) * sizeof(typename T::RawDType), write});
  }
}
template <::pto::Op O> struct FixedPipe {
  template <typename... A> int operator()(A &...) const { return static_cast<int>(::pto::OpPipeEntry<O>::pipe); }
};
template <typename T> constexpr ::pto::TileType locOf() {
  if constexpr (::pto::is_tile_data_v<T>) return T::Loc; else return ::pto::TileType::Vec;
}
struct StorePipe {
  template <typename G, typename T, typename... R> int operator()(G &, T &, R &...) const {
    constexpr auto loc = locOf<std::decay_t<T>>();
    if constexpr (loc == ::pto::TileType::Acc) return static_cast<int>(::pto::OpPipeEntry<::pto::Op::TSTORE_ACC>::pipe);
    else if constexpr (loc == ::pto::TileType::Mat) return static_cast<int>(::pto::OpPipeEntry<::pto::Op::TSTORE_MAT>::pipe);
    else return static_cast<int>(::pto::OpPipeEntry<::pto::Op::TSTORE_VEC>::pipe);
  }
};
struct MovePipe {
  template <typename D, typename S, typename... R> int operator()(D &, S &, R &...) const {
    using ::pto::TileType; using ::pto::Op; using ::pto::OpPipeEntry;
    constexpr auto to = locOf<std::decay_t<D>>(), from = locOf<std::decay_t<S>>();
    if constexpr (from == TileType::Vec && to == TileType::Mat) return static_cast<int>(OpPipeEntry<Op::TMOV_V2M>::pipe);
    else if constexpr (from == TileType::Mat && to == TileType::Left) return static_cast<int>(OpPipeEntry<Op::TMOV_M2L>::pipe);
    else if constexpr (from == TileType::Mat && to == TileType::Right) return static_cast<int>(OpPipeEntry<Op::TMOV_M2R>::pipe);
    else if constexpr (from == TileType::Mat && to == TileType::Bias) return static_cast<int>(OpPipeEntry<Op::TMOV_M2B>::pipe);
    else if constexpr (from == TileType::Acc && to == TileType::Vec) return static_cast<int>(OpPipeEntry<Op::TMOV_A2V>::pipe);
    else if constexpr (from == TileType::Acc && to == TileType::Mat) return static_cast<int>(OpPipeEntry<Op::TMOV_A2M>::pipe);
    else return static_cast<int>(OpPipeEntry<Op::TMOV_V2V>::pipe);
  }
};
struct FillPadPipe {
  template <typename D, typename... R> int operator()(D &, R &...) const {
    if constexpr (locOf<std::decay_t<D>>() == ::pto::TileType::Mat) return static_cast<int>(::pto::OpPipeEntry<::pto::Op::TFILLPAD_MAT>::pipe);
    else return static_cast<int>(::pto::OpPipeEntry<::pto::Op::TFILLPAD_VEC>::pipe);
  }
};
// A chain's task that stores by DMA TSTOREs into a stage of the harness's:
// while a block runs, what it accesses of the stage is its share of the
// value's GM tensor (bytes [lo, hi) of the tensor at `to`), and what lies
// outside the share is no access, so the kernel's own TSTORE is the DMA
// that writes the share.
struct Remap { std::uint64_t begin, end, to, lo, hi; };
inline std::vector<Remap> &remaps() { static std::vector<Remap> r; return r; }
inline std::uint64_t at(const void *p) { return reinterpret_cast<std::uint64_t>(p); }
inline void remap(const void *stage, std::size_t n, const void *to, std::size_t lo, std::size_t hi) {
  remaps().push_back({at(stage), at(stage) + n, at(to), lo, hi});
}
inline void endRemaps() { remaps().clear(); }
inline void place(std::vector<Access> &accesses) {
  std::vector<Access> out;
  for (Access a : accesses) {
    bool none = false;
    for (const Remap &r : remaps())
      if (a.memory == 0 && a.begin >= r.begin && a.end <= r.end) {
        const std::uint64_t b = std::max<std::uint64_t>(a.begin - r.begin, r.lo);
        const std::uint64_t e = std::min<std::uint64_t>(a.end - r.begin, r.hi);
        none = b >= e;
        a.begin = r.to + b;
        a.end = r.to + e;
        break;
      }
    if (!none) out.push_back(a);
  }
  accesses = std::move(out);
}
// Instantiated per pipe rule and operand types, not per call site.
template <typename P, typename... A> void record(const char *name, int line, P pipe, A &&...a) {
  Event e{'I', name, pipe(a...), 0, 0, 0, line, {}};
  int k = 0;
  (access(e.accesses, a, k++ == 0), ...);
  if (!remaps().empty()) place(e.accesses);
  events().push_back(std::move(e));
}
inline void flag(char kind, int line, int src, int dst, int id) { events().push_back({kind, "", 0, src, dst, id, line, {}}); }
inline void barrier(int line, int pipe) { events().push_back({'B', "", pipe, 0, 0, 0, line, {}}); }
// A chain's harness (backend/pto/KernelHarness.h): the block's task
// markers, its own GM accesses, cache operations and the host's reads.
inline void block(int task, int blk) { events().push_back({'K', "", 0, task, blk, 0, 0, {}}); }
inline void gm(char kind, const char *name, int pipe, const void *p, std::size_t n, bool write) {
  Event e{kind, name, pipe, 0, 0, 0, 0, {}};
  if (kind == 'I' || kind == 'C' || kind == 'H') e.accesses.push_back({0, at(p), at(p) + n, write});
  events().push_back(std::move(e));
}
// DIR/trace.txt, addresses relative to the lowest seen in each memory (for
// GM, to the start of its line).
inline bool write(const char *dir) {
  std::uint64_t base[6];
  for (std::uint64_t &b : base) b = ~std::uint64_t(0);
  for (const Event &e : events())
    for (const Access &a : e.accesses)
      if (a.begin < base[a.memory]) base[a.memory] = a.begin;
  // GM from the line the lowest access is in, so that GM's lines (what the
  // cache-coherency oracle models) are where they are in memory.
  base[0] &= ~std::uint64_t(63);
  const std::string path = std::string(dir) + "/trace.txt";
  std::FILE *f = std::fopen(path.c_str(), "w");
  if (!f) return false;
  auto gmRange = [&](const Event &e) {
    const Access &a = e.accesses[0];
    std::fprintf(f, " %llu %llu", (unsigned long long)(a.begin - base[0]), (unsigned long long)(a.end - base[0]));
  };
  for (const Event &e : events()) {
    if (e.kind == 'K') {
      std::fprintf(f, "K %d %d\n", e.src, e.dst);
    } else if (e.kind == 'C' || e.kind == 'H') {
      std::fprintf(f, "%c", e.kind);
      gmRange(e);
      if (e.kind == 'C') std::fprintf(f, " %d", e.line);
      std::fprintf(f, "\n");
    } else if (e.kind == 'D' || e.kind == 'E') {
      std::fprintf(f, "%c %d\n", e.kind, e.line);
    } else if (e.kind == 'I') {
      std::fprintf(f, "I %s %d %d %zu", e.name, e.pipe, e.line, e.accesses.size());
      for (const Access &a : e.accesses)
        std::fprintf(f, " %d %llu %llu %d", a.memory, (unsigned long long)(a.begin - base[a.memory]),
                     (unsigned long long)(a.end - base[a.memory]), a.write ? 1 : 0);
      std::fprintf(f, "\n");
    } else if (e.kind == 'B') {
      std::fprintf(f, "B %d %d\n", e.pipe, e.line);
    } else {
      std::fprintf(f, "%c %d %d %d %d\n", e.kind, e.src, e.dst, e.id, e.line);
    }
  }
  return std::fclose(f) == 0;
}
} // namespace npf_trace
#endif // NPF_TRACE_DEFINITIONS
)";

const char *const kMacros = R"(#define set_flag(...) ::npf_trace::flag('S', __LINE__, __VA_ARGS__)
#define wait_flag(...) ::npf_trace::flag('W', __LINE__, __VA_ARGS__)
#define pipe_barrier(...) ::npf_trace::barrier(__LINE__, __VA_ARGS__)
)";

/// Records the call, then makes it. The operands are named twice: ptoas
/// passes variables and casts of them, which have no side effects.
std::string opMacro(const std::string &name, const std::string &pipe) {
  return "#define " + name + "(...) (::npf_trace::record(\"" + name + "\", __LINE__, " + pipe +
         ", __VA_ARGS__), ::pto::" + name + "(__VA_ARGS__))\n";
}

bool isIdentifierChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

} // namespace

const std::string &traceShim() {
  static const std::string text = [] {
    std::string s = "// --- npufuzz's pipe trace (backend/pto/TraceShim.h) ---\n";
    s += kDefinitions;
    s += kMacros;
    for (const char *name : kFixedPipe)
      s += opMacro(name, std::string("::npf_trace::FixedPipe<::pto::Op::") + name + ">{}");
    for (const auto &row : kLocationPipe)
      s += opMacro(row[0], std::string("::npf_trace::") + row[1] + "{}");
    return s + "// --- end of the pipe trace ---\n";
  }();
  return text;
}

const char *traceDefinitions() { return kDefinitions; }

std::vector<std::string> untracedOps(const std::string &kernelCpp) {
  std::set<std::string> traced(std::begin(kFixedPipe), std::end(kFixedPipe));
  for (const auto &row : kLocationPipe)
    traced.insert(row[0]);
  traced.insert(std::begin(kNotInstructions), std::end(kNotInstructions));
  std::set<std::string> found;
  for (size_t i = 0; i < kernelCpp.size(); ++i) {
    // A T-op call: an identifier starting with T and in capitals, not
    // preceded by an identifier character or `::` (pto::Shape is no call).
    if (kernelCpp[i] != 'T' ||
        (i > 0 && (isIdentifierChar(kernelCpp[i - 1]) || kernelCpp[i - 1] == ':')))
      continue;
    size_t j = i + 1;
    while (j < kernelCpp.size() &&
           (std::isupper(static_cast<unsigned char>(kernelCpp[j])) ||
            std::isdigit(static_cast<unsigned char>(kernelCpp[j])) || kernelCpp[j] == '_'))
      ++j;
    if (j == i + 1 || j >= kernelCpp.size() || isIdentifierChar(kernelCpp[j]))
      continue;
    const std::string name = kernelCpp.substr(i, j - i);
    if (kernelCpp[j] == '<' && name != "T")
      found.insert(name + "<...>");
    else if (kernelCpp[j] == '(' && !traced.count(name))
      found.insert(name);
    i = j;
  }
  return {found.begin(), found.end()};
}

} // namespace npufuzz
