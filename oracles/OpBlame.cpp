//===- oracles/OpBlame.cpp - The first op a black-box backend gets wrong ---===//
#include "oracles/OpBlame.h"
#include "oracles/StoredBy.h"

#include "backend/external/PersistentCommand.h"

#include "ir/Storage.h"
#include "ir/Text.h"
#include "oracles/Signature.h"
#include "oracles/ValidRegion.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <map>
#include <optional>
#include <set>

namespace npufuzz {

namespace {
/// The first `count` ops of `c`, every result of which is an output.
Case cutProgram(const Case &c, size_t count) {
  Case cut = c;
  cut.ops.erase(cut.ops.begin() + static_cast<std::ptrdiff_t>(count), cut.ops.end());
  cut.outputs.clear();
  for (const Op &op : cut.ops)
    for (const ValueId v : op.results)
      cut.outputs.push_back(v);
  return cut;
}

/// How a finding names op `i` of `c`: `%5 = row_expand_add`, and in a chain
/// of tasks, its task's name (`%5 = row_expand_add in task dispatch`).
std::string opLabel(const Case &c, size_t i) {
  const Op &op = c.ops[i];
  std::string label = "%" + std::to_string(op.results[0]) + " = " + std::string(opName(op.kind));
  const std::vector<int32_t> tasks = opTasks(c);
  if (i < tasks.size() && tasks[i] >= 0 && static_cast<size_t>(tasks[i]) < c.tasks.size())
    label += " in task " + c.tasks[tasks[i]].name;
  return label;
}

/// Whether a cut program's run failed, as far as it says anything about
/// the case: a run the backend could not make (a cut it cannot express, a
/// machine that refused) says nothing.
std::optional<bool> cutFails(const CaseOutcome &out) {
  switch (out.verdict) {
  case VerdictKind::Ok: return false;
  case VerdictKind::Unsupported:
  case VerdictKind::EnvironmentError:
  case VerdictKind::ReferenceError: return std::nullopt;
  case VerdictKind::Mismatch:
  case VerdictKind::Crash:
  case VerdictKind::VerifierError:
  case VerdictKind::PassFailure:
  case VerdictKind::CompileError:
  case VerdictKind::Hang:
  case VerdictKind::Oom:
  case VerdictKind::UninitializedRead:
  case VerdictKind::Nondeterministic:
  case VerdictKind::SimulatorFault:
  case VerdictKind::ContractGap:
  case VerdictKind::OutOfBoundsWrite:
  case VerdictKind::UnwrittenOutput:
  case VerdictKind::WrongDmaElement:
  case VerdictKind::OutOfBoundsRead:
  case VerdictKind::OutOfRegionWrite:
  case VerdictKind::Race:
  case VerdictKind::SyncDeadlock:
  case VerdictKind::SyncMisuse:
  case VerdictKind::UnflushedStore:
  case VerdictKind::StaleRead:
  case VerdictKind::LostWrite: return true;
  }
  return true;
}

/// Whether output `k` of `out`, run by `config`'s backend, still holds the
/// fill its buffer had before the program ran where the reference defines
/// another value: never written, so undefined rather than a wrong value (a
/// store that skipped the rows a garbage valid shape left out). Only a
/// black-box program's results are so told apart: an MLIR pass that drops
/// a store is named by the arithmetic it dropped, as it always was.
bool leftUnwritten(const CaseOutcome &out, size_t k, const RunConfig &config) {
  if (!runsExternally(config.backend) || !out.run.outputFill || k >= out.run.outputs.size() ||
      k >= out.reference.outputs.size())
    return false;
  const TensorData &got = out.run.outputs[k];
  const TensorData expected = toTensorData(out.reference.outputs[k]);
  const size_t size = got.elementBytes();
  if (expected.bytes.size() != got.bytes.size())
    return false;
  for (int64_t e = 0; e < got.numElements(); ++e)
    if (out.reference.outputs[k].isDefined(e) && holdsFill(got, e, *out.run.outputFill) &&
        std::memcmp(got.data() + e * size, expected.data() + e * size, size) != 0)
      return true;
  return false;
}

/// Each value of a run whose outputs are values of the case, with its
/// comparison.
using ComparisonsByValue = std::map<ValueId, const Comparison *>;
ComparisonsByValue comparisonsByValue(const Case &probe, const CaseOutcome &out) {
  ComparisonsByValue byValue;
  for (size_t k = 0; k < probe.outputs.size() && k < out.comparisons.size(); ++k)
    byValue[probe.outputs[k]] = &out.comparisons[k];
  return byValue;
}

/// Whether `op`, whose result compared as `wrong`, is wrong because an
/// operand is: one differs, other than by the sign of a zero while the
/// result differs otherwise (relu(-0) = -0 does not explain a cast of it
/// overflowing; kinds are not compared beyond that: one ulp of f16 is
/// thousands of f32 ulps after a cast back).
bool wrongThroughAnOperand(const Op &op, const ComparisonsByValue &byValue,
                           const Comparison &wrong) {
  return std::any_of(op.operands.begin(), op.operands.end(), [&](ValueId v) {
    const auto it = byValue.find(v);
    return it != byValue.end() && !it->second->match &&
           (it->second->difference != "signed-zero" || wrong.difference == "signed-zero");
  });
}

/// Whether the known list names the wrong value `difference` (a
/// resultDifference) of an op of kind `name`, computed by the kernel ops
/// `computedBy` where the backend tells (oracles/StoredBy.h), as reportOf
/// files it: by its id, or by the ops of a root's mechanism.
bool knownWrongValue(const RunConfig &config, const std::string &name,
                     const std::string &difference, const std::string &computedBy = "") {
  const Signature named{VerdictKind::Mismatch, "",
                        withComputedBy(blamedOpName(name, difference), computedBy),
                        std::string(differenceClass(difference))};
  return knownUnreduced(named.id(), named.text(), config.knownSignatures);
}

/// Whether value `v` of a cut (compared as `byValue` says) is wrong of its
/// own op and in no way the known list names. A known toolchain behaviour
/// (pto-isa's INT_MIN saturation of a cast) is no corruption of memory, and
/// lends no name to a crash after it.
bool unknownWrongOfItsOwn(const Case &cut, const ComparisonsByValue &byValue, ValueId v,
                          const RunConfig &config) {
  const auto it = byValue.find(v);
  const int32_t def = cut.values[v].defOp;
  if (it == byValue.end() || it->second->match || def < 0 || cut.ops[def].kind == OpKind::Input)
    return false;
  const Op &op = cut.ops[def];
  const Comparison &wrong = *it->second;
  if (wrongThroughAnOperand(op, byValue, wrong))
    return false;
  const std::string name(opName(op.kind));
  return !knownWrongValue(config, name,
                          resultDifference(name, cut.typeOf(v).dtype, wrong.difference));
}

/// The value analysis of the whole case cut (`out`, whose outputs are the
/// results of every op, in order): blames the op, as oracles/OpBlame.h
/// says, when an output of the case is a wrong value there. Nothing
/// otherwise; `inputDiffersFirst` is set when what first differs is an
/// input (no op to blame).
std::optional<OpBlame> blameWrongValue(const Case &c, const Case &probe, const CaseOutcome &out,
                                       const RunConfig &config, bool &inputDiffersFirst) {
  if (out.verdict != VerdictKind::Mismatch || out.comparisons.size() != probe.outputs.size())
    return std::nullopt;
  const ComparisonsByValue byValue = comparisonsByValue(probe, out);
  std::map<ValueId, size_t> outputIndex;
  for (size_t k = 0; k < probe.outputs.size(); ++k)
    outputIndex[probe.outputs[k]] = k;
  // The first wrong output of the case, and the ops it depends on.
  const Comparison *output = nullptr;
  std::set<ValueId> needed;
  for (const ValueId v : c.outputs)
    if (!byValue.at(v)->match) {
      output = byValue.at(v);
      needed.insert(v);
      break;
    }
  if (!output)
    return std::nullopt;
  for (size_t i = c.ops.size(); i-- > 0;)
    if (std::any_of(c.ops[i].results.begin(), c.ops[i].results.end(),
                    [&](ValueId r) { return needed.count(r); }))
      needed.insert(c.ops[i].operands.begin(), c.ops[i].operands.end());
  // Among those, the ops that go wrong themselves. A -0 that a later op
  // turns into a right 0 is one, and explains nothing: prefer one whose
  // difference is the output's kind, then the one nearest the output; and
  // before all, one the campaign does not know (RunConfig::knownSignatures),
  // so that a case failing in a known way and a new one is the new one.
  OpBlame blame;
  std::optional<size_t> chosen;
  bool chosenSameKind = false, chosenKnown = true;
  for (size_t i = 0; i < c.ops.size(); ++i) {
    const Op &op = c.ops[i];
    const Comparison *wrong = nullptr;
    ValueId wrongValue = 0;
    for (const ValueId v : op.results)
      if (needed.count(v) && !byValue.at(v)->match && !wrong) {
        wrong = byValue.at(v);
        wrongValue = v;
      }
    // It goes wrong itself when its operands agree.
    if (!wrong || wrongThroughAnOperand(op, byValue, *wrong))
      continue;
    if (op.kind == OpKind::Input) {
      inputDiffersFirst = true;
      return std::nullopt; // not an op to blame: the loads or stores disagree
    }
    const bool sameKind = wrong->difference == output->difference;
    // Named as reportOf will file it.
    const std::string name(opName(op.kind));
    const std::string difference =
        leftUnwritten(out, outputIndex.at(wrongValue), config)
            ? std::string(kUndefinedResult)
            : resultDifference(name, c.typeOf(wrongValue).dtype, wrong->difference);
    const std::string computedBy =
        storedElementComputedBy(out.run.dmaTrace, outputIndex.at(wrongValue), wrong->firstElement);
    const bool known = knownWrongValue(config, name, difference, computedBy);
    if (!chosen || (chosenKnown && !known) ||
        (chosenKnown == known && (!chosenSameKind || sameKind))) {
      chosen = i;
      chosenSameKind = sameKind;
      chosenKnown = known;
      blame.difference = difference;
      blame.detail = opLabel(c, i) + ": " + wrong->firstMismatch;
      blame.computedBy = computedBy;
    }
  }
  if (!chosen)
    return std::nullopt;
  blame.found = true;
  blame.opIndex = *chosen;
  blame.op = std::string(opName(c.ops[*chosen].kind));
  return blame;
}
/// `c` with only the ops its output `k` depends on, and every input (whose
/// ordinals give their data): a program whose values may all fit where
/// all of `c`'s do not. `kept`: the index in `c` of each op it keeps.
Case outputCone(const Case &c, size_t k, std::vector<size_t> &kept) {
  Case cone = c;
  cone.outputs = {c.outputs[k]};
  for (const Op &op : c.ops) // outputs while compacting, so that none goes
    if (op.kind == OpKind::Input)
      cone.outputs.insert(cone.outputs.end(), op.results.begin(), op.results.end());
  cone.compact(&kept);
  cone.outputs.resize(1);
  return cone;
}

/// The first op of `c` of a kind in `culprits` (RunConfig::culpritOps):
/// where to cut the program first.
std::optional<size_t> knownRootCandidate(const Case &c, const std::set<std::string> &culprits) {
  for (size_t i = 0; i < c.ops.size(); ++i)
    if (c.ops[i].kind != OpKind::Input && culprits.count(std::string(opName(c.ops[i].kind))))
      return i;
  return std::nullopt;
}
} // namespace

Case everyValueReturned(const Case &c) { return cutProgram(c, c.ops.size()); }

OpBlame blameOp(const Case &c, MlirJit &jit, const RunConfig &config, Symptom symptom) {
  OpBlame blame;
  // A cut run again in a fresh process of a persistent adapter: IREE's
  // runtime aborted on cuts in an adapter that had served the case's runs
  // before, and not in a fresh one.
  auto runAfresh = [&](const Case &cut) {
    if (config.external.persistent)
      workerPersistentCommand().stop(); // the next run starts it afresh
    ++blame.runs;
    return runCase(cut, jit, config);
  };
  const size_t n = c.ops.size();
  const Case whole = cutProgram(c, n);
  // A wrong value: the whole case cut names its op, in one run.
  std::optional<CaseOutcome> wholeRun;
  if (symptom == Symptom::WrongValue) {
    wholeRun = runCase(whole, jit, config);
    blame.runs = 1;
    // A case that showed a wrong value whose whole cut failed otherwise (an
    // abort): once more afresh, before the prefixes are bisected for it.
    if (config.external.persistent && wholeRun->verdict != VerdictKind::Mismatch &&
        cutFails(*wholeRun) == std::optional<bool>(true))
      wholeRun = runAfresh(whole);
    bool inputDiffersFirst = false;
    if (std::optional<OpBlame> valueBlame =
            blameWrongValue(c, whole, *wholeRun, config, inputDiffersFirst)) {
      valueBlame->runs = blame.runs;
      return *valueBlame;
    }
    // Every value at once did not fit (PTO's vector buffer), or did not
    // build (IREE takes no dynamically valid tensor among a function's
    // results, which the case itself never returns): the values each output
    // depends on, output by output, until one is wrong. A compiler that
    // refuses the cut says nothing of the case's values.
    const bool cutNotBuilt = wholeRun->verdict == VerdictKind::CompileError ||
                             wholeRun->verdict == VerdictKind::VerifierError ||
                             wholeRun->verdict == VerdictKind::PassFailure;
    for (size_t k = 0; (!cutFails(*wholeRun) || cutNotBuilt) && k < c.outputs.size(); ++k) {
      std::vector<size_t> kept;
      const Case cone = outputCone(c, k, kept);
      const Case coneCut = cutProgram(cone, cone.ops.size());
      const CaseOutcome o = runCase(coneCut, jit, config);
      ++blame.runs;
      if (std::optional<OpBlame> valueBlame =
              blameWrongValue(cone, coneCut, o, config, inputDiffersFirst)) {
        valueBlame->runs = blame.runs;
        // Named as in the case, not in the cone's renumbering.
        valueBlame->opIndex = kept[valueBlame->opIndex];
        const std::string &detail = valueBlame->detail;
        valueBlame->detail = opLabel(c, valueBlame->opIndex) + detail.substr(detail.find(": "));
        return *valueBlame;
      }
      // This output wrong, and no op of it to blame: stop. (Another value
      // of the cone may differ while the output is right: a -0 a later op
      // makes a right 0.)
      const auto at = std::find(coneCut.outputs.begin(), coneCut.outputs.end(), cone.outputs[0]);
      const size_t index = static_cast<size_t>(at - coneCut.outputs.begin());
      if (index < o.comparisons.size() && !o.comparisons[index].match)
        break;
    }
    // A backend bisected by passes names its own root (pass blame).
    blame.inputFirst = inputDiffersFirst;
    if (inputDiffersFirst || !runsExternally(config.backend))
      return blame;
  }
  // Otherwise the prefixes are bisected, by whether they fail other than
  // by a wrong value: a -0 of a known simulator quirk early in the program
  // explains no assertion or undefined output after it.
  std::map<size_t, CaseOutcome> failingOtherwise; // prefixes run, by op count
  std::set<size_t> notOtherwise;
  bool undecided = false; // a prefix the backend could not run says nothing
  // A memory error is caught where it is noticed (a later allocation or
  // free, glibc's heap check, a segfault in whatever touches the block
  // next), not where memory was corrupted, and a heap layout that hides it
  // in one run shows it in the next; the prefix through the op that
  // corrupts memory shows that as a wrong value of its own. For one, a
  // wrong value fails a prefix too, when some element is grossly wrong: a
  // zero's sign or a NaN (a simulator's quirks in abs, max and min) or a
  // rounding step corrupts nothing.
  const bool wrongValueFails = symptom == Symptom::MemoryError;
  // Whether the prefix of `count` ops, run as `o`, failed other than by a
  // wrong value (an output left unwritten counts; a gross wrong value
  // counts for a memory error, unless the known list names it: a known
  // behaviour never stands for the crash after it); nothing when the
  // backend could not run it.
  auto otherwiseIn = [&](const CaseOutcome &o, size_t count) -> std::optional<bool> {
    const std::optional<bool> failed = cutFails(o);
    if (!failed)
      return std::nullopt;
    // The case itself was built (op blame judges a program that ran): a
    // cut the compiler refuses is the cut's own (a value it cannot
    // return), which says nothing of where the case went wrong.
    if (o.verdict == VerdictKind::CompileError || o.verdict == VerdictKind::VerifierError ||
        o.verdict == VerdictKind::PassFailure)
      return std::nullopt;
    bool otherwise = *failed && o.verdict != VerdictKind::Mismatch;
    std::optional<Case> cut; // made once, for the first gross wrong value
    ComparisonsByValue byValue;
    for (size_t k = 0; *failed && !otherwise && k < o.comparisons.size(); ++k) {
      const Comparison &cmp = o.comparisons[k];
      if (cmp.match)
        continue;
      if (leftUnwritten(o, k, config)) {
        otherwise = true;
        continue;
      }
      if (!wrongValueFails || cmp.grossMismatches == 0)
        continue;
      if (!cut) {
        cut = cutProgram(c, count);
        byValue = comparisonsByValue(*cut, o);
      }
      otherwise = o.comparisons.size() == cut->outputs.size() &&
                  unknownWrongOfItsOwn(*cut, byValue, cut->outputs[k], config);
    }
    return otherwise;
  };
  // Whether the prefix of `count` ops fails other than by a wrong value.
  auto failsOtherwise = [&](size_t count) {
    if (failingOtherwise.count(count))
      return true;
    if (count == 0 || notOtherwise.count(count))
      return false;
    std::optional<CaseOutcome> o;
    if (count == n && wholeRun)
      o.swap(wholeRun);
    else {
      o = runCase(cutProgram(c, count), jit, config);
      ++blame.runs;
    }
    const std::optional<bool> judged = otherwiseIn(*o, count);
    if (!judged) {
      undecided = true;
      return false;
    }
    const bool otherwise = *judged;
    if (otherwise)
      failingOtherwise.emplace(count, std::move(*o));
    else
      notOtherwise.insert(count);
    return otherwise;
  };
  // The whole cut's run, when the wrong-value path made it, says at once
  // whether there is anything to bisect.
  if (wholeRun && !failsOtherwise(n))
    return blame;
  // `lo` ops run clean and `hi` fail (the whole cut is taken to, and
  // checked last when it was not run). A kind of op the campaign's failures
  // were traced to is tried first: the prefix before the case's first such
  // op clean and the prefix through it failing decide in two runs. A pivot
  // that says nothing is dropped for the plain bisection.
  size_t lo = 0, hi = n;
  if (const std::optional<size_t> at = knownRootCandidate(c, config.culpritOps)) {
    if (failsOtherwise(*at))
      hi = *at;
    else if (failsOtherwise(*at + 1))
      lo = *at, hi = *at + 1;
    else
      lo = *at + 1;
    if (undecided)
      lo = 0, hi = n, undecided = false;
  }
  auto bisect = [&] {
    while (hi - lo > 1 && !undecided) {
      const size_t mid = lo + (hi - lo) / 2;
      (failsOtherwise(mid) ? hi : lo) = mid;
    }
  };
  bisect();
  if (undecided || !failsOtherwise(hi))
    return blame; // the whole cut runs clean otherwise, or says nothing
  // A memory error's prefix that ran clean may have been the heap's luck:
  // the one before the op to blame runs once more, afresh, and when it
  // fails the search goes on below it.
  for (int again = 0; symptom == Symptom::MemoryError && again < 2 && hi > 1; ++again) {
    CaseOutcome before = runAfresh(cutProgram(c, hi - 1));
    if (otherwiseIn(before, hi - 1) != std::optional<bool>(true))
      break;
    notOtherwise.erase(hi - 1);
    failingOtherwise.insert_or_assign(hi - 1, std::move(before));
    for (size_t k = 0; k < hi - 1; ++k) // cleaner, if ever, by the same luck
      notOtherwise.erase(k);
    lo = 0;
    hi -= 1;
    bisect();
    if (undecided)
      return blame;
  }
  const Op &op = c.ops[hi - 1];
  if (op.kind == OpKind::Input)
    return blame; // a load or a store, not an op, goes wrong
  // A case that showed a wrong value, blamed for another kind of failure
  // of a cut: that failure must show again afresh, or it was the backend's
  // luck or the state of a used process, and it would file a known wrong
  // value as a new root.
  if (symptom == Symptom::WrongValue &&
      otherwiseIn(runAfresh(cutProgram(c, hi)), hi) != std::optional<bool>(true))
    return blame;
  const CaseOutcome &atHi = failingOtherwise.at(hi);
  blame.found = true;
  blame.opIndex = hi - 1;
  blame.op = std::string(opName(op.kind));
  blame.difference = kUndefinedResult;
  blame.detail = opLabel(c, hi - 1) + ": its prefix fails, " +
                 std::string(verdictName(atHi.verdict)) + ": " + atHi.summary;
  return blame;
}

std::string blamedOpName(const std::string &name, const std::string &difference) {
  if (difference != kUndefinedResult)
    return scalarFamily(name);
  const std::optional<OpKind> kind = parseOpName(name);
  if (!kind)
    return name;
  switch (opCategory(*kind)) {
  case OpCategory::Unary:
  case OpCategory::Binary:
  case OpCategory::Compare: return "elementwise";
  case OpCategory::RowExpand: return "row_expand_*";
  case OpCategory::ColExpand: return "col_expand_*";
  case OpCategory::View: return "view";
  case OpCategory::Source:
  case OpCategory::Other: break;
  }
  return name.rfind("reduce_", 0) == 0 ? "reduce_*" : name;
}

} // namespace npufuzz
