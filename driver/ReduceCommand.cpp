//===- driver/ReduceCommand.cpp - npufuzz reduce and npufuzz replay -------===//
#include "driver/ReduceCommand.h"
#include "driver/Export.h"

#include "driver/Releases.h"

#include "backend/mlir/Pipelines.h"
#include "driver/CaseTask.h"
#include "driver/Findings.h"
#include "driver/VerifyPipeline.h"
#include "ir/FileText.h"
#include "ir/NumberText.h"
#include "ir/Text.h"
#include "oracles/Backend.h"
#include "oracles/Bucket.h"
#include "oracles/OpBlame.h"
#include "shrink/Generalize.h"
#include "shrink/Reducer.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iomanip>
#include <limits>
#include <memory>
#include <poll.h>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace npufuzz {

namespace {
/// How much longer a candidate's second run may take, when its first ran
/// out of time (patientRunner).
constexpr double kPatienceFactor = 4;
/// A candidate's limit is at least this many times what the input took.
constexpr double kInputTimeFactor = 2;

double steadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// Whether the run was asked to stop (ReduceCommandOptions::stop; null:
/// never).
bool stopRequested(const std::atomic<bool> *stop) {
  return stop && stop->load(std::memory_order_relaxed);
}

/// What a candidate the run stopped before (or while) running observed:
/// not run, which says nothing of it.
Observation interrupted() {
  Observation o;
  o.summary = "interrupted";
  return o;
}
} // namespace

CandidateRunner isolatedRunner(MlirJit &jit, const RunConfig &caseConfig,
                               const IsolationLimits &caseLimits,
                               std::shared_ptr<const double> deadline,
                               const std::atomic<bool> *stop) {
  RunConfig base = caseConfig;
  const IsolationLimits limits = limitsWithBlame(caseLimits, base);
  return [&jit, base, limits, deadline, stop](const std::vector<Candidate> &batch) {
    if (stopRequested(stop))
      return std::vector<Observation>(batch.size(), interrupted());
    IsolationLimits batchLimits = limits;
    if (deadline)
      batchLimits.wallSeconds =
          std::max(0.1, std::min(limits.wallSeconds, *deadline - steadySeconds()));
    std::vector<std::unique_ptr<Child>> children;
    for (const Candidate &cand : batch) {
      RunConfig config = base;
      config.pipeline = cand.pipeline;
      children.push_back(std::make_unique<Child>(
          [&jit, &cand, config] { return runCaseTask(cand.c, jit, config).toJson(); },
          batchLimits));
    }
    // A child killed because the run is stopping says nothing of its
    // candidate (its SIGKILL is no crash of the compiler under test).
    std::vector<char> cut(children.size(), 0);
    for (;;) {
      if (stopRequested(stop))
        for (size_t i = 0; i < children.size(); ++i)
          if (!cut[i] && !children[i]->poll()) {
            children[i]->kill();
            cut[i] = 1;
          }
      std::vector<struct pollfd> fds;
      bool allDone = true;
      for (auto &child : children) {
        if (child->poll())
          continue;
        allDone = false;
        for (int fd : {child->payloadFd(), child->stderrFd()})
          if (fd >= 0)
            fds.push_back({fd, POLLIN, 0});
      }
      if (allDone)
        break;
      ::poll(fds.data(), fds.size(), 50);
    }
    std::vector<Observation> out;
    for (size_t i = 0; i < children.size(); ++i) {
      const Child *child = children[i].get();
      if (cut[i]) {
        out.push_back(interrupted());
        continue;
      }
      const CaseReport report = reportOf(child->outcome());
      Observation o;
      // Not run: the machine refused the process, or a tool could not
      // start, or the deadline cut it short before its own time limit.
      // None says anything about the candidate.
      const bool cutByDeadline = child->outcome().end == ChildOutcome::End::TimedOut &&
                                 batchLimits.wallSeconds < limits.wallSeconds;
      o.ran = child->outcome().end != ChildOutcome::End::ForkFailed && !report.environmentError() &&
              !cutByDeadline;
      o.signature = report.signature;
      o.summary = report.result.summary;
      // Out of time: the case's limit, the backend's own (a hang), or a
      // blame's (which names no pass or op, changing the signature as much).
      // The reduction's own deadline is no limit of the candidate's: a run
      // it cut is not tried again.
      o.outOfTime = !cutByDeadline &&
                    (child->outcome().end == ChildOutcome::End::TimedOut ||
                     report.signature.kind == VerdictKind::Hang || report.result.blameTimedOut);
      o.seconds = child->outcome().seconds;
      out.push_back(std::move(o));
    }
    return out;
  };
}

CandidateRunner longerRunner(MlirJit &jit, const RunConfig &base, const IsolationLimits &limits,
                             std::shared_ptr<const double> deadline,
                             const std::atomic<bool> *stop) {
  IsolationLimits longer = limits;
  longer.wallSeconds *= kPatienceFactor;
  return isolatedRunner(jit, withMoreTime(base, kPatienceFactor), longer, std::move(deadline),
                        stop);
}

