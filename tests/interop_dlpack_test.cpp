// Interop through DLPack (include/porta/dlpack.hpp): round trips that share memory and delete
// once, views with their strides, exports that outlive their array, thread and pool, copies to
// the host only where needed, bad tensors refused with a typed error; Kokkos views.
#include "interop_common.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>

namespace porta_test {
namespace {

TEST_P(Interop, DLPackRoundTripSharesMemoryAndDeletesOnce) {
  g_deleted = 0;
  const int n = 256;
  std::vector<double> x;
  Array a = random_array({n}, DType::float32, -3, 3, &x);
  DLManagedTensorVersioned* t = counted(porta::to_dlpack(a));
  EXPECT_EQ(t->version.major, 1u);
  EXPECT_EQ(t->flags, 0u);
  EXPECT_EQ(t->dl_tensor.ndim, 1);
  EXPECT_EQ(t->dl_tensor.shape[0], n);
  EXPECT_EQ(t->dl_tensor.dtype.code, kDLFloat);
  EXPECT_EQ(t->dl_tensor.dtype.bits, 32);
  DLDeviceType want_type = dev().backend() == porta::Backend::kokkos  ? kDLCPU
                           : dev().backend() == porta::Backend::cuda ? kDLCUDA
                                                                      : kDLOpenCL;
  EXPECT_EQ(t->dl_tensor.device.device_type, want_type);
  Array b = porta::from_dlpack(t, {dev(), nullptr});
  EXPECT_EQ(b.device(), dev());
  porta::NativeMemory mb = porta::native_memory(b);
  EXPECT_TRUE(same_memory(a, b)) << "zero-copy";
  // A write through one side is read on the other.
  if (dev().compiles_at_runtime()) {
    negate_kernel(dev())({4}, {64}, {b, n});
  } else {
    porta::queue_wait_for(nullptr, b);
    for (int i = 0; i < n; ++i) static_cast<float*>(mb.host)[i] = -static_cast<float*>(mb.host)[i];
    porta::wait_for_queue(b, nullptr);
  }
  std::vector<double> ref(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) ref[i] = -x[i];
  EXPECT_TRUE(array_matches(a, DType::float32, {n}, ref, {0, 0}));
  EXPECT_EQ(g_deleted.load(), 0);
  b = Array();
  EXPECT_EQ(g_deleted.load(), 1) << "the last porta array over the tensor is gone";
  EXPECT_TRUE(array_matches(a, DType::float32, {n}, ref, {0, 0})) << "a's buffer is a's own still";
}

// DLPack's type code and bits for each dtype the device has, both ways: kDLBool 8, kDLInt and
// kDLUInt 8-64, kDLFloat 16-64, kDLBfloat 16, kDLComplex 64 and 128 (both parts).
TEST_P(Interop, DLPackTypeCodesOfEveryDtype) {
  for (DType t : porta::all_dtypes()) {
    SCOPED_TRACE(std::string(porta::name(t)));
    if (!dev().supports(t)) continue;
    Array a = porta::empty({3}, t, dev());
    DLManagedTensorVersioned* x = porta::to_dlpack(a);
    const DLDataType d = x->dl_tensor.dtype;
    const unsigned want_code = t == DType::bfloat16       ? static_cast<unsigned>(kDLBfloat)
                               : t == DType::boolean      ? static_cast<unsigned>(porta::kDLPackBoolCode)
                               : porta::is_complex(t)     ? static_cast<unsigned>(kDLComplex)
                               : porta::is_floating(t)    ? static_cast<unsigned>(kDLFloat)
                               : porta::is_unsigned_integer(t) ? static_cast<unsigned>(kDLUInt)
                                                               : static_cast<unsigned>(kDLInt);
    EXPECT_EQ(d.code, want_code);
    EXPECT_EQ(d.bits, 8 * porta::itemsize(t));
    EXPECT_EQ(d.lanes, 1);
    Array b = porta::from_dlpack(x, {dev(), nullptr});
    EXPECT_EQ(b.dtype(), t);
    EXPECT_TRUE(same_memory(a, b)) << "zero-copy";
  }
}

TEST_P(Interop, DLPackViewsExportTheirStrides) {
  std::vector<double> x;
  Array a = random_array({6, 8}, DType::float32, -3, 3, &x);
  struct Case {
    Array view;
    std::vector<std::int64_t> strides;
  };
  std::vector<Case> cases = {
      {a.transpose(), {1, 8}},
      {a.slice({{1, 6, 2}, {std::nullopt, std::nullopt, -3}}), {16, -3}},
      {a.slice({{5, std::nullopt, -1}}).broadcast_to({2, 6, 8}), {0, -8, 1}},
  };
  for (auto& c : cases) {
    DLManagedTensorVersioned* t = porta::to_dlpack(c.view);
    ASSERT_EQ(t->dl_tensor.ndim, c.view.ndim());
    for (int i = 0; i < c.view.ndim(); ++i) {
      EXPECT_EQ(t->dl_tensor.shape[i], c.view.dim(i));
      EXPECT_EQ(t->dl_tensor.strides[i], c.strides[static_cast<std::size_t>(i)]) << "axis " << i;
    }
    bool zero_stride = c.strides[0] == 0;
    EXPECT_EQ((t->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0, zero_stride) << "aliased elements are read-only";
    std::vector<float> got = dl_elements(t->dl_tensor, dev());
    std::vector<float> want = c.view.contiguous().to_vector<float>();
    EXPECT_EQ(got, want);
    // And back: the import reads the same elements.
    EXPECT_EQ(porta::from_dlpack(t, {dev(), nullptr}).contiguous().to_vector<float>(), want);
  }
  // The legacy form carries the same layout.
  DLManagedTensor* legacy = porta::to_dlpack_legacy(cases[1].view);
  EXPECT_EQ(legacy->dl_tensor.strides[1], -3);
  EXPECT_EQ(dl_elements(legacy->dl_tensor, dev()), cases[1].view.contiguous().to_vector<float>());
  EXPECT_EQ(porta::from_dlpack(legacy, {dev(), nullptr}).contiguous().to_vector<float>(),
            cases[1].view.contiguous().to_vector<float>());
}

TEST_P(Interop, DLPackExportOutlivesTheArrayItsThreadAndItsPool) {
  g_deleted = 0;
  std::vector<double> x = random_values(1000, DType::float32, -2, 2);
  std::vector<float> xf(x.begin(), x.end());
  DLManagedTensorVersioned* t = nullptr;
  {
    porta::DevicePool pool({dev()}, 1);
    t = pool.submit([&](const Device& d) {
              Array a = porta::from_host(xf, {1000}, d) * 2.0f;
              return counted(porta::to_dlpack(a, {porta::native_queue(d), true}));
            }).get();
  }  // the worker, its queue and the array are gone
  for (int i = 0; i < 3; ++i) (void)porta::random::uniform({1 << 16}, 0, 1, DType::float32, dev()).eval();  // reuse freed memory
  std::vector<float> got = dl_elements(t->dl_tensor, dev());
  for (std::size_t i = 0; i < xf.size(); ++i) ASSERT_EQ(got[i], 2 * xf[i]) << i;
  // The consumer deletes it from a thread of its own.
  std::thread([t] { t->deleter(t); }).join();
  EXPECT_EQ(g_deleted.load(), 1);
}

TEST_P(Interop, DLPackToHostCopiesOnlyWhereNeeded) {
  std::vector<double> x;
  Array a = random_array({3, 4}, DType::float32, -3, 3, &x);
  porta::DLPackExport host;
  host.to_host = true;
  DLManagedTensorVersioned* t = porta::to_dlpack(a.transpose(), host);
  EXPECT_EQ(t->dl_tensor.device.device_type, kDLCPU);
  bool in_place = porta::native_memory(a).host != nullptr;
  EXPECT_EQ((t->flags & DLPACK_FLAG_BITMASK_IS_COPIED) != 0, !in_place);
  EXPECT_EQ(dl_elements(t->dl_tensor, dev()), a.transpose().contiguous().to_vector<float>());
  t->deleter(t);
}

// A tensor of the test's own over host memory, with a counted deleter.
struct HostTensor {
  static inline std::atomic<int> deleted{0};
  std::vector<float> data = std::vector<float>(64, 1.5f);
  std::vector<std::int64_t> shape{4, 4}, strides{4, 1};
  DLManagedTensorVersioned m{};
  HostTensor() {
    m.version = {1, 0};
    m.manager_ctx = this;
    m.deleter = [](DLManagedTensorVersioned*) { deleted++; };
    m.dl_tensor.data = data.data();
    m.dl_tensor.device = {kDLCPU, 0};
    m.dl_tensor.ndim = 2;
    m.dl_tensor.dtype = {kDLFloat, 32, 1};
    m.dl_tensor.shape = shape.data();
    m.dl_tensor.strides = strides.data();
  }
};

TEST_P(Interop, DLPackImportOfBadTensorsIsATypedErrorAndStillDeletes) {
  if (!host_memory_device(dev())) GTEST_SKIP() << dev().spec() << " does not use host memory in place";
  porta::DLPackImport on{dev(), nullptr};
  EXPECT_THROW(porta::from_dlpack(static_cast<DLManagedTensorVersioned*>(nullptr), on), porta::InvalidArgument);
  EXPECT_THROW(porta::from_dlpack(static_cast<DLManagedTensor*>(nullptr), on), porta::InvalidArgument);
  HostTensor::deleted = 0;
  int expected = 0;
  auto refused = [&](auto&& change, auto tag, const char* needle) {
    using E = decltype(tag);
    HostTensor h;
    change(h);
    std::string msg = thrown_message<E>([&] { (void)porta::from_dlpack(&h.m, on); });
    EXPECT_NE(msg.find(needle), std::string::npos) << msg;
    EXPECT_EQ(HostTensor::deleted.load(), ++expected) << "the deleter ran for: " << msg;
  };
  refused([](HostTensor& h) { h.m.version.major = 2; }, porta::InvalidArgument{""}, "2.0");
  refused([](HostTensor& h) { h.m.dl_tensor.device = {kDLVulkan, 0}; }, porta::DeviceError{""}, "device type 7");
  refused([](HostTensor& h) { h.m.dl_tensor.device = {kDLCUDA, 99}; }, porta::DeviceError{""},
          "kDLCUDA tensor (device type 2) of device_id 99");
  refused([](HostTensor& h) { h.m.dl_tensor.device = {kDLOpenCL, 99}; }, porta::DeviceError{""},
          "kDLOpenCL tensor (device type 4) of device_id 99");
  refused([](HostTensor& h) { h.m.dl_tensor.dtype = {kDLUInt, 24, 1}; }, porta::DTypeError{""}, "code 1 (kDLUInt), bits 24, lanes 1");
  refused([](HostTensor& h) { h.m.dl_tensor.dtype = {kDLComplex, 32, 1}; }, porta::DTypeError{""}, "(kDLComplex), bits 32");
  refused([](HostTensor& h) { h.m.dl_tensor.dtype = {kDLFloat, 32, 4}; }, porta::DTypeError{""}, "lanes 4");
  refused([](HostTensor& h) { h.m.dl_tensor.data = reinterpret_cast<char*>(h.data.data()) + 2; }, porta::InvalidArgument{""},
          "aligned");
  refused([](HostTensor& h) { h.shape = {std::int64_t{1} << 61, 4}; }, porta::InvalidArgument{""}, "reach");
  refused([](HostTensor& h) { h.m.dl_tensor.data = nullptr; }, porta::InvalidArgument{""}, "null");
  refused([](HostTensor& h) { h.m.dl_tensor.shape = nullptr; }, porta::InvalidArgument{""}, "shape is null");
  // Good ones (host memory, pinned CUDA host memory as NumPy and CuPy label them): zero-copy, with
  // byte_offset and negative strides, deleted once when the last array goes, on another thread.
  for (DLDeviceType type : {kDLCPU, kDLCUDAHost}) {
    HostTensor h;
    for (int i = 0; i < 64; ++i) h.data[static_cast<std::size_t>(i)] = static_cast<float>(i);
    h.m.dl_tensor.device = {type, 0};
    h.strides = {-4, 2};
    h.shape = {3, 2};
    h.m.dl_tensor.byte_offset = 12 * sizeof(float);
    Array a = porta::from_dlpack(&h.m, on);
    EXPECT_EQ(porta::native_memory(a).host, h.data.data() + 12) << "zero-copy";
    EXPECT_EQ(a.contiguous().to_vector<float>(), (std::vector<float>{12, 14, 8, 10, 4, 6}));
    EXPECT_EQ(HostTensor::deleted.load(), expected);
    std::thread([b = std::move(a)]() mutable {
      EXPECT_EQ(porta::sum(b).item<float>(), 54.0f);
      b = Array();
    }).join();
    EXPECT_EQ(HostTensor::deleted.load(), ++expected);
  }
}

#ifdef PORTA_TEST_KOKKOS
TEST_P(Interop, KokkosViewsAndPortaArraysShareMemory) {
  if (dev().backend() != porta::Backend::kokkos) GTEST_SKIP() << "Kokkos Views";
  std::vector<double> x;
  Array a = random_array({5, 6}, DType::float64, -3, 3, &x);
  Array t = a.transpose();  // strides (1, 6)
  auto v = porta::native::kokkos_view<double**>(t);
  ASSERT_EQ(v.extent(0), 6u);
  ASSERT_EQ(v.extent(1), 5u);
  EXPECT_EQ(v.stride(0), 1u);
  EXPECT_EQ(v.stride(1), 6u);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 5; ++j) ASSERT_EQ(v(i, j), x[static_cast<std::size_t>(j * 6 + i)]);
  // A Kokkos kernel writes; porta reads.
  Kokkos::parallel_for("interop_test", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, 6),
                       [=](int i) { v(i, 0) = 100.0 + i; });
  Kokkos::fence();
  porta::wait_for_queue(t, nullptr);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(a[0][i].item<double>(), 100.0 + i);
  EXPECT_THROW(porta::native::kokkos_view<float**>(t), porta::DTypeError);
  EXPECT_THROW(porta::native::kokkos_view<double*>(t), porta::InvalidArgument);
  EXPECT_THROW(porta::native::kokkos_view<double*>(a[0].slice({{std::nullopt, std::nullopt, -1}})), porta::InvalidArgument);

  // A managed View as a porta array: the View's memory lives while the array does.
  Array w;
  {
    Kokkos::View<float**, Kokkos::HostSpace> managed("porta_interop_test", 3, 4);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j) managed(i, j) = static_cast<float>(10 * i + j);
    w = porta::native::from_kokkos_view(managed, dev());
    EXPECT_EQ(porta::native_memory(w).host, managed.data());
  }
  EXPECT_EQ(porta::sum(w).item<float>(), 4 * (0 + 10 + 20) + 3 * (0 + 1 + 2 + 3));
  EXPECT_EQ(w.transpose()[3][2].item<float>(), 23.0f);
}
#endif

PORTA_INSTANTIATE_DEVICES(Interop);

}  // namespace
}  // namespace porta_test
