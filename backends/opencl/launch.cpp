// detail::Kernel launches: arguments through clSetKernelArg on a cl_kernel taken from the kernel's pool,
// then clEnqueueNDRangeKernel over the smallest number of dimensions the launch needs.
#include <cstring>
#include <vector>

#include "opencl/opencl.hpp"

namespace porta::opencl {

void Device::launch(QueueImpl& q, detail::Kernel& k, const LaunchDims& dims, std::span<const KernelArg> args) {
  Queue& owner = queue_of(q);
  auto* kernel = dynamic_cast<Kernel*>(&k);
  if (!kernel) throw InvalidArgument(detail::cat(label_, " was asked to launch a kernel compiled by another backend"));
  if (&kernel->device() != this)
    throw InvalidArgument(detail::cat("kernel '", kernel->entry(), "' was compiled for ", kernel->device().label(),
                                      " and cannot run on ", label_, "; compile it for each device"));
  if (args.size() != kernel->arg_count())
    throw InvalidArgument(detail::cat("kernel '", kernel->entry(), "' takes ", kernel->arg_count(), " arguments but ",
                                      args.size(), " were given"));

  cl_uint work_dim = 1;
  for (cl_uint d = 0; d < 3; ++d) {
    if (dims.global[d] == 0) return;  // nothing to run
    if (dims.global[d] != 1) work_dim = d + 1;
  }
  bool any_local = dims.local[0] || dims.local[1] || dims.local[2];
  if (any_local) {
    for (cl_uint d = 0; d < work_dim; ++d) {
      if (dims.local[d] == 0 || dims.global[d] % dims.local[d] != 0)
        throw InvalidArgument(detail::cat("launch of '", kernel->entry(), "' on ", label_, ": global size ",
                                          dims.global[d], " in dimension ", d, " is not a multiple of the local size ",
                                          dims.local[d], " (OpenCL 1.2 needs whole work-groups; give every local size "
                                          "or none)"));
    }
    std::size_t group = dims.local[0] * (work_dim > 1 ? dims.local[1] : 1) * (work_dim > 2 ? dims.local[2] : 1);
    if (group > kernel->max_group_size())
      throw InvalidArgument(detail::cat("launch of '", kernel->entry(), "' on ", label_, ": work-group of ", group,
                                        " work-items is larger than this kernel allows here (", kernel->max_group_size(),
                                        ", CL_KERNEL_WORK_GROUP_SIZE)"));
  }

  if (auto* r = owner.recording()) {
    for (cl_uint i = 0; i < args.size(); ++i)
      if (args[i].kind == KernelArg::Kind::memory && args[i].offset_bytes != 0)
        throw InvalidArgument(detail::cat("argument ", i, " of kernel '", kernel->entry(), "' is a buffer at byte offset ",
                                          args[i].offset_bytes, ", but OpenCL cannot offset buffer arguments"));
    std::shared_ptr<detail::Kernel> keep = kernel->weak_from_this().lock();
    if (!keep) throw InvalidArgument(detail::cat("kernel '", kernel->entry(), "' is not shared and cannot be recorded"));
    std::vector<KernelArg> recorded(args.begin(), args.end());
    RecordedCommand c;
    c.kernel = kernel->weak_from_this().lock();
    c.work_dim = work_dim;
    c.any_local = any_local;
    c.global = dims.global;
    c.local = dims.local;
    c.args = recorded;
    owner.record_command(std::move(c));
    r->add([this, keep, dims, recorded](QueueImpl& rq, const detail::HandleMap& m) {
      std::vector<KernelArg> bound = recorded;
      for (auto& a : bound)
        if (a.kind == KernelArg::Kind::memory) a.handle = m(a.handle);
      launch(rq, *keep, dims, bound);
    });
    return;
  }

  // On the queue's launch thread (launch_thread.hpp).
  if (detail::launch_thread_enabled(info_) && args.size() <= LaunchItem::kMaxArgs) {
    if (auto keep = kernel->weak_from_this().lock()) {
      for (cl_uint i = 0; i < args.size(); ++i)
        if (args[i].kind == KernelArg::Kind::memory && args[i].offset_bytes != 0)
          throw InvalidArgument(detail::cat("argument ", i, " of kernel '", kernel->entry(), "' is a buffer at byte offset ",
                                            args[i].offset_bytes, ", but OpenCL cannot offset buffer arguments; pass the "
                                            "offset (in elements) as a scalar argument and add it in the kernel"));
      owner.push_launch([&](LaunchItem& item) {
        item.kernel = std::move(keep);
        item.work_dim = work_dim;
        item.any_local = any_local;
        item.global = dims.global;
        item.local = dims.local;
        item.count = static_cast<cl_uint>(args.size());
        for (std::size_t i = 0; i < args.size(); ++i) {
          const KernelArg& a = args[i];
          item.local_memory[i] = a.kind == KernelArg::Kind::local_memory;
          item.memory[i] = a.kind == KernelArg::Kind::memory;
          item.values[i] = 0;
          if (a.kind == KernelArg::Kind::memory) {
            cl_mem m = static_cast<cl_mem>(a.handle);
            std::memcpy(&item.values[i], &m, sizeof m);
            item.sizes[i] = sizeof m;
          } else {
            item.sizes[i] = static_cast<std::uint32_t>(a.size);
            if (a.kind == KernelArg::Kind::scalar) std::memcpy(&item.values[i], a.value.data(), a.size);
          }
        }
      });
      return;
    }
  }

  cl_command_queue queue = owner.native();
  auto lease = kernel->take();
  cl_kernel ck = lease.native();
  for (cl_uint i = 0; i < args.size(); ++i) {
    const KernelArg& a = args[i];
    switch (a.kind) {
      case KernelArg::Kind::memory: {
        if (a.offset_bytes != 0)
          throw InvalidArgument(detail::cat("argument ", i, " of kernel '", kernel->entry(), "' is a buffer at byte offset ",
                                            a.offset_bytes, ", but OpenCL cannot offset buffer arguments; pass the "
                                            "offset (in elements) as a scalar argument and add it in the kernel"));
        cl_mem m = static_cast<cl_mem>(a.handle);
        PORTA_CL_AT(detail::cat("setting buffer argument ", i, " of kernel '", kernel->entry(), "' on ", label_),
                    lease.set(i, sizeof m, &m, true));
        break;
      }
      case KernelArg::Kind::scalar:
        PORTA_CL_AT(detail::cat("setting ", a.size, "-byte scalar argument ", i, " of kernel '", kernel->entry(),
                                "' on ", label_),
                    lease.set(i, a.size, a.value.data(), false));
        break;
      case KernelArg::Kind::local_memory:
        PORTA_CL_AT(detail::cat("setting ", a.size, "-byte local memory argument ", i, " of kernel '", kernel->entry(),
                                "' on ", label_),
                    lease.set(i, a.size, nullptr, false));
        break;
    }
  }
  PORTA_CL_AT(detail::cat("launching '", kernel->entry(), "' on ", label_, " over ", dims.global[0], "x",
                          dims.global[1], "x", dims.global[2],
                          any_local ? detail::cat(" in groups of ", dims.local[0], "x", dims.local[1], "x", dims.local[2]) : std::string()),
              clEnqueueNDRangeKernel(queue, ck, work_dim, nullptr, dims.global.data(),
                                     any_local ? dims.local.data() : nullptr, 0, nullptr, nullptr));
}

}  // namespace porta::opencl
