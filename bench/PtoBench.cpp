//===- bench/PtoBench.cpp - Where a --backend pto case spends its time ----===//
//
// Runs generated cases (the PTO policy) through ptoas and the pto-isa CPU
// simulator on one core, and splits the time of the cases PTO expresses
// between ptoas, compiling the simulator with the harness, and running it.
// The toolchain is the one `--backend pto` discovers (docs/toolchains.md).
//
//   build/bin/bench_pto [count] [seed-start]
//   build/bin/bench_pto [count] [seed-start] --unsupported
//       only emits: the share PTO cannot express, and why
//   build/bin/bench_pto [count] [seed-start] --batch
//       each case built alone, then the same cases built sixteen at a time
//       ahead (as campaigns do; NPF_BATCH=N for N): time per expressed
//       case, one core
//   build/bin/bench_pto [count] [seed-start] --fixed
//       what compiling kernels in process could save at most: a harness
//       with no kernel compiled and linked by the same command (the
//       process, the driver, mapping the precompiled prelude, the link),
//       against each case's kernel built alone, alternated, one core
//
//===----------------------------------------------------------------------===//
#include "backend/external/ExternalBackend.h"
#include "backend/pto/PrecompiledSimulator.h"
#include "backend/pto/PtoBackend.h"
#include "backend/toolchains/BackendToolchains.h"
#include "generators/CaseGenerator.h"
#include "generators/Policy.h"
#include "ir/Storage.h"
#include "reference/Executor.h"

#include "backend/emit/PtoEmitter.h"
#include "oracles/Signature.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <unistd.h>

using namespace npufuzz;