CandidateRunner patientRunner(CandidateRunner run, CandidateRunner patient,
                              std::shared_ptr<unsigned> retries) {
  return [run = std::move(run), patient = std::move(patient),
          retries = std::move(retries)](const std::vector<Candidate> &batch) {
    std::vector<Observation> seen = run(batch);
    for (size_t i = 0; i < seen.size() && i < batch.size(); ++i) {
      if (!seen[i].outOfTime)
        continue;
      if (retries)
        ++*retries;
      // One at a time: the machine that was too slow for the batch has
      // only this candidate to run.
      seen[i] = patient({batch[i]})[0];
    }
    return seen;
  };
}

SwitchStates switchStatesOf(BackendKind backend, const Expectation &how) {
  return switchStates(backend, how.loweringSeed, {}, how.drawsModes);
}

std::string expectationLine(const Expectation &e) {
  std::string line = "// expect: " + std::string(verdictName(e.verdict));
  if (!e.signatureId.empty())
    line += " signature=" + e.signatureId;
  // The pipeline goes last and runs to the end of the line: pass options
  // may hold spaces.
  line += " style=" + e.style;
  if (e.loweringSeed)
    line += " lowering=" + std::to_string(*e.loweringSeed) + (e.drawsModes ? " modes=drawn" : "");
  if (e.stage != PassStage::Entry)
    line += " stage=" + std::string(passStageName(e.stage));
  if (!e.fixedIn.empty())
    line += " fixed=" + e.fixedIn;
  if (!e.from.empty())
    line += " from=" + e.from;
  if (!e.until.empty())
    line += " until=" + e.until;
  return line + " pipeline=" + e.pipeline;
}

bool parseExpectation(const std::string &caseText, Expectation &out, std::string &error,
                      unsigned *lineNumber) {
  std::istringstream in(caseText);
  const std::string marker = "// expect:";
  unsigned number = 0;
  if (lineNumber)
    *lineNumber = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    const size_t at = line.find(marker);
    if (at == std::string::npos)
      continue;
    if (lineNumber)
      *lineNumber = number;
    out.drawsModes = false; // unless the line says so
    std::string rest = line.substr(at + marker.size());
    const size_t pipelineAt = rest.find(" pipeline=");
    if (pipelineAt != std::string::npos) {
      out.pipeline = rest.substr(pipelineAt + 10);
      rest.resize(pipelineAt);
    }
    std::istringstream words(rest);
    std::string verdict;
    words >> verdict;
    std::optional<VerdictKind> v = parseVerdictName(verdict);
    if (!v) {
      error = "unknown verdict '" + verdict + "'";
      return false;
    }
    out.verdict = *v;
    for (std::string w; words >> w;) {
      if (w.rfind("signature=", 0) == 0)
        out.signatureId = w.substr(10);
      else if (w.rfind("style=", 0) == 0)
        out.style = w.substr(6);
      else if (uint64_t seed; w.rfind("lowering=", 0) == 0 && textToUInt(w.substr(9), seed))
        out.loweringSeed = seed;
      else if (w == "modes=drawn")
        out.drawsModes = true;
      else if (w.rfind("stage=", 0) == 0 && parsePassStage(w.substr(6), out.stage))
        continue;
      else if (w.rfind("fixed=", 0) == 0 && releaseOf(w.substr(6)))
        out.fixedIn = w.substr(6);
      else if (w.rfind("from=", 0) == 0 && releaseOf(w.substr(5)))
        out.from = w.substr(5);
      else if (w.rfind("until=", 0) == 0 && releaseOf(w.substr(6)))
        out.until = w.substr(6);
      else {
        error = "unknown field '" + w + "'";
        return false;
      }
    }
    return true;
  }
  error = "no '// expect: <verdict> ...' line";
  return false;
}

std::string damagedExpectLine(const std::string &path, unsigned line, const std::string &why) {
  return path + ":" + std::to_string(line) + ": damaged expect line: " + why;
}

