//===- backend/mlir/TensorWorkload.cpp - concat, pad, mean, conv, pools ---===//
//
// The workload ops on tensors, as a frontend of linalg writes them:
// tensor.concat and tensor.pad; a mean as the f32 sum of a reduction, then
// a division; conv2d as linalg.conv_2d_nchw_fchw over its input padded
// with zeros (a generic over the group's channels when it has groups);
// avg_pool2d as linalg.pooling_nchw_sum, then a division; max_pool2d as a
// generic over the window that keeps the value and the index of the first
// in-bounds maximum (the last NaN), which no named op gives; addmm as
// linalg.matmul (batch_matmul) into f32, then the bias added. Named ops
// cast their operands to the accumulator's type, exactly for bf16 and f16
// into f32 and wrapping for integers.
//
//===----------------------------------------------------------------------===//
#include "backend/mlir/TensorLowering.h"

#include "ir/Window.h"

namespace npufuzz {

namespace {
std::string i64Pair(const std::array<int64_t, 2> &v) {
  return "dense<[" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + "]> : tensor<2xi64>";
}
TensorType withShape(const TensorType &t, std::vector<int64_t> shape, DType d) {
  return TensorType{d, std::move(shape), std::nullopt};
}
} // namespace

/// `x` padded by `low`/`high` per dim with the scalar constant `value`.
std::string TensorEmitter::padded(const std::string &x, const TensorType &t,
                                  const std::vector<int64_t> &low, const std::vector<int64_t> &high,
                                  const std::string &value, TensorType &result) {
  result = withShape(t, t.shape, t.dtype);
  std::vector<std::string> lo, hi, args;
  bool any = false;
  for (size_t d = 0; d < t.rank(); ++d) {
    result.shape[d] += low[d] + high[d];
    lo.push_back(std::to_string(low[d]));
    hi.push_back(std::to_string(high[d]));
    args.push_back(fresh("p") + ": index");
    any = any || low[d] != 0 || high[d] != 0;
  }
  if (!any)
    return x;
  const std::string r = fresh("pad");
  line(r + " = tensor.pad " + x + " low[" + joined(lo) + "] high[" + joined(hi) + "] {");
  line("^bb0(" + joined(args) + "):");
  line("  tensor.yield " + value + " : " + elemType(t.dtype));
  line("} : " + tensorType(t) + " to " + tensorType(result));
  return r;
}

/// `x` (f32, of type `t`) divided by `n` and rounded to `to`, as value `res`.
void TensorEmitter::divideInto(ValueId res, const std::string &x, const TensorType &t, int64_t n,
                               DType to) {
  const TensorType rt = withShape(t, t.shape, to);
  const std::string all = dims(t.rank()), r = fresh("div");
  const std::vector<GenericOperand> outs = {operand(empty(rt), rt, all)};
  const std::vector<std::string> args =
      openGeneric(r, {operand(x, t, all)}, outs, std::vector<std::string>(t.rank(), "parallel"));
  const std::string q = fresh();
  line(q + " = arith.divf " + args[0] + ", " + floatConst(float(n), DType::F32) + " : f32");
  closeGeneric({narrow(q, to)}, outs);
  bind(res, r);
}

void TensorEmitter::emitWorkload(const Op &op) {
  const ValueId res = op.results[0];
  const TensorType &rt = c_.typeOf(res);
  const TensorType &xt = c_.typeOf(op.operands[0]);
  const std::string x = val(op.operands[0]).name;
  const OpAttrs &a = op.attrs;
  if (op.kind == OpKind::Concat) {
    std::vector<std::string> names, types;
    for (ValueId v : op.operands) {
      names.push_back(val(v).name);
      types.push_back(val(v).type);
    }
    const std::string r = fresh("cat");
    line(r + " = tensor.concat dim(" + std::to_string(a.axis) + ") " + joined(names) + " : (" +
         joined(types) + ") -> " + tensorType(rt));
    return bind(res, r);
  }
  if (op.kind == OpKind::Pad) {
    TensorType pt;
    const std::string r = padded(x, xt, a.low, a.high, scalarConst(a.value, xt.dtype), pt);
    return bind(res, r);
  }
  if (op.kind == OpKind::ReduceMean) {
    // The f32 sum from the first element (-0 is addition's identity), then
    // the division.
    const TensorType sumT = withShape(rt, rt.shape, DType::F32);
    std::vector<std::string> results;
    std::vector<std::string> iterators(xt.rank(), "parallel");
    for (unsigned d = 0; d < xt.rank(); ++d)
      results.push_back(static_cast<int64_t>(d) == a.axis ? "0" : "d" + std::to_string(d));
    iterators[static_cast<size_t>(a.axis)] = "reduction";
    const std::vector<GenericOperand> outs = {
        operand(fill(floatConst(-0.0f, DType::F32), sumT), sumT, joined(results))};
    const std::string sum = fresh("sum"), next = fresh();
    const std::vector<std::string> args =
        openGeneric(sum, {operand(op.operands[0], dims(xt.rank()))}, outs, iterators);
    line(next + " = arith.addf " + args[1] + ", " + widen(args[0], xt.dtype) + " : f32");
    closeGeneric({next}, outs);
    return divideInto(res, sum, sumT, xt.shape[static_cast<size_t>(a.axis)], rt.dtype);
  }
  if (op.kind == OpKind::Addmm)
    return emitAddmm(op);
  Window2d w;
  if (!windowOf(c_, op, w)) {
    unsupported = std::string(opName(op.kind)) + ": its window does not read";
    return;
  }
  if (op.kind == OpKind::MaxPool2d)
    return emitMaxPool(op, w);
  // conv2d and avg_pool2d: the input padded with zeros, then a named op.
  TensorType pt;
  const std::string xp = padded(x, xt, {0, 0, w.padding[0], w.padding[1]},
                                {0, 0, w.padding[0], w.padding[1]}, zeroOf(xt.dtype), pt);
  const DType acc = isFloat(xt.dtype) ? DType::F32 : xt.dtype;
  const TensorType accT = withShape(rt, rt.shape, acc);
  // -0 is addition's identity: a one-term sum keeps its term's sign.
  const std::string init = fill(isFloat(acc) ? floatConst(-0.0f, acc) : zeroOf(acc), accT);
  const std::string r = fresh("win");
  const std::string attrs =
      " {dilations = " + i64Pair(w.dilation) + ", strides = " + i64Pair(w.stride) + "}";
  if (op.kind == OpKind::AvgPool2d) {
    const TensorType kt = withShape(xt, {w.kernel[0], w.kernel[1]}, acc);
    line(r + " = linalg.pooling_nchw_sum" + attrs + " ins(" + xp + ", " + empty(kt) + " : " +
         tensorType(pt) + ", " + tensorType(kt) + ") outs(" + init + " : " + tensorType(accT) +
         ") -> " + tensorType(accT));
    return divideInto(res, r, accT, w.taps(), rt.dtype);
  }
  const ValueId wv = op.operands[1];
  if (a.groups == 1) {
    line(r + " = linalg.conv_2d_nchw_fchw" + attrs + " ins(" + xp + ", " + val(wv).name + " : " +
         tensorType(pt) + ", " + val(wv).type + ") outs(" + init + " : " + tensorType(accT) +
         ") -> " + tensorType(accT));
    return bind(res, r);
  }
  // Groups: output channel d1 reads its group's channels d4.
  const int64_t perGroup = rt.shape[1] / a.groups, cg = c_.typeOf(wv).shape[1];
  const std::string h =
      "d2 * " + std::to_string(w.stride[0]) + " + d5 * " + std::to_string(w.dilation[0]);
  const std::string v =
      "d3 * " + std::to_string(w.stride[1]) + " + d6 * " + std::to_string(w.dilation[1]);
  const std::vector<GenericOperand> outs = {operand(init, accT, "d0, d1, d2, d3")};
  const std::vector<std::string> args = openGeneric(
      r,
      {operand(xp, pt,
               "d0, (d1 floordiv " + std::to_string(perGroup) + ") * " + std::to_string(cg) +
                   " + d4, " + h + ", " + v),
       operand(wv, "d1, d4, d5, d6")},
      outs,
      {"parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"});
  const bool f = isFloat(xt.dtype);
  const std::string p = fresh(), s = fresh();
  line(p + " = " + (f ? "arith.mulf " : "arith.muli ") + (f ? widen(args[0], xt.dtype) : args[0]) +
       ", " + (f ? widen(args[1], xt.dtype) : args[1]) + " : " + elemType(acc));
  line(s + " = " + (f ? "arith.addf " : "arith.addi ") + args[2] + ", " + p + " : " +
       elemType(acc));
  closeGeneric({s}, outs);
  bind(res, r);
}

void TensorEmitter::emitMaxPool(const Op &op, const Window2d &w) {
  const TensorType &xt = c_.typeOf(op.operands[0]), &rt = c_.typeOf(op.results[0]);
  const DType t = xt.dtype;
  TensorType pt;
  const std::string xp = padded(val(op.operands[0]).name, xt, {0, 0, w.padding[0], w.padding[1]},
                                {0, 0, w.padding[0], w.padding[1]}, lowestOf(t), pt);
  const TensorType it = withShape(rt, rt.shape, DType::I64);
  const std::vector<GenericOperand> outs = {
      operand(fill(lowestOf(t), rt), rt, "d0, d1, d2, d3"),
      operand(fill(intConst(-1, DType::I64), it), it, "d0, d1, d2, d3")};
  const std::string h =
      "d2 * " + std::to_string(w.stride[0]) + " + d4 * " + std::to_string(w.dilation[0]);
  const std::string v =
      "d3 * " + std::to_string(w.stride[1]) + " + d5 * " + std::to_string(w.dilation[1]);
  const std::string r = fresh("mp");
  // The window's shape, as the named pooling ops take it: the loops over
  // its taps get their extents from it.
  const TensorType kt = withShape(xt, {w.kernel[0], w.kernel[1]}, t);
  const std::vector<std::string> args = openGeneric(
      r + ":2", {operand(xp, pt, "d0, d1, " + h + ", " + v), operand(empty(kt), kt, "d4, d5")},
      outs, {"parallel", "parallel", "parallel", "parallel", "reduction", "reduction"});
  const std::string &x = args[0], &best = args[2], &at = args[3];
  // The tap's place in the unpadded plane, and whether it is in it.
  auto coordinate = [&](unsigned o, unsigned k, unsigned d) {
    const std::string m = fresh(), s = fresh(), c = fresh();
    line(m + " = arith.muli " + loopIndex(o) + ", " + indexConst(w.stride[d]) + " : index");
    line(s + " = arith.muli " + loopIndex(k) + ", " + indexConst(w.dilation[d]) + " : index");
    line(c + " = arith.addi " + m + ", " + s + " : index");
    const std::string q = fresh();
    line(q + " = arith.subi " + c + ", " + indexConst(w.padding[d]) + " : index");
    return q;
  };
  const std::string ph = coordinate(2, 4, 0), pw = coordinate(3, 5, 1);
  auto within = [&](const std::string &i, int64_t n) {
    const std::string lo = fresh(), hi = fresh(), both = fresh();
    line(lo + " = arith.cmpi sge, " + i + ", " + indexConst(0) + " : index");
    line(hi + " = arith.cmpi slt, " + i + ", " + indexConst(n) + " : index");
    line(both + " = arith.andi " + lo + ", " + hi + " : i1");
    return both;
  };
  const std::string inH = within(ph, xt.shape[2]), inW = within(pw, xt.shape[3]);
  const std::string inside = fresh(), none = fresh(), gt = fresh(), nan = fresh();
  line(inside + " = arith.andi " + inH + ", " + inW + " : i1");
  line(none + " = arith.cmpi eq, " + at + ", " + intConst(-1, DType::I64) + " : i64");
  const std::string xw = widen(x, t), bw = widen(best, t);
  line(gt + " = arith.cmpf ogt, " + xw + ", " + bw + " : f32");
  line(nan + " = arith.cmpf uno, " + xw + ", " + xw + " : f32");
  const std::string better = fresh(), e1 = fresh(), take = fresh();
  line(e1 + " = arith.ori " + none + ", " + gt + " : i1");
  line(better + " = arith.ori " + e1 + ", " + nan + " : i1");
  line(take + " = arith.andi " + inside + ", " + better + " : i1");
  const std::string flat = fresh(), rowStart = fresh(), idx = fresh();
  line(rowStart + " = arith.muli " + ph + ", " + indexConst(xt.shape[3]) + " : index");
  line(flat + " = arith.addi " + rowStart + ", " + pw + " : index");
  line(idx + " = arith.index_cast " + flat + " : index to i64");
  const std::string nb = fresh(), ni = fresh();
  line(nb + " = arith.select " + take + ", " + x + ", " + best + " : " + elemType(t));
  line(ni + " = arith.select " + take + ", " + idx + ", " + at + " : i64");
  closeGeneric({nb, ni}, outs);
  bind(op.results[0], r + "#0");
  bind(op.results[1], r + "#1");
}

void TensorEmitter::emitAddmm(const Op &op) {
  const ValueId bias = op.operands[0], a = op.operands[1], b = op.operands[2];
  const TensorType &rt = c_.typeOf(op.results[0]), &bt = c_.typeOf(bias);
  const std::string mm = fresh("mm");
  line(mm + " = linalg." + (rt.rank() == 3 ? "batch_matmul" : "matmul") + " ins(" + val(a).name +
       ", " + val(b).name + " : " + val(a).type + ", " + val(b).type + ") outs(" +
       fill(zeroOf(DType::F32), rt) + " : " + tensorType(rt) + ") -> " + tensorType(rt));
  // The bias, broadcast along its size-1 dims, added last.
  std::vector<std::string> biasResults;
  for (unsigned d = 0; d < rt.rank(); ++d)
    biasResults.push_back(bt.shape[d] == 1 ? "0" : "d" + std::to_string(d));
  const std::string all = dims(rt.rank()), r = fresh("addmm");
  const std::vector<GenericOperand> outs = {operand(empty(rt), rt, all)};
  const std::vector<std::string> args =
      openGeneric(r, {operand(mm, rt, all), operand(bias, joined(biasResults))}, outs,
                  std::vector<std::string>(rt.rank(), "parallel"));
  const std::string s = fresh();
  line(s + " = arith.addf " + args[0] + ", " + widen(args[1], bt.dtype) + " : f32");
  closeGeneric({s}, outs);
  bind(op.results[0], r);
}

} // namespace npufuzz