int main(int argc, char **argv) {
  const uint64_t count = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 60;
  const uint64_t start = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 0;
  if (argc > 3 && std::strcmp(argv[3], "--unsupported") == 0) {
    std::map<std::string, uint64_t> reasons;
    uint64_t refused = 0;
    for (uint64_t seed = start; seed < start + count; ++seed) {
      std::string text, reason;
      if (!emitPto(generateCase(seed, ptoPolicy()), text, reason)) {
        ++refused;
        ++reasons[normalizeMessage(reason)];
      }
    }
    std::vector<std::pair<uint64_t, std::string>> byCount;
    for (const auto &[reason, n] : reasons)
      byCount.push_back({n, reason});
    std::sort(byCount.rbegin(), byCount.rend());
    std::printf("%llu of %llu cases unsupported (%.1f%%)\n",
                static_cast<unsigned long long>(refused), static_cast<unsigned long long>(count),
                100.0 * refused / count);
    for (const auto &[n, reason] : byCount)
      std::printf("%6llu  %s\n", static_cast<unsigned long long>(n), reason.c_str());
    return 0;
  }
  PtoToolchain t;
  std::string error;
  if (!setUpPtoToolchain(t, error)) {
    std::fprintf(stderr, "bench_pto: %s\n", error.c_str());
    return 2;
  }
  if (argc > 3 && std::strcmp(argv[3], "--fixed") == 0) {
    t.memcheckShare = 0;
    PrecompiledSimulator sim;
    if (!precompiledSimulator(t, std::filesystem::temp_directory_path().string(), sim, error)) {
      std::fprintf(stderr, "bench_pto: %s\n", error.c_str());
      return 2;
    }
    char dir[] = "/tmp/npufuzz-bench-fixed-XXXXXX";
    if (!::mkdtemp(dir))
      return 2;
    const std::string d = dir;
    std::FILE *f = std::fopen((d + "/empty.cpp").c_str(), "w");
    if (!f)
      return 2;
    std::fputs("int main() { return 0; }\n", f);
    std::fclose(f);
    ExternalToolchain limits;
    limits.timeoutSeconds = 120;
    double fixed = 0, kernels = 0;
    uint64_t expressed = 0;
    for (uint64_t seed = start; seed < start + count; ++seed) {
      const Case c = generateCase(seed, ptoPolicy());
      const RefRun ref = runReference(c);
      std::string text, reason;
      if (!ref.ok() || !emitPto(c, text, reason))
        continue;
      const BackendRun r = runPto(t, c, toTensorData(ref.inputs), 0xA5A5A5A5u);
      if (r.codegenSeconds <= 0)
        continue; // it did not compile
      const auto t0 = std::chrono::steady_clock::now();
      const CommandEnd end =
          runCommand(limits, kernelCompileCommand(t, sim, d, d + "/empty.cpp", d + "/empty", false),
                     d + "/cxx.out", d + "/cxx.err");
      if (end.kind != CommandEnd::Kind::Exited || end.exitCode != 0) {
        std::fprintf(stderr, "bench_pto: the empty harness did not build:\n%s\n",
                     end.stderrText.c_str());
        return 2;
      }
      fixed += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      kernels += r.codegenSeconds;
      ++expressed;
    }
    std::filesystem::remove_all(d);
    if (!expressed)
      return 2;
    const double n = static_cast<double>(expressed);
    std::printf("%llu kernels built alone from seed %llu, one core:\n"
                "  a kernel:               %.0f ms\n"
                "  an empty harness:       %.0f ms (%.0f %% of a kernel)\n",
                static_cast<unsigned long long>(expressed), static_cast<unsigned long long>(start),
                1000 * kernels / n, 1000 * fixed / n, 100 * fixed / kernels);
    return 0;
  }
  if (argc > 3 && std::strcmp(argv[3], "--batch") == 0) {
    t.memcheckShare = 0; // the same binaries both ways
    t.keepCaseDir = std::getenv("KEEPX") != nullptr;
    std::vector<Case> cases;
    std::vector<std::vector<TensorData>> inputs;
    for (uint64_t seed = start; seed < start + count; ++seed) {
      Case c = generateCase(seed, ptoPolicy());
      std::string text, reason;
      const RefRun ref = runReference(c);
      if (!ref.ok() || !emitPto(c, text, reason))
        continue;
      inputs.push_back(toTensorData(ref.inputs));
      cases.push_back(std::move(c));
    }
    using Clock = std::chrono::steady_clock;
    auto seconds = [](Clock::time_point t0) {
      return std::chrono::duration<double>(Clock::now() - t0).count();
    };
    auto t0 = Clock::now();
    for (size_t k = 0; k < cases.size(); ++k)
      runPto(t, cases[k], inputs[k], 0xA5A5A5A5u);
    const double alone = seconds(t0);
    char dir[] = "/tmp/npufuzz-bench-batch-XXXXXX";
    if (!::mkdtemp(dir))
      return 2;
    t.batchDir = dir;
    t0 = Clock::now();
    const char *per_ = std::getenv("NPF_BATCH");
    const size_t per = per_ ? std::max<size_t>(1, std::strtoul(per_, nullptr, 10)) : 16;
    for (size_t k = 0; k < cases.size(); k += per)
      prebuildPto(
          t, std::vector<Case>(cases.begin() + k, cases.begin() + std::min(cases.size(), k + per)));
    const double building = seconds(t0);
    size_t alsoAlone = 0;
    for (size_t k = 0; k < cases.size(); ++k)
      alsoAlone += runPto(t, cases[k], inputs[k], 0xA5A5A5A5u).codegenSeconds > 0;
    const double batched = seconds(t0);
    std::filesystem::remove_all(dir);
    const double n = static_cast<double>(cases.size());
    std::printf("%zu expressed cases of %llu seeds from %llu, one core, no memcheck:\n",
                cases.size(), static_cast<unsigned long long>(count),
                static_cast<unsigned long long>(start));
    std::printf("  alone:   %.0f ms a case\n  batched: %.0f ms a case (building %.0f, running "
                "%.0f): %.2fx\n",
                1000 * alone / n, 1000 * batched / n, 1000 * building / n,
                1000 * (batched - building) / n, alone / batched);
    std::printf("  %zu cases not in a batch that built (built alone)\n", alsoAlone);
    return 0;
  }
  const Policy policy = ptoPolicy();
  double ptoas = 0, compile = 0, run = 0, wall = 0;
  uint64_t expressed = 0, unsupported = 0;
  for (uint64_t seed = start; seed < start + count; ++seed) {
    const Case c = generateCase(seed, policy);
    const RefRun ref = runReference(c);
    if (!ref.ok())
      continue;
    const auto t0 = std::chrono::steady_clock::now();
    const BackendRun r = runPto(t, c, toTensorData(ref.inputs), 0xA5A5A5A5u);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (r.status == BackendRun::Status::Unsupported) {
      ++unsupported;
      continue;
    }
    ++expressed;
    wall += seconds;
    ptoas += r.passSeconds;
    compile += r.codegenSeconds;
    run += r.executeSeconds;
  }
  if (!expressed) {
    std::printf("no case of %llu was expressed\n", static_cast<unsigned long long>(count));
    return 1;
  }
  auto ms = [&](double s) { return 1000.0 * s / expressed; };
  std::printf("%llu seeds from %llu, one core: %llu expressed, %llu unsupported\n",
              static_cast<unsigned long long>(count), static_cast<unsigned long long>(start),
              static_cast<unsigned long long>(expressed),
              static_cast<unsigned long long>(unsupported));
  std::printf("per expressed case: %.0f ms (%.2f cases/s): ptoas %.0f ms, simulator compile "
              "%.0f ms, run %.0f ms, the rest %.0f ms\n",
              ms(wall), expressed / wall, ms(ptoas), ms(compile), ms(run),
              ms(wall - ptoas - compile - run));
  return 0;
}
