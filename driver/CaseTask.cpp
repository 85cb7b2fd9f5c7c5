//===- driver/CaseTask.cpp - One case in an isolated worker ---------------===//
#include "driver/CaseTask.h"
#include "driver/Feedback.h"

#include "backend/MemoryError.h"
#include "backend/mlir/Pipelines.h"
#include "backend/mlir/RunningStage.h"
#include "oracles/MemoryErrorOracle.h"
#include "oracles/Metamorphic.h"
#include "oracles/OpBlameOracle.h"
#include "oracles/Oracle.h"

#include "llvm/Support/JSON.h"

#include <chrono>
#include <csignal>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>

namespace npufuzz {

std::string TaskResult::toJson() const {
  llvm::json::Object o{{"verdict", std::string(verdictName(verdict))},
                       {"summary", summary},
                       {"message", message},
                       {"details", details},
                       {"pass", passName},
                       {"pass_index", passIndex},
                       {"exposed_by", exposedBy},
                       {"where", where},
                       {"difference", difference},
                       {"only_rounding", onlyRounding},
                       {"rooted_at_op", rootedAtOp},
                       {"culprit_op", culpritOp},
                       {"symptom", symptom},
                       {"blame_timed_out", blameTimedOut},
                       {"pass_warnings", passWarnings},
                       {"values_why_not", valuesWhyNot},
                       {"dma_maps_judged", static_cast<int64_t>(dmaMapsJudged)},
                       {"dma_maps_unjudged", llvm::json::Array(dmaMapsUnjudged)},
                       {"reference_s", referenceSeconds},
                       {"emit_s", emitSeconds},
                       {"passes_s", passSeconds},
                       {"codegen_s", codegenSeconds},
                       {"execute_s", executeSeconds},
                       {"start_s", startSeconds},
                       {"entry_ops", llvm::json::Array(entryOps)},
                       {"passes_that_changed", llvm::json::Array(passesThatChanged)},
                       {"feedback", llvm::json::Array(feedback)}};
  if (!compilerCoverage.empty())
    o["compiler_coverage"] = compilerCoverage.toJson();
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::json::Value(std::move(o));
  return s;
}

bool TaskResult::fromJson(const std::string &text, TaskResult &out) {
  auto parsed = llvm::json::parse(text);
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    return false;
  }
  const llvm::json::Object *o = parsed->getAsObject();
  if (!o)
    return false;
  auto str = [&](const char *key) { return o->getString(key).value_or("").str(); };
  auto num = [&](const char *key) { return o->getNumber(key).value_or(0); };
  std::optional<VerdictKind> v = parseVerdictName(str("verdict"));
  if (!v)
    return false;
  out.verdict = *v;
  out.summary = str("summary");
  out.message = str("message");
  out.details = str("details");
  out.passName = str("pass");
  out.passIndex = static_cast<int>(o->getInteger("pass_index").value_or(-1));
  out.exposedBy = str("exposed_by");
  out.where = str("where");
  out.difference = str("difference");
  out.onlyRounding = o->getBoolean("only_rounding").value_or(false);
  out.rootedAtOp = o->getBoolean("rooted_at_op").value_or(false);
  out.culpritOp = str("culprit_op");
  out.symptom = str("symptom");
  out.blameTimedOut = o->getBoolean("blame_timed_out").value_or(false);
  out.passWarnings = str("pass_warnings");
  out.valuesWhyNot = str("values_why_not");
  out.dmaMapsJudged = static_cast<uint64_t>(o->getInteger("dma_maps_judged").value_or(0));
  if (const llvm::json::Array *a = o->getArray("dma_maps_unjudged"))
    for (const llvm::json::Value &v : *a)
      if (std::optional<llvm::StringRef> why = v.getAsString())
        out.dmaMapsUnjudged.push_back(why->str());
  out.referenceSeconds = num("reference_s");
  out.emitSeconds = num("emit_s");
  out.passSeconds = num("passes_s");
  out.codegenSeconds = num("codegen_s");
  out.executeSeconds = num("execute_s");
  out.startSeconds = o->getNumber("start_s").value_or(-1);
  auto strings = [&](const char *key, std::vector<std::string> &to) {
    if (const llvm::json::Array *a = o->getArray(key))
      for (const llvm::json::Value &v : *a)
        if (auto text = v.getAsString())
          to.push_back(text->str());
  };
  strings("entry_ops", out.entryOps);
  strings("passes_that_changed", out.passesThatChanged);
  if (const llvm::json::Array *a = o->getArray("feedback"))
    for (const llvm::json::Value &v : *a)
      if (const std::optional<int64_t> k = v.getAsInteger(); k && *k >= 0 && *k <= UINT32_MAX)
        out.feedback.push_back(static_cast<uint32_t>(*k));
  if (const llvm::json::Object *c = o->getObject("compiler_coverage")) {
    std::string error;
    if (!CaseCoverage::fromJson(*c, out.compilerCoverage, error))
      return false;
  }
  return true;
}

