//===- backend/mlir/ScalarLowering.cpp - Scalar semantics in arith/math ---===//
//
// Each case op's per-element semantics (ir/Case.h) as arith/math ops. The
// choices that matter for exactness: f16/bf16 compute in f32 with one rne
// rounding back; float max/min are maximumf/minimumf (NaN-propagating, -0 <
// +0); integer division is floor division guarded so that x/0 == 0 and
// MIN/-1 == MIN with no UB; float->int saturates with NaN -> 0. Casts with a
// rounding mode other than rne, and int->f16/bf16, call the runtime, which
// rounds exactly once.
//
//===----------------------------------------------------------------------===//
#include "backend/mlir/EmitterBase.h"

namespace npufuzz {

namespace {
const char *kFloatToBits = "func.func private @npf_rt_float_to_bits(f32, i32, i32) -> i32";
const char *kIntToBits = "func.func private @npf_rt_int_to_bits(i64, i32, i32) -> i32";

bool isHalf(DType t) { return t == DType::F16 || t == DType::BF16; }

/// The math op that rounds a float to an integral float by mode `m`.
const char *roundingFunction(RoundingMode m) {
  switch (m) {
  case RoundingMode::NearestEven: return "math.roundeven";
  case RoundingMode::NearestAway: return "math.round";
  case RoundingMode::TowardZero: return "math.trunc";
  case RoundingMode::Down: return "math.floor";
  case RoundingMode::Up: return "math.ceil";
  }
  return "math.roundeven"; // unreachable: every RoundingMode is a case above
}
} // namespace

// --- Typed arith ----------------------------------------------------------------

std::string EmitterBase::arithType(DType t) const {
  if (lanes_ == 0)
    return elemType(t);
  return "vector<" + std::to_string(lanes_) + "x" + elemType(t) + ">";
}

std::string EmitterBase::laneConst(const std::string &scalarConstant, DType t) {
  if (lanes_ == 0)
    return scalarConstant;
  const std::string v = fresh("v");
  line(v + " = vector.broadcast " + scalarConstant + " : " + elemType(t) + " to " + arithType(t));
  return v;
}

std::string EmitterBase::op1(const std::string &name, const std::string &a, DType t) {
  const std::string r = freshValue();
  line(r + " = " + name + " " + a + " : " + arithType(t));
  return r;
}

std::string EmitterBase::op2(const std::string &name, const std::string &a, const std::string &b,
                             DType t) {
  const std::string r = freshValue();
  line(r + " = " + name + " " + a + ", " + b + " : " + arithType(t));
  return r;
}

std::string EmitterBase::select(const std::string &cond, const std::string &a, const std::string &b,
                                DType t) {
  const std::string r = freshValue();
  // A vector select names its condition's type; a scalar one does not.
  line(r + " = arith.select " + cond + ", " + a + ", " + b + " : " +
       (lanes_ ? arithType(DType::I1) + ", " : std::string()) + arithType(t));
  return r;
}

std::string EmitterBase::cmp(const std::string &pred, const std::string &a, const std::string &b,
                             DType t) {
  return op2(std::string(isFloat(t) ? "arith.cmpf " : "arith.cmpi ") + pred + ",", a, b, t);
}

// --- Scalar semantics ------------------------------------------------------------

std::string EmitterBase::widen(const std::string &x, DType t) {
  if (!isHalf(t))
    return x;
  const std::string r = freshValue();
  line(r + " = arith.extf " + x + " : " + arithType(t) + " to " + arithType(DType::F32));
  return r;
}

std::string EmitterBase::narrow(const std::string &x, DType t) {
  if (!isHalf(t))
    return x;
  const std::string r = freshValue();
  line(r + " = arith.truncf " + x + " : " + arithType(DType::F32) + " to " + arithType(t));
  return r;
}

bool EmitterBase::unaryHasLaneForm(OpKind k) {
  switch (k) {
  case OpKind::Tanh:
  case OpKind::Erf: return false; // libm calls, which the lowering tail only scalarises
  case OpKind::Neg:
  case OpKind::Abs:
  case OpKind::Exp:
  case OpKind::Log:
  case OpKind::Sqrt:
  case OpKind::Rsqrt:
  case OpKind::Sigmoid:
  case OpKind::Silu:
  case OpKind::Relu:
  case OpKind::Not:
  case OpKind::Round:
  case OpKind::Clamp: return true;
#define NPF_HANDLED_CATEGORY Unary
#include "ir/OpCasesOutside.def"
    return false;
  }
  return false; // unreachable: every OpKind is a case above
}

std::string EmitterBase::unary(const Op &op, DType t, const std::string &x) {
  const OpKind k = op.kind;
  constexpr DType F32 = DType::F32;
  if (isFloat(t)) {
    const std::string w = widen(x, t);
    const std::string one = laneConst(floatConst(1.0f, F32), F32);
    const std::string zero = laneConst(floatConst(0.0f, F32), F32);
    std::string r;
    auto sigmoid = [&](const std::string &v) {
      const std::string e = op1("math.exp", op1("arith.negf", v, F32), F32);
      return op2("arith.divf", one, op2("arith.addf", one, e, F32), F32);
    };
    switch (k) {
    case OpKind::Neg: r = op1("arith.negf", w, F32); break;
    case OpKind::Abs: r = op1("math.absf", w, F32); break;
    case OpKind::Exp: r = op1("math.exp", w, F32); break;
    case OpKind::Log: r = op1("math.log", w, F32); break;
    case OpKind::Sqrt: r = op1("math.sqrt", w, F32); break;
    case OpKind::Rsqrt: r = op1("math.rsqrt", w, F32); break;
    case OpKind::Tanh: r = op1("math.tanh", w, F32); break;
    case OpKind::Erf: r = op1("math.erf", w, F32); break;
    case OpKind::Sigmoid: r = sigmoid(w); break;
    case OpKind::Silu: r = op2("arith.mulf", w, sigmoid(w), F32); break;
    case OpKind::Relu:
      // ugt keeps NaN (unordered compares true) and maps -0 to +0.
      r = select(cmp("ugt", w, zero, F32), w, zero, F32);
      break;
    case OpKind::Round: r = op1(roundingFunction(op.attrs.rounding), w, F32); break;
    case OpKind::Clamp: {
      // The bounds are constants of the op's type, widened like x.
      const std::string lo = widen(laneConst(scalarConst(op.attrs.lo, t), t), t);
      const std::string hi = widen(laneConst(scalarConst(op.attrs.hi, t), t), t);
      r = op2("arith.minimumf", op2("arith.maximumf", w, lo, F32), hi, F32);
      break;
    }
    case OpKind::Not: // integer-like only
#define NPF_HANDLED_CATEGORY Unary
#include "ir/OpCasesOutside.def"
      unsupported = std::string(opName(k)) + " on " + arithType(t);
      return x;
    }
    return narrow(r, t);
  }
  const std::string zero = laneConst(intConst(0, t), t);
  switch (k) {
  case OpKind::Neg: return op2("arith.subi", zero, x, t);
  case OpKind::Abs: {
    const std::string neg = op2("arith.subi", zero, x, t);
    return select(cmp("slt", x, zero, t), neg, x, t);
  }
  case OpKind::Relu: return op2("arith.maxsi", x, zero, t);
  case OpKind::Not:
    return op2("arith.xori", x, laneConst(intConst(t == DType::I1 ? 1 : -1, t), t), t);
  case OpKind::Clamp: {
    const std::string lo = laneConst(scalarConst(op.attrs.lo, t), t);
    const std::string hi = laneConst(scalarConst(op.attrs.hi, t), t);
    return op2("arith.minsi", op2("arith.maxsi", x, lo, t), hi, t);
  }
  // Float-only.
  case OpKind::Exp:
  case OpKind::Log:
  case OpKind::Sqrt:
  case OpKind::Rsqrt:
  case OpKind::Tanh:
  case OpKind::Erf:
  case OpKind::Sigmoid:
  case OpKind::Silu:
  case OpKind::Round:
#define NPF_HANDLED_CATEGORY Unary
#include "ir/OpCasesOutside.def"
    unsupported = std::string(opName(k)) + " on " + arithType(t);
    return x;
  }
  return x; // unreachable: every OpKind is a case above
}

std::string EmitterBase::binary(OpKind k, DType t, const std::string &a, const std::string &b) {
  if (isFloat(t)) {
    const std::string wa = widen(a, t), wb = widen(b, t);
    const char *name = nullptr;
    switch (k) {
    case OpKind::Add: name = "arith.addf"; break;
    case OpKind::Sub: name = "arith.subf"; break;
    case OpKind::Mul: name = "arith.mulf"; break;
    case OpKind::Div: name = "arith.divf"; break;
    case OpKind::Max: name = "arith.maximumf"; break;
    case OpKind::Min: name = "arith.minimumf"; break;
    case OpKind::And: // integer-like only
    case OpKind::Or:
    case OpKind::Xor:
#define NPF_HANDLED_CATEGORY Binary
#include "ir/OpCasesOutside.def"
      unsupported = std::string(opName(k)) + " on " + arithType(t);
      return a;
    }
    return narrow(op2(name, wa, wb, DType::F32), t);
  }
  switch (k) {
  case OpKind::Add: return op2("arith.addi", a, b, t);
  case OpKind::Sub: return op2("arith.subi", a, b, t);
  case OpKind::Mul: return op2("arith.muli", a, b, t);
  case OpKind::Max: return op2("arith.maxsi", a, b, t);
  case OpKind::Min: return op2("arith.minsi", a, b, t);
  case OpKind::And: return op2("arith.andi", a, b, t);
  case OpKind::Or: return op2("arith.ori", a, b, t);
  case OpKind::Xor: return op2("arith.xori", a, b, t);
  case OpKind::Div: {
    // Floor division from truncating divsi/remsi, guarded: divsi is UB for
    // b == 0 and for MIN / -1, so divide by 1 in both cases (MIN / 1 == MIN
    // is the defined result of the overflow) and select 0 for b == 0.
    const std::string zero = laneConst(intConst(0, t), t);
    const std::string isZero = cmp("eq", b, zero, t);
    const std::string isMin = cmp("eq", a, laneConst(intConst(minIntValue(t), t), t), t);
    const std::string isNegOne = cmp("eq", b, laneConst(intConst(-1, t), t), t);
    const std::string overflow = op2("arith.andi", isMin, isNegOne, DType::I1);
    const std::string unsafe = op2("arith.ori", isZero, overflow, DType::I1);
    const std::string safe = select(unsafe, laneConst(intConst(1, t), t), b, t);
    const std::string q = op2("arith.divsi", a, safe, t);
    const std::string rem = op2("arith.remsi", a, safe, t);
    // Round toward -inf: step down when the remainder is nonzero and its
    // sign differs from the divisor's.
    const std::string inexact = cmp("ne", rem, zero, t);
    const std::string remNeg = cmp("slt", rem, zero, t), divNeg = cmp("slt", safe, zero, t);
    const std::string signsDiffer = op2("arith.xori", remNeg, divNeg, DType::I1);
    const std::string adjust = op2("arith.andi", inexact, signsDiffer, DType::I1);
    const std::string down = op2("arith.subi", q, laneConst(intConst(1, t), t), t);
    return select(isZero, zero, select(adjust, down, q, t), t);
  }
#define NPF_HANDLED_CATEGORY Binary
#include "ir/OpCasesOutside.def"
    unsupported = std::string(opName(k)) + " on " + arithType(t);
    return a;
  }
  return a; // unreachable: every OpKind is a case above
}

std::string EmitterBase::compare(OpKind k, DType t, const std::string &a, const std::string &b) {
  const bool f = isFloat(t);
  const char *pred = nullptr;
  switch (k) {
  case OpKind::CmpEq: pred = f ? "oeq" : "eq"; break;
  case OpKind::CmpNe: pred = f ? "une" : "ne"; break;
  case OpKind::CmpLt: pred = f ? "olt" : "slt"; break;
  case OpKind::CmpLe: pred = f ? "ole" : "sle"; break;
  case OpKind::CmpGt: pred = f ? "ogt" : "sgt"; break;
  case OpKind::CmpGe: pred = f ? "oge" : "sge"; break;
#define NPF_HANDLED_CATEGORY Compare
#include "ir/OpCasesOutside.def"
    unsupported = std::string(opName(k)) + " is not a compare";
    return a;
  }
  if (!f)
    return cmp(pred, a, b, t);
  const std::string wa = widen(a, t), wb = widen(b, t);
  return cmp(pred, wa, wb, DType::F32);
}

std::string EmitterBase::multiplyAccumulate(const std::string &sum, const std::string &a,
                                            const std::string &b, DType in, DType acc) {
  const std::string accTy = elemType(acc);
  std::string xa = a, xb = b;
  const std::string prod = fresh(), next = fresh();
  if (isFloat(acc)) {
    xa = widen(xa, in);
    xb = widen(xb, in);
    line(prod + " = arith.mulf " + xa + ", " + xb + " : f32");
    line(next + " = arith.addf " + sum + ", " + prod + " : f32");
    return next;
  }
  if (in != acc) {
    const std::string ea = fresh(), eb = fresh();
    line(ea + " = arith.extsi " + xa + " : " + elemType(in) + " to " + accTy);
    line(eb + " = arith.extsi " + xb + " : " + elemType(in) + " to " + accTy);
    xa = ea;
    xb = eb;
  }
  line(prod + " = arith.muli " + xa + ", " + xb + " : " + accTy);
  line(next + " = arith.addi " + sum + ", " + prod + " : " + accTy);
  return next;
}

std::string EmitterBase::dims(unsigned rank) {
  std::vector<std::string> d;
  for (unsigned i = 0; i < rank; ++i)
    d.push_back("d" + std::to_string(i));
  return joined(d);
}

std::string EmitterBase::projection(unsigned rank, const std::vector<int64_t> &picked) {
  std::vector<std::string> r;
  for (int64_t d : picked)
    r.push_back("d" + std::to_string(d));
  return "affine_map<(" + dims(rank) + ") -> (" + joined(r) + ")>";
}

std::vector<int64_t> EmitterBase::rowMajorStrides(const std::vector<int64_t> &shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;)
    s[i - 1] = s[i] * shape[i];
  return s;
}

