//===- generators/Policy.cpp - Generation policy text and defaults --------===//
#include "generators/Policy.h"

#include "ir/FileText.h"

#include "ir/Verifier.h"

#include <charconv>
#include <fstream>
#include <sstream>
#include <variant>

namespace npufuzz {

std::string_view patternName(PatternKind p) {
  switch (p) {
  case PatternKind::MoeMask: return "moe_mask";
  case PatternKind::SwiGlu: return "swiglu";
  case PatternKind::ValidTail: return "valid_tail";
  case PatternKind::RadixSplit: return "radix_split";
  case PatternKind::SlicedMatmul: return "sliced_matmul";
  }
  return "?";
}

std::string_view viewChainFormName(ViewChainForm f) {
  switch (f) {
#define NPF_VIEW_CHAIN(Enum, Name, Weight, Description)                                            \
  case ViewChainForm::Enum: return Name;
#include "generators/ViewChainForms.def"
  }
  return "?";
}

namespace {

std::string_view dimClassName(int c) {
  static constexpr std::string_view kNames[kNumDimClasses] = {"small", "lane", "tail", "any"};
  return kNames[c];
}

/// A scalar key: a member of Policy of one of three types, with bounds.
struct ScalarKey {
  std::string_view name;
  std::variant<unsigned Policy::*, int64_t Policy::*, double Policy::*> member;
  double lo, hi;
};

const std::vector<ScalarKey> &scalarKeys() {
  static const std::vector<ScalarKey> keys = {
      {"max_ops", &Policy::maxOps, 1, 64},
      {"max_inputs", &Policy::maxInputs, 1, 32},
      {"max_rank", &Policy::maxRank, 1, kMaxRank},
      {"max_dim", &Policy::maxDim, 1, static_cast<double>(kMaxDim)},
      {"lane", &Policy::laneWidth, 1, 1024},
      {"max_tensor_elements", &Policy::maxTensorElements, 1,
       static_cast<double>(kMaxTensorElements)},
      {"max_case_elements", &Policy::maxCaseElements, 1, static_cast<double>(kMaxCaseElements)},
      {"max_topk_steps", &Policy::maxTopKSteps, 1, static_cast<double>(int64_t{1} << 40)},
      {"reuse_rate", &Policy::reuseRate, 0, 1},
      {"valid_rate", &Policy::validShapeRate, 0, 1},
      {"dynamic_valid_rate", &Policy::dynamicValidRate, 0, 1},
      {"edge_rate", &Policy::edgeRate, 0, 1},
      {"index_depth", &Policy::indexDepth, 0, 8},
      {"floordiv_mod_rate", &Policy::floorDivModRate, 0, 1},
      {"radix_map_rate", &Policy::radixMapRate, 0, 1},
      {"pattern_rate", &Policy::patternRate, 0, 1},
      {"view_chain_rate", &Policy::viewChainRate, 0, 1},
      {"view_lane_aligned", &Policy::viewLaneAligned, 0, 1},
      {"chain_rate", &Policy::chainRate, 0, 1},
      {"max_tasks", &Policy::maxTasks, 2, 16},
      {"max_blocks", &Policy::maxBlocks, 1, static_cast<double>(kMaxTaskBlocks)},
      {"scalar_store_rate", &Policy::scalarStoreRate, 0, 1},
  };
  return keys;
}

/// A weight key: `prefix.name` addressing one slot of a weight vector.
struct WeightKey {
  std::string name;
  std::vector<uint32_t> Policy::*vector;
  size_t index;
};

const std::vector<WeightKey> &weightKeys() {
  static const std::vector<WeightKey> keys = [] {
    std::vector<WeightKey> k;
    for (int i = 0; i < numOpKinds(); ++i)
      if (static_cast<OpKind>(i) != OpKind::Input)
        k.push_back({"op." + std::string(opName(static_cast<OpKind>(i))), &Policy::opWeights,
                     static_cast<size_t>(i)});
    for (int i = 0; i < kNumDTypes; ++i)
      k.push_back({"dtype." + std::string(dtypeName(static_cast<DType>(i))), &Policy::dtypeWeights,
                   static_cast<size_t>(i)});
    for (unsigned r = 1; r <= kMaxRank; ++r)
      k.push_back({"rank." + std::to_string(r), &Policy::rankWeights, r - 1});
    for (int i = 0; i < kNumDimClasses; ++i)
      k.push_back(
          {"dim." + std::string(dimClassName(i)), &Policy::dimWeights, static_cast<size_t>(i)});
    for (int i = 0; i < kNumFillKinds; ++i)
      k.push_back({"fill." + std::string(fillName(static_cast<FillKind>(i))), &Policy::fillWeights,
                   static_cast<size_t>(i)});
    for (int i = 0; i < kNumPatterns; ++i)
      k.push_back({"pattern." + std::string(patternName(static_cast<PatternKind>(i))),
                   &Policy::patternWeights, static_cast<size_t>(i)});
    for (int i = 0; i < kNumViewChainForms; ++i)
      k.push_back({"view_chain." + std::string(viewChainFormName(static_cast<ViewChainForm>(i))),
                   &Policy::viewChainWeights, static_cast<size_t>(i)});
    return k;
  }();
  return keys;
}

/// Shortest text that reads back as the same double.
std::string formatDouble(double v) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, res.ptr);
}

