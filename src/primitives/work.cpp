// Running the device primitives of indexing, scans and sorting (primitives/work.hpp).
#include "primitives/work.hpp"

#include <porta/error.hpp>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "runtime/device_state.hpp"
#include "porta_backend/strings.hpp"

namespace porta::detail::primitives {

std::string common_prelude(const DialectText& d) { return std::string(kernel_section(kPrimitivesCommonSource, d.cuda() ? "cuda_names" : "opencl_names")); }

std::string kernel_text(const DialectText& d, std::string_view file, std::string_view section) {
  const std::string_view text = kernel_section(file, section);
  if (!d.cuda()) return std::string(text);
  // OpenCL's spelling -> CUDA's, as DialectText spells them (local_array, global_ptr, local_id,
  // group_id, storage_type of bool): whole words only.
  static constexpr std::pair<std::string_view, std::string_view> kCuda[] = {
      {"__local", "__shared__"}, {"__global ", ""}, {"get_local_id(0)", "threadIdx.x"}, {"get_group_id(0)", "blockIdx.x"},
      {"uchar", "unsigned char"}};
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    bool replaced = false;
    if (i == 0 || !ident(text[i - 1])) {
      for (const auto& [from, to] : kCuda) {
        const std::size_t end = i + from.size();
        if (text.substr(i).starts_with(from) && (!ident(from.back()) || end == text.size() || !ident(text[end]))) {
          out += to;
          i = end;
          replaced = true;
          break;
        }
      }
    }
    if (!replaced) out += text[i++];
  }
  return out;
}

std::string bits_type(const DialectText& d, std::size_t bytes) {
  switch (bytes) {
    case 1: return d.cuda() ? "unsigned char" : "uchar";
    case 2: return d.cuda() ? "unsigned short" : "ushort";
    case 4: return d.cuda() ? "unsigned int" : "uint";
    case 8: return d.cuda() ? "unsigned long long" : "ulong";
    // complex128: two 8-byte words, .x and .y (kernels/common.h defines CUDA's).
    default: return d.cuda() ? "porta_u128" : "ulong2";
  }
}


std::uint8_t* host_pointer(DeviceImpl& dev, const View& v) {
  auto* p = static_cast<std::uint8_t*>(dev.host_address(v.buffer->handle()));
  if (!p)
    throw BackendUnavailable(cat("device ", dev.info().name, " neither compiles kernels nor exposes host memory: "
                                 "indexing and sorting cannot run on it"));
  return p;
}

void run(const Work& w, DType t_write) {
  (void)t_write;
  const Device& device = w.write->buffer->device();
  DeviceImpl& dev = device.impl();
  const auto& q = thread_queue_shared(device);
  for (auto* r : w.reads) r->buffer->before_read(q);
  w.write->buffer->before_write(q);
  if (w.write2) w.write2->buffer->before_write(q);
  if (w.items > 0) {
    const DeviceInfo& info = dev.info();
    if (info.dialect == Dialect::none) {
      q->synchronize();
      std::vector<std::uint8_t*> ptrs;
      for (auto* r : w.reads) ptrs.push_back(host_pointer(dev, *r));
      ptrs.push_back(host_pointer(dev, *w.write));
      if (w.write2) ptrs.push_back(host_pointer(dev, *w.write2));
      w.host(ptrs);
    } else {
      DialectText d{info.dialect};
      auto kernel = dev.state().kernels().get(w.key, [&] {
        return KernelSource{common_prelude(d) + w.source(d), "porta_k", w.options};
      });
      std::vector<KernelArg> args;
      w.args(args);
      LaunchDims dims;
      if (w.groups) {
        dims.global[0] = w.groups * w.group;
        dims.local[0] = w.group;
        dev.launch(*q, *kernel, dims, args);
        w.write->buffer->after_write(q);
        if (w.write2) w.write2->buffer->after_write(q);
        return;
      }
      const std::size_t group = info.launch.group_size ? info.launch.group_size : 256;
      std::size_t groups = static_cast<std::size_t>((w.items + static_cast<std::int64_t>(group) - 1) /
                                                    static_cast<std::int64_t>(group));
      if (info.launch.grid_stride) groups = std::min(groups, std::max<std::size_t>(info.launch.max_groups, 1) * 4);
      dims.global[0] = groups * group;
      dims.local[0] = group;
      dev.launch(*q, *kernel, dims, args);
    }
  }
  w.write->buffer->after_write(q);
  if (w.write2) w.write2->buffer->after_write(q);
}

void zero_fill(const View& v, std::size_t item, std::size_t count) {
  const Device& device = v.buffer->device();
  const auto& q = thread_queue_shared(device);
  const std::uint8_t zero[1] = {0};
  v.buffer->before_write(q);
  device.impl().fill(*q, v.buffer->handle(), static_cast<std::size_t>(v.offset) * item, zero, 1, item * count);
  v.buffer->after_write(q);
}

KernelArg mem(const View& v) { return KernelArg::memory(v.buffer->handle()); }
KernelArg i64(std::int64_t x) { return KernelArg::scalar<std::int64_t>(x); }

double host_load(DType t, const std::uint8_t* p, std::int64_t i) {
  switch (t) {
    case DType::boolean: return p[i] != 0;
    case DType::int32: { std::int32_t x; std::memcpy(&x, p + 4 * i, 4); return x; }
    case DType::int64: { std::int64_t x; std::memcpy(&x, p + 8 * i, 8); return static_cast<double>(x); }
    case DType::float16: { std::uint16_t b; std::memcpy(&b, p + 2 * i, 2); return static_cast<float>(half::from_bits(b)); }
    case DType::bfloat16: { std::uint16_t b; std::memcpy(&b, p + 2 * i, 2); return static_cast<float>(bfloat16::from_bits(b)); }
    case DType::float32: { float x; std::memcpy(&x, p + 4 * i, 4); return x; }
    case DType::float64: { double x; std::memcpy(&x, p + 8 * i, 8); return x; }
    case DType::int8: return static_cast<std::int8_t>(p[i]);
    case DType::uint8: return p[i];
    case DType::int16: { std::int16_t x; std::memcpy(&x, p + 2 * i, 2); return x; }
    case DType::uint16: { std::uint16_t x; std::memcpy(&x, p + 2 * i, 2); return x; }
    case DType::uint32: { std::uint32_t x; std::memcpy(&x, p + 4 * i, 4); return x; }
    case DType::uint64: { std::uint64_t x; std::memcpy(&x, p + 8 * i, 8); return static_cast<double>(x); }
    // Complex: the real part (no caller reads complex values through this yet).
    case DType::complex64: { float x; std::memcpy(&x, p + 8 * i, 4); return x; }
    case DType::complex128: { double x; std::memcpy(&x, p + 16 * i, 8); return x; }
  }
  return 0;
}

std::int64_t host_load_int(const std::uint8_t* p, std::int64_t i) {
  std::int64_t x;
  std::memcpy(&x, p + 8 * i, 8);
  return x;
}

std::int64_t wrap(std::int64_t k, std::int64_t len) { return k < 0 ? k + len : k; }

std::string compute_lt(DType t) {
  // NaNs sort last: x < y, or x is a number and y is NaN.
  return is_floating(t) ? "((x) < (y) || ((x) == (x) && (y) != (y)))" : "((x) < (y))";
}

}  // namespace porta::detail::primitives
