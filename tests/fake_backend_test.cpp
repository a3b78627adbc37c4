// A backend of a fourth kind (tests/fake_backend.cpp: "fake", one CPU device with host memory,
// no run-time compiler) works with nothing in src/ changed: CTest runs this program with
// PORTA_PLUGIN_PATH naming the folder of libporta_fake.so, and the registry finds it there, takes
// its name from its entry point and gives it a porta::Backend value of its own. Everything below
// goes through the public API; porta-info runs in a subprocess with PORTA_BACKEND=fake.
#include <porta/dlpack.hpp>
#include <porta/interop.hpp>
#include <porta/porta.hpp>

#include <gtest/gtest.h>

#include "test_common.hpp"

#include <sys/wait.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

porta::Device fake() { return porta::device("fake:0"); }

TEST(FakeBackend, IsListedWithANameAndAValueOfItsOwn) {
  const porta::Device d = fake();
  EXPECT_EQ(porta::name(d.backend()), "fake");
  EXPECT_EQ(d.spec(), "fake:0");
  EXPECT_NE(d.backend(), porta::Backend::cuda);
  EXPECT_NE(d.backend(), porta::Backend::opencl);
  EXPECT_NE(d.backend(), porta::Backend::kokkos);
  EXPECT_GE(static_cast<int>(d.backend()), 3) << "after the values porta::Backend names";
  // The named backends keep their names.
  EXPECT_EQ(porta::name(porta::Backend::cuda), "cuda");
  EXPECT_EQ(porta::name(porta::Backend::opencl), "opencl");
  EXPECT_EQ(porta::name(porta::Backend::kokkos), "kokkos");
  bool listed = false;
  for (const auto& dev : porta::devices()) listed |= dev == d;
  EXPECT_TRUE(listed);
  bool status = false;
  for (const auto& st : porta::backends())
    if (st.backend == d.backend()) {
      status = true;
      EXPECT_TRUE(st.loaded) << st.reason;
      EXPECT_EQ(st.device_count, 1);
      EXPECT_EQ(st.version, "fake backend 1.0");
      EXPECT_TRUE(contains(st.plugin_path, "libporta_fake.so")) << st.plugin_path;
    }
  EXPECT_TRUE(status);
  EXPECT_EQ(porta::device("fake"), d) << "a bare backend name";
  EXPECT_EQ(d.kind(), porta::DeviceKind::cpu);
  EXPECT_FALSE(d.compiles_at_runtime());
  EXPECT_EQ(d.name(), "fake host device");
  std::string msg = porta_test::thrown_message<porta::DeviceError>([] { (void)porta::device("fake:1"); });
  EXPECT_TRUE(contains(msg, "fake:1 does not exist")) << msg;
  msg = porta_test::thrown_message<porta::DeviceError>([] { (void)porta::device("nonsense:0"); });
  EXPECT_TRUE(contains(msg, "fake")) << "the known backends include it: " << msg;
}

TEST(FakeBackend, ArraysAreMadeComputedAndCopied) {
  porta::DeviceScope scope(fake());
  const std::vector<float> x{1, 2, 3, 4, 5, 6};
  porta::Array a = porta::from_host(x, {2, 3});
  EXPECT_EQ(a.device(), fake());
  EXPECT_EQ(a.to_vector<float>(), x);
  // Elementwise and reductions run through the core's block interpreter, as on Kokkos.
  porta::Array b = a * 2.0 + 1.0;
  EXPECT_EQ(b.to_vector<float>(), (std::vector<float>{3, 5, 7, 9, 11, 13}));
  EXPECT_EQ(porta::sum(a).item<float>(), 21.0f);
  EXPECT_EQ(porta::zeros({4}, porta::DType::int32).to_vector<std::int32_t>(), (std::vector<std::int32_t>(4, 0)));
  EXPECT_EQ(porta::full({3}, 2.5, porta::DType::float64).to_vector<double>(), (std::vector<double>(3, 2.5)));
  // matmul through the plugin's own loop.
  porta::Array m = porta::matmul(a, a.transpose());
  EXPECT_EQ(m.to_vector<float>(), (std::vector<float>{14, 32, 32, 77}));
  // Its Capabilities declare no integer GEMM: the core sums products (exact, wrapping), batched too.
  const std::vector<std::int32_t> xi{1, -2, 3, 2147483647, 5, -6};
  porta::Array ai = porta::from_host(xi, {2, 3});
  porta::Array mi = porta::matmul(ai, ai.transpose());
  EXPECT_EQ(mi.dtype(), porta::DType::int32);
  std::vector<std::int32_t> want;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      std::uint32_t s = 0;
      for (int q = 0; q < 3; ++q) s += static_cast<std::uint32_t>(xi[i * 3 + q]) * static_cast<std::uint32_t>(xi[j * 3 + q]);
      want.push_back(static_cast<std::int32_t>(s));
    }
  EXPECT_EQ(mi.to_vector<std::int32_t>(), want);
  EXPECT_EQ(porta::matmul(ai.reshape({1, 2, 3}), ai.transpose()).to_vector<std::int32_t>(), want) << "batched";
  EXPECT_EQ(porta::matmul(ai > 0, ai.transpose() > 0).to_vector<bool>(), (std::vector<bool>{true, true, true, true})) << "bool";
  // To another backend's device and back, through the host.
  for (const auto& other : porta::devices()) {
    if (other == fake()) continue;
    porta::Array there = a.to(other);
    EXPECT_EQ(there.to_vector<float>(), x) << other.spec();
    EXPECT_EQ(there.to(fake()).to_vector<float>(), x) << other.spec();
  }
}