std::string EmitterBase::reduceIdentity(OpKind k, DType t) {
  if (k == OpKind::ReduceMax)
    return lowestOf(t);
  if (k == OpKind::ReduceMin)
    return highestOf(t);
  return isFloat(t) ? floatConst(-0.0f, t) : intConst(0, t);
}

EmitterBase::ReduceRule EmitterBase::reduceRule(OpKind k, DType t) {
  const bool f = isFloat(t);
  ReduceRule r;
  r.accType = f ? "f32" : elemType(t);
  switch (k) {
  case OpKind::ReduceSum:
    // -0 is the identity of IEEE addition (+0 is not: +0 + -0 == +0).
    r.init = f ? floatConst(-0.0f, DType::F32) : intConst(0, t);
    r.combine = f ? "arith.addf" : "arith.addi";
    return r;
  case OpKind::ReduceMax:
    r.init = f ? floatConst(-__builtin_inff(), DType::F32) : intConst(minIntValue(t), t);
    r.combine = f ? "arith.maximumf" : "arith.maxsi";
    return r;
  case OpKind::ReduceMin:
    r.init = f ? floatConst(__builtin_inff(), DType::F32) : intConst(maxIntValue(t), t);
    r.combine = f ? "arith.minimumf" : "arith.minsi";
    return r;
  case OpKind::Select:
  case OpKind::MaskedFill:
  case OpKind::Cast:
  case OpKind::ArgMax:
  case OpKind::TopK:
  case OpKind::Matmul:
  case OpKind::Gather:
  case OpKind::SetValidShape:
  case OpKind::FillPad:
  case OpKind::Insert:
  case OpKind::Concat:
  case OpKind::Pad:
  case OpKind::ReduceMean:
  case OpKind::AvgPool2d:
  case OpKind::MaxPool2d:
  case OpKind::Addmm:
  case OpKind::Conv2d:
#define NPF_HANDLED_CATEGORY Other
#include "ir/OpCasesOutside.def"
    unsupported = std::string(opName(k)) + " is not a reduction";
    return r;
  }
  return r; // unreachable: every OpKind is a case above
}