namespace {
/// Blame runs the case again under other pipelines and probes, each of
/// which can crash or hang where the case itself did not. Run in a child of
/// the task, a failed blame is only no blame: the task still returns its
/// verdict (and a crash there is never reported as the case's).
IsolationLimits blameLimits(const RunConfig &config) {
  IsolationLimits limits;
  limits.wallSeconds = config.blameSeconds;
  return limits;
}
} // namespace

TaskResult runCaseTask(const Case &c, MlirJit &jit, const RunConfig &caseConfig) {
  // The oracles below run the case again; a pto kernel built once serves
  // them all.
  RunConfig config = caseConfig;
  if (config.backend == BackendKind::Pto || config.backend == BackendKind::Simpler ||
      config.backend == BackendKind::Pypto)
    config.pto.builds = newPtoBuilds();
  TaskResult t;
  // The first run records the IR coverage; the oracles' reruns do not.
  RunConfig first = config;
  first.jit.recordIrCoverage = true;
  auto since = [](std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  const auto firstStart = std::chrono::steady_clock::now();
  const CaseOutcome out = runCase(c, jit, first);
  t.firstRunSeconds = since(firstStart);
  static_cast<CaseVerdict &>(t) = differentialVerdict(c, out);
  t.message = out.run.message;
  t.details = out.run.details;
  t.passWarnings = out.run.passWarnings;
  t.valuesWhyNot = out.run.valuesWhyNot;
  t.dmaMapsJudged = out.run.dmaTrace.judgedMaps;
  // Without the kernel's (and DMA's) name: `kernel0.mlir DMA #2: why`.
  auto reason = [](const std::string &why) {
    const size_t colon = why.find(": ");
    return colon == std::string::npos ? why : why.substr(colon + 2);
  };
  // A DMA whose map is not judged still moves what the model computes
  // with, when it ran: a wrong map is a wrong value there.
  const std::string byValues = out.run.valuesComputed ? kJudgedByValues : "";
  for (const std::string &why : out.run.dmaTrace.unjudgedMaps)
    t.dmaMapsUnjudged.push_back(byValues + reason(why));
  for (const std::string &why : out.run.dmaTrace.undecoded)
    t.dmaMapsUnjudged.push_back("not decoded: " + reason(why));
  t.entryOps = out.run.entryOps;
  t.passesThatChanged = out.run.passesThatChanged;
  // An adapter's file npufuzz cannot read is npufuzz's problem, never the
  // case's: its coverage is off, with why.
  if (std::string why; !CaseCoverage::parse(out.run.compilerCoverage, t.compilerCoverage, why))
    t.compilerCoverage.off = why;
  if (first.jit.recordFeedback)
    t.feedback = caseFeedback(c, out.run, t.compilerCoverage);
  t.referenceSeconds = out.referenceSeconds;
  t.emitSeconds = out.run.emitSeconds;
  t.passSeconds = out.run.passSeconds;
  t.codegenSeconds = out.run.codegenSeconds;
  t.executeSeconds = out.run.executeSeconds;
  t.startSeconds = out.run.startSeconds;
  // The other oracles judge a run that agrees or is wrong, or that wrote
  // outside a buffer or region (to name and blame it); any other verdict
  // is final, but for the op a black-box program first got wrong.
  const bool judged = out.verdict == VerdictKind::Ok || out.verdict == VerdictKind::Mismatch ||
                      out.verdict == VerdictKind::OutOfBoundsWrite ||
                      out.verdict == VerdictKind::OutOfRegionWrite;
  if (!judged && !(config.blame && opBlameJudges(config, out)))
    return t;

  Pipeline pipeline;
  std::string error;
  resolvePipeline(config.pipeline, config.style, pipeline, error, config.stage);
  std::string blameRefused; // why a blame child could not be forked
  OracleContext ctx{
      c,
      jit,
      config,
      pipeline,
      out,
      [&](uint32_t poison) { return rerunKernel(c, jit, config, pipeline, out, poison); },
      [&](const std::function<std::string()> &work) -> std::optional<std::string> {
        // A compiler that runs out of process is isolated already: its
        // crash or hang ends that run (PersistentCommand), never npufuzz.
        // Run here, a blame's runs share the adapter the case started; a
        // child would start one of its own for each (torch's import alone
        // is seconds a run).
        if (runsExternally(config.backend))
          return work();
        const ChildOutcome o = runIsolated(work, blameLimits(config));
        if (o.end == ChildOutcome::End::TimedOut)
          t.blameTimedOut = true;
        if (o.end == ChildOutcome::End::ForkFailed && blameRefused.empty())
          blameRefused = o.stderrText;
        if (o.end != ChildOutcome::End::Returned)
          return std::nullopt;
        return o.payload;
      }};
  std::vector<std::unique_ptr<Oracle>> oracles;
  if (judged)
    oracles = defaultOracles();
  else
    oracles.push_back(std::make_unique<OpBlameOracle>());
  for (const std::unique_ptr<Oracle> &oracle : oracles) {
    const auto oracleStart = std::chrono::steady_clock::now();
    oracle->check(ctx, t);
    t.oracleSeconds.emplace_back(oracle->name(), since(oracleStart));
  }
  // A blame the machine did not let start would record the finding without
  // what it names: the case could not be judged, which is no finding.
  if (!blameRefused.empty()) {
    t.verdict = VerdictKind::EnvironmentError;
    t.summary = t.message = "could not start a blame process: " + blameRefused;
    return t;
  }
  if (t.blameTimedOut && t.verdict != VerdictKind::Ok)
    t.summary += " (blame: timed out)";
  return t;
}

namespace {
/// Runs `work` in a child of its own; a machine that refuses the child
/// makes `report` an environment error (nothing is found) and returns
/// nothing.
std::optional<ChildOutcome> runOrRefuse(const std::function<std::string()> &work,
                                        const IsolationLimits &limits, CaseReport &report) {
  ChildOutcome o = runIsolated(work, limits);
  if (o.end != ChildOutcome::End::ForkFailed)
    return o;
  report.result.verdict = VerdictKind::EnvironmentError;
  report.result.summary = report.result.message =
      "could not start a blame process: " + o.stderrText;
  return std::nullopt;
}

/// A pass's program that reads or writes where it must not is one root of
/// the pass, whichever access showed first (kBadAccess); the access this
/// case made is its symptom. Outputs that change with the padding outside
/// the inputs' valid shapes (kPaddingVariant) are such a read: of elements
/// outside a valid shape.
void rootBadAccess(CaseReport &r) {
  const TaskResult &t = r.result;
  // (A kernel that faults is not among them: its signal need not be an
  // access, and its pass is named by its crash.)
  const bool badAccess =
      isOutOfBounds(t.verdict) || t.verdict == VerdictKind::OutOfRegionWrite ||
      (t.verdict == VerdictKind::UninitializedRead && t.where == kPaddingVariant);
  if (!badAccess || r.signature.pass.empty())
    return;
  if (r.result.symptom.empty())
    r.result.symptom =
        std::string(verdictName(t.verdict)) + (t.where.empty() ? "" : " in " + t.where);
  r.signature.kind = VerdictKind::Mismatch;
  r.signature.where = kBadAccess;
  r.signature.message.clear();
}

/// Names the pass after which `report`'s kernel first crashes, each prefix
/// run in a child of its own.
void blameKernelCrash(const Case &c, MlirJit &jit, const RunConfig &config,
                      const Pipeline &pipeline, const IsolationLimits &limits, CaseReport &report) {
  for (size_t k = 0; k <= pipeline.passes.size(); ++k) {
    const RunConfig prefix = withPassPrefix(config, pipeline, k);
    const std::optional<ChildOutcome> o = runOrRefuse(
        [&] { return std::string(verdictName(runCase(c, jit, prefix).verdict)); }, limits, report);
    if (!o)
      return;
    if (o->end != ChildOutcome::End::Signalled ||
        diedIn(o->stderrText).stage != RunningStage::Kernel)
      continue;
    if (k == 0)
      return; // the tail alone: no pass to blame
    report.result.passName = pipeline.passes[k - 1];
    report.result.passIndex = static_cast<int>(pipeline.passElement(k - 1));
    report.result.summary += "; the kernel first crashes after pass " +
                             std::to_string(report.result.passIndex) + " (" +
                             report.result.passName + ")";
    report.signature.pass = report.result.passName;
    return;
  }
}
} // namespace

void blameKernelFault(const Case &c, MlirJit &jit, const RunConfig &config,
                      const IsolationLimits &caseLimits, CaseReport &report) {
  TaskResult &result = report.result;
  if (result.verdict != VerdictKind::Crash || result.where != "kernel" ||
      !result.passName.empty() || !config.blame || runsExternally(config.backend))
    return;
  Pipeline pipeline;
  std::string error;
  if (!resolvePipeline(config.pipeline, config.style, pipeline, error, config.stage))
    return;
  // A crash may be an access outside a buffer, which a bounds-checked run
  // stops at before it is made (oracles/MemoryErrorOracle.h).
  // One bounds-checked run, and one per prefix when it names an access.
  IsolationLimits namingLimits = caseLimits;
  namingLimits.wallSeconds *= static_cast<double>(pipeline.passes.size() + 2);
  const std::optional<ChildOutcome> o = runOrRefuse(
      [&] { return nameOutOfBounds(c, jit, config, pipeline).toJson(); }, namingLimits, report);
  if (!o)
    return;
  const MemoryErrorBlame b = o->end == ChildOutcome::End::Returned
                                 ? MemoryErrorBlame::fromJson(o->payload)
                                 : MemoryErrorBlame();
  if (b.verdict == VerdictKind::Ok)
    return blameKernelCrash(c, jit, config, pipeline, caseLimits, report);
  b.applyTo(result);
  report.signature = Signature();
  report.signature.kind = b.verdict;
  report.signature.where = b.where;
  report.signature.pass = b.passName;
  rootBadAccess(report);
}

IsolationLimits limitsWithBlame(const IsolationLimits &caseLimits, RunConfig &config) {
  config.blameSeconds = caseLimits.wallSeconds;
  IsolationLimits limits = caseLimits;
  limits.wallSeconds = 3 * caseLimits.wallSeconds;
  return limits;
}

CaseReport reportOf(const ChildOutcome &o) {
  CaseReport r;
  r.stderrText = o.stderrText;
  r.seconds = o.seconds;
  const bool outOfMemory = o.stderrText.find("out of memory") != std::string::npos ||
                           o.stderrText.find("Cannot allocate memory") != std::string::npos ||
                           o.stderrText.find("std::bad_alloc") != std::string::npos;
  switch (o.end) {
  case ChildOutcome::End::Returned:
    if (!TaskResult::fromJson(o.payload, r.result)) {
      r.result.verdict = VerdictKind::Crash;
      r.result.summary = "worker returned an unreadable result";
    }
    break;
  case ChildOutcome::End::Signalled:
    r.result.verdict = outOfMemory ? VerdictKind::Oom : VerdictKind::Crash;
    r.result.summary = std::string("killed by signal ") + std::to_string(o.signal) + " (" +
                       strsignal(o.signal) + ")";
    break;
  case ChildOutcome::End::Exited:
    r.result.verdict = outOfMemory ? VerdictKind::Oom : VerdictKind::Crash;
    r.result.summary = "worker exited with status " + std::to_string(o.exitCode);
    break;
  case ChildOutcome::End::TimedOut:
    r.result.verdict = VerdictKind::Hang;
    r.result.summary = "exceeded the time limit after " + std::to_string(o.seconds) + " s";
    break;
  case ChildOutcome::End::ForkFailed:
    // The machine refused a process (fork or file-descriptor limits):
    // nothing ran, so nothing is found.
    r.result.verdict = VerdictKind::EnvironmentError;
    r.result.summary = "could not start a worker process: " + o.stderrText;
    r.result.message = r.result.summary;
    break;
  }
  // A worker that died in an in-process MLIR run said where on stderr.
  if (o.end != ChildOutcome::End::Returned) {
    const DiedIn died = diedIn(o.stderrText);
    switch (died.stage) {
    case RunningStage::Pass:
      r.result.passName = died.passName;
      r.result.passIndex = died.passIndex;
      r.result.summary += " in pass " + std::to_string(died.passIndex) + " (" + died.passName + ")";
      break;
    case RunningStage::Codegen:
      r.result.where = "codegen";
      r.result.summary += " while generating code";
      break;
    case RunningStage::Kernel:
      r.result.where = "kernel";
      r.result.summary += " in the compiled kernel";
      break;
    case RunningStage::None: break;
    }
  }
  Signature &s = r.signature;
  s.kind = r.result.verdict;
  s.pass = r.result.passName;
  switch (r.result.verdict) {
  case VerdictKind::Crash: {
    // A worker that returned a crash verdict saw an external command die;
    // that command's stderr is in the message.
    // (Without npufuzz's own mark of the running stage: it names the pass,
    // which the signature has apart.)
    const std::string text =
        withoutStageMark(o.end == ChildOutcome::End::Returned ? r.result.message : o.stderrText);
    // A crash in the compiled kernel has no symbols to name it by: its
    // stage does (a kernel that faults is a miscompile, found by pass).
    s.where = r.result.where == "kernel" ? r.result.where : crashLocation(text);
    s.message = r.result.where == "kernel" ? std::string() : normalizeMessage(text);
    // A crash in code generation with no frame to name it (a stack that
    // overflowed in LLVM's instruction selection): the stage and the signal
    // name it, not whatever LLVM's handler printed.
    if (s.where.empty() && r.result.where == "codegen") {
      s.where = "codegen";
      if (s.message.empty() && o.end == ChildOutcome::End::Signalled)
        s.message = "signal " + std::to_string(o.signal);
    }
    // A pass that died of a signal without an assertion: where it was
    // caught is a symptom (a freed value is read by whichever printer or
    // verifier touches it next); the pass and the signal are the finding.
    // A memory error is one finding however it shows: the same double free
    // segfaults in one run and is caught by glibc's heap checks (an abort
    // with its own message) in the next.
    if (!s.pass.empty() && o.end == ChildOutcome::End::Signalled &&
        text.find("Assertion `") == std::string::npos) {
      s.where = "signal " + std::to_string(o.signal);
      if (diedOfMemoryError(o.signal, text)) {
        s.where = "memory error";
        s.message.clear();
      }
    }
    break;
  }
  case VerdictKind::Mismatch:
    // Values and indices vary between occurrences; the op and pass do not.
    // A blamed pass tells two wrong results of one op apart; without one
    // (a black-box toolchain), the class of the first difference does.
    s.where = r.result.where;
    if (s.pass.empty())
      s.message = std::string(differenceClass(r.result.difference));
    // Blamed on a pass, results each one rounding step off: which op's
    // result lands where the pass rounds wrong depends on the data.
    else if (r.result.onlyRounding && !s.where.empty())
      s.where = kRoundingOnly;
    break;
  case VerdictKind::Nondeterministic:
    // Which values differ between two runs is the nondeterminism itself:
    // the op of the first differing output, never the values.
    s.where = r.result.where;
    break;
  case VerdictKind::UninitializedRead:
    // Blamed on a pass, wrong values are one bug whether or not they came
    // from memory nobody wrote (a pass that drops a store gives both): the
    // signature of its mismatch. The verdict still says which this case was.
    if (!s.pass.empty()) {
      s.kind = VerdictKind::Mismatch;
      s.where = r.result.where;
      break;
    }
    // Found by the poison differential: the op. Found by a memory checker:
    // its headline (the kind of error and the function), numbers dropped.
    s.where = r.result.where;
    if (s.where.empty()) // its headline: the rest is the checker's report
      s.message = normalizeMessage(r.result.message.substr(0, r.result.message.find('\n')));
    break;
  case VerdictKind::OutOfBoundsRead:
  case VerdictKind::OutOfBoundsWrite:
  case VerdictKind::OutOfRegionWrite:
  case VerdictKind::UnwrittenOutput:
  case VerdictKind::WrongDmaElement:
    // The access or buffer and the pass: never the indices or offsets.
    s.where = r.result.where;
    break;
  case VerdictKind::Race:
  case VerdictKind::SyncDeadlock:
  case VerdictKind::SyncMisuse:
  case VerdictKind::UnflushedStore:
  case VerdictKind::StaleRead:
  case VerdictKind::LostWrite:
    // The two instruction kinds and the pipe pair: never addresses.
    s.where = r.result.where;
    break;
  case VerdictKind::Hang:
  case VerdictKind::Oom: break;
  default:
    s.message = normalizeMessage(r.result.message.empty() ? r.result.summary : r.result.message);
    break;
  }
  rootBadAccess(r);
  // A failure of a black-box program traced to the op that first went
  // wrong is that op's, whichever verdict this case showed it by
  // (oracles/OpBlameOracle.h): a wrong value of its arithmetic, or an
  // undefined result of its shape form. The verdict stays the case's.
  if (r.result.rootedAtOp && s.pass.empty()) {
    s.kind = VerdictKind::Mismatch;
    s.where = r.result.where;
    s.message = std::string(differenceClass(r.result.difference));
  }
  // What an unfinished blame would have named is unknown: the signature
  // says so rather than pass for another finding (the op where the wrong
  // value showed, a verdict the poison oracle gave without its pass).
  if (r.result.blameTimedOut && s.pass.empty()) {
    s.where = "blame timed out";
    s.message.clear();
  }
  return r;
}

CaseReport runCaseIsolated(const Case &c, MlirJit &jit, const RunConfig &caseConfig,
                           const IsolationLimits &caseLimits) {
  RunConfig config = caseConfig;
  const IsolationLimits limits = limitsWithBlame(caseLimits, config);
  CaseReport report =
      reportOf(runIsolated([&] { return runCaseTask(c, jit, config).toJson(); }, limits));
  blameKernelFault(c, jit, config, caseLimits, report);
  return report;
}

} // namespace npufuzz