std::string formatScalar(const Policy &p, const ScalarKey &key) {
  if (auto m = std::get_if<unsigned Policy::*>(&key.member))
    return std::to_string(p.**m);
  if (auto m = std::get_if<int64_t Policy::*>(&key.member))
    return std::to_string(p.**m);
  return formatDouble(p.*std::get<double Policy::*>(key.member));
}

bool scalarEquals(const Policy &a, const Policy &b, const ScalarKey &key) {
  return std::visit([&](auto m) { return a.*m == b.*m; }, key.member);
}

bool parseNumber(std::string_view text, double &out) {
  auto res = std::from_chars(text.data(), text.data() + text.size(), out);
  return res.ec == std::errc() && res.ptr == text.data() + text.size();
}

bool parseInteger(std::string_view text, int64_t &out) {
  auto res = std::from_chars(text.data(), text.data() + text.size(), out);
  return res.ec == std::errc() && res.ptr == text.data() + text.size();
}

bool setKey(Policy &p, std::string_view key, std::string_view value, std::string &error) {
  for (const ScalarKey &sk : scalarKeys()) {
    if (sk.name != key)
      continue;
    const bool isReal = std::holds_alternative<double Policy::*>(sk.member);
    double real = 0;
    int64_t integer = 0;
    const bool ok = isReal ? parseNumber(value, real) : parseInteger(value, integer);
    if (!isReal)
      real = static_cast<double>(integer);
    if (!ok || !(real >= sk.lo && real <= sk.hi)) {
      error = "policy key '" + std::string(key) + "': value '" + std::string(value) + "' is not a" +
              (isReal ? " number" : "n integer") + " in [" + formatDouble(sk.lo) + ", " +
              formatDouble(sk.hi) + "]";
      return false;
    }
    if (auto m = std::get_if<unsigned Policy::*>(&sk.member))
      p.**m = static_cast<unsigned>(integer);
    else if (auto m = std::get_if<int64_t Policy::*>(&sk.member))
      p.**m = integer;
    else
      p.*std::get<double Policy::*>(sk.member) = real;
    return true;
  }
  for (const WeightKey &wk : weightKeys()) {
    if (wk.name != key)
      continue;
    int64_t w = 0;
    if (!parseInteger(value, w) || w < 0 || w > 1000000) {
      error = "policy key '" + std::string(key) + "': weight '" + std::string(value) +
              "' is not an integer in [0, 1000000]";
      return false;
    }
    (p.*wk.vector)[wk.index] = static_cast<uint32_t>(w);
    return true;
  }
  error = key == "op.input" ? "policy key 'op.input': inputs are made on demand; tune reuse_rate"
                            : "unknown policy key '" + std::string(key) + "'";
  return false;
}

bool anyPositive(const std::vector<uint32_t> &w, size_t count) {
  for (size_t i = 0; i < count && i < w.size(); ++i)
    if (w[i] > 0)
      return true;
  return false;
}

