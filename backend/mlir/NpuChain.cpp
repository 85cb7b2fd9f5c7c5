//===- backend/mlir/NpuChain.cpp - A chain of tasks in the npu style ------===//
//
// Tasks one after another in the order of the case, which the graph
// allows; each task a loop over its blocks. A block recomputes the task's
// values (the npu style keeps every value in DRAM, so its ops write their
// own buffers by DMA as any op does) and then writes its share of each
// value the task hands on. Scalar stores go element by element through
// memref.store, each recorded by the runtime, and the block pushes its
// share's lines out with a dcci and a dsb before it ends.
//
//===----------------------------------------------------------------------===//
#include "backend/mlir/NpuLowering.h"

#include "backend/KernelTrace.h"
#include "backend/runtime/NpuSim.h"

#include <string>

namespace npufuzz {

std::string NpuEmitter::flat(const DramBuf &m, ValueId v) {
  const TensorType &t = c_.typeOf(v);
  const std::string n = std::to_string(t.numElements());
  const std::string f = fresh("flat");
  line(f + " = memref.reinterpret_cast " + m.memref + " to offset: [0], sizes: [" + n +
       "], strides: [1] : " + m.type + " to memref<" + n + "x" + elemType(t.dtype) + ">");
  return f;
}

void NpuEmitter::storeShare(ValueId v, const DramBuf &local, const DramBuf &gm, const Task &task,
                            const std::string &blk) {
  const TensorType &t = c_.typeOf(v);
  const int64_t n = t.numElements(), bytes = byteSize(t.dtype);
  // Shares start on a cache line, so no two blocks write one line.
  const int64_t line64 = static_cast<int64_t>(kGmCacheLineBytes);
  const int64_t shareBytes =
      ((n * bytes + task.blocks - 1) / task.blocks + line64 - 1) / line64 * line64;
  // Not hoisted, and marked with what it shares out: what a share is, is
  // this constant (a test pass packs shares by rewriting it).
  const std::string share = fresh("share");
  line(share + " = arith.constant {npufuzz.block_share = [" + std::to_string(n) + ", " +
       std::to_string(task.blocks) + "]} " + std::to_string(shareBytes / bytes) + " : index");
  const std::string lo0 = fresh("lo"), lo = fresh("lo"), hi0 = fresh("hi"), hi = fresh("hi");
  line(lo0 + " = arith.muli " + blk + ", " + share + " : index");
  line(lo + " = arith.minsi " + lo0 + ", " + indexConst(n) + " : index");
  line(hi0 + " = arith.addi " + lo + ", " + share + " : index");
  line(hi + " = arith.minsi " + hi0 + ", " + indexConst(n) + " : index");
  const std::string lo64 = fresh(), len = fresh(), len64 = fresh(),
                    bytes64 = intConst(bytes, DType::I64);
  line(lo64 + " = arith.index_cast " + lo + " : index to i64");
  line(len + " = arith.subi " + hi + ", " + lo + " : index");
  line(len64 + " = arith.index_cast " + len + " : index to i64");
  if (task.store == TaskStore::Tile) {
    if (shareBytes > opt_.spadBytes) {
      unsupported = "a block's share of " + std::to_string(shareBytes) +
                    " bytes does not fit the scratchpad of " + std::to_string(opt_.spadBytes);
      return;
    }
    // Through the scratchpad, which no op holds between ops.
    const std::string any = fresh("any");
    line(any + " = arith.cmpi sgt, " + len + ", " + indexConst(0) + " : index");
    line("scf.if " + any + " {");
    indent_ += 2;
    const std::string zero = intConst(0, DType::I64), one = intConst(1, DType::I64);
    const std::string rest = intConst(1, DType::I64) + ", " + one + ", " + one + ", " + one + ", " +
                             zero + ", " + zero + ", " + zero + ", " + one + ", " + zero + ", " +
                             zero + ", " + zero;
    for (int toDram = 0; toDram < 2; ++toDram) {
      const DramBuf &b = toDram ? gm : local;
      line("func.call @npf_sim_dma(" + intConst(toDram, DType::I64) + ", " + b.ptr + ", " +
           intConst(n, DType::I64) + ", " + lo64 + ", " + zero + ", " + bytes64 + ", " + one +
           ", " + len64 + ", " + rest +
           ") : (i64, !llvm.ptr, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, "
           "i64, i64, i64, i64, i64) -> ()");
    }
    indent_ -= 2;
    line("}");
    return;
  }
  declareRuntime("func.func private @npf_scalar_store(!llvm.ptr, i64, i64)");
  declareRuntime("func.func private @npf_scalar_load(!llvm.ptr, i64, i64)");
  declareRuntime("func.func private @npf_dcci(!llvm.ptr, i64, i64)");
  declareRuntime("func.func private @npf_dsb()");
  const std::string from = flat(local, v), to = flat(gm, v);
  const std::string flatType = "memref<" + std::to_string(n) + "x" + elemType(t.dtype) + ">";
  const std::string i = fresh("i");
  line("scf.for " + i + " = " + lo + " to " + hi + " step " + indexConst(1) + " {");
  indent_ += 2;
  const std::string x = fresh("x"), i64 = fresh(), at = fresh();
  line(x + " = memref.load " + from + "[" + i + "] : " + flatType);
  line("memref.store " + x + ", " + to + "[" + i + "] : " + flatType);
  line(i64 + " = arith.index_cast " + i + " : index to i64");
  line(at + " = arith.muli " + i64 + ", " + bytes64 + " : i64");
  line("func.call @npf_scalar_load(" + local.ptr + ", " + at + ", " + bytes64 +
       ") : (!llvm.ptr, i64, i64) -> ()");
  line("func.call @npf_scalar_store(" + gm.ptr + ", " + at + ", " + bytes64 +
       ") : (!llvm.ptr, i64, i64) -> ()");
  indent_ -= 2;
  line("}");
  const std::string from64 = fresh(), span64 = fresh();
  line(from64 + " = arith.muli " + lo64 + ", " + bytes64 + " : i64");
  line(span64 + " = arith.muli " + len64 + ", " + bytes64 + " : i64");
  line("func.call @npf_dcci(" + gm.ptr + ", " + from64 + ", " + span64 +
       ") : (!llvm.ptr, i64, i64) -> ()");
  line("func.call @npf_dsb() : () -> ()");
}

void NpuEmitter::emitChain() {
  declareRuntime("func.func private @npf_task_begin(i64, i64)");
  declareRuntime("func.func private @npf_task_end()");
  declareRuntime("func.func private @npf_sim_dma(i64, !llvm.ptr, i64, i64, i64, i64, i64, "
                 "i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)");
  // The last task that reads each value; a returned value is the host's.
  const std::vector<int32_t> lastReader = lastReaders();
  for (const TaskOps &k : taskOrder()) {
    const Task &task = c_.tasks[k.task];
    std::vector<ValueId> handed;
    std::map<ValueId, DramBuf> gm;
    for (size_t i : k.ops)
      for (ValueId v : c_.ops[i].results)
        if (lastReader[v] > k.task) {
          handed.push_back(v);
          gm[v] = alloc(v);
        }
    line("// task " + task.name);
    const std::string blk = fresh("blk"), blk64 = fresh();
    line("scf.for " + blk + " = " + indexConst(0) + " to " + indexConst(task.blocks) + " step " +
         indexConst(1) + " {");
    indent_ += 2;
    line(blk64 + " = arith.index_cast " + blk + " : index to i64");
    line("func.call @npf_task_begin(" + intConst(k.task, DType::I64) + ", " + blk64 +
         ") : (i64, i64) -> ()");
    for (size_t i : k.ops) {
      emitOp(i);
      if (!unsupported.empty())
        return;
    }
    // Valid bounds the block computed are SSA values of its loop: kept in
    // memory the loop writes, for the tasks after it.
    std::map<ValueId, std::string> bounds;
    for (ValueId v : handed) {
      storeShare(v, bufs_.at(v), gm.at(v), task, blk);
      if (!unsupported.empty())
        return;
      const DramBuf &b = bufs_.at(v);
      if (b.rows.rfind('%', 0) != 0 && b.cols.rfind('%', 0) != 0)
        continue;
      const std::string m = fresh("bounds");
      hoisting = true;
      line(m + " = memref.alloca() : memref<2xindex>");
      hoisting = false;
      const auto asIndex = [&](const std::string &x) {
        return x.rfind('%', 0) == 0 ? x : indexConst(std::stoll(x));
      };
      line("memref.store " + asIndex(b.rows) + ", " + m + "[" + indexConst(0) +
           "] : memref<2xindex>");
      line("memref.store " + asIndex(b.cols) + ", " + m + "[" + indexConst(1) +
           "] : memref<2xindex>");
      bounds[v] = m;
    }
    line("func.call @npf_task_end() : () -> ()");
    indent_ -= 2;
    line("}");
    // Later tasks read the GM tensor, with the value's valid bounds.
    for (ValueId v : handed) {
      DramBuf b = gm.at(v);
      b.rows = bufs_.at(v).rows;
      b.cols = bufs_.at(v).cols;
      if (auto it = bounds.find(v); it != bounds.end()) {
        b.rows = fresh("vb");
        b.cols = fresh("vb");
        line(b.rows + " = memref.load " + it->second + "[" + indexConst(0) + "] : memref<2xindex>");
        line(b.cols + " = memref.load " + it->second + "[" + indexConst(1) + "] : memref<2xindex>");
      }
      bufs_[v] = b;
    }
  }
  declareRuntime("func.func private @npf_host_read(!llvm.ptr, i64)");
  for (ValueId v : c_.outputs)
    line("func.call @npf_host_read(" + bufs_.at(v).ptr + ", " +
         intConst(c_.typeOf(v).numElements() * byteSize(c_.typeOf(v).dtype), DType::I64) +
         ") : (!llvm.ptr, i64) -> ()");
}

} // namespace npufuzz