std::string EmitterBase::elementwise(const Op &op, const std::vector<std::string> &xs) {
  const DType t = c_.typeOf(op.operands[0]).dtype;
  const DType rt = c_.typeOf(op.results[0]).dtype;
  switch (opCategory(op.kind)) {
  case OpCategory::Unary: return unary(op, t, xs[0]);
  case OpCategory::Binary: return binary(op.kind, t, xs[0], xs[1]);
  case OpCategory::Compare: return compare(op.kind, t, xs[0], xs[1]);
  case OpCategory::RowExpand:
  case OpCategory::ColExpand: return binary(expandBaseOp(op.kind), t, xs[0], xs[1]);
  case OpCategory::Source:
  case OpCategory::View:
  case OpCategory::Other: break;
  }
  switch (op.kind) {
  case OpKind::Select: return select(xs[0], xs[1], xs[2], rt);
  case OpKind::MaskedFill:
    return select(xs[1], laneConst(scalarConst(op.attrs.value, rt), rt), xs[0], rt);
  case OpKind::Cast: return cast(xs[0], t, rt, op.attrs.rounding);
  case OpKind::ReduceSum:
  case OpKind::ReduceMax:
  case OpKind::ReduceMin:
  case OpKind::ArgMax:
  case OpKind::TopK:
  case OpKind::Matmul:
  case OpKind::Gather:
  case OpKind::SetValidShape:
  case OpKind::FillPad:
  case OpKind::Insert:
  case OpKind::Concat:
  case OpKind::Pad:
  case OpKind::ReduceMean:
  case OpKind::AvgPool2d:
  case OpKind::MaxPool2d:
  case OpKind::Addmm:
  case OpKind::Conv2d:
#define NPF_HANDLED_CATEGORY Other
#include "ir/OpCasesOutside.def"
    break;
  }
  unsupported = std::string(opName(op.kind)) + " is not elementwise";
  return xs[0];
}

