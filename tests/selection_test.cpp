// Choosing a backend and a device: porta-info and a small program run in subprocesses with
// different PORTA_BACKEND / PORTA_DEVICE / PORTA_PLUGIN_PATH values; in-process, device() by
// name and kind, backends(), DeviceScope nesting and the per-thread current device.
#include "test_common.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

namespace porta_test {
namespace {

struct ProcessResult {
  int status = -1;
  std::string output;  // stdout and stderr
};

// Runs `program` with the porta variables cleared and `env` set ("NAME=value ...").
ProcessResult run(const std::string& program, const std::string& env) {
  std::string cmd = "env -u PORTA_BACKEND -u PORTA_DEVICE -u PORTA_PLUGIN_PATH -u PORTA_LOG " + env + " '" + program + "' 2>&1";
  ProcessResult r;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  std::size_t got;
  while ((got = std::fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, got);
  int st = ::pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

bool backend_has_devices(porta::Backend b) {
  for (const auto& d : porta::devices())
    if (d.backend() == b) return true;
  return false;
}

// The default device of one backend (docs/design/plugins.md#choosing-a-backend-and-a-device): its
// first GPU, else its first device. On the GPU machine opencl:0 is PoCL's CPU device and opencl:1
// the H200, so that is opencl:1.
std::string first_spec(porta::Backend b) {
  for (const auto& d : porta::devices())
    if (d.backend() == b && d.kind() == porta::DeviceKind::gpu) return d.spec();
  for (const auto& d : porta::devices())
    if (d.backend() == b) return d.spec();
  return {};
}

const std::string kInfo = PORTA_INFO_PATH;
const std::string kHelper = PORTA_SELECTION_HELPER_PATH;

TEST(SelectionByEnvironment, PortaInfoListsEveryDeviceAndBackend) {
  ProcessResult r = run(kInfo, "");
  EXPECT_EQ(r.status, 0) << r.output;
  for (const char* b : {"cuda", "opencl", "kokkos"}) EXPECT_TRUE(contains(r.output, b)) << r.output;
  for (const auto& d : porta::devices()) EXPECT_TRUE(contains(r.output, d.spec())) << d.spec() << " missing from:\n" << r.output;
  EXPECT_TRUE(contains(r.output, "Default device: " + porta::default_device().spec())) << r.output;
}

TEST(SelectionByEnvironment, EachBackendByName) {
  for (porta::Backend b : {porta::Backend::opencl, porta::Backend::kokkos, porta::Backend::cuda}) {
    std::string name(porta::name(b));
    ProcessResult info = run(kInfo, "PORTA_BACKEND=" + name);
    ProcessResult helper = run(kHelper, "PORTA_BACKEND=" + name);
    if (backend_has_devices(b)) {
      EXPECT_EQ(info.status, 0) << "PORTA_BACKEND=" << name << "\n" << info.output;
      EXPECT_TRUE(contains(info.output, "Default device: " + first_spec(b))) << info.output;
      EXPECT_EQ(helper.status, 0) << "PORTA_BACKEND=" << name << "\n" << helper.output;
      EXPECT_TRUE(contains(helper.output, "device " + first_spec(b))) << helper.output;
      EXPECT_TRUE(contains(helper.output, "result 1 4 9 16 25")) << helper.output;
    } else {
      // A backend that is not built or not loaded: an error that says why.
      EXPECT_NE(info.status, 0) << "PORTA_BACKEND=" << name << " without devices\n" << info.output;
      EXPECT_NE(helper.status, 0) << helper.output;
      EXPECT_TRUE(contains(helper.output, name)) << helper.output;
      std::cout << "[   note   ] " << name << " has no device here: " << helper.output;
    }
  }
}

TEST(SelectionByEnvironment, PreferenceOrderAndUnknownNames) {
  if (backend_has_devices(porta::Backend::opencl) && backend_has_devices(porta::Backend::kokkos)) {
    ProcessResult r = run(kHelper, "PORTA_BACKEND=kokkos,opencl");
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "device kokkos:0")) << "the first backend of the list wins:\n" << r.output;
    r = run(kHelper, "PORTA_BACKEND=opencl,kokkos");
    EXPECT_TRUE(contains(r.output, "device " + first_spec(porta::Backend::opencl))) << r.output;
  }
  for (const std::string& bad : {std::string("foo"), std::string("opencl,foo")}) {
    ProcessResult info = run(kInfo, "PORTA_BACKEND=" + bad);
    EXPECT_NE(info.status, 0) << "PORTA_BACKEND=" << bad << "\n" << info.output;
    ProcessResult helper = run(kHelper, "PORTA_BACKEND=" + bad);
    EXPECT_NE(helper.status, 0) << helper.output;
    for (const ProcessResult* r : {&info, &helper}) {
      EXPECT_TRUE(contains(r->output, "foo")) << r->output;
      for (const char* known : {"cuda", "opencl", "kokkos"})
        EXPECT_TRUE(contains(r->output, known)) << "the message lists the known backends:\n" << r->output;
    }
  }
}

TEST(SelectionByEnvironment, PortaDeviceExactly) {
  for (const auto& d : porta::devices()) {
    ProcessResult r = run(kHelper, "PORTA_DEVICE=" + d.spec());
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "device " + d.spec())) << r.output;
  }
  for (const std::string& bad : {std::string("opencl:99"), std::string("kokkos:7"), std::string("nonsense"), std::string("opencl:x")}) {
    ProcessResult info = run(kInfo, "PORTA_DEVICE=" + bad);
    ProcessResult helper = run(kHelper, "PORTA_DEVICE=" + bad);
    EXPECT_NE(info.status, 0) << "PORTA_DEVICE=" << bad << "\n" << info.output;
    EXPECT_NE(helper.status, 0) << "PORTA_DEVICE=" << bad << "\n" << helper.output;
    for (const auto& d : porta::devices())
      EXPECT_TRUE(contains(helper.output, d.spec())) << "the message lists the devices:\n" << helper.output;
    EXPECT_TRUE(contains(helper.output, bad)) << helper.output;
  }
  // By kind.
  bool has_cpu = false, has_gpu = false;
  for (const auto& d : porta::devices()) {
    has_cpu |= d.kind() == porta::DeviceKind::cpu;
    has_gpu |= d.kind() == porta::DeviceKind::gpu;
  }
  ProcessResult cpu = run(kHelper, "PORTA_DEVICE=cpu");
  EXPECT_EQ(cpu.status == 0, has_cpu) << cpu.output;
  if (has_cpu) {
    EXPECT_TRUE(contains(cpu.output, "device " + porta::device("cpu").spec())) << cpu.output;
  }
  ProcessResult gpu = run(kHelper, "PORTA_DEVICE=gpu");
  EXPECT_EQ(gpu.status == 0, has_gpu) << gpu.output;
}

