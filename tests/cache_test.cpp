// The compiled-kernel caches (docs/design/caches.md#disk-cache and
// docs/design/caches.md#kernel-cache-in-memory): the disk cache shared by processes and the
// in-memory cache shared by threads. Each test gets a fresh PORTA_CACHE_DIR and runs
// porta_cache_helper in subprocesses with it (the disk cache reads its settings once per process);
// the helper checks every result against a host reference on random inputs and prints its
// kernel-cache counters, and PORTA_LOG=info says what was compiled, loaded or refused.
#include "test_common.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>

namespace porta_test {
namespace {

namespace fs = std::filesystem;

const std::string kHelper = PORTA_CACHE_HELPER_PATH;
const std::string kInfo = PORTA_INFO_PATH;

std::string lowercase(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::vector<std::uint8_t> read_bytes(const std::string& path) {
  std::string s = read_text(path);
  return std::vector<std::uint8_t>(s.begin(), s.end());
}

void write_bytes(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

unsigned mode_of(const std::string& path) {
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) return 0xffffffffu;
  return st.st_mode & 07777;
}

// The file format of src/runtime/disk_cache.cpp, written out again here so that the test notices when
// the cache writes something else: "PORTAKC1", u32 key bytes, u32 reserved, u64 payload bytes,
// u64 FNV-1a 64 of key then payload; then the key and the payload. The file is named after the
// FNV-1a 64 of the key.
constexpr std::size_t kHeaderBytes = 32;

std::uint64_t fnv1a64(const std::uint8_t* p, std::size_t n, std::uint64_t h = 0xcbf29ce484222325ULL) {
  for (std::size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

struct CacheFile {
  std::string key;
  std::vector<std::uint8_t> payload;
};

template <class T> T load_le(const std::vector<std::uint8_t>& b, std::size_t at) {
  T v{};
  std::memcpy(&v, b.data() + at, sizeof v);
  return v;
}

::testing::AssertionResult parse_file(const std::string& path, CacheFile* out = nullptr) {
  std::vector<std::uint8_t> b = read_bytes(path);
  if (b.size() < kHeaderBytes) return ::testing::AssertionFailure() << path << ": " << b.size() << " bytes, no header";
  if (std::memcmp(b.data(), "PORTAKC1", 8) != 0) return ::testing::AssertionFailure() << path << ": bad magic";
  auto key_bytes = load_le<std::uint32_t>(b, 8);
  auto payload_bytes = load_le<std::uint64_t>(b, 16);
  auto checksum = load_le<std::uint64_t>(b, 24);
  if (b.size() != kHeaderBytes + key_bytes + payload_bytes)
    return ::testing::AssertionFailure() << path << ": " << b.size() << " bytes, header says " << kHeaderBytes << " + "
                                         << key_bytes << " + " << payload_bytes;
  if (payload_bytes == 0) return ::testing::AssertionFailure() << path << ": empty payload";
  if (fnv1a64(b.data() + kHeaderBytes, b.size() - kHeaderBytes) != checksum)
    return ::testing::AssertionFailure() << path << ": checksum does not match";
  std::string key(b.begin() + kHeaderBytes, b.begin() + static_cast<std::ptrdiff_t>(kHeaderBytes + key_bytes));
  char name[32];
  std::snprintf(name, sizeof name, "%016llx.pkc",
                static_cast<unsigned long long>(fnv1a64(reinterpret_cast<const std::uint8_t*>(key.data()), key.size())));
  if (fs::path(path).filename() != name)
    return ::testing::AssertionFailure() << path << ": the key hashes to " << name;
  if (out) {
    out->key = key;
    out->payload.assign(b.begin() + static_cast<std::ptrdiff_t>(kHeaderBytes + key_bytes), b.end());
  }
  return ::testing::AssertionSuccess();
}

// The checksum and file of `key` with `payload`, as the cache writes them.
std::vector<std::uint8_t> make_file(const std::string& key, const std::vector<std::uint8_t>& payload) {
  std::vector<std::uint8_t> body(key.begin(), key.end());
  body.insert(body.end(), payload.begin(), payload.end());
  std::vector<std::uint8_t> out(kHeaderBytes);
  std::memcpy(out.data(), "PORTAKC1", 8);
  auto kb = static_cast<std::uint32_t>(key.size());
  auto pb = static_cast<std::uint64_t>(payload.size());
  auto ck = fnv1a64(body.data(), body.size());
  std::memcpy(out.data() + 8, &kb, 4);
  std::memcpy(out.data() + 16, &pb, 8);
  std::memcpy(out.data() + 24, &ck, 8);
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

struct HelperRun {
  int status = -1;
  std::string output;  // stdout and stderr
  long compiles = -1, disk_hits = -1, memory_hits = -1;
  bool ok() const { return status == 0 && contains(output, "\nok\n"); }
};

void parse_counters(HelperRun& r) {
  std::smatch m;
  static const std::regex re("compiles ([0-9]+) disk_hits ([0-9]+) memory_hits ([0-9]+)");
  if (std::regex_search(r.output, m, re)) {
    r.compiles = std::stol(m[1]);
    r.disk_hits = std::stol(m[2]);
    r.memory_hits = std::stol(m[3]);
  }
}

int exit_status(int st) { return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1; }

class Cache : public DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (!dev().compiles_at_runtime())
      GTEST_SKIP() << dev().spec() << " (" << dev().name()
                   << ") has no run-time compiler: it compiles no kernels, so it puts nothing in the kernel caches";
    char tmpl[] = "/tmp/porta-cache-test-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr) << std::strerror(errno);
    root_ = tmpl;
    dir_ = root_ + "/cache";
  }
  void TearDown() override {
    if (!root_.empty()) {
      std::error_code ec;
      if (fs::exists(dir_, ec)) ::chmod(dir_.c_str(), 0700);
      if (HasFailure() && std::getenv("PORTA_TEST_KEEP_CACHE")) std::cerr << "[ kept     ] " << root_ << "\n";
      else fs::remove_all(root_, ec);
    }
    DeviceTest::TearDown();
  }

  // The shell command that runs the helper with this test's cache directory, PORTA_LOG=info and
  // `env` ("NAME=value ...").
  std::string command(const std::string& mode, int count, const std::string& env, std::uint64_t seed_offset) const {
    return "env -u PORTA_CACHE -u PORTA_LOG -u XDG_CACHE_HOME PORTA_CACHE_DIR=" + quote(dir_) + " PORTA_LOG=info " + env + " " +
           quote(kHelper) + " " + quote(dev().spec()) + " " + mode + " " + std::to_string(count) + " " +
           std::to_string(seed() + seed_offset);
  }

  HelperRun run(const std::string& mode, int count, const std::string& env = "", const std::string& prefix = "") {
    HelperRun r;
    std::string cmd = prefix + command(mode, count, env, runs_++ * 100000) + " 2>&1";
    FILE* p = ::popen(cmd.c_str(), "r");
    if (!p) return r;
    char buf[4096];
    std::size_t got;
    while ((got = std::fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, got);
    r.status = exit_status(::pclose(p));
    parse_counters(r);
    return r;
  }

  // The cache files (*.pkc) in the directory, and whether anything else is there.
  std::vector<std::string> cache_files(std::vector<std::string>* others = nullptr) const {
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir_, ec)) {
      if (e.path().extension() == ".pkc") out.push_back(e.path().string());
      else if (others) others->push_back(e.path().string());
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  // Every file in the directory is a valid cache file of this user, mode 0600, for this device;
  // there are `expected` of them and no temporary files are left.
  void expect_valid_files(std::size_t expected) const {
    std::vector<std::string> others;
    auto files = cache_files(&others);
    EXPECT_EQ(files.size(), expected) << dir_;
    EXPECT_TRUE(others.empty()) << "left in " << dir_ << ": " << others.front();
    for (const auto& f : files) {
      CacheFile c;
      ASSERT_TRUE(parse_file(f, &c));
      EXPECT_EQ(mode_of(f), 0600u) << f;
      // The key names the device, its platform and its driver: a binary is never loaded elsewhere.
      EXPECT_TRUE(contains(c.key, dev().name())) << f << " key:\n" << c.key.substr(0, 400);
      EXPECT_TRUE(contains(c.key, dev().driver_version())) << f << " key:\n" << c.key.substr(0, 400);
      // (CUDA's platform is "CUDA", which the key carries as the backend's name, "cuda".)
      EXPECT_TRUE(contains(lowercase(c.key), lowercase(dev().platform()))) << f << " key:\n" << c.key.substr(0, 400);
    }
  }

  std::map<std::string, std::vector<std::uint8_t>> snapshot() const {
    std::map<std::string, std::vector<std::uint8_t>> out;
    for (const auto& f : cache_files()) out[f] = read_bytes(f);
    return out;
  }

  // A first process that fills the directory with `n` kernels.
  void fill(int n) {
    HelperRun r = run("kernels", n);
    ASSERT_TRUE(r.ok()) << r.output;
    ASSERT_EQ(r.compiles, n) << r.output;
    ASSERT_EQ(r.disk_hits, 0) << r.output;
    ASSERT_EQ(cache_files().size(), static_cast<std::size_t>(n)) << r.output;
  }

  std::string root_, dir_;
  std::uint64_t runs_ = 0;
};

constexpr int kKernels = 4;

TEST_P(Cache, DirectoryIsCreatedPrivate) {
  // Parents that do not exist yet, and a umask that would let anyone write: still 0700.
  dir_ = root_ + "/a/b/cache";
  HelperRun r = run("kernels", 2, "", "umask 000; ");
  ASSERT_TRUE(r.ok()) << r.output;
  ASSERT_TRUE(fs::is_directory(dir_)) << r.output;
  EXPECT_EQ(mode_of(dir_), 0700u) << dir_;
  EXPECT_EQ(mode_of(root_ + "/a/b"), 0700u);
  EXPECT_EQ(mode_of(root_ + "/a"), 0700u);
  expect_valid_files(2);
}

TEST_P(Cache, SecondProcessLoadsFromDisk) {
  HelperRun first = run("kernels", kKernels);
  ASSERT_TRUE(first.ok()) << first.output;
  EXPECT_EQ(first.compiles, kKernels) << first.output;
  EXPECT_EQ(first.disk_hits, 0) << first.output;
  EXPECT_TRUE(contains(first.output, "compiled cache_test_k0 for " + dev().spec())) << first.output;
  expect_valid_files(kKernels);
  auto files = snapshot();

  HelperRun second = run("kernels", kKernels);
  ASSERT_TRUE(second.ok()) << second.output;
  EXPECT_EQ(second.compiles, 0) << second.output;
  EXPECT_EQ(second.disk_hits, kKernels) << second.output;
  EXPECT_TRUE(contains(second.output, "loaded cache_test_k0 for " + dev().spec() + " from the disk cache")) << second.output;
  EXPECT_FALSE(contains(second.output, "compiled cache_test_k")) << second.output;
  EXPECT_EQ(snapshot(), files) << "a hit rewrites nothing";

  // porta-info counts them.
  std::string cmd = "env -u PORTA_CACHE PORTA_CACHE_DIR=" + quote(dir_) + " " + quote(kInfo) + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string info;
  char buf[4096];
  std::size_t got;
  while ((got = std::fread(buf, 1, sizeof buf, p)) > 0) info.append(buf, got);
  ::pclose(p);
  EXPECT_TRUE(contains(info, "Kernel cache: " + dir_ + " (" + std::to_string(kKernels) + " files, ")) << info;
}

// VkFFT's OpenCL programs (backends/opencl/fft.cpp): a second process makes them from the disk
// cache's binaries, compiling none. Each process has an empty PoCL kernel cache of its own, so
// that only porta's cache can spare the compile. One plan of length 16 (on PoCL two programs:
// forward and inverse); about 5 s cold and 2 s warm on PoCL.
TEST_P(Cache, VkFftProgramsSecondProcessLoadsFromDisk) {
  const bool cuda = dev().backend() == porta::Backend::cuda;
  if (!cuda && dev().backend() != porta::Backend::opencl)
    GTEST_SKIP() << "VkFFT's programs are compiled on OpenCL and CUDA devices";
  // CUDA: VkFFT's CUDA backend (not the default there), whose PTX goes into the same cache.
  const std::string select = cuda ? "PORTA_CUDA_FFT=vkfft" : "PORTA_OPENCL_FFT=vkfft";
  const std::string env = select + " POCL_CACHE_DIR=" + quote(root_ + "/pocl1");
  fs::create_directories(root_ + "/pocl1");
  fs::create_directories(root_ + "/pocl2");
  HelperRun first = run("fft", 16, env);
  if (contains(first.output, "has no FFT library"))
    GTEST_SKIP() << "built without VkFFT: " << first.output;
  ASSERT_TRUE(first.ok()) << first.output;
  // Each plan logs "VkFFT plan ...: C programs compiled, L loaded from the disk cache".
  static const std::regex plan_line("VkFFT plan [^\n]*: ([0-9]+) programs compiled, ([0-9]+) loaded from the disk cache");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(first.output, m, plan_line)) << first.output;
  const long programs = std::stol(m[1]);
  EXPECT_GE(programs, 1) << first.output;  // PoCL: 2 (forward and inverse)
  EXPECT_EQ(std::stol(m[2]), 0) << first.output;
  EXPECT_GE(cache_files().size(), static_cast<std::size_t>(programs)) << first.output;  // and porta's own kernels
  auto before = snapshot();
  HelperRun second = run("fft", 16, select + " POCL_CACHE_DIR=" + quote(root_ + "/pocl2"));
  ASSERT_TRUE(second.ok()) << second.output;
  ASSERT_TRUE(std::regex_search(second.output, m, plan_line)) << second.output;
  EXPECT_EQ(std::stol(m[1]), 0) << second.output;
  EXPECT_EQ(std::stol(m[2]), programs) << second.output;
  EXPECT_EQ(snapshot(), before) << "the second process rewrote cache files";
}

TEST_P(Cache, ProcessesStartedAtOnceOnAnEmptyDirectory) {
  constexpr int kProcesses = 4;
  std::string script;
  for (int i = 0; i < kProcesses; ++i) {
    std::string out = root_ + "/out" + std::to_string(i);
    script += "(" + command("kernels", kKernels, "", static_cast<std::uint64_t>(i) * 1000) + " >" + quote(out) +
              " 2>&1; echo $? >" + quote(out + ".rc") + ") & ";
  }
  script += "wait";
  ASSERT_EQ(exit_status(std::system(script.c_str())), 0) << script;
  long compiles = 0, disk_hits = 0;
  for (int i = 0; i < kProcesses; ++i) {
    HelperRun r;
    std::string out = root_ + "/out" + std::to_string(i);
    r.output = read_text(out);
    r.status = std::atoi(read_text(out + ".rc").c_str());
    parse_counters(r);
    EXPECT_TRUE(r.ok()) << "process " << i << ":\n" << r.output;
    EXPECT_EQ(r.compiles + r.disk_hits, kKernels) << r.output;
    compiles += r.compiles;
    disk_hits += r.disk_hits;
  }
  EXPECT_GE(compiles, kKernels);
  expect_valid_files(kKernels);

  HelperRun after = run("kernels", kKernels);
  ASSERT_TRUE(after.ok()) << after.output;
  EXPECT_EQ(after.disk_hits, kKernels) << after.output;
  EXPECT_EQ(after.compiles, 0) << after.output;
}

// Damages one file of a filled directory with `damage`; the next process must ignore it,
// compile that kernel again, get correct results and leave a valid file in its place.
void expect_rebuilt(int damaged, const std::string& expected_log, const std::vector<std::string>& files,
                    const std::map<std::string, std::vector<std::uint8_t>>& damaged_bytes, HelperRun r) {
  ASSERT_TRUE(r.ok()) << r.output;
  EXPECT_EQ(r.compiles, damaged) << r.output;
  EXPECT_EQ(r.disk_hits, kKernels - damaged) << r.output;
  EXPECT_TRUE(contains(r.output, expected_log)) << "expected '" << expected_log << "' in:\n" << r.output;
  for (const auto& f : files) {
    EXPECT_TRUE(parse_file(f)) << "not rewritten";
    auto it = damaged_bytes.find(f);
    if (it != damaged_bytes.end()) {
      EXPECT_NE(read_bytes(f), it->second) << f << " was not rewritten";
    }
  }
}

TEST_P(Cache, CorruptFileIsRebuilt) {
  ASSERT_NO_FATAL_FAILURE(fill(kKernels));
  auto files = cache_files();
  std::vector<std::uint8_t> b = read_bytes(files[1]);
  for (std::size_t i = b.size() / 2; i < b.size() / 2 + 16 && i < b.size(); ++i) b[i] ^= 0x5a;
  write_bytes(files[1], b);
  ASSERT_EQ(::chmod(files[1].c_str(), 0600), 0);
  ASSERT_FALSE(parse_file(files[1]));
  expect_rebuilt(1, "is corrupt or truncated; recompiling", files, {{files[1], b}}, run("kernels", kKernels));
  expect_valid_files(kKernels);
}

TEST_P(Cache, TruncatedFilesAreRebuilt) {
  ASSERT_NO_FATAL_FAILURE(fill(kKernels));
  auto files = cache_files();
  std::map<std::string, std::vector<std::uint8_t>> damaged;
  // One cut in the payload, one inside the header.
  for (auto [index, keep] : {std::pair<std::size_t, std::size_t>{0, 0}, {2, 10}}) {
    std::vector<std::uint8_t> b = read_bytes(files[index]);
    b.resize(keep == 0 ? b.size() / 2 : keep);
    ASSERT_EQ(::truncate(files[index].c_str(), static_cast<off_t>(b.size())), 0);
    damaged[files[index]] = b;
  }
  expect_rebuilt(2, "truncated; recompiling", files, damaged, run("kernels", kKernels));
  expect_valid_files(kKernels);
}

// A well-formed file whose binary the driver does not take is a miss, not an error.
TEST_P(Cache, BinaryTheDriverRefusesIsRebuilt) {
  ASSERT_NO_FATAL_FAILURE(fill(kKernels));
  auto files = cache_files();
  CacheFile c;
  ASSERT_TRUE(parse_file(files[3], &c));
  std::mt19937_64 g(seed());
  for (auto& byte : c.payload) byte = static_cast<std::uint8_t>(g());
  auto garbage = make_file(c.key, c.payload);
  write_bytes(files[3], garbage);
  ASSERT_TRUE(parse_file(files[3])) << "the forged file should pass the checksum";
  expect_rebuilt(1, "not loaded", files, {{files[3], garbage}}, run("kernels", kKernels));
  expect_valid_files(kKernels);
}

TEST_P(Cache, FileWritableByOthersIsNeverLoaded) {
  ASSERT_NO_FATAL_FAILURE(fill(kKernels));
  auto files = cache_files();
  ASSERT_EQ(::chmod(files[2].c_str(), 0666), 0);
  HelperRun r = run("kernels", kKernels);
  ASSERT_TRUE(r.ok()) << r.output;
  EXPECT_EQ(r.compiles, 1) << r.output;
  EXPECT_EQ(r.disk_hits, kKernels - 1) << r.output;
  EXPECT_TRUE(contains(r.output, "kernel cache file refused")) << r.output;
  EXPECT_TRUE(contains(r.output, files[2] + " is writable by other users")) << r.output;
  // Replaced by a private file.
  expect_valid_files(kKernels);
}

TEST_P(Cache, DirectoryWritableByOthersIsNeverUsed) {
  ASSERT_NO_FATAL_FAILURE(fill(kKernels));
  auto before = snapshot();
  ASSERT_EQ(::chmod(dir_.c_str(), 0777), 0);
  HelperRun r = run("kernels", kKernels);
  ASSERT_TRUE(r.ok()) << r.output;
  EXPECT_EQ(r.compiles, kKernels) << r.output;
  EXPECT_EQ(r.disk_hits, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "kernel disk cache off")) << r.output;
  EXPECT_TRUE(contains(r.output, dir_ + " is writable by other users")) << r.output;
  EXPECT_EQ(snapshot(), before) << "nothing written to a directory porta does not trust";
  // Group-writable is refused too.
  ASSERT_EQ(::chmod(dir_.c_str(), 0770), 0);
  HelperRun g = run("kernels", kKernels);
  ASSERT_TRUE(g.ok()) << g.output;
  EXPECT_EQ(g.disk_hits, 0) << g.output;
  EXPECT_TRUE(contains(g.output, "kernel disk cache off")) << g.output;
}

// Entries that are not cache files at all. Each run goes through `timeout`, so a hang fails the
// test (exit 124) instead of stopping the suite.
const std::string kTimeout = "timeout 120 ";

std::size_t count_of(const std::string& s, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = s.find(part); at != std::string::npos; at = s.find(part, at + part.size())) ++n;
  return n;
}

TEST_P(Cache, FifoEntryIsAMissNotAHang) {
  ASSERT_NO_FATAL_FAILURE(fill(kKernels));
  auto files = cache_files();
  ASSERT_EQ(::unlink(files[1].c_str()), 0);
  ASSERT_EQ(::mkfifo(files[1].c_str(), 0600), 0) << std::strerror(errno);
  HelperRun r = run("kernels", kKernels, "", kTimeout);
  ASSERT_NE(r.status, 124) << "the process hung opening the FIFO:\n" << r.output;
  ASSERT_TRUE(r.ok()) << r.output;
  EXPECT_EQ(r.compiles, 1) << r.output;
  EXPECT_EQ(r.disk_hits, kKernels - 1) << r.output;
  EXPECT_TRUE(contains(r.output, files[1] + " is not a regular file")) << r.output;
  // The rename of the rebuilt entry replaced the FIFO.
  expect_valid_files(kKernels);
}

TEST_P(Cache, HugeSparseEntryIsAMissNotAnException) {
  ASSERT_NO_FATAL_FAILURE(fill(kKernels));
  auto files = cache_files();
  // 1 TiB of nothing: more than any machine can allocate, a few blocks on disk.
  ASSERT_EQ(::truncate(files[0].c_str(), off_t{1} << 40), 0) << std::strerror(errno);
  HelperRun r = run("kernels", kKernels, "", kTimeout);
  ASSERT_TRUE(r.ok()) << r.output;
  EXPECT_EQ(r.compiles, 1) << r.output;
  EXPECT_EQ(r.disk_hits, kKernels - 1) << r.output;
  EXPECT_TRUE(contains(r.output, files[0] + " is 1099511627776 bytes, more than the")) << r.output;
  expect_valid_files(kKernels);
}

TEST_P(Cache, StaleTemporaryFilesAreRemoved) {
  ASSERT_NO_FATAL_FAILURE(fill(kKernels));
  // What a writer killed between mkstemp and rename leaves, an hour old; and one a live writer
  // could be writing now, which must stay.
  std::string stale = dir_ + "/.tmp-kill9x", fresh = dir_ + "/.tmp-livewr";
  write_bytes(stale, {1, 2, 3, 4});
  write_bytes(fresh, {5, 6, 7, 8});
  struct timeval old[2] = {};
  ::gettimeofday(&old[0], nullptr);
  old[0].tv_sec -= 3600;
  old[1] = old[0];
  ASSERT_EQ(::utimes(stale.c_str(), old), 0) << std::strerror(errno);
  HelperRun r = run("kernels", kKernels, "", kTimeout);
  ASSERT_TRUE(r.ok()) << r.output;
  EXPECT_EQ(r.disk_hits, kKernels) << r.output;
  EXPECT_FALSE(fs::exists(stale)) << r.output;
  EXPECT_TRUE(contains(r.output, "removed " + stale)) << r.output;
  EXPECT_TRUE(fs::exists(fresh)) << "a temporary file seconds old may belong to a live writer";
  fs::remove(fresh);
  expect_valid_files(kKernels);
}

TEST_P(Cache, ParentWritableByOthersWithoutStickyBitIsWarnedOnce) {
  ASSERT_NO_FATAL_FAILURE(fill(kKernels));
  const std::string warning = "is writable by other users without the sticky bit";
  // At the default level (warn), once per process however many kernels it loads; the cache is
  // still used: each file is checked on its own.
  ASSERT_EQ(::chmod(root_.c_str(), 0777), 0);
  HelperRun r = run("kernels", kKernels, "PORTA_LOG=warn", kTimeout);
  ASSERT_EQ(::chmod(root_.c_str(), 0700), 0);
  ASSERT_TRUE(r.ok()) << r.output;
  EXPECT_EQ(r.disk_hits, kKernels) << r.output;
  EXPECT_EQ(count_of(r.output, warning), 1u) << r.output;
  EXPECT_TRUE(contains(r.output, "its parent directory " + root_ + " (mode 777)")) << r.output;
  // Group-writable counts too; with the sticky bit (as /tmp has) nobody can rename the directory.
  ASSERT_EQ(::chmod(root_.c_str(), 0770), 0);
  HelperRun g = run("kernels", kKernels, "PORTA_LOG=warn", kTimeout);
  ASSERT_EQ(::chmod(root_.c_str(), 01777), 0);
  HelperRun sticky = run("kernels", kKernels, "PORTA_LOG=warn", kTimeout);
  ASSERT_EQ(::chmod(root_.c_str(), 0700), 0);
  EXPECT_EQ(count_of(g.output, warning), 1u) << g.output;
  ASSERT_TRUE(sticky.ok()) << sticky.output;
  EXPECT_EQ(count_of(sticky.output, warning), 0u) << sticky.output;
}

TEST_P(Cache, OffWritesNothing) {
  HelperRun r = run("kernels", kKernels, "PORTA_CACHE=off");
  ASSERT_TRUE(r.ok()) << r.output;
  EXPECT_EQ(r.compiles, kKernels) << r.output;
  EXPECT_FALSE(fs::exists(dir_)) << "PORTA_CACHE=off created " << dir_;
  // A filled directory is not read either.
  ASSERT_NO_FATAL_FAILURE(fill(kKernels));
  auto before = snapshot();
  HelperRun again = run("kernels", kKernels, "PORTA_CACHE=off");
  ASSERT_TRUE(again.ok()) << again.output;
  EXPECT_EQ(again.compiles, kKernels) << again.output;
  EXPECT_EQ(again.disk_hits, 0) << again.output;
  EXPECT_EQ(snapshot(), before);
}

TEST_P(Cache, ThreadsAskingForOneNewKernelCompileItOnce) {
  constexpr int kThreads = 8;
  HelperRun r = run("threads", kThreads);
  ASSERT_TRUE(r.ok()) << r.output;
  EXPECT_EQ(r.compiles, 1) << r.output;
  EXPECT_EQ(r.disk_hits, 0) << r.output;
  EXPECT_EQ(r.memory_hits, kThreads - 1) << r.output;
  expect_valid_files(1);
  // Without the disk cache, too.
  HelperRun off = run("threads", kThreads, "PORTA_CACHE=off");
  ASSERT_TRUE(off.ok()) << off.output;
  EXPECT_EQ(off.compiles, 1) << off.output;
  EXPECT_EQ(off.memory_hits, kThreads - 1) << off.output;
}

PORTA_INSTANTIATE_DEVICES(Cache);

}  // namespace
}  // namespace porta_test
