//===- backend/pytorchsim/ModelKernel.cpp - A PyTorchSim kernel rewritten for the NPU model -===//
#include "backend/pytorchsim/ModelKernel.h"

#include "backend/pytorchsim/LanePlacement.h"
#include "backend/pytorchsim/RiscvArithmetic.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"

#include "llvm/Support/raw_ostream.h"

#include <map>
#include <set>

namespace npufuzz {

namespace {

constexpr const char *kDmaFunction = "npf_pts_dma";
constexpr const char *kLaneFunction = "npf_pts_lane";
constexpr const char *kLanesEntry = "npufuzz_lanes";
/// One lane's scratchpad (`vpu_spad_size_kb_per_lane` of the adapter's
/// config).
constexpr int64_t kLaneScratchpadBytes = 128 * 1024;

bool inScratchpad(mlir::Type t) {
  auto m = llvm::dyn_cast<mlir::MemRefType>(t);
  return m && m.getMemorySpace();
}

mlir::Type withoutSpace(mlir::Type t) {
  auto m = llvm::dyn_cast<mlir::MemRefType>(t);
  if (!m || !m.getMemorySpace())
    return t;
  return mlir::MemRefType::get(m.getShape(), m.getElementType(), m.getLayout(), mlir::Attribute());
}

/// What the model cannot run in `kernel`, or empty.
std::string unmodelled(mlir::func::FuncOp kernel) {
  std::string why;
  kernel.walk([&](mlir::Operation *op) {
    if (!why.empty())
      return;
    const llvm::StringRef name = op->getName().getStringRef();
    auto scalar = [&](mlir::Value memref) {
      if (inScratchpad(memref.getType()))
        why = "a scalar " + name.str() + " of a scratchpad (which reads one lane's)";
    };
    if (op->hasAttr("indirect_access"))
      why = "an indirect access (a DMA whose index a scratchpad holds)";
    else if (name.starts_with("linalg."))
      why = "a template's " + name.str() + " (the systolic array is not modelled)";
    else if (llvm::isa<mlir::memref::DmaStartOp>(op) && op->hasAttr("subtile_size"))
      why = "a template's DMA in subtiles";
    else if (auto l = llvm::dyn_cast<mlir::affine::AffineLoadOp>(op))
      scalar(l.getMemRef());
    else if (auto s = llvm::dyn_cast<mlir::affine::AffineStoreOp>(op))
      scalar(s.getMemRef());
    else if (auto l = llvm::dyn_cast<mlir::memref::LoadOp>(op))
      scalar(l.getMemRef());
    else if (auto s = llvm::dyn_cast<mlir::memref::StoreOp>(op))
      scalar(s.getMemRef());
    else if (op->hasAttr("vlane_offset") && !llvm::isa<mlir::arith::AddIOp>(op))
      why = "a lane offset on " + name.str();
  });
  return why;
}

} // namespace

void rewriteForModel(mlir::ModuleOp module, mlir::func::FuncOp kernel,
                     const llvm::DenseMap<mlir::Operation *, size_t> &numbers, KernelDmas &out) {
  out.runnable.clear();
  out.notRunnable = unmodelled(kernel);
  if (!out.notRunnable.empty())
    return;
  // Each DMA's tile across the lanes; the model runs as many lanes as any
  // DMA reaches.
  int64_t laneCount = 1;
  for (KernelDmas::Dma &d : out.dmas) {
    const KernelDmas::Argument &dram = out.arguments[d.argument];
    if (dram.elementBytes != d.elementBytes) {
      out.notRunnable = "a DMA between a " + dram.elementType +
                        " argument and a scratchpad of another element size";
      return;
    }
    if (!placeTile(d.tile, d.sramStride, d.laneAxis, d.laneStride, kPyTorchSimLanes, d.placement,
                   out.notRunnable))
      return;
    laneCount = std::max<int64_t>(laneCount, d.placement.usedLanes);
  }
  mlir::MLIRContext *ctx = module.getContext();
  mlir::OpBuilder b(ctx);
  const mlir::Type i64 = b.getI64Type();
  mlir::Block &entry = kernel.getBody().front();
  const unsigned arguments = entry.getNumArguments();

  // Each scratchpad a buffer argument, in the order the kernel first gets it.
  std::map<std::string, unsigned> argumentOf;
  std::vector<mlir::memref::GetGlobalOp> gets;
  kernel.walk([&](mlir::memref::GetGlobalOp g) {
    if (inScratchpad(g.getType()))
      gets.push_back(g);
  });
  std::set<std::string> spadGlobals;
  for (mlir::memref::GetGlobalOp g : gets) {
    const std::string name = g.getName().str();
    auto [it, first] = argumentOf.try_emplace(name, entry.getNumArguments());
    if (first) {
      entry.addArgument(withoutSpace(g.getType()), g.getLoc());
      spadGlobals.insert(name);
    }
    g.getResult().replaceAllUsesWith(entry.getArgument(it->second));
    g.erase();
  }
  mlir::BlockArgument lane = entry.addArgument(b.getIndexType(), kernel.getLoc());
  // Memory space 1 is the scratchpad's; one lane's buffer is plain memory.
  kernel.walk([&](mlir::Operation *op) {
    for (mlir::Value r : op->getResults())
      r.setType(withoutSpace(r.getType()));
    for (mlir::Region &region : op->getRegions())
      for (mlir::Block &block : region)
        for (mlir::BlockArgument a : block.getArguments())
          a.setType(withoutSpace(a.getType()));
  });
  kernel.setFunctionType(b.getFunctionType(entry.getArgumentTypes(), {}));
  for (mlir::memref::GlobalOp g :
       llvm::make_early_inc_range(module.getOps<mlir::memref::GlobalOp>()))
    if (spadGlobals.count(g.getSymName().str()))
      g.erase();

  // The lane offset: the lane's id times N, in each element.
  std::vector<mlir::arith::AddIOp> offsets;
  kernel.walk([&](mlir::arith::AddIOp add) {
    if (add->hasAttr("vlane_offset"))
      offsets.push_back(add);
  });
  for (mlir::arith::AddIOp add : offsets) {
    auto n = add->getAttrOfType<mlir::IntegerAttr>("vlane_offset");
    const mlir::Type type = add.getType();
    const mlir::Type element = mlir::getElementTypeOrSelf(type);
    if (!n || !(element.isIndex() || element.isInteger())) {
      out.notRunnable = "a lane offset the model does not read";
      return;
    }
    b.setInsertionPoint(add);
    const mlir::Location loc = add.getLoc();
    mlir::Value v = mlir::arith::MulIOp::create(
        b, loc, lane, mlir::arith::ConstantIndexOp::create(b, loc, n.getInt()));
    if (!element.isIndex())
      v = mlir::arith::IndexCastOp::create(b, loc, element, v);
    if (type != element)
      v = mlir::vector::BroadcastOp::create(b, loc, type, v);
    add.getResult().replaceAllUsesWith(v);
    add.erase();
  }

  // Where LLVM leaves a result open, RISC-V's (RiscvArithmetic.h).
  if (!computeAsRiscv(kernel, out.notRunnable))
    return;

  // Each dma_start a call of the engine.
  b.setInsertionPointToStart(module.getBody());
  mlir::func::FuncOp::create(b, module.getLoc(), kDmaFunction,
                             b.getFunctionType({i64, i64, i64, i64, i64}, {}))
      .setPrivate();
  mlir::func::FuncOp::create(b, module.getLoc(), kLaneFunction, b.getFunctionType({i64}, {}))
      .setPrivate();
  std::vector<mlir::Operation *> dmas;
  kernel.walk([&](mlir::Operation *op) {
    if (llvm::isa<mlir::memref::DmaStartOp, mlir::memref::DmaWaitOp>(op))
      dmas.push_back(op);
  });
  for (mlir::Operation *op : dmas) {
    auto dma = llvm::dyn_cast<mlir::memref::DmaStartOp>(op);
    if (!dma) {
      op->erase(); // the engine is synchronous
      continue;
    }
    b.setInsertionPoint(op);
    const mlir::Location loc = op->getLoc();
    auto it = numbers.find(op);
    const int64_t number = it == numbers.end() ? -1 : static_cast<int64_t>(it->second);
    const bool write = number >= 0 && out.dmas[number].write;
    // A DMA that never ran in the decoder's walk: the engine faults if it
    // runs here.
    const bool dramIsSource = number >= 0 ? !write : !inScratchpad(dma.getSrcMemRef().getType());
    const mlir::Value dram = dramIsSource ? dma.getSrcMemRef() : dma.getDstMemRef();
    const mlir::Value spad = dramIsSource ? dma.getDstMemRef() : dma.getSrcMemRef();
    const mlir::ValueRange dramIndices = dramIsSource ? dma.getSrcIndices() : dma.getDstIndices();
    const mlir::ValueRange spadIndices = dramIsSource ? dma.getDstIndices() : dma.getSrcIndices();
    auto spadType = llvm::cast<mlir::MemRefType>(spad.getType());
    auto pointer = [&](mlir::Value memref) {
      mlir::Value p = mlir::memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
      return mlir::arith::IndexCastOp::create(b, loc, i64, p).getResult();
    };
    // The scratchpad element the indices name, row-major in its buffer.
    mlir::Value offset = mlir::arith::ConstantIndexOp::create(b, loc, 0);
    int64_t stride = 1;
    for (size_t d = spadIndices.size(); d-- > 0;) {
      mlir::Value term = mlir::arith::MulIOp::create(
          b, loc, spadIndices[d], mlir::arith::ConstantIndexOp::create(b, loc, stride));
      offset = mlir::arith::AddIOp::create(b, loc, offset, term);
      stride *= spadType.getDimSize(d);
    }
    mlir::Value dramIndex = dramIndices.empty()
                                ? mlir::arith::ConstantIndexOp::create(b, loc, 0).getResult()
                                : dramIndices[0];
    mlir::func::CallOp::create(
        b, loc, kDmaFunction, mlir::TypeRange(),
        mlir::ValueRange{mlir::arith::ConstantIntOp::create(b, loc, i64, number).getResult(),
                         mlir::arith::IndexCastOp::create(b, loc, i64, dramIndex).getResult(),
                         pointer(dram), pointer(spad),
                         mlir::arith::IndexCastOp::create(b, loc, i64, offset).getResult()});
    op->erase();
  }

  // The lanes, each with fresh scratchpads.
  kernel.setPrivate();
  b.setInsertionPointToEnd(module.getBody());
  llvm::SmallVector<mlir::Type> outer(entry.getArgumentTypes().begin(),
                                      entry.getArgumentTypes().begin() + arguments);
  auto lanes =
      mlir::func::FuncOp::create(b, module.getLoc(), kLanesEntry, b.getFunctionType(outer, {}));
  mlir::Block *body = lanes.addEntryBlock();
  b.setInsertionPointToStart(body);
  const mlir::Location loc = module.getLoc();
  auto loop = mlir::scf::ForOp::create(b, loc, mlir::arith::ConstantIndexOp::create(b, loc, 0),
                                       mlir::arith::ConstantIndexOp::create(b, loc, laneCount),
                                       mlir::arith::ConstantIndexOp::create(b, loc, 1));
  b.setInsertionPointToStart(loop.getBody());
  mlir::Value id = loop.getInductionVar();
  mlir::func::CallOp::create(b, loc, kLaneFunction, mlir::TypeRange(),
                             mlir::ValueRange{mlir::arith::IndexCastOp::create(b, loc, i64, id)});
  llvm::SmallVector<mlir::Value> call(body->getArguments().begin(), body->getArguments().end());
  // A scratchpad buffer is the tile's shape, but PyTorchSim reserves each
  // one a lane's share times the lanes in every lane's address range (its
  // header's `tile_size`), and a vector of the compute loop may run past
  // the tile's elements into that reserve: each lane's buffer gets the
  // lane's whole scratchpad behind it (`vpu_spad_size_kb_per_lane`, 128 KB),
  // past which Spike itself stops.
  llvm::SmallVector<mlir::Value> buffers;
  for (unsigned k = arguments; k + 1 < entry.getNumArguments(); ++k) {
    auto type = llvm::cast<mlir::MemRefType>(entry.getArgument(k).getType());
    const int64_t bytes = type.getNumElements() * elementBytesOf(type.getElementType());
    auto raw = mlir::memref::AllocOp::create(
        b, loc, mlir::MemRefType::get({bytes + kLaneScratchpadBytes}, b.getI8Type()));
    buffers.push_back(raw);
    call.push_back(mlir::memref::ViewOp::create(
        b, loc, type, raw, mlir::arith::ConstantIndexOp::create(b, loc, 0), mlir::ValueRange()));
  }
  call.push_back(id);
  mlir::func::CallOp::create(b, loc, kernel, call);
  for (mlir::Value buffer : buffers)
    mlir::memref::DeallocOp::create(b, loc, buffer);
  b.setInsertionPointToEnd(body);
  mlir::func::ReturnOp::create(b, loc);

  if (mlir::failed(mlir::verify(module))) {
    out.notRunnable = "npufuzz's rewrite of the kernel does not verify";
    return;
  }
  llvm::raw_string_ostream os(out.runnable);
  module.print(os);
}

} // namespace npufuzz