// A plugin file that is not a shared library: porta-info lists the backend as not loaded with
// dlopen's reason and the file, and the program runs on the other backends.
TEST(SelectionByEnvironment, BrokenPluginIsReportedWithTheReason) {
  auto dir = std::filesystem::temp_directory_path() / ("porta-test-plugins-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto broken = dir / "libporta_opencl.so";
  {
    std::ofstream f(broken);
    f << "this is not an ELF file\n";
  }
  ProcessResult info = run(kInfo, "PORTA_PLUGIN_PATH=" + dir.string());
  ProcessResult helper = run(kHelper, "PORTA_PLUGIN_PATH=" + dir.string());
  std::filesystem::remove_all(dir);
  EXPECT_TRUE(contains(info.output, broken.string())) << "porta-info names the file it tried:\n" << info.output;
  bool others = backend_has_devices(porta::Backend::kokkos) || backend_has_devices(porta::Backend::cuda);
  if (others) {
    EXPECT_EQ(helper.status, 0) << "the other backends still run:\n" << helper.output;
    EXPECT_FALSE(contains(helper.output, "device opencl")) << helper.output;
  } else {
    EXPECT_NE(helper.status, 0) << helper.output;
    EXPECT_TRUE(contains(helper.output, broken.string())) << helper.output;
  }
  // Said once at the default log level (warn), naming the file; the hint is about the file, not
  // a driver to install.
  std::size_t warnings = 0;
  for (std::size_t at = helper.output.find("backend unavailable: "); at != std::string::npos;
       at = helper.output.find("backend unavailable: ", at + 1))
    ++warnings;
  EXPECT_EQ(warnings, 1u) << helper.output;
  EXPECT_TRUE(contains(helper.output, "damaged")) << helper.output;
  EXPECT_FALSE(contains(info.output, "pocl-opencl-icd")) << "no driver hint for a broken file:\n" << info.output;
  // PORTA_LOG=info tells which device was chosen.
  ProcessResult logged = run(kHelper, "PORTA_LOG=info");
  EXPECT_EQ(logged.status, 0) << logged.output;
  EXPECT_TRUE(contains(logged.output, porta::default_device().spec())) << logged.output;
}

// porta-info's report with `fake` (tests/fake_plugin.cpp) in the place of the OpenCL plugin.
std::string report_with_plugin(const std::string& fake, const std::string& tag) {
  auto dir = std::filesystem::temp_directory_path() / ("porta-test-" + tag + "-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto plugin = dir / "libporta_opencl.so";
  std::filesystem::copy_file(fake, plugin, std::filesystem::copy_options::overwrite_existing);
  ProcessResult info = run(kInfo, "PORTA_PLUGIN_PATH=" + dir.string());
  std::filesystem::remove_all(dir);
  return info.output;
}

bool opencl_built() {
  for (const auto& st : porta::backends())
    if (st.backend == porta::Backend::opencl) return st.built;
  return false;
}

// The loader refuses a plugin built for another interface version (kBackendApiVersion) and says
// to rebuild porta and its plugins together: not that the file is of another backend.
TEST(SelectionByEnvironment, PluginOfAnotherInterfaceVersionIsRefusedForItsVersion) {
  if (!opencl_built()) GTEST_SKIP() << "the fake stands in for the OpenCL plugin, which this build lacks";
  const std::string out = report_with_plugin(PORTA_FAKE_PLUGIN_VERSION_PATH, "version");
  EXPECT_TRUE(contains(out, "libporta_opencl.so was built for backend interface version 1000 but libporta has "))
      << out;
  EXPECT_TRUE(contains(out, "rebuild porta and its plugins together")) << out;
  EXPECT_FALSE(contains(out, "is a plugin of the")) << out;
}

// A plugin of the right version that declares another backend (a file renamed or copied over)
// is refused as such, with no word of interface versions.
TEST(SelectionByEnvironment, PluginOfAnotherBackendIsRefusedForItsBackend) {
  if (!opencl_built()) GTEST_SKIP() << "the fake stands in for the OpenCL plugin, which this build lacks";
  const std::string out = report_with_plugin(PORTA_FAKE_PLUGIN_BACKEND_PATH, "backend");
  EXPECT_TRUE(contains(out, "libporta_opencl.so is a plugin of the kokkos backend, not of opencl")) << out;
  EXPECT_FALSE(contains(out, "interface version")) << out;
}

// ---- in-process ----------------------------------------------------------------------------

TEST(SelectionInProcess, DeviceByNameAndKind) {
  auto all = porta::devices();
  ASSERT_FALSE(all.empty());
  for (const auto& d : all) {
    EXPECT_TRUE(d.valid());
    EXPECT_EQ(porta::device(d.spec()), d) << d.spec();
    EXPECT_FALSE(d.name().empty());
    EXPECT_GT(d.memory_bytes(), 0u) << d.spec();
    EXPECT_GT(d.compute_units(), 0) << d.spec();
    EXPECT_TRUE(d.supports(DType::float32)) << d.spec();
    EXPECT_TRUE(d.supports(DType::int32)) << d.spec();
    EXPECT_TRUE(d.supports(DType::boolean)) << d.spec();
    EXPECT_EQ(d.spec(), std::string(porta::name(d.backend())) + ":" + std::to_string(d.index()));
    if (d.backend() == porta::Backend::kokkos) {
      EXPECT_FALSE(d.compiles_at_runtime());
    }
    if (d.backend() == porta::Backend::opencl || d.backend() == porta::Backend::cuda) {
      EXPECT_TRUE(d.compiles_at_runtime());
    }
  }
  for (porta::Backend b : {porta::Backend::opencl, porta::Backend::kokkos, porta::Backend::cuda}) {
    if (!backend_has_devices(b)) {
      EXPECT_THROW((void)porta::device(porta::name(b)), porta::DeviceError) << porta::name(b);
      continue;
    }
    EXPECT_EQ(porta::device(porta::name(b)).spec(), first_spec(b)) << "a backend's name is its first GPU, else its first device";
    EXPECT_EQ(porta::device(std::string(porta::name(b)) + ":0").index(), 0);
  }
  for (const char* kind : {"cpu", "gpu"}) {
    porta::DeviceKind k = std::string(kind) == "cpu" ? porta::DeviceKind::cpu : porta::DeviceKind::gpu;
    const Device* first = nullptr;
    for (const auto& d : all)
      if (d.kind() == k && !first) first = &d;
    if (first) {
      EXPECT_EQ(porta::device(kind), *first) << kind;
    } else {
      std::string msg = thrown_message<porta::DeviceError>([&] { (void)porta::device(kind); });
      EXPECT_TRUE(contains(msg, kind)) << msg;
    }
  }
  std::string msg = thrown_message<porta::DeviceError>([] { (void)porta::device("nonsense"); });
  EXPECT_TRUE(contains(msg, "nonsense")) << msg;
  for (const auto& d : all) EXPECT_TRUE(contains(msg, d.spec())) << "the message lists the devices: " << msg;
  EXPECT_THROW((void)porta::device("opencl:99"), porta::DeviceError);
  EXPECT_THROW((void)porta::device("opencl:-1"), porta::DeviceError);
  EXPECT_THROW((void)porta::device("kokkos:1"), porta::DeviceError);
  EXPECT_THROW((void)porta::device(""), porta::DeviceError);
}

TEST(SelectionInProcess, BackendsReportStatus) {
  auto st = porta::backends();
  ASSERT_EQ(st.size(), 3u);
  for (const auto& b : st) {
    int count = 0;
    for (const auto& d : porta::devices())
      if (d.backend() == b.backend) ++count;
    if (b.loaded) {
      EXPECT_TRUE(b.built) << porta::name(b.backend);
      EXPECT_EQ(b.device_count, count) << porta::name(b.backend);
      EXPECT_TRUE(b.reason.empty()) << b.reason;
    } else {
      EXPECT_FALSE(b.reason.empty()) << porta::name(b.backend) << " is not loaded and must say why";
      EXPECT_EQ(count, 0);
    }
  }
}

TEST(SelectionInProcess, DeviceScopeNestsAndIsPerThread) {
  auto all = porta::devices();
  const Device def = porta::default_device();
  EXPECT_EQ(porta::current_device(), def);
  const Device& a = all.front();
  const Device& b = all.back();
  {
    porta::DeviceScope outer(a);
    EXPECT_EQ(porta::current_device(), a);
    EXPECT_EQ(porta::zeros({2}).device(), a) << "creation without a device uses the current device";
    {
      porta::DeviceScope inner(b.spec());
      EXPECT_EQ(porta::current_device(), b);
      EXPECT_EQ(porta::ones({2}).device(), b);
      // Another thread does not see this thread's scope, and its own scope does not leak here.
      Device seen, seen_inside;
      std::thread t([&] {
        seen = porta::current_device();
        porta::DeviceScope mine(a);
        seen_inside = porta::current_device();
      });
      t.join();
      EXPECT_EQ(seen, def) << "a new thread starts on the default device";
      EXPECT_EQ(seen_inside, a);
      EXPECT_EQ(porta::current_device(), b);
    }
    EXPECT_EQ(porta::current_device(), a) << "the inner scope restored the outer one";
  }
  EXPECT_EQ(porta::current_device(), def) << "the outer scope restored the default";
  // Scopes on 8 threads at once, each on its own device.
  std::vector<std::thread> ts;
  std::atomic<int> wrong{0};
  for (int i = 0; i < 8; ++i)
    ts.emplace_back([&, i] {
      const Device& d = all[static_cast<std::size_t>(i) % all.size()];
      porta::DeviceScope s(d);
      for (int k = 0; k < 50; ++k) {
        if (porta::current_device() != d) ++wrong;
        std::this_thread::yield();
      }
    });
  for (auto& t : ts) t.join();
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
}  // namespace porta_test
