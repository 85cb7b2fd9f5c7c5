//===- bench/GenRefBench.cpp - Cost of generating and reference-running ---===//
//
// Prints the per-case cost of generation and of the reference run over a
// range of seeds with the default policy: median, p90 and max, and the
// median for "typical" cases (<= 8 compute ops, <= 64K elements).
//
//   build/bin/bench_gen_ref [count] [seed-start]
//
//===----------------------------------------------------------------------===//
#include "generators/CaseGenerator.h"
#include "reference/Executor.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

using namespace npufuzz;
using Clock = std::chrono::steady_clock;

namespace {
double micros(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::micro>(b - a).count();
}
double percentile(std::vector<double> v, double p) {
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(p * (v.size() - 1))];
}
int64_t totalElements(const Case &c) {
  int64_t n = 0;
  for (const Value &v : c.values)
    n += v.type.numElements();
  return n;
}
} // namespace

int main(int argc, char **argv) {
  const uint64_t count = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 5000;
  const uint64_t start = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 0;
  const Policy policy = Policy::defaults();
  std::vector<double> gen, ref, total, typical;
  for (uint64_t s = start; s < start + count; ++s) {
    auto t0 = Clock::now();
    Case c = generateCase(s, policy);
    auto t1 = Clock::now();
    RefRun run = runReference(c);
    auto t2 = Clock::now();
    if (!run.ok()) {
      std::fprintf(stderr, "seed %llu: reference failed: %s\n", static_cast<unsigned long long>(s),
                   run.error.c_str());
      return 1;
    }
    gen.push_back(micros(t0, t1));
    ref.push_back(micros(t1, t2));
    total.push_back(micros(t0, t2));
    if (c.numComputeOps() <= 8 && totalElements(c) <= 65536)
      typical.push_back(micros(t0, t2));
  }
  std::printf("generate + reference over %llu seeds from %llu (microseconds per case)\n",
              static_cast<unsigned long long>(count), static_cast<unsigned long long>(start));
  std::printf("  %-22s %10s %10s %10s\n", "", "median", "p90", "max");
  auto row = [](const char *name, const std::vector<double> &v) {
    std::printf("  %-22s %10.1f %10.1f %10.1f\n", name, percentile(v, 0.5), percentile(v, 0.9),
                percentile(v, 1.0));
  };
  row("generate", gen);
  row("reference", ref);
  row("total", total);
  row("total, typical cases", typical);
  std::printf("typical cases (<= 8 ops, <= 64K elements): %zu of %zu; median %.3f ms "
              "(target < 2 ms)\n",
              typical.size(), total.size(), percentile(typical, 0.5) / 1000.0);
  return 0;
}
