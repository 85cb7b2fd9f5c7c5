//===- ir/Printer.cpp - Print a case as .npf text -------------------------===//
//
// The printed form is canonical: values are numbered in definition order
// unless named, attributes appear in a fixed order, and floats use the
// shortest text that reads back to the same bits.
//
//===----------------------------------------------------------------------===//
#include "ir/NumberText.h"
#include "ir/Text.h"

namespace npufuzz {

namespace {

std::string intList(const std::vector<int64_t> &v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

class Printer {
public:
  explicit Printer(const Case &c) : c_(c) {}

  std::string print() {
    out_ += "npufuzz-case " + std::to_string(kNpfVersion) + "\n";
    if (c_.provenance)
      out_ += "generator seed=" + std::to_string(c_.provenance->seed) + " policy=\"" +
              c_.provenance->policy + "\"\n";
    out_ += "data seed=" + std::to_string(c_.dataSeed) +
            " edge_rate=" + doubleToText(c_.edgeRate) + "\n";
    for (const Op &op : c_.ops)
      printOp(op);
    out_ += "return";
    for (size_t i = 0; i < c_.outputs.size(); ++i)
      out_ += (i ? ", " : " ") + name(c_.outputs[i]);
    out_ += "\n";
    return std::move(out_);
  }

private:
  std::string name(ValueId v) const {
    const Value &val = c_.values[v];
    return "%" + (val.name.empty() ? std::to_string(v) : val.name);
  }

  std::string scalar(const Scalar &s, DType t) const {
    return isFloat(t) ? floatToText(s.f) : std::to_string(s.i);
  }

  void printOp(const Op &op) {
    for (size_t i = 0; i < op.results.size(); ++i)
      out_ += (i ? ", " : "") + name(op.results[i]);
    out_ += " = ";
    out_ += opName(op.kind);
    for (size_t i = 0; i < op.operands.size(); ++i)
      out_ += (i ? ", " : " ") + name(op.operands[i]);
    const std::vector<std::string> attrs = attributes(op);
    if (!attrs.empty()) {
      out_ += " {";
      for (size_t i = 0; i < attrs.size(); ++i)
        out_ += (i ? ", " : "") + attrs[i];
      out_ += "}";
    }
    out_ += " :";
    for (size_t i = 0; i < op.results.size(); ++i)
      out_ += (i ? ", " : " ") + c_.values[op.results[i]].type.str();
    out_ += "\n";
  }

  /// Only the attributes an op's kind reads; everything derivable from the
  /// result type (cast target, reshape shape, valid shape, ...) is not
  /// repeated.
  std::vector<std::string> attributes(const Op &op) const {
    const OpAttrs &a = op.attrs;
    const DType resultType = c_.values[op.results[0]].type.dtype;
    switch (op.kind) {
    case OpKind::Input: {
      std::string fill(fillName(a.fill.kind));
      if (a.fill.kind == FillKind::Range)
        fill += "(" + std::to_string(a.fill.lo) + "," + std::to_string(a.fill.hi) + ")";
      return {"fill=" + fill};
    }
    case OpKind::Const:
    case OpKind::MaskedFill:
      return {"value=" + scalar(a.value, resultType)};
    case OpKind::Cast:
      return {"round=" + std::string(roundingName(a.rounding))};
    case OpKind::Iota:
    case OpKind::ReduceSum:
    case OpKind::ReduceMax:
    case OpKind::ReduceMin:
    case OpKind::ArgMax:
    case OpKind::Gather:
    case OpKind::Squeeze:
    case OpKind::Unsqueeze:
      return {"axis=" + std::to_string(a.axis)};
    case OpKind::TopK:
      return {"axis=" + std::to_string(a.axis), "k=" + std::to_string(a.k)};
    case OpKind::FillPad:
      return {"pad=" + std::string(padName(a.pad))};
    case OpKind::Slice:
      return {"offsets=" + intList(a.offsets), "sizes=" + intList(a.sizes),
              "strides=" + intList(a.strides)};
    case OpKind::Chunk:
      return {"axis=" + std::to_string(a.axis), "count=" + std::to_string(a.count),
              "index=" + std::to_string(a.index)};
    case OpKind::Transpose:
      return {"perm=" + intList(a.perm)};
    case OpKind::IndexMap: {
      std::string m = "map=(";
      for (size_t i = 0; i < a.shape.size(); ++i)
        m += (i ? ", d" : "d") + std::to_string(i);
      m += ") -> (";
      for (size_t i = 0; i < a.map.size(); ++i)
        m += (i ? ", " : "") + a.map[i].str();
      return {m + ")"};
    }
    default:
      return {};
    }
  }

  const Case &c_;
  std::string out_;
};

} // namespace

std::string printCase(const Case &c) { return Printer(c).print(); }

} // namespace npufuzz