/// Cross-key checks: every weighted choice must have something to choose.
bool checkConsistent(const Policy &p, std::string &error) {
  if (!anyPositive(p.opWeights, p.opWeights.size()))
    error = "policy: every op.* weight is zero";
  else if (!anyPositive(p.dtypeWeights, p.dtypeWeights.size()))
    error = "policy: every dtype.* weight is zero";
  else if (!anyPositive(p.rankWeights, p.maxRank))
    error = "policy: every rank.N weight with N <= max_rank is zero";
  else if (!anyPositive(p.dimWeights, p.dimWeights.size()))
    error = "policy: every dim.* weight is zero";
  else if (!anyPositive(p.fillWeights, p.fillWeights.size()))
    error = "policy: every fill.* weight is zero";
  else if (!anyPositive(p.patternWeights, p.patternWeights.size()) && p.patternRate > 0)
    error = "policy: pattern_rate > 0 but every pattern.* weight is zero";
  else if (!anyPositive(p.viewChainWeights, p.viewChainWeights.size()) && p.viewChainRate > 0)
    error = "policy: view_chain_rate > 0 but every view_chain.* weight is zero";
  else if (p.maxCaseElements < p.maxTensorElements)
    error = "policy: max_case_elements is below max_tensor_elements";
  else
    return true;
  return false;
}

} // namespace

Policy Policy::defaults() {
  Policy p;
  for (int i = 0; i < numOpKinds(); ++i)
    p.opWeights.push_back(opDefaultWeight(static_cast<OpKind>(i)));
  //                f32 f16 bf16 i8 i32 i64 index i1
  p.dtypeWeights = {8, 3, 4, 2, 3, 2, 2, 2};
  p.rankWeights = {3, 6, 3, 2, 1, 1};
  //              small lane tail any
  p.dimWeights = {4, 3, 3, 2};
  //               rand zeros ones range iota
  p.fillWeights = {12, 1, 1, 2, 1};
  // sliced_matmul, newer than the others, at 0: the default policy's seeds
  // draw what they drew before it (pytorchsim's policy weighs it).
  p.patternWeights = {1, 1, 1, 1, 0};
  p.viewChainWeights = {
#define NPF_VIEW_CHAIN(Enum, Name, Weight, Description) Weight,
#include "generators/ViewChainForms.def"
  };
  return p;
}

std::string Policy::str() const {
  static const Policy base = defaults();
  std::string s = "default";
  for (const ScalarKey &sk : scalarKeys())
    if (!scalarEquals(*this, base, sk))
      s += " " + std::string(sk.name) + "=" + formatScalar(*this, sk);
  for (const WeightKey &wk : weightKeys())
    if ((this->*wk.vector)[wk.index] != (base.*wk.vector)[wk.index])
      s += " " + wk.name + "=" + std::to_string((this->*wk.vector)[wk.index]);
  return s;
}

bool Policy::operator==(const Policy &o) const {
  for (const ScalarKey &sk : scalarKeys())
    if (!scalarEquals(*this, o, sk))
      return false;
  return opWeights == o.opWeights && dtypeWeights == o.dtypeWeights &&
         rankWeights == o.rankWeights && dimWeights == o.dimWeights &&
         fillWeights == o.fillWeights && patternWeights == o.patternWeights &&
         viewChainWeights == o.viewChainWeights;
}

bool parsePolicy(const std::string &text, Policy &out, std::string &error) {
  // Normalize to one token per assignment: drop comments, glue `key = value`.
  std::string joined;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    line = line.substr(0, line.find('#'));
    for (char ch : line) {
      if (ch == '=') {
        while (!joined.empty() && (joined.back() == ' ' || joined.back() == '\t'))
          joined.pop_back();
        joined += "= ";
        continue;
      }
      joined += ch == '\t' || ch == '\r' ? ' ' : ch;
    }
    joined += '\n';
  }
  out = Policy::defaults();
  std::istringstream tokens(joined);
  std::string token;
  while (tokens >> token) {
    if (token == "default")
      continue;
    const size_t eq = token.find('=');
    if (eq == std::string::npos || eq == 0) {
      error = "policy: expected key=value, got '" + token + "'";
      return false;
    }
    std::string value = token.substr(eq + 1);
    if (value.empty() && !(tokens >> value)) {
      error = "policy key '" + token.substr(0, eq) + "': missing value";
      return false;
    }
    if (!setKey(out, token.substr(0, eq), value, error))
      return false;
  }
  return checkConsistent(out, error);
}

namespace {
/// A policy npufuzz ships, in the policy file syntax.
Policy builtInPolicy(const char *text) {
  Policy p;
  std::string error;
  if (!parsePolicy(text, p, error))
    return Policy::defaults(); // unreachable: tests parse every one
  return p;
}
} // namespace