std::string EmitterBase::greater(DType t, const std::string &x, const std::string &best) {
  const std::string r = fresh();
  if (!isFloat(t)) {
    line(r + " = arith.cmpi sgt, " + x + ", " + best + " : " + elemType(t));
    return r;
  }
  // NaN is larger than every number: x wins if x > best, or x is NaN and
  // best is not.
  const std::string wx = widen(x, t), wb = widen(best, t);
  const std::string gt = fresh(), xNan = fresh(), bOrd = fresh(), nanWins = fresh();
  line(gt + " = arith.cmpf ogt, " + wx + ", " + wb + " : f32");
  line(xNan + " = arith.cmpf uno, " + wx + ", " + wx + " : f32");
  line(bOrd + " = arith.cmpf ord, " + wb + ", " + wb + " : f32");
  line(nanWins + " = arith.andi " + xNan + ", " + bOrd + " : i1");
  line(r + " = arith.ori " + gt + ", " + nanWins + " : i1");
  return r;
}

EmitterBase::TopKBest EmitterBase::topkStep(DType t, const std::string &x, const std::string &j,
                                            const TopKBest &prev, const TopKBest &best) {
  const std::string yes = intConst(1, DType::I1), ty = elemType(t);
  // x comes after the previous pick: prev > x, or they tie and j > prev's.
  const std::string prevWins = greater(t, prev.value, x), xWins = greater(t, x, prev.value);
  const std::string tie = fresh(), later = fresh(), tieLater = fresh(), after = fresh(),
                    noPrev = fresh(), eligible = fresh();
  line(tie + " = arith.xori " + xWins + ", " + yes + " : i1");
  line(later + " = arith.cmpi sgt, " + j + ", " + prev.index + " : index");
  line(tieLater + " = arith.andi " + tie + ", " + later + " : i1");
  line(after + " = arith.ori " + prevWins + ", " + tieLater + " : i1");
  line(noPrev + " = arith.xori " + prev.has + ", " + yes + " : i1");
  line(eligible + " = arith.ori " + noPrev + ", " + after + " : i1");
  // Among eligible elements, scanning in index order and requiring strictly
  // greater keeps the lower index on ties.
  const std::string wins = greater(t, x, best.value);
  const std::string first = fresh(), better = fresh(), cand = fresh();
  line(first + " = arith.xori " + best.has + ", " + yes + " : i1");
  line(better + " = arith.ori " + first + ", " + wins + " : i1");
  line(cand + " = arith.andi " + better + ", " + eligible + " : i1");
  const TopKBest next{fresh(), fresh(), fresh()};
  line(next.value + " = arith.select " + cand + ", " + x + ", " + best.value + " : " + ty);
  line(next.index + " = arith.select " + cand + ", " + j + ", " + best.index + " : index");
  line(next.has + " = arith.ori " + best.has + ", " + cand + " : i1");
  return next;
}

