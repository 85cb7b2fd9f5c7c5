//===- oracles/Metamorphic.cpp - Variants of a case that must agree --------===//
#include "oracles/Metamorphic.h"

#include "ir/Storage.h"
#include "oracles/Exactness.h"
#include "oracles/UndecidedElements.h"

#include <cstring>

namespace npufuzz {

namespace {
/// The first output that differs from the base run on an element the base
/// reference defines, compared by the output's exactness class; empty when
/// all agree.
std::string firstDifference(const Case &c, const CaseOutcome &base, const BackendRun &variant,
                            std::string *op = nullptr) {
  // The backend's freedoms hold between its runs as against the reference;
  // a reordered sum, with no bound between two runs, is not compared.
  const ExactnessModel model = freedomsOfRun(base.run);
  const std::vector<Exactness> exactness = classifyValues(c, model);
  const std::vector<unsigned> approximations = approximationCounts(c, exactness);
  // Neither run need agree with the other where a freedom decides.
  RefRun reference = base.reference;
  undefineWhatFreedomsDecide(c, reference, model);
  for (size_t k = 0; k < c.outputs.size() && k < variant.outputs.size(); ++k) {
    RefTensor expected = fromTensorData(base.run.outputs[k]);
    expected.defined = reference.outputs[k].defined;
    const Comparison cmp = compareOutput(expected, variant.outputs[k], exactness[c.outputs[k]],
                                         nullptr, approximations[c.outputs[k]]);
    if (!cmp.match) {
      if (op)
        *op = std::string(opName(c.ops[c.values[c.outputs[k]].defOp].kind));
      return "output " + std::to_string(k) + ": " + cmp.firstMismatch;
    }
  }
  return "";
}

/// Inputs whose elements outside their valid shapes get other bytes; empty
/// when no input has such elements.
std::vector<TensorData> repaddedInputs(const RefRun &ref) {
  std::vector<TensorData> inputs;
  bool changed = false;
  for (const RefTensor &r : ref.inputs) {
    TensorData d = toTensorData(r);
    const unsigned width = d.elementBytes();
    for (int64_t e = 0; e < r.numElements(); ++e) {
      if (r.isDefined(e))
        continue;
      changed = true;
      for (unsigned b = 0; b < width; ++b)
        d.data()[e * width + b] = static_cast<uint8_t>(~d.data()[e * width + b]);
      if (r.type.dtype == DType::I1)
        d.data()[e] &= 1; // i1 bytes stay 0 or 1
    }
    inputs.push_back(std::move(d));
  }
  return changed ? inputs : std::vector<TensorData>();
}

/// The case with its first view replaced by an input, and that input's data
/// (the view's reference value) inserted among the base inputs.
bool materialiseFirstView(const Case &c, const CaseOutcome &base, Case &out,
                          std::vector<RefTensor> &inputs) {
  std::vector<RefTensor> values;
  std::string error;
  if (!evaluateCase(c, base.reference.inputs, values, error))
    return false;
  int inputOrdinal = 0;
  for (size_t i = 0; i < c.ops.size(); ++i) {
    const Op &op = c.ops[i];
    if (op.kind == OpKind::Input) {
      ++inputOrdinal;
      continue;
    }
    if (!isView(op.kind))
      continue;
    out = c;
    Op &replaced = out.ops[i];
    replaced.kind = OpKind::Input;
    replaced.operands.clear();
    replaced.attrs = OpAttrs();
    inputs = base.reference.inputs;
    inputs.insert(inputs.begin() + inputOrdinal, values[op.results[0]]);
    return true;
  }
  return false;
}

BackendRun runVariant(const Case &c, MlirJit &jit, const RunConfig &config,
                      const Pipeline &pipeline, const MlirEmitOptions &emit,
                      const std::vector<TensorData> &inputs) {
  MlirKernel kernel;
  std::string unsupported;
  BackendRun r;
  if (!emitMlir(c, emit, kernel, unsupported)) {
    r.status = BackendRun::Status::Unsupported;
    return r;
  }
  return executeKernel(config, jit, kernel, pipeline, inputs, c.outputTypes(), config.jit.poison,
                       c);
}
} // namespace

std::optional<MetamorphicFailure> checkMetamorphic(const Case &c, MlirJit &jit,
                                                   const RunConfig &config,
                                                   const Pipeline &pipeline,
                                                   const CaseOutcome &base, double share) {
  const std::vector<TensorType> outputTypes = c.outputTypes();
  const std::vector<TensorData> repadded = repaddedInputs(base.reference);
  if (!repadded.empty()) {
    // The same kernel on other inputs: the code the base run compiled.
    RunConfig same = config;
    same.jit.reuseCompiled = true;
    const BackendRun variant = executeKernel(same, jit, base.kernel, pipeline, repadded,
                                             outputTypes, config.jit.poison, c);
    if (variant.ok()) {
      const std::string diff = firstDifference(c, base, variant);
      if (!diff.empty())
        return MetamorphicFailure{VerdictKind::UninitializedRead,
                                  kPaddingVariant,
                                  "defined outputs change with the padding outside inputs' "
                                  "valid shapes: " +
                                      diff,
                                  std::nullopt,
                                  {},
                                  {}};
    }
  }
  // A deterministic share of cases, so a seed always gets the same checks.
  // Only a run that agrees with the reference: a wrong one differs from its
  // variants for the reason it is wrong, and that reason names the finding
  // (its op and pass), not the variant that happened to be tried.
  if (static_cast<double>(caseHash(c) % 1000) >= share * 1000 || base.verdict != VerdictKind::Ok)
    return std::nullopt;

  const MlirEmitOptions emit = emitOptionsOf(config);
  Case viewless;
  std::vector<RefTensor> viewInputs;
  if (materialiseFirstView(c, base, viewless, viewInputs)) {
    const BackendRun variant =
        runVariant(viewless, jit, config, pipeline, emit, toTensorData(viewInputs));
    std::string op;
    if (variant.ok()) {
      const std::string diff = firstDifference(c, base, variant, &op);
      if (!diff.empty())
        return MetamorphicFailure{VerdictKind::Mismatch,
                                  "metamorphic:view",
                                  "materialising the first view changes the result: " + diff,
                                  viewless,
                                  viewInputs,
                                  op};
    }
  }
  if (config.style == MlirStyle::Npu) {
    MlirEmitOptions narrow = emit;
    narrow.npuLanes = 4;
    const BackendRun variant =
        runVariant(c, jit, config, pipeline, narrow, toTensorData(base.reference.inputs));
    if (variant.ok()) {
      const std::string diff = firstDifference(c, base, variant);
      if (!diff.empty())
        return MetamorphicFailure{VerdictKind::Mismatch,
                                  "metamorphic:lanes",
                                  "4 vector lanes instead of " + std::to_string(emit.npuLanes) +
                                      " change the result: " + diff,
                                  std::nullopt,
                                  {},
                                  {}};
    }
  }
  return std::nullopt;
}

} // namespace npufuzz