namespace {
/// The workload ops (concat, pad, reduce_mean, the windows) left out, for
/// the backends that do not take them yet.
const char *const kWorkloadOpsOff = R"(
op.concat = 0
op.pad = 0
op.reduce_mean = 0
op.avg_pool2d = 0
op.max_pool2d = 0
op.conv2d = 0
op.addmm = 0
)";

/// --backend pto's policy, in the policy file syntax.
const char *const kPtoPolicyText = R"(
# PTO tiles: rank 2, the dtypes and ops that the A2/A3 t-ops take (no i8
# arithmetic, and/or only on i8/i16, not only on i16, xor needs a tmp tile),
# dims mostly multiples of 32 (whole 32-byte rows and columns); no division
# (division by zero is target-defined in PTO); no insert (tinsert is vec to
# vec on A5 only). Slices, chunks, transposes, reshapes and index maps at
# their default weights: a block of an input is a GM view the DMA moves, a
# sub-tile of whole rows or 32-element column blocks is pto.subset, another
# view of a computed tile is staged through GM, a transpose is TTRANS; their
# last dims mostly keep whole blocks, and index maps are mostly mixed-radix
# floordiv/mod maps (a column step has no DMA form).
max_rank = 2
rank.1 = 0
rank.2 = 1
lane = 32
dim.small = 1
dim.lane = 8
dim.tail = 0
dim.any = 0
max_dim = 256
max_tensor_elements = 4096
max_case_elements = 16384
dtype.bf16 = 0
dtype.i8 = 0
dtype.i64 = 0
dtype.index = 0
dtype.i1 = 0
op.const = 0
op.iota = 0
op.not = 0
op.and = 0
op.or = 0
op.xor = 0
op.div = 0
op.row_expand_div = 0
op.col_expand_div = 0
op.tanh = 0
op.erf = 0
op.sigmoid = 0
op.silu = 0
op.round = 0
op.clamp = 0
op.eq = 0
op.ne = 0
op.lt = 0
op.le = 0
op.gt = 0
op.ge = 0
op.broadcast = 0
op.squeeze = 0
op.unsqueeze = 0
op.select = 0
op.masked_fill = 0
op.reduce_sum = 0
op.reduce_max = 0
op.reduce_min = 0
op.argmax = 0
op.topk = 0
op.matmul = 0
op.gather = 0
op.insert = 0
pattern.moe_mask = 0
pattern.swiglu = 0
pattern.radix_split = 0
view_chain_rate = 0
view_lane_aligned = 0.9
radix_map_rate = 0.95
)";
} // namespace

Policy ptoPolicy() {
  // PTO's emitter writes no tile op for the workload ops.
  static const std::string kText = std::string(kPtoPolicyText) + kWorkloadOpsOff;
  return builtInPolicy(kText.c_str());
}

Policy mlirPolicy() {
  // The default policy, less the workload ops the MLIR styles do not lower
  // yet (emitMlir refuses them).
  static const std::string kText = kWorkloadOpsOff;
  return builtInPolicy(kText.c_str());
}

Policy pyptoPolicy() {
  // The PTO policy, less what PyPTO at the ptoas 0.27 commit does not
  // write or lower: views, chains (orchestration functions), the expands
  // its backend has no PTO code generation for.
  static const std::string kText = std::string(kPtoPolicyText) + kWorkloadOpsOff + R"(
op.slice = 0
op.chunk = 0
op.transpose = 0
op.reshape = 0
op.index_map = 0
op.row_expand_add = 0
op.row_expand_max = 0
op.row_expand_min = 0
op.col_expand_add = 0
op.col_expand_sub = 0
op.col_expand_max = 0
op.col_expand_min = 0
chain_rate = 0
)";
  return builtInPolicy(kText.c_str());
}

Policy inductorPolicy() {
  static const char *const kText = R"(
# Inductor compiles a graph whose size grows with the longest reduced or
# contracted axis (the program folds them step by step, for exactness): at
# the default dims a compile can outlast the case's limit. Dims up to 64
# keep it to seconds. Seed patterns (chunk views into matmul, the MoE mask,
# floor/mod index maps) start twice as many cases, and chains of views
# (heads split and merged, permutes flattened: where Inductor's FloorDiv and
# ModularIndexing come from) nearly half of them.
# The ops models are made of (convolutions, pools, pads, concatenations,
# means) at twice their default weights, so that a quarter of the cases or
# more hold one: they take the paths Inductor specialises (extern
# convolutions, channels-last layouts, cat kernels, windowed reductions).
max_dim = 64
max_tensor_elements = 4096
max_case_elements = 16384
pattern_rate = 0.4
view_chain_rate = 0.45
op.concat = 6
op.pad = 6
op.reduce_mean = 4
op.avg_pool2d = 6
op.max_pool2d = 6
op.conv2d = 8
op.addmm = 6
)";
  return builtInPolicy(kText);
}

