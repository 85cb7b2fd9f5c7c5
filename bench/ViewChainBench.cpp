//===- bench/ViewChainBench.cpp - How often cases reach floor/mod ground -===//
//
// Floor and mod index arithmetic is built where views are stacked as models
// stack them (a reshape of a permuted, sliced or expanded value), and a
// division's floor and truncation differ only when a divisor divides its
// dividend exactly... or not, with mixed signs. Over a range of seeds and
// each backend's default policy, this prints:
//   - the share of cases holding a reshape of a non-contiguous value (a
//     transpose that moves a dim, a slice that skips elements, a chunk off
//     the leading axis, a broadcast, an index map, or a reshape, squeeze or
//     unsqueeze of one of those);
//   - the share of integer division instances (div, row_expand_div,
//     col_expand_div) whose operands, as the reference computes them, hold
//     at least one exact division of mixed signs;
//   - each view op's share of the compute ops, and integer div's;
//   - the generation rate.
//
//   build/bin/bench_view_chains [count] [seed-start]
//
//===----------------------------------------------------------------------===//
#include "generators/CaseGenerator.h"
#include "generators/Features.h"
#include "generators/Policy.h"
#include "reference/Executor.h"
#include "reference/InputData.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

using namespace npufuzz;
using Clock = std::chrono::steady_clock;

namespace {

/// Whether the integer division `op` divides, at some defined element, a
/// non-zero dividend exactly by a divisor of the other sign.
bool holdsExactMixedSignDivision(const Case &c, const Op &op, const std::vector<RefTensor> &v) {
  const RefTensor &a = v[op.operands[0]], &b = v[op.operands[1]], &r = v[op.results[0]];
  for (int64_t k = 0; k < r.numElements(); ++k) {
    if (!r.isDefined(k))
      continue;
    const int64_t x = a.intAt(k), y = b.intAt(secondOperandElement(op, r.type, k));
    // (y == -1 first: MIN % -1 traps.)
    if (y != 0 && x != 0 && (y == -1 || x % y == 0) && (x < 0) != (y < 0))
      return true;
  }
  return false;
}

struct Measure {
  uint64_t cases = 0, chainCases = 0, computeOps = 0, divisions = 0, exactMixed = 0;
  std::map<std::string, uint64_t> ops;
  double seconds = 0;
};

Measure measure(const Policy &policy, uint64_t count, uint64_t start) {
  Measure m;
  for (uint64_t seed = start; seed < start + count; ++seed) {
    const auto t0 = Clock::now();
    const Case c = generateCase(seed, policy);
    m.seconds += std::chrono::duration<double>(Clock::now() - t0).count();
    ++m.cases;
    m.chainCases += reshapesANonContiguousView(c);
    bool divides = false;
    for (const Op &op : c.ops) {
      if (op.kind == OpKind::Input)
        continue;
      ++m.computeOps;
      ++m.ops[std::string(opName(op.kind))];
      divides |= isIntegerDivision(c, op);
    }
    if (!divides)
      continue;
    std::vector<RefTensor> values;
    std::string error;
    if (!evaluateCase(c, makeInputs(c), values, error))
      continue;
    for (const Op &op : c.ops)
      if (isIntegerDivision(c, op)) {
        ++m.divisions;
        m.exactMixed += holdsExactMixedSignDivision(c, op, values);
      }
  }
  return m;
}

double percent(uint64_t part, uint64_t whole) { return whole ? 100.0 * part / whole : 0.0; }

} // namespace

int main(int argc, char **argv) {
  const uint64_t count = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 2000;
  const uint64_t start = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 0;
  std::printf("%llu cases a policy from seed %llu\n", static_cast<unsigned long long>(count),
              static_cast<unsigned long long>(start));
  std::printf("%-11s %9s %12s %16s %10s\n", "policy", "chain %", "int divs", "exact mixed %",
              "cases/s");
  const char *backends[] = {"default", "inductor", "iree", "pytorchsim", "pto"};
  std::map<std::string, Measure> all;
  for (const char *backend : backends) {
    const Measure m = measure(defaultPolicyFor(backend), count, start);
    std::printf("%-11s %8.1f%% %12llu %15.1f%% %10.0f\n", backend, percent(m.chainCases, m.cases),
                static_cast<unsigned long long>(m.divisions), percent(m.exactMixed, m.divisions),
                m.seconds > 0 ? m.cases / m.seconds : 0.0);
    all[backend] = m;
  }
  std::printf("\nshare of compute ops (%%)\n%-16s", "op");
  for (const char *backend : backends)
    std::printf(" %10s", backend);
  std::printf("\n");
  const char *shown[] = {"reshape",   "transpose", "slice",     "chunk", "broadcast",
                         "unsqueeze", "squeeze",   "index_map", "div"};
  for (const char *op : shown) {
    std::printf("%-16s", op);
    for (const char *backend : backends) {
      const Measure &m = all[backend];
      const auto it = m.ops.find(op);
      std::printf(" %10.2f", percent(it == m.ops.end() ? 0 : it->second, m.computeOps));
    }
    std::printf("\n");
  }
  return 0;
}
