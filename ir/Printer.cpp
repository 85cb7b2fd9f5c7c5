//===- ir/Printer.cpp - Print a case as .npf text -------------------------===//
//
// The printed form is canonical: values are numbered in definition order
// unless named, attributes appear in a fixed order, and floats use the
// shortest text that reads back to the same bits.
//
//===----------------------------------------------------------------------===//
#include "ir/AttrText.h"
#include "ir/NumberText.h"
#include "ir/Text.h"

namespace npufuzz {

namespace {

class Printer {
public:
  explicit Printer(const Case &c) : c_(c) {}

  std::string print() {
    out_ += "npufuzz-case " + std::to_string(kNpfVersion) + "\n";
    if (c_.provenance)
      out_ += "generator seed=" + std::to_string(c_.provenance->seed) + " policy=\"" +
              c_.provenance->policy + "\"\n";
    out_ += "data seed=" + std::to_string(c_.dataSeed) + " edge_rate=" + doubleToText(c_.edgeRate) +
            "\n";
    // A task's line comes before its first op; an input between two
    // tasks' ops is in neither.
    const std::vector<int32_t> tasks = opTasks(c_);
    int32_t current = -1;
    for (size_t i = 0; i < c_.ops.size(); ++i) {
      if (tasks[i] >= 0 && tasks[i] != current) {
        current = tasks[i];
        const Task &t = c_.tasks[current];
        out_ += "task " + t.name + " blocks=" + std::to_string(t.blocks) +
                " store=" + std::string(taskStoreName(t.store)) + "\n";
      }
      printOp(c_.ops[i]);
    }
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

  /// Only the attributes an op's kind reads (ir/OpAttrs.def); everything
  /// derivable from the result type (cast target, reshape shape, valid
  /// shape, ...) is not repeated.
  std::vector<std::string> attributes(const Op &op) const {
    return attributeTexts(op, c_.values[op.results[0]].type);
  }

  const Case &c_;
  std::string out_;
};

} // namespace

std::string printCase(const Case &c) { return Printer(c).print(); }

} // namespace npufuzz