namespace {
llvm::json::Object sizeJson(const CandidateSize &s) {
  return llvm::json::Object{{"case_size", static_cast<int64_t>(s.caseSize)},
                            {"compute_ops", static_cast<int64_t>(s.computeOps)},
                            {"max_dim", s.maxDim},
                            {"passes", static_cast<int64_t>(s.passes)}};
}

std::string quoted(const std::string &s) { return "'" + s + "'"; }

/// `npufuzz run` of the reduced case, as a user types it in OUT.
std::string reproLine(const ReduceCommandOptions &o, const std::string &pipeline) {
  std::string line = "npufuzz run case.npf";
  // The backend first: it decides what the other flags mean (a toolchain
  // found by discovery needs no flag of its own).
  if (o.backend != BackendKind::MlirJit)
    line += " --backend " + std::string(backendKindName(o.backend));
  line += " --pipeline " + quoted(pipeline) + " --style " + o.style;
  if (o.loweringSeed)
    line += " --lowering-seed " + std::to_string(*o.loweringSeed);
  if (o.stage != PassStage::Entry)
    line += " --pass-stage " + std::string(passStageName(o.stage));
  for (const std::string &flag : o.backendFlags)
    line += " " + shellQuote(flag);
  for (const std::string &p : o.plugins)
    line += " --load-pass-plugin " + quoted(p);
  return line;
}

bool loadCaseText(const std::string &path, Case &c, std::string &text, std::string &error) {
  if (!readFileBytes(path, text, error, 64u << 20)) {
    error = "cannot read " + error;
    return false;
  }
  TextError e;
  if (!parseCase(text, c, e)) {
    error = e.format(path);
    return false;
  }
  return true;
}

bool loadPlugins(MlirJit &jit, const std::vector<std::string> &plugins, std::string &error) {
  for (const std::string &plugin : plugins)
    if (!jit.loadPassPlugin(plugin, error)) {
      error = "cannot load pass plugin " + plugin + ": " + error;
      return false;
    }
  return true;
}

/// The MLIR `cand` gives its blamed pass `blamed` (the last element of its
/// pipeline of that name, options aside when `blamed` has none), made by
/// the elements before it in a child, since they are the compiler under
/// test; and that element as the pipeline writes it. Empty when there is
/// no such pass or the elements before it fail.
std::pair<std::string, std::string> irBefore(MlirJit &jit, const Candidate &cand,
                                             const std::string &blamed, const RunConfig &caseConfig,
                                             const IsolationLimits &limits) {
  RunConfig config = caseConfig;
  config.pipeline = cand.pipeline;
  Pipeline p;
  std::string error;
  MlirKernel kernel;
  if (blamed.empty() || !resolvePipeline(cand.pipeline, config.style, p, error, config.stage) ||
      !emitMlir(cand.c, emitOptionsOf(config), kernel, error))
    return {};
  const std::vector<std::string> elements = p.elements();
  for (size_t i = elements.size(); i-- > 0;) {
    if (!namesPass(blamed, elements[i]))
      continue;
    const std::vector<std::string> before(elements.begin(), elements.begin() + i);
    const ChildOutcome o = runIsolated(
        [&] {
          const BackendRun r = jit.transform(kernel.text, before);
          return r.ok() ? r.mlir : std::string();
        },
        limits);
    if (o.end != ChildOutcome::End::Returned || o.payload.empty())
      return {};
    return {o.payload, elements[i]};
  }
  return {};
}

/// Whether `element` alone miscompiles `ir`, as verify-pipeline judges it
/// on its data sets (in a child, with the passes' plugins).
bool passMiscompiles(const std::string &ir, const std::string &element,
                     const std::vector<std::string> &plugins, const IsolationLimits &limits) {
  llvm::SmallString<128> path;
  int fd = -1;
  if (llvm::sys::fs::createTemporaryFile("npufuzz-ir", "mlir", fd, path))
    return false;
  const bool written = writeAll(fd, ir.data(), ir.size());
  ::close(fd);
  VerifyPipelineOptions v;
  v.file = path.str().str();
  v.pipeline = element;
  v.passPlugins = plugins;
  const VerifyPipelineReport r =
      written ? verifyPipelineIsolated(v, limits) : VerifyPipelineReport();
  llvm::sys::fs::remove(path);
  return r.verdict == "mismatch" && r.passName == element && r.miscompiledBy.empty();
}

/// How many verify-pipeline runs an MLIR reduction may take: a bound on
/// runs, not on time, so that the skeleton does not depend on the
/// machine's speed.
constexpr unsigned kMaxIrReductionTests = 40;

/// `ir` reduced as mlir-reduce would: ops erased one at a time
/// (MlirJit::erasures) while `element` alone still miscompiles it. As it
/// is when it does not miscompile it to begin with (the failure needs the
/// case's data, which verify-pipeline's data sets need not have). Stops
/// early, with the smallest so far, once `stop` is set.
std::string reduceIrForPass(MlirJit &jit, std::string ir, const std::string &element,
                            const std::vector<std::string> &plugins, const IsolationLimits &limits,
                            unsigned &tests, const std::atomic<bool> *stop) {
  ++tests;
  if (!passMiscompiles(ir, element, plugins, limits))
    return ir;
  // The variants are made in a child: the IR is the compiler's output,
  // and parsing, verifying or printing it may fail in ways that must not
  // take the campaign down.
  auto erasures = [&](size_t limit) {
    const ChildOutcome o = runIsolated(
        [&] {
          llvm::json::Array variants;
          for (std::string &v : jit.erasures(ir, limit))
            variants.push_back(std::move(v));
          std::string text;
          llvm::raw_string_ostream os(text);
          os << llvm::json::Value(std::move(variants));
          return text;
        },
        limits);
    std::vector<std::string> out;
    if (o.end != ChildOutcome::End::Returned)
      return out;
    llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(o.payload);
    if (!parsed) {
      llvm::consumeError(parsed.takeError());
      return out;
    }
    if (const llvm::json::Array *a = parsed->getAsArray())
      for (const llvm::json::Value &v : *a)
        if (const std::optional<llvm::StringRef> text = v.getAsString())
          out.push_back(text->str());
    return out;
  };
  for (bool changed = true; changed && tests < kMaxIrReductionTests && !stopRequested(stop);) {
    changed = false;
    for (const std::string &variant : erasures(kMaxIrReductionTests - tests)) {
      if (tests >= kMaxIrReductionTests || stopRequested(stop))
        return ir;
      ++tests;
      if (passMiscompiles(variant, element, plugins, limits)) {
        ir = variant;
        changed = true;
        break;
      }
    }
  }
  return ir;
}
} // namespace

