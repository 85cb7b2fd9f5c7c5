//===- generators/TaskGen.cpp - Cut a case into a chain of tasks ----------===//
//
// A chain is the case's compute ops cut at random points into 2 to
// max_tasks contiguous tasks, each with its blocks and its way of storing
// to GM (ir/Case.h). Values a task hands on are then GM tensors between
// kernels, which is what the cache-coherency oracle needs to see.
//
//===----------------------------------------------------------------------===//
#include "generators/GenContext.h"

#include <algorithm>

namespace npufuzz::gen {

void drawTasks(Case &c, uint64_t seed, const Policy &policy) {
  // A tag of its own: chain draws leave the op draws alone.
  Prng rng = Prng::stream(seed, 0x7A5C);
  std::vector<size_t> compute;
  for (size_t i = 0; i < c.ops.size(); ++i)
    if (c.ops[i].kind != OpKind::Input)
      compute.push_back(i);
  if (compute.size() < 2 || policy.maxTasks < 2 || !rng.chance(policy.chainRate))
    return;
  const size_t tasks = static_cast<size_t>(
      rng.range(2, static_cast<int64_t>(std::min<size_t>(policy.maxTasks, compute.size()))));
  // Cut before tasks - 1 distinct compute ops other than the first.
  std::vector<size_t> cuts;
  while (cuts.size() + 1 < tasks) {
    const size_t at = static_cast<size_t>(rng.range(1, static_cast<int64_t>(compute.size()) - 1));
    if (std::find(cuts.begin(), cuts.end(), at) == cuts.end())
      cuts.push_back(at);
  }
  std::sort(cuts.begin(), cuts.end());
  c.tasks.clear();
  for (size_t t = 0; t < tasks; ++t) {
    Task task;
    task.name = "t" + std::to_string(t);
    task.blocks = static_cast<int32_t>(rng.range(1, std::max<unsigned>(1, policy.maxBlocks)));
    task.store = rng.chance(policy.scalarStoreRate) ? TaskStore::Scalar : TaskStore::Tile;
    c.tasks.push_back(task);
  }
  for (size_t k = 0, t = 0; k < compute.size(); ++k) {
    if (t < cuts.size() && k == cuts[t])
      ++t;
    c.ops[compute[k]].task = static_cast<int32_t>(t);
  }
}

} // namespace npufuzz::gen