TEST(FakeBackend, DLPackSaysWhatItsCapabilitiesSay) {
  porta::DeviceScope scope(fake());
  porta::Array a = porta::arange(0.0, 6.0, 1.0, porta::DType::float32);
  DLManagedTensorVersioned* t = porta::to_dlpack(a);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->dl_tensor.device.device_type, kDLCPU) << "dlpack_device_type 1: a host tensor";
  EXPECT_EQ(t->dl_tensor.device.device_id, 0);
  EXPECT_EQ(t->dl_tensor.byte_offset, 0u);
  EXPECT_EQ(t->flags & DLPACK_FLAG_BITMASK_IS_COPIED, 0u) << "host memory in place, no copy";
  EXPECT_EQ(static_cast<float*>(t->dl_tensor.data)[5], 5.0f);
  EXPECT_EQ(t->dl_tensor.data, porta::native_memory(a).host);
  // And back: a kDLCPU tensor onto the fake device, zero-copy.
  porta::Array back = porta::from_dlpack(t, porta::DLPackImport{fake(), nullptr});
  EXPECT_EQ(back.device(), fake());
  EXPECT_EQ(porta::native_memory(back).host, porta::native_memory(a).host);
  EXPECT_EQ(back.to_vector<float>(), (std::vector<float>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(porta::native_device(fake()).ordinal, 0) << "the default ordinal: the device's index";
}

TEST(FakeBackend, RawKernelIsATypedErrorNamingTheBackend) {
  const porta::Backend b = fake().backend();
  std::string msg = porta_test::thrown_message<porta::InvalidArgument>([&] { porta::RawKernel k(b, "void f() {}", "f"); });
  EXPECT_TRUE(contains(msg, "the fake backend compiles no source at run time")) << msg;
  // A kernel of another language on this device: it compiles none.
  porta::RawKernel other(porta::Backend::opencl, "__kernel void f(__global float* x) { x[0] = 1; }", "f");
  msg = porta_test::thrown_message<porta::BackendUnavailable>([&] { other.compile(fake()); });
  EXPECT_TRUE(contains(msg, "fake:0")) << msg;
  porta::ElementwiseKernel copy("float32 x", "float32 y", "y = x", "copy");
  msg = porta_test::thrown_message<porta::BackendUnavailable>([&] { (void)copy({porta::ones({2}, porta::DType::float32, fake())}); });
  EXPECT_TRUE(contains(msg, "fake:0")) << msg;
}

// porta-info's output and exit status with `env` ("NAME=value ...") added.
std::pair<std::string, int> porta_info(const std::string& env) {
  std::string cmd = "env " + env + " '" + PORTA_INFO_PATH + "' 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return {"popen failed", -1};
  std::string out;
  char buf[4096];
  std::size_t got;
  while ((got = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, got);
  int st = ::pclose(p);
  return {out, WIFEXITED(st) ? WEXITSTATUS(st) : -1};
}

// porta-info, in a subprocess that selects the fake backend alone.
TEST(FakeBackend, PortaInfoPrintsIt) {
  auto [out, status] = porta_info("PORTA_BACKEND=fake");
  EXPECT_EQ(status, 0) << out;
  EXPECT_TRUE(contains(out, "fake    loaded      1 device  fake backend 1.0")) << out;
  EXPECT_TRUE(contains(out, "fake:0    fake host device")) << out;
  EXPECT_TRUE(contains(out, "runs plans through the block interpreter")) << out;
  EXPECT_TRUE(contains(out, "fake backend: a test's plugin of a fourth kind")) << "its notes: " << out;
  EXPECT_TRUE(contains(out, "Default device: fake:0")) << out;
  EXPECT_TRUE(contains(out, "not selected: PORTA_BACKEND=fake")) << "porta's own backends: " << out;
}

// Files beside the plugins named like one: a library that does not name the entry point (as
// libporta_mpi.so beside libporta) is no plugin and is passed over in silence; the fake plugin
// under another name is refused for its name, as a renamed plugin of porta's own is.
TEST(FakeBackend, FilesThatAreNoPluginOfTheirNameAreTold) {
  auto dir = std::filesystem::temp_directory_path() / ("porta-fake-backend-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "libporta_junk.so") << "not a shared object";
  const char* path = std::getenv("PORTA_PLUGIN_PATH");
  ASSERT_NE(path, nullptr);
  std::filesystem::copy_file(std::filesystem::path(path) / "libporta_fake.so", dir / "libporta_other.so");
  auto [out, status] = porta_info("PORTA_PLUGIN_PATH=" + dir.string() + ":" + path);
  std::filesystem::remove_all(dir);
  EXPECT_EQ(status, 0) << out;
  EXPECT_FALSE(contains(out, "junk")) << out;
  EXPECT_TRUE(contains(out, "libporta_other.so is a plugin of the fake backend, not of other")) << out;
  EXPECT_TRUE(contains(out, "fake:0    fake host device")) << out;
}

}  // namespace