Policy tvmPolicy() {
  // TVM's Relax frontend imports the program torch.export makes of the
  // case, which grows as Inductor's graph does with the longest folded
  // axis: Inductor's dims, patterns and chains of views.
  return inductorPolicy();
}

Policy ireePolicy() {
  static const char *const kText = R"(
# IREE's dispatch regions take no index-typed tensors ("index types must not
# cross the dispatch boundary"; its frontends emit i64): cases hold i64
# where others may hold index. Seed patterns twice as often, and chains of
# views nearly half the cases, as inductor's. A topk is a loop on the host,
# run by IREE's VM at about half a million steps a second: k is cut to keep
# it to a few seconds (rows x k x extent under 2^21).
dtype.index = 0
max_topk_steps = 2097152
pattern_rate = 0.4
view_chain_rate = 0.45
)";
  return builtInPolicy(kText);
}

Policy pytorchsimPolicy() {
  static const char *const kText = R"(
# PyTorchSim's npu device (torch 2.2's Inductor, then PyTorchSim's MLIR code
# generation), as models use it: ranks up to 5, unit dims and tails, the
# seeds' patterns often (the MoE mask of seed 000, chunked matmuls of seed
# 001). What the device does not do is left out: topk (no aten::topk on
# it), index maps (no form in a model's torch: views make its floor/mod),
# and mostly the dtypes its fill_ refuses when Inductor folds a constant
# (it takes f32, i32 and i64). Chains of views nearly half the cases: its DMA
# code generation turns them into strides and floor/mod indices. Seed 001's
# gate on any axis (a chunk or an offset slice into a matmul's prologue)
# twice as often as each other pattern.
# Master v1.1.0 (its release) has no `abs` (ExtensionOverrides.abs raises
# NotImplementedError), nor argmax and argmin, nor most bf16 conversions
# and comparisons: on development seeds 9200100-9200299 they were 31 of its
# 33 unsupported cases (16.5 %). So abs is not drawn, and argmax and bf16
# half as often as before (bf16 at 1 of 33 dtype weights).
max_rank = 5
rank.1 = 2
rank.2 = 6
rank.3 = 4
rank.4 = 3
rank.5 = 2
max_dim = 64
max_tensor_elements = 4096
max_case_elements = 16384
dtype.f32 = 16
dtype.f16 = 2
dtype.bf16 = 1
dtype.i8 = 2
dtype.i32 = 6
dtype.i64 = 4
dtype.index = 0
dtype.i1 = 2
op.abs = 0
op.argmax = 1
op.topk = 0
op.index_map = 0
pattern_rate = 0.4
pattern.sliced_matmul = 2
view_chain_rate = 0.45
)";
  // The workload ops are not drawn for it yet: its conv and GEMM templates
  // need checks of their own first.
  static const std::string kAll = std::string(kText) + kWorkloadOpsOff;
  return builtInPolicy(kAll.c_str());
}

Policy defaultPolicyFor(std::string_view backend) {
  // simpler runs the kernels pto does.
  if (backend == "pto" || backend == "simpler")
    return ptoPolicy();
  if (backend == "pypto")
    return pyptoPolicy();
  if (backend == "inductor")
    return inductorPolicy();
  if (backend == "iree")
    return ireePolicy();
  if (backend == "tvm")
    return tvmPolicy();
  if (backend == "pytorchsim")
    return pytorchsimPolicy();
  if (backend == "mlir-jit" || backend == "mlir-tools")
    return mlirPolicy();
  return Policy::defaults();
}

bool parsePolicyFile(const std::string &path, Policy &out, std::string &error) {
  std::string text;
  if (!readFileBytes(path, text, error, 1 << 20))
    return false;
  if (!parsePolicy(text, out, error)) {
    error = path + ": " + error;
    return false;
  }
  return true;
}

} // namespace npufuzz