int runReduceCommand(const ReduceCommandOptions &o, std::ostream &out) {
  // 2: what reduce was given is wrong, or OUT cannot be written; 1: it
  // could not reduce.
  auto fail = [&](const std::string &msg, int status = 2) {
    llvm::errs() << "npufuzz reduce: " << msg << "\n";
    return status;
  };
  auto stopped = [&] { return stopRequested(o.stop); };
  Candidate input;
  std::string text, error;
  if (!loadCaseText(o.casePath, input.c, text, error))
    return fail(error);
  input.pipeline = o.pipeline;
  RunConfig config;
  config.pipeline = o.pipeline;
  config.backend = o.backend;
  config.external = o.external;
  config.pto = o.pto;
  config.pytorchsim = o.pytorchsim;
  config.knownSignatures = o.knownSignatures;
  config.loweringSeed = o.loweringSeed;
  config.drawsModes = o.drawsModes;
  config.stage = o.stage;
  if (!parseMlirStyle(o.style, config.style))
    return fail("unknown style '" + o.style + "'");
  // An external test is asked about the input first, as C-Reduce does: a
  // command that cannot run, or that the input does not pass, would
  // otherwise answer "not interesting" to every candidate and the run end
  // in a failed re-check, as if the reduction had lost the bug.
  std::unique_ptr<ExternalCommand> command;
  if (!o.interestingnessCmd.empty()) {
    command = std::make_unique<ExternalCommand>(o.interestingnessCmd, o.candidateTimeout);
    if (!command->error().empty())
      return fail(command->error());
    const std::string shown = llvm::join(o.interestingnessCmd, " ");
    const ExternalCommand::Judgement first = command->judge(input);
    // An interrupt reaches the command too: its answer means nothing then.
    if (stopped())
      return fail("interrupted before the reduction started; nothing written", 1);
    if (first.cannotRun)
      return fail("cannot run " + shown + ": " + first.why);
    if (first.answer != Answer::Interesting)
      return fail("the input is not interesting to " + shown + " (" + first.why + ")");
  }
  std::unique_ptr<MlirJit> ownJit;
  if (!o.jit) {
    ownJit = std::make_unique<MlirJit>();
    if (!loadPlugins(*ownJit, o.plugins, error))
      return fail(error);
  }
  MlirJit &jit = o.jit ? *o.jit : *ownJit;
  IsolationLimits limits;
  limits.wallSeconds = o.candidateTimeout;
  limits.addressSpaceBytes = o.memoryBytes;
  // Every run below gets a second, longer one when it runs out of time
  // (patientRunner), unless running out of time is the failure itself.
  auto retries = std::make_shared<unsigned>(0);
  auto withPatience = [&](const RunConfig &c, const IsolationLimits &l,
                          std::shared_ptr<const double> deadline, const std::atomic<bool> *stop,
                          bool patient) {
    CandidateRunner quick = isolatedRunner(jit, c, l, deadline, stop);
    if (!patient)
      return quick;
    return patientRunner(std::move(quick), longerRunner(jit, c, l, deadline, stop), retries);
  };
  const bool targetHangs = o.target && o.target->kind == VerdictKind::Hang;
  // Switch blame tries the switch the target names first: a candidate of a
  // black-box compiler is then judged in two compilations, not one a switch.
  if (o.target)
    preferBlaming(config, o.target->pass);

  // The input's own failure: the target of same-signature reduction, and
  // what the report names when an external command decides instead.
  Observation original = withPatience(config, limits, nullptr, o.stop, !targetHangs)({input})[0];
  // A candidate's limits follow what the input took: on a machine slow
  // enough that the input needed a good part of its limit, every candidate
  // gets kInputTimeFactor times the input's time (and its backend's own
  // limits, blame's among them, as much more).
  const double slower =
      std::max(1.0, kInputTimeFactor * original.seconds / std::max(1e-3, limits.wallSeconds));
  if (slower > 1) {
    config = withMoreTime(config, slower);
    limits.wallSeconds *= slower;
    out << "candidate limit: " << llvm::formatv("{0:f1}", limits.wallSeconds).str()
        << " s (the input took " << llvm::formatv("{0:f1}", original.seconds).str() << " s)\n";
    // Out of time even on its second run (a blame of several compilations
    // needs more than one compilation's time): once more with those limits,
    // so that the target is a failure the case has and not the machine's.
    if (original.outOfTime && !targetHangs && !stopped())
      original = isolatedRunner(jit, config, limits, nullptr, o.stop)({input})[0];
  }
  if (stopped())
    return fail("interrupted before the reduction started; nothing written", 1);
  if (!original.ran)
    return fail("could not run the case: " + original.summary, 2);
  out << "input: " << verdictName(original.signature.kind) << ": " << original.summary << "\n"
      << "signature: " << original.signature.text() << "\n";
  preferBlaming(config, original.signature.pass);
  const bool patient = !targetHangs && original.signature.kind != VerdictKind::Hang;
  // The re-check of the result is never stopped: an interrupted run still
  // needs the reduced case's own signature for its expect line.
  const CandidateRunner runner = withPatience(config, limits, nullptr, nullptr, patient);
  // The other runs stop on an interrupt; what they then observe is "not
  // run", which generalisation and the bucket's pattern take as nothing
  // shown, so the answers stay as specific as the input's own signature.
  const CandidateRunner probing = withPatience(config, limits, nullptr, o.stop, patient);
  // Reduction keeps to its time: a candidate still running at the end is
  // cut short (a timeout: not interesting), and the result re-checked after.
  auto deadline = std::make_shared<double>(std::numeric_limits<double>::infinity());
  const CandidateRunner reducing = withPatience(config, limits, deadline, o.stop, patient);

  std::unique_ptr<Interestingness> test;
  // What the failure needs: reduction keeps that and may lose the rest (the
  // op it first showed in, options of the pass that do not matter).
  Signature target = original.signature;
  GeneralizeCost generalizeCost;
  if (o.interestingnessCmd.empty()) {
    if (original.signature.kind == VerdictKind::Ok)
      return fail("the case passes; there is no failure to reduce", 1);
    target = o.target ? *o.target
                      : generalizeSignature(input, original.signature, probing, config.style,
                                            config.stage, &generalizeCost);
    if (target.id() != original.signature.id())
      out << "root cause: " << target.text() << "\n";
    test = std::make_unique<SameSignature>(target, reducing);
  } else {
    test = std::move(command);
  }
  ReduceOptions ro;
  ro.style = config.style;
  ro.maxSeconds = o.maxSeconds;
  ro.jobs = std::max(1u, o.jobs);
  if (o.progress)
    ro.log = [](const std::string &line) { llvm::errs() << "[reduce] " << line << "\n"; };
  ro.confirm = false; // below, with the whole candidate time
  ro.stop = o.stop;
  if (o.maxSeconds > 0)
    *deadline = steadySeconds() + o.maxSeconds;
  ReduceResult r = reduce(input, *test, ro);
  // Interrupted, the best case so far is written as a finished reduction's
  // is: the reducer took it because it was interesting (the input, before
  // any step: its failure was seen above), and the re-check below runs.
  if (!r.error.empty() && !r.interrupted)
    return fail(r.error, 1);

  // The reduced case's own signature (its expect line, which replay
  // compares), and the root cause it keeps. An external command knows
  // nothing of signatures: the reduced case's failure is named.
  const Observation reducedRun = runner({r.reduced})[0];
  const Signature own = reducedRun.signature;
  const Signature sig = o.interestingnessCmd.empty() ? target : own;
  r.confirmed = o.interestingnessCmd.empty() ? reducedRun.ran && sameRootCause(target, own)
                                             : test->test({r.reduced})[0] == Answer::Interesting;
  std::error_code ec;
  fs::create_directories(o.outDir, ec);
  if (ec)
    return fail("cannot create " + o.outDir + ": " + ec.message());
  Expectation expect;
  expect.verdict = own.kind;
  expect.signatureId = own.id();
  expect.pipeline = r.reduced.pipeline;
  expect.style = o.style;
  expect.loweringSeed = o.loweringSeed;
  expect.drawsModes = o.drawsModes;
  expect.stage = o.stage;
  const std::string caseText = expectationLine(expect) + "\n" + printCase(r.reduced.c);
  MlirKernel kernel;
  const MlirEmitOptions emitOptions = emitOptionsOf(config);
  std::string unsupported;
  // A crash names no pass; but once the pipeline is shortened to a fixpoint,
  // every remaining pass is needed, so a single remaining one is the culprit.
  std::string blamed = sig.pass;
  Pipeline reducedPipeline;
  std::string pipelineError;
  if (blamed.empty() && test->testsPipeline() && !r.timedOut && !r.interrupted &&
      resolvePipeline(r.reduced.pipeline, config.style, reducedPipeline, pipelineError,
                      config.stage) &&
      reducedPipeline.passes.size() == 1)
    blamed = reducedPipeline.passes[0];
  const std::string mlir = emitMlir(r.reduced.c, emitOptions, kernel, unsupported)
                               ? kernel.text
                               : "// not expressible: " + unsupported + "\n";
  // The bucket: what of the reduced case the failure needs, and the
  // skeleton of the IR the blamed pass was given.
  Bucket bucket = bucketOf(sig.kind, blamed, r.reduced.c);
  std::string skeleton;
  unsigned irReductionTests = 0;
  if (o.interestingnessCmd.empty() && r.confirmed && !stopped()) {
    // The bucket's probes keep to a budget of their own, the reduction's
    // time again: a probe cut short shows nothing, so the bucket stays as
    // specific as the reduced case's signature.
    auto patternDeadline =
        std::make_shared<double>(o.maxSeconds > 0 ? steadySeconds() + o.maxSeconds
                                                  : std::numeric_limits<double>::infinity());
    const CandidateRunner patterning =
        withPatience(config, limits, patternDeadline, o.stop, patient);
    const FailurePattern pattern =
        failurePattern(r.reduced, sig, patterning, config.style, config.stage, &generalizeCost);
    // The skeleton of the canonical lowering when the failure does not need
    // the case's lowering variant: a variant's loops are no part of the bug.
    RunConfig skeletonConfig = config;
    if (config.loweringSeed) {
      RunConfig canonical = config;
      canonical.loweringSeed.reset();
      const Observation seen =
          isolatedRunner(jit, canonical, limits, nullptr, o.stop)({r.reduced})[0];
      ++generalizeCost.tests;
      if (seen.ran && sameRootCause(sig, seen.signature))
        skeletonConfig = canonical;
    }
    // The IR given to the blamed pass, reduced to what it miscompiles.
    const auto [ir, element] = irBefore(jit, r.reduced, blamed, skeletonConfig, limits);
    if (!ir.empty() && !stopped()) {
      const std::string reducedIr =
          reduceIrForPass(jit, ir, element, o.plugins, limits, irReductionTests, o.stop);
      const ChildOutcome made = runIsolated(
          [&] {
            std::string text, why;
            return jit.skeleton(reducedIr, {}, text, why) ? text : std::string();
          },
          limits);
      skeleton = made.end == ChildOutcome::End::Returned ? made.payload : std::string();
    }
    // Runs an interrupt cut short showed nothing: the bucket stays the one
    // of the reduced case's own ops, not a pattern that only looks exact.
    if (stopped())
      skeleton.clear();
    else
      bucket = bucketOf(sig.kind, blamed, pattern.families, pattern.dtypeClasses, skeleton);
  }
  // The reduced case with every value returned: a root of the pass seen
  // through a later op (a loop's tail written past the insert it belongs to,
  // read by a gather) is named there by the op that first went wrong, as a
  // known root may be listed (driver/Report.h isKnownFinding).
  std::optional<Signature> exposed;
  if (o.interestingnessCmd.empty() && r.confirmed && !stopped() && !sig.pass.empty()) {
    const Observation seen = isolatedRunner(jit, config, limits, nullptr, o.stop)(
        {{everyValueReturned(r.reduced.c), r.reduced.pipeline}})[0];
    ++generalizeCost.tests;
    if (seen.ran && !stopped() && isFinding(seen.signature.kind) &&
        seen.signature.id() != sig.id() && namesPass(sig.pass, seen.signature.pass))
      exposed = seen.signature;
  }
  // Stopped during the reduction, or after it while its bucket was made.
  const bool interrupted = r.interrupted || stopped();
  llvm::json::Object report{
      {"signature", sig.text()},
      {"signature_id", sig.id()},
      {"bucket", bucket.id()},
      {"bucket_key", bucket.key},
      {"case_signature", own.text()},
      {"case_signature_id", own.id()},
      {"skeleton", skeleton},
      {"skeleton_id", skeleton.empty() ? std::string() : skeletonId(skeleton)},
      {"exposed_signature", exposed ? exposed->text() : std::string()},
      {"exposed_signature_id", exposed ? exposed->id() : std::string()},
      {"generalize_tests", static_cast<int64_t>(generalizeCost.tests)},
      {"generalize_seconds", generalizeCost.seconds},
      {"ir_reduction_tests", static_cast<int64_t>(irReductionTests)},
      {"verdict", std::string(verdictName(sig.kind))},
      {"pass", blamed},
      {"interestingness", o.interestingnessCmd.empty() ? "same-signature" : "command"},
      {"style", o.style},
      {"lowering_seed",
       o.loweringSeed ? llvm::json::Value(*o.loweringSeed) : llvm::json::Value(nullptr)},
      {"lowering", emitOptions.plan.str(config.style)},
      {"pass_stage", std::string(passStageName(o.stage))},
      {"pipeline_before", o.pipeline},
      {"pipeline_after", r.reduced.pipeline},
      {"size_before", sizeJson(r.before)},
      {"size_after", sizeJson(r.after)},
      {"case_steps", static_cast<int64_t>(r.caseSteps)},
      {"pipeline_steps", static_cast<int64_t>(r.pipelineSteps)},
      {"tests", static_cast<int64_t>(r.tests)},
      {"cache_hits", static_cast<int64_t>(r.cacheHits)},
      {"errors", static_cast<int64_t>(r.errors)},
      {"retried_out_of_time", static_cast<int64_t>(*retries)},
      {"candidate_seconds", limits.wallSeconds},
      {"seconds", r.seconds},
      {"timed_out", r.timedOut},
      {"interrupted", interrupted},
      {"confirmed", r.confirmed},
      {"repro", reproLine(o, r.reduced.pipeline)},
  };
  std::string json;
  llvm::raw_string_ostream js(json);
  js << llvm::formatv("{0:2}", llvm::json::Value(std::move(report))) << "\n";
  const fs::path dir(o.outDir);
  // A write that fails is the machine's refusal (2), never "could not
  // reduce"; the reduced case goes to stdout then, so that the reduction
  // is not lost with it.
  std::string writeError;
  auto writeOut = [&](const std::string &name, const std::string &bytes) {
    return writeFileAtomically((dir / name).string(), bytes, writeError);
  };
  auto writeFailed = [&] {
    out << caseText;
    return fail("cannot write " + writeError + " (the reduced case is on stdout)");
  };
  if (!writeOut("case.npf", caseText) || !writeOut("kernel.mlir", mlir) ||
      !writeOut("report.json", json))
    return writeFailed();
  // What the backend made of the reduced case (pto: kernel.pto and ptoas's
  // kernel.cpp, whose lines a race report names).
  std::string written = "case.npf,kernel.mlir,report.json";
  for (const auto &[name, text] : makeBackend(config)->programs(r.reduced.c)) {
    if (!writeOut(name, text))
      return writeFailed();
    written += "," + name;
  }
  // The reproducer its compiler's tracker takes (`npufuzz export`), when
  // the backend has a form, the reduced case still fails and fits the form;
  // a case that does not (an op torch cannot write exactly) keeps its
  // repro line.
  if (const std::optional<ExportForm> form = exportFormOf(o.backend)) {
    std::error_code stale;
    fs::remove(dir / exportFileName(*form), stale);
    Expectation how;
    how.verdict = sig.kind;
    how.style = o.style;
    how.pipeline = r.reduced.pipeline;
    how.loweringSeed = o.loweringSeed;
    how.drawsModes = o.drawsModes;
    how.stage = o.stage;
    std::string script, whyNot;
    if (!r.confirmed)
      whyNot = "the reduced case was not re-checked";
    else if (exportCase(
                 r.reduced.c, how, *form,
                 {(dir / "case.npf").string(), sig.text(), std::string(backendKindName(o.backend))},
                 script, whyNot)) {
      if (!writeOut(exportFileName(*form), script))
        return writeFailed();
      written += std::string(",") + exportFileName(*form);
    }
    if (!whyNot.empty())
      out << "no " << exportFileName(*form) << ": " << whyNot << "\n";
  }

  out << "reduced in " << std::fixed << std::setprecision(1) << r.seconds << " s"
      << (interrupted  ? " (interrupted)"
          : r.timedOut ? " (time limit)"
                       : "")
      << ": size " << r.before.caseSize << " -> " << r.after.caseSize << ", ops "
      << r.before.computeOps << " -> " << r.after.computeOps << ", max dim " << r.before.maxDim
      << " -> " << r.after.maxDim << ", passes " << r.before.passes << " -> " << r.after.passes
      << "\n"
      << "steps: " << r.caseSteps << " case, " << r.pipelineSteps << " pipeline; tests " << r.tests
      << ", cached " << r.cacheHits << ", errors " << r.errors << ", run again with more time "
      << *retries << "\n"
      << "pipeline: " << r.reduced.pipeline << "\n"
      << "blamed pass: " << (blamed.empty() ? "(none)" : blamed) << "\n"
      << "bucket: " << bucket.id() << " (" << bucket.key << ")\n"
      << "generalisation: " << generalizeCost.tests << " runs, " << std::setprecision(1)
      << generalizeCost.seconds << " s\n"
      << (r.confirmed ? "re-checked: still interesting\n"
                      : "re-check FAILED: the reduced case is no longer interesting\n")
      << "wrote " << o.outDir << "/{" << written << "}\n";
  // An interrupted reduction ends as a finished one does: 0 when its case,
  // re-checked, still fails (a shell's 130 for SIGINT is outside npufuzz's
  // 0/1/2, and a script that reduces then files the repro should see a
  // valid one as such); the note says it is not a fixpoint.
  if (interrupted)
    llvm::errs() << "npufuzz reduce: interrupted: the smallest case so far is in " << o.outDir
                 << "\n";
  return r.confirmed ? 0 : 1;
}

