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

#include "llvm/ADT/MapVector.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <set>

namespace npufuzz {

namespace {

constexpr const char *kDmaFunction = "npf_pts_dma";
constexpr const char *kLaneFunction = "npf_pts_lane";
constexpr const char *kLanesEntry = "npufuzz_lanes";
constexpr const char *kLockstepDmaFunction = "npf_pts_dma_lanes";
constexpr const char *kMatmulFunction = "npf_pts_matmul_f32";
/// Marks the loop over the lanes that npufuzz puts around a lockstep
/// kernel's per-lane code.
constexpr const char *kLaneLoop = "npufuzz.lanes";
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

bool isMatmul(mlir::Operation *op) { return op->getName().getStringRef() == "linalg.matmul"; }

/// The buffer `v` is, or is a row-major 2-D view of from its first element
/// (the BMM template's `memref.reinterpret_cast` of a 3-D tile with a unit
/// batch): the array reads a flat offset from the buffer's start either
/// way. Null for another view.
mlir::Value matmulBuffer(mlir::Value v) {
  auto cast = v.getDefiningOp<mlir::memref::ReinterpretCastOp>();
  if (!cast)
    return v;
  llvm::ArrayRef<int64_t> offsets = cast.getStaticOffsets(), sizes = cast.getStaticSizes(),
                          strides = cast.getStaticStrides();
  if (offsets.size() != 1 || offsets[0] != 0 || sizes.size() != 2 || strides.size() != 2 ||
      strides[1] != 1 || strides[0] != sizes[1])
    return {};
  return cast.getSource();
}

/// Why the model cannot run the template's `matmul` on its systolic array,
/// or empty: it runs an f32 matmul of three scratchpads as the template
/// declares them (npf_pts_matmul_f32).
std::string matmulProblem(mlir::Operation *matmul) {
  if (matmul->getNumOperands() != 3 || matmul->getNumResults() != 0)
    return "a template's linalg.matmul that is not of three buffers";
  llvm::SmallVector<llvm::ArrayRef<int64_t>, 3> shapes;
  for (mlir::Value v : matmul->getOperands()) {
    auto type = llvm::dyn_cast<mlir::MemRefType>(v.getType());
    const mlir::Value buffer = matmulBuffer(v);
    if (!type || !inScratchpad(type) || !buffer ||
        !buffer.getDefiningOp<mlir::memref::GetGlobalOp>() || type.getRank() != 2 ||
        !type.hasStaticShape() || !type.getLayout().isIdentity())
      return "a template's linalg.matmul of a view of a scratchpad";
    if (!type.getElementType().isF32()) {
      std::string element;
      llvm::raw_string_ostream os(element);
      type.getElementType().print(os);
      // Spike's pushes and pops read each lane's element as a float
      // whatever the element width (torchsim_i_vpush, torchsim_vpop).
      return "a template's linalg.matmul of " + element +
             " (the systolic array reads and writes f32 alone)";
    }
    shapes.push_back(type.getShape());
  }
  if (shapes[0][1] != shapes[1][0] || shapes[0][0] != shapes[2][0] || shapes[1][1] != shapes[2][1])
    return "a template's linalg.matmul whose shapes do not agree";
  return "";
}

/// Whether DMA `op`'s `subtile_size`, if any, is its whole tile: the
/// template's fine-grained DMAs then place it as one DMA does (sub-DMAs
/// place from their own origin).
bool wholeSubtile(mlir::Operation *op, mlir::Value spad) {
  auto sizes = op->getAttrOfType<mlir::ArrayAttr>("subtile_size");
  if (!sizes)
    return true;
  auto type = llvm::dyn_cast<mlir::MemRefType>(spad.getType());
  if (!type || static_cast<int64_t>(sizes.size()) != type.getRank())
    return false;
  for (auto [size, dim] : llvm::zip(sizes, type.getShape())) {
    auto i = llvm::dyn_cast<mlir::IntegerAttr>(size);
    if (!i || i.getInt() != dim)
      return false;
  }
  return true;
}

/// What the model cannot run in `kernel`, or empty.
std::string unmodelled(mlir::func::FuncOp kernel) {
  std::string why;
  kernel.walk([&](mlir::Operation *op) {
    // A matmul's body is what each of its elements computes, not code.
    if (!why.empty() || (op->getParentOp() && isMatmul(op->getParentOp())))
      return;
    const llvm::StringRef name = op->getName().getStringRef();
    auto scalar = [&](mlir::Value memref) {
      if (inScratchpad(memref.getType()))
        why = "a scalar " + name.str() + " of a scratchpad (which reads one lane's)";
    };
    if (op->hasAttr("indirect_access"))
      why = "an indirect access (a DMA whose index a scratchpad holds)";
    else if (isMatmul(op))
      why = matmulProblem(op);
    else if (name.starts_with("linalg."))
      why = "a template's " + name.str() + " (the model runs linalg.matmul alone)";
    else if (auto dma = llvm::dyn_cast<mlir::memref::DmaStartOp>(op);
             dma &&
             !wholeSubtile(op, inScratchpad(dma.getSrcMemRef().getType()) ? dma.getSrcMemRef()
                                                                          : dma.getDstMemRef()))
      why = "a template's DMA in subtiles smaller than its tile";
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

/// The bytes one lane's buffer for a scratchpad of `type` takes: the tile
/// and the lane's whole scratchpad behind it (see the lanes entry below).
int64_t lanePitch(mlir::MemRefType type) {
  const int64_t bytes = type.getNumElements() * elementBytesOf(type.getElementType());
  return (bytes + kLaneScratchpadBytes + 63) / 64 * 64;
}

/// A scratchpad of a lockstep kernel: every lane's buffer in one, lane l's
/// `pitch * l` bytes in; `lane0` views lane 0's as the scratchpad's type.
struct LockstepBuffer {
  mlir::Value raw, lane0;
  int64_t pitch = 0;
};
/// A lockstep kernel's scratchpads, by their lane-0 view.
using LockstepBuffers = llvm::MapVector<mlir::Value, LockstepBuffer>;

/// Puts each op of `block` that runs on the lanes (it reads or writes a
/// scratchpad, or takes the lane offset) and holds no DMA or matmul in a
/// loop over the `lanes`, with lane l's view of each scratchpad; ops that
/// hold a DMA or matmul are entered. A vector instruction runs on every
/// lane at once, so between two DMAs each lane's share of the code runs
/// before the next DMA or matmul, which see every lane. False with `why`
/// for a value such an op gives to code outside it.
bool wrapLaneCode(mlir::Block &block, const LockstepBuffers &buffers, int64_t lanes,
                  std::string &why) {
  for (mlir::Operation &op : llvm::make_early_inc_range(block)) {
    bool barrier = false, onLanes = false;
    op.walk([&](mlir::Operation *inner) {
      if (llvm::isa<mlir::memref::DmaStartOp, mlir::memref::DmaWaitOp>(inner) || isMatmul(inner))
        barrier = true;
      if (inner->hasAttr("vlane_offset"))
        onLanes = true;
      for (mlir::Value v : inner->getOperands())
        if (buffers.count(v))
          onLanes = true;
    });
    if (barrier) {
      for (mlir::Region &region : op.getRegions())
        for (mlir::Block &inner : region)
          if (!wrapLaneCode(inner, buffers, lanes, why))
            return false;
      continue;
    }
    if (!onLanes)
      continue;
    // A view of a scratchpad that only the systolic array reads is no
    // lane's code: the array sees every lane.
    if (llvm::isa<mlir::memref::ReinterpretCastOp>(op) &&
        llvm::all_of(op.getUsers(), [](mlir::Operation *user) { return isMatmul(user); }))
      continue;
    if (op.getNumResults() != 0) {
      why = "a template kernel's " + op.getName().getStringRef().str() +
            " of a scratchpad outside a compute loop";
      return false;
    }
    mlir::OpBuilder b(&op);
    const mlir::Location loc = op.getLoc();
    auto loop = mlir::scf::ForOp::create(b, loc, mlir::arith::ConstantIndexOp::create(b, loc, 0),
                                         mlir::arith::ConstantIndexOp::create(b, loc, lanes),
                                         mlir::arith::ConstantIndexOp::create(b, loc, 1));
    loop->setAttr(kLaneLoop, b.getUnitAttr());
    op.moveBefore(loop.getBody()->getTerminator());
    b.setInsertionPointToStart(loop.getBody());
    for (const auto &[lane0, buffer] : buffers) {
      mlir::Value start =
          mlir::arith::MulIOp::create(b, loc, loop.getInductionVar(),
                                      mlir::arith::ConstantIndexOp::create(b, loc, buffer.pitch));
      mlir::Value view = mlir::memref::ViewOp::create(b, loc, lane0.getType(), buffer.raw, start,
                                                      mlir::ValueRange());
      mlir::Value(lane0).replaceUsesWithIf(
          view, [&](mlir::OpOperand &use) { return op.isAncestor(use.getOwner()); });
    }
  }
  return true;
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
  // A template's kernel runs its lanes in lockstep: its systolic array
  // reads every lane's scratchpad at once. The matmul reads lanes up to its
  // k and n (the array's size at most), which its DMAs may not all reach.
  std::vector<mlir::Operation *> matmuls;
  kernel.walk([&](mlir::Operation *op) {
    if (isMatmul(op))
      matmuls.push_back(op);
  });
  const bool lockstep = !matmuls.empty();
  for (mlir::Operation *op : matmuls)
    for (int64_t d : llvm::cast<mlir::MemRefType>(op->getOperand(1).getType()).getShape())
      laneCount = std::max<int64_t>(laneCount, std::min<int64_t>(d, kPyTorchSimLanes));
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
  // A lockstep kernel gets every lane's buffers in one argument (bytes),
  // and views lane 0's at its start.
  LockstepBuffers lockstepBuffers;
  std::map<std::string, mlir::Value> lane0Of;
  b.setInsertionPointToStart(&entry);
  for (mlir::memref::GetGlobalOp g : gets) {
    const std::string name = g.getName().str();
    auto [it, first] = argumentOf.try_emplace(name, entry.getNumArguments());
    if (first) {
      spadGlobals.insert(name);
      const mlir::Type type = withoutSpace(g.getType());
      if (!lockstep) {
        entry.addArgument(type, g.getLoc());
      } else {
        LockstepBuffer buffer;
        buffer.pitch = lanePitch(llvm::cast<mlir::MemRefType>(type));
        buffer.raw = entry.addArgument(
            mlir::MemRefType::get({buffer.pitch * laneCount}, b.getI8Type()), g.getLoc());
        buffer.lane0 = mlir::memref::ViewOp::create(
            b, g.getLoc(), type, buffer.raw, mlir::arith::ConstantIndexOp::create(b, g.getLoc(), 0),
            mlir::ValueRange());
        lane0Of[name] = buffer.lane0;
        lockstepBuffers[buffer.lane0] = buffer;
      }
    }
    g.getResult().replaceAllUsesWith(lockstep ? lane0Of[name] : entry.getArgument(it->second));
  }
  // Erased once every view is made: the views go before the kernel's first
  // op, which may be one of them.
  for (mlir::memref::GetGlobalOp g : gets)
    g.erase();
  mlir::Value lane;
  if (!lockstep)
    lane = entry.addArgument(b.getIndexType(), kernel.getLoc());
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
  if (lockstep &&
      !wrapLaneCode(kernel.getBody().front(), lockstepBuffers, laneCount, out.notRunnable))
    return;

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
    mlir::Value id = lane;
    if (lockstep) {
      for (auto loop = add->getParentOfType<mlir::scf::ForOp>(); loop && !id;
           loop = loop->getParentOfType<mlir::scf::ForOp>())
        if (loop->hasAttr(kLaneLoop))
          id = loop.getInductionVar();
      if (!id) {
        out.notRunnable = "a template kernel's lane offset outside its compute loops";
        return;
      }
    }
    b.setInsertionPoint(add);
    const mlir::Location loc = add.getLoc();
    mlir::Value v = mlir::arith::MulIOp::create(
        b, loc, id, mlir::arith::ConstantIndexOp::create(b, loc, n.getInt()));
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
  if (lockstep) {
    mlir::func::FuncOp::create(b, module.getLoc(), kLockstepDmaFunction,
                               b.getFunctionType({i64, i64, i64, i64, i64, i64, i64}, {}))
        .setPrivate();
    mlir::func::FuncOp::create(
        b, module.getLoc(), kMatmulFunction,
        b.getFunctionType(llvm::SmallVector<mlir::Type>(10, i64), mlir::TypeRange()))
        .setPrivate();
  }
  auto pointerAt = [&](mlir::Location loc, mlir::Value memref) {
    mlir::Value p = mlir::memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
    return mlir::arith::IndexCastOp::create(b, loc, i64, p).getResult();
  };
  auto constant = [&](mlir::Location loc, int64_t v) {
    return mlir::arith::ConstantIntOp::create(b, loc, i64, v).getResult();
  };
  // Each matmul a call of the systolic array, on lane 0's views.
  for (mlir::Operation *op : matmuls) {
    b.setInsertionPoint(op);
    const mlir::Location loc = op->getLoc();
    llvm::SmallVector<mlir::Value> args;
    for (mlir::Value v : op->getOperands())
      args.push_back(pointerAt(loc, v));
    auto x = llvm::cast<mlir::MemRefType>(op->getOperand(0).getType());
    auto w = llvm::cast<mlir::MemRefType>(op->getOperand(1).getType());
    for (int64_t d : {x.getDimSize(0), x.getDimSize(1), w.getDimSize(1)})
      args.push_back(constant(loc, d));
    for (mlir::Value v : op->getOperands()) {
      auto it = lockstepBuffers.find(matmulBuffer(v));
      if (it == lockstepBuffers.end()) {
        out.notRunnable = "a template's linalg.matmul of a buffer the model does not know";
        return;
      }
      args.push_back(constant(loc, it->second.pitch));
    }
    args.push_back(constant(loc, kPyTorchSimLanes));
    mlir::func::CallOp::create(b, loc, kMatmulFunction, mlir::TypeRange(), args);
    op->erase();
  }
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
    auto pointer = [&](mlir::Value memref) { return pointerAt(loc, memref); };
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
    llvm::SmallVector<mlir::Value> args = {
        constant(loc, number), mlir::arith::IndexCastOp::create(b, loc, i64, dramIndex),
        pointer(dram), pointer(spad), mlir::arith::IndexCastOp::create(b, loc, i64, offset)};
    if (lockstep) {
      auto it = lockstepBuffers.find(spad);
      if (it == lockstepBuffers.end()) {
        out.notRunnable = "a template kernel's DMA of a view of a scratchpad";
        return;
      }
      args.push_back(constant(loc, laneCount));
      args.push_back(constant(loc, it->second.pitch));
    }
    mlir::func::CallOp::create(b, loc, lockstep ? kLockstepDmaFunction : kDmaFunction,
                               mlir::TypeRange(), args);
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
  auto callAndFree = [&](llvm::ArrayRef<mlir::Value> call, llvm::ArrayRef<mlir::Value> buffers) {
    mlir::func::CallOp::create(b, loc, kernel, call);
    for (mlir::Value buffer : buffers)
      mlir::memref::DeallocOp::create(b, loc, buffer);
  };
  auto finish = [&] {
    if (mlir::failed(mlir::verify(module))) {
      out.notRunnable = "npufuzz's rewrite of the kernel does not verify";
      return;
    }
    llvm::raw_string_ostream os(out.runnable);
    module.print(os);
  };
  if (lockstep) {
    // One run of the kernel on every lane's buffers, fresh.
    mlir::func::CallOp::create(b, loc, kLaneFunction, mlir::TypeRange(),
                               mlir::ValueRange{constant(loc, 0)});
    llvm::SmallVector<mlir::Value> call(body->getArguments().begin(), body->getArguments().end());
    llvm::SmallVector<mlir::Value> buffers;
    for (unsigned k = arguments; k < entry.getNumArguments(); ++k) {
      buffers.push_back(mlir::memref::AllocOp::create(
          b, loc, llvm::cast<mlir::MemRefType>(entry.getArgument(k).getType())));
      call.push_back(buffers.back());
    }
    callAndFree(call, buffers);
    mlir::func::ReturnOp::create(b, loc);
    finish();
    return;
  }
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
    auto raw = mlir::memref::AllocOp::create(
        b, loc, mlir::MemRefType::get({lanePitch(type)}, b.getI8Type()));
    buffers.push_back(raw);
    call.push_back(mlir::memref::ViewOp::create(
        b, loc, type, raw, mlir::arith::ConstantIndexOp::create(b, loc, 0), mlir::ValueRange()));
  }
  call.push_back(id);
  callAndFree(call, buffers);
  b.setInsertionPointToEnd(body);
  mlir::func::ReturnOp::create(b, loc);
  finish();
}

} // namespace npufuzz