std::string EmitterBase::fromIndex(const std::string &i, DType t) {
  if (t == DType::Index)
    return i;
  const std::string r = fresh();
  if (isInteger(t)) {
    line(r + " = arith.index_cast " + i + " : index to " + elemType(t));
    return r;
  }
  line(r + " = arith.index_cast " + i + " : index to i64");
  const std::string f = fresh();
  line(f + " = arith.sitofp " + r + " : i64 to f32"); // exact: dims < 2^24
  return narrow(f, t);
}

std::string EmitterBase::cast(const std::string &x, DType from, DType to, RoundingMode m) {
  if (from == to)
    return x;
  const std::string r = fresh();
  const std::string fromTy = elemType(from), toTy = elemType(to);
  if (to == DType::I1) {
    if (isFloat(from))
      line(r + " = arith.cmpf une, " + widen(x, from) + ", " + floatConst(0.0f, DType::F32) +
           " : f32");
    else
      line(r + " = arith.cmpi ne, " + x + ", " + intConst(0, from) + " : " + fromTy);
    return r;
  }
  if (from == DType::I1) {
    if (isFloat(to)) {
      line(r + " = arith.uitofp " + x + " : i1 to f32");
      return narrow(r, to);
    }
    line(r + " = arith.extui " + x + " : i1 to " + (to == DType::Index ? "i64" : toTy));
    if (to != DType::Index)
      return r;
    const std::string idx = fresh();
    line(idx + " = arith.index_cast " + r + " : i64 to index");
    return idx;
  }
  if (!isFloat(from) && !isFloat(to)) {
    if (from == DType::Index || to == DType::Index)
      line(r + " = arith.index_cast " + x + " : " + fromTy + " to " + toTy);
    else if (bitWidth(to) > bitWidth(from))
      line(r + " = arith.extsi " + x + " : " + fromTy + " to " + toTy);
    else
      line(r + " = arith.trunci " + x + " : " + fromTy + " to " + toTy);
    return r;
  }
  // Runtime rounding returns the result's bits in an i32.
  auto fromBits = [&](const std::string &bits) {
    if (to == DType::F32) {
      line(r + " = arith.bitcast " + bits + " : i32 to f32");
      return r;
    }
    const std::string narrowBits = fresh();
    line(narrowBits + " = arith.trunci " + bits + " : i32 to i16");
    line(r + " = arith.bitcast " + narrowBits + " : i16 to " + toTy);
    return r;
  };
  const std::string dtypeArg = intConst(static_cast<int>(to), DType::I32);
  const std::string modeArg = intConst(static_cast<int>(m), DType::I32);
  if (isFloat(from) && isFloat(to)) {
    const std::string w = widen(x, from);
    if (to == DType::F32)
      return w;
    if (m == RoundingMode::NearestEven) {
      line(r + " = arith.truncf " + w + " : f32 to " + toTy);
      return r;
    }
    declareRuntime(kFloatToBits);
    const std::string bits = fresh();
    line(bits + " = func.call @npf_rt_float_to_bits(" + w + ", " + dtypeArg + ", " + modeArg +
         ") : (f32, i32, i32) -> i32");
    return fromBits(bits);
  }
  if (!isFloat(from)) { // int -> float
    std::string wide = x;
    if (from == DType::Index || bitWidth(from) < 64) {
      wide = fresh();
      line(wide + (from == DType::Index ? " = arith.index_cast " : " = arith.extsi ") + x + " : " +
           fromTy + " to i64");
    }
    if (to == DType::F32 && m == RoundingMode::NearestEven) {
      line(r + " = arith.sitofp " + wide + " : i64 to f32");
      return r;
    }
    declareRuntime(kIntToBits);
    const std::string bits = fresh();
    line(bits + " = func.call @npf_rt_int_to_bits(" + wide + ", " + dtypeArg + ", " + modeArg +
         ") : (i64, i32, i32) -> i32");
    return fromBits(bits);
  }
  // float -> int: round to an integral float, then saturate; NaN -> 0.
  const std::string w = widen(x, from);
  const std::string rounded = fresh();
  line(rounded + " = " + roundingFunction(m) + " " + w + " : f32");
  const DType intTy = to == DType::Index ? DType::I64 : to;
  const unsigned bits = bitWidth(intTy);
  const float limit = static_cast<float>(1ull << (bits - 1)); // 2^(n-1), exact
  const std::string tooBig = fresh(), tooSmall = fresh(), isNan = fresh();
  line(tooBig + " = arith.cmpf oge, " + rounded + ", " + floatConst(limit, DType::F32) + " : f32");
  line(tooSmall + " = arith.cmpf olt, " + rounded + ", " + floatConst(-limit, DType::F32) +
       " : f32");
  line(isNan + " = arith.cmpf uno, " + rounded + ", " + rounded + " : f32");
  const std::string special = fresh(), special2 = fresh(), safe = fresh(), conv = fresh();
  line(special + " = arith.ori " + tooBig + ", " + tooSmall + " : i1");
  line(special2 + " = arith.ori " + special + ", " + isNan + " : i1");
  // Convert only in-range values so fptosi never sees an out-of-range input.
  line(safe + " = arith.select " + special2 + ", " + floatConst(0.0f, DType::F32) + ", " + rounded +
       " : f32");
  const std::string intTyName = elemType(intTy);
  line(conv + " = arith.fptosi " + safe + " : f32 to " + intTyName);
  const std::string s1 = fresh(), s2 = fresh();
  line(s1 + " = arith.select " + tooBig + ", " + intConst(maxIntValue(intTy), intTy) + ", " + conv +
       " : " + intTyName);
  line(s2 + " = arith.select " + tooSmall + ", " + intConst(minIntValue(intTy), intTy) + ", " + s1 +
       " : " + intTyName);
  std::string result = s2;
  if (to == DType::Index) {
    result = fresh();
    line(result + " = arith.index_cast " + s2 + " : i64 to index");
  }
  return result; // NaN went through `safe` as 0
}

} // namespace npufuzz