int runReplayCommand(const ReplayOptions &o, std::ostream &out) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto &e : fs::directory_iterator(o.dir, ec))
    if (e.path().extension() == ".npf")
      files.push_back(e.path());
  if (ec) {
    llvm::errs() << "npufuzz replay: cannot read " << o.dir << ": " << ec.message() << "\n";
    return 1;
  }
  if (files.empty()) {
    llvm::errs() << "npufuzz replay: " << o.dir << " holds no .npf regressions\n";
    return 1;
  }
  std::sort(files.begin(), files.end());
  MlirJit jit;
  if (std::string error; !loadPlugins(jit, o.plugins, error)) {
    llvm::errs() << "npufuzz replay: " << error << "\n";
    return 1;
  }
  IsolationLimits limits;
  limits.wallSeconds = o.candidateTimeout;
  limits.addressSpaceBytes = o.memoryBytes;
  unsigned changed = 0, notRun = 0, unreadable = 0, otherReleases = 0;
  for (const fs::path &path : files) {
    const std::string name = path.filename().string();
    Candidate cand;
    std::string text, error;
    Expectation expect;
    RunConfig config = o.backend;
    unsigned line = 0;
    bool readable = loadCaseText(path.string(), cand.c, text, error);
    if (readable && !parseExpectation(text, expect, error, &line)) {
      readable = false;
      // Worded as `run` and `reduce` word it; a regression without the
      // line keeps its own message.
      if (line)
        error = damagedExpectLine(path.string(), line, error);
    }
    if (readable && !parseMlirStyle(expect.style, config.style)) {
      readable = false;
      error = "unknown style '" + expect.style + "' in its expect line";
    }
    if (!readable) {
      out << "BROKEN   " << name << ": " << error << "\n";
      ++changed;
      continue;
    }
    cand.pipeline = config.pipeline = expect.pipeline;
    config.loweringSeed = expect.loweringSeed;
    config.drawsModes = expect.drawsModes;
    config.stage = expect.stage;
    // An expectation of some releases only: another release's is not run.
    std::string otherRelease, noRelease;
    for (const auto &[bound, fromOn] :
         {std::pair<const std::string &, bool>{expect.from, true}, {expect.until, false}}) {
      if (bound.empty())
        continue;
      const std::optional<bool> reached = includesFix(config.external.version, *releaseOf(bound));
      const std::string range = std::string(fromOn ? "from " : "until ") + bound;
      if (!reached)
        noRelease = "expected " + range + ", and the backend names no release of it";
      else if (*reached != fromOn)
        otherRelease = "expected " + range + " only: another release runs here";
    }
    if (!noRelease.empty()) {
      out << "NOT RUN  " << name << ": " << noRelease << "\n";
      ++notRun;
      continue;
    }
    if (!otherRelease.empty()) {
      out << "OTHER    " << name << ": " << otherRelease << "\n";
      ++otherReleases;
      continue;
    }
    // A bug fixed in a release: against that release or a later one the
    // case expects ok, against an older one the bug.
    std::string fixNote;
    if (!expect.fixedIn.empty()) {
      const std::optional<bool> fixed =
          includesFix(config.external.version, *releaseOf(expect.fixedIn));
      if (!fixed) {
        out << "NOT RUN  " << name << ": fixed in " << expect.fixedIn
            << ", and the backend names no release of it\n";
        ++notRun;
        continue;
      }
      fixNote = " (fixed in " + expect.fixedIn + (*fixed ? ", which runs here)" : ", not here)");
      if (*fixed) {
        expect.verdict = VerdictKind::Ok;
        expect.signatureId.clear();
      }
    }
    // A pipeline that does not parse here (a plugin's pass without
    // --load-pass-plugin) is what replay was given, not a changed verdict.
    error.clear();
    if (!pipelineRunsOn(jit, config, error)) {
      out << "NOT RUN  " << name << ": its pipeline: " << error.substr(0, error.find('\n')) << "\n";
      ++unreadable;
      continue;
    }
    Observation seen = isolatedRunner(jit, config, limits)({cand})[0];
    // A toolchain's memory error shows as a wrong value in one run and as
    // a crash in the next (the corrupted heap's layout differs): a verdict
    // that differs is asked once more, and the rerun's is the regression's;
    // the first is said beside it.
    std::string once;
    if (seen.ran && seen.signature.kind != expect.verdict) {
      // A run out of time on a busy machine is asked again with more time
      // (patientRunner's factor): a slow machine is no changed verdict.
      const bool patient = seen.outOfTime && expect.verdict != VerdictKind::Hang;
      const Observation again = (patient ? longerRunner(jit, config, limits)
                                         : isolatedRunner(jit, config, limits))({cand})[0];
      if (again.ran && again.signature.kind == expect.verdict)
        once = std::string(verdictName(seen.signature.kind)) + ": " +
               seen.summary.substr(0, seen.summary.find('\n'));
      seen = again;
    }
    if (!seen.ran) { // the machine's, not the regression's
      out << "NOT RUN  " << name << ": " << seen.summary << "\n";
      ++notRun;
      continue;
    }
    const bool sameVerdict = seen.ran && seen.signature.kind == expect.verdict;
    changed += !sameVerdict;
    out << (sameVerdict ? "ok       " : "CHANGED  ") << name << ": "
        << verdictName(seen.signature.kind);
    out << fixNote;
    if (!once.empty())
      out << " (once " << once.substr(0, 160) << ")";
    if (!sameVerdict)
      out << " (expected " << verdictName(expect.verdict) << "): " << seen.summary;
    else if (!expect.signatureId.empty() && seen.signature.id() != expect.signatureId)
      out << " (signature now " << seen.signature.id() << ": " << seen.signature.text() << ")";
    out << "\n";
  }
  out << files.size() << " regressions, " << changed << " changed";
  if (otherReleases)
    out << ", " << otherReleases << " for another release";
  if (notRun + unreadable) {
    out << ", " << notRun + unreadable << " not run\n";
    if (unreadable)
      llvm::errs() << "npufuzz replay: " << unreadable
                   << " regressions have a pipeline that does not parse here (a pass plugin "
                      "not loaded?)\n";
    if (notRun)
      llvm::errs() << "npufuzz replay: " << notRun << " regressions could not be run\n";
    return 2;
  }
  out << "\n";
  return changed ? 1 : 0;
}

} // namespace npufuzz
