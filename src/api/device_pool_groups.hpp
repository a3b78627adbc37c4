// Which devices of a DevicePool are one physical GPU seen through two APIs (the same PCI bus id),
// and which of them serves that GPU's shared tasks. Apart from the pool so that tests can check
// the grouping on machines whose devices report no bus id.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace porta::detail {

// pci_ids[i]: the bus id of listed device i (empty: unknown, never grouped); rank[i]: its place in
// porta::devices(), the order of preference (CUDA before OpenCL). For each i, the index of the
// listed device of best rank that has i's bus id: i itself when the id is empty or unique.
std::vector<std::size_t> same_gpu_leaders(const std::vector<std::string>& pci_ids, const std::vector<std::size_t>& rank);

// The pool's workers per listed device, given each one's default count `workers`: which devices
// serve the shared queue, and each (twin, leader) pair of devices that are one GPU. Unless
// `share_each`, a twin serves only its own queue (submit_to) with one worker, and its leader
// takes the twin's workers on top of its own.
struct PoolWorkers {
  std::vector<int> workers;
  std::vector<char> takes_shared;
  std::vector<std::pair<std::size_t, std::size_t>> twins;
};
PoolWorkers plan_pool_workers(const std::vector<std::string>& pci_ids, const std::vector<std::size_t>& rank,
                              const std::vector<int>& workers, bool share_each);

}  // namespace porta::detail
