// porta's settings table and its parser (src/base/settings.cpp, <porta/settings.hpp>): each
// type's good values, a bad value under each policy (a warning naming the variable, the value and
// the default, once a value; or InvalidArgument), names the table lacks, the source reported.
// CTest runs it with PORTA_LOG=warn, so that the warnings are written.
#include <gtest/gtest.h>

#include <porta/porta.hpp>

#include <algorithm>
#include <set>
#include <string>

#include "porta_backend/log.hpp"
#include "porta_backend/settings.hpp"
#include "test_common.hpp"

namespace {

using porta_test::ScopedEnv;
using porta_test::thrown_message;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// What `fn` writes to stderr (porta's log).
template <class F>
std::string log_of(F&& fn) {
  testing::internal::CaptureStderr();
  fn();
  return testing::internal::GetCapturedStderr();
}

porta::SettingInfo info_of(const std::string& name) {
  for (auto& s : porta::settings())
    if (s.name == name) return s;
  ADD_FAILURE() << name << " is not in porta::settings()";
  return {};
}

void require_warnings() {
  if (!porta::detail::log_enabled(porta::detail::LogLevel::warn))
    GTEST_SKIP() << "PORTA_LOG is set below warn; CTest runs this test with PORTA_LOG=warn";
}

TEST(SettingsTable, EveryRowIsComplete) {
  auto all = porta::settings();
  EXPECT_GE(all.size(), 22u);
  std::set<std::string> names;
  for (const auto& s : all) {
    SCOPED_TRACE(s.name);
    EXPECT_TRUE(s.name.starts_with("PORTA_"));
    EXPECT_TRUE(names.insert(s.name).second) << "listed twice";
    for (const std::string* field : {&s.type, &s.values, &s.default_value, &s.read, &s.meaning})
      EXPECT_FALSE(field->empty());
    EXPECT_TRUE(s.audience == "user" || s.audience == "tuning") << s.audience;
    EXPECT_TRUE(s.bad_value == "warn" || s.bad_value == "error" || s.bad_value == "not checked") << s.bad_value;
    EXPECT_EQ(s.why_error.empty(), s.bad_value != "error") << "an error policy says why, and only it";
    EXPECT_EQ(s.meaning.find('\n'), std::string::npos) << "one line";
  }
  // The settings read through getenv before the table, and the MPI and Python ones.
  for (const char* n : {"PORTA_BACKEND", "PORTA_DEVICE", "PORTA_PLUGIN_PATH", "PORTA_LOG", "PORTA_MATMUL", "PORTA_ALLOC",
                        "PORTA_LAUNCH", "PORTA_CACHE", "PORTA_CACHE_DIR", "PORTA_OPENCL_GEMM", "PORTA_OPENCL_GEMM_SHAPE",
                        "PORTA_OPENCL_GEMM_SEARCH", "PORTA_OPENCL_GEMM_CANDIDATES", "PORTA_OPENCL_COMMAND_BUFFER",
                        "PORTA_RADIX", "PORTA_RADIX_BLOCKS", "PORTA_SORT", "PORTA_ONESWEEP", "PORTA_SORT_ITEMS", "PORTA_SORT_FLOAT_KEY", "PORTA_EW_VECTOR",
                        "PORTA_SCAN", "PORTA_SCAN_ITEMS", "PORTA_SCAN_WINDOW",
                        "PORTA_SCAN_BLOCKS", "PORTA_REDUCE_GROUPS", "PORTA_REDUCE_UNROLL", "PORTA_GIL_HOLD_US", "PORTA_MPI_NCCL_SHARED_GPU"})
    EXPECT_TRUE(names.count(n)) << n;
  EXPECT_FALSE(names.count("PORTA_SCAN_LOAD")) << "nothing reads it";
  EXPECT_EQ(info_of("PORTA_SCAN_ITEMS").audience, "tuning");
  EXPECT_EQ(info_of("PORTA_MATMUL").audience, "user");
}

TEST(SettingsTable, SourceIsEnvironmentOrDefault) {
  {
    ScopedEnv env("PORTA_SCAN_WINDOW", nullptr);
    auto s = info_of("PORTA_SCAN_WINDOW");
    EXPECT_EQ(s.source, "default");
    EXPECT_EQ(s.value, "64");
    EXPECT_TRUE(s.problem.empty());
  }
  {
    ScopedEnv env("PORTA_SCAN_WINDOW", "");  // empty is unset
    EXPECT_EQ(info_of("PORTA_SCAN_WINDOW").source, "default");
  }
  {
    ScopedEnv env("PORTA_SCAN_WINDOW", "128");
    auto s = info_of("PORTA_SCAN_WINDOW");
    EXPECT_EQ(s.source, "environment");
    EXPECT_EQ(s.value, "128");
    EXPECT_TRUE(s.problem.empty());
  }
  {
    ScopedEnv env("PORTA_SCAN_WINDOW", "999");
    auto s = info_of("PORTA_SCAN_WINDOW");
    EXPECT_EQ(s.value, "999");
    EXPECT_TRUE(contains(s.problem, "1 to 256")) << s.problem;
  }
  {
    ScopedEnv env("PORTA_MATMUL", "fast");
    auto s = info_of("PORTA_MATMUL");
    EXPECT_TRUE(contains(s.problem, "exact is used")) << s.problem;
  }
}

TEST(SettingsParser, ChoicesInAnyCaseAndAliases) {
  {
    ScopedEnv env("PORTA_MATMUL", nullptr);
    EXPECT_EQ(porta::setting_choice("PORTA_MATMUL"), "exact");
  }
  {
    ScopedEnv env("PORTA_MATMUL", " TF32 ");
    EXPECT_EQ(porta::setting_choice("PORTA_MATMUL"), "tf32");
  }
  {
    ScopedEnv env("PORTA_LOG", "Warning");
    EXPECT_EQ(porta::setting_choice("PORTA_LOG"), "warn");
  }
  for (const char* v : {"auto", "serial", "tiled", "ballot"}) {
    ScopedEnv env("PORTA_RADIX", v);
    EXPECT_EQ(porta::setting_choice("PORTA_RADIX"), v);
  }
}

TEST(SettingsParser, BadChoiceWarnsOnceAndUsesTheDefault) {
  require_warnings();
  ScopedEnv env("PORTA_ALLOC", "pooled");
  std::string choice;
  std::string log = log_of([&] { choice = porta::setting_choice("PORTA_ALLOC"); });
  EXPECT_EQ(choice, "cached");
  EXPECT_TRUE(contains(log, "PORTA_ALLOC=pooled")) << log;
  EXPECT_TRUE(contains(log, "not one of cached, direct")) << log;
  EXPECT_TRUE(contains(log, "using cached")) << log;
  EXPECT_EQ(log_of([&] { porta::setting_choice("PORTA_ALLOC"); }), "") << "once a value";
  ScopedEnv other("PORTA_ALLOC", "pooled2");
  EXPECT_TRUE(contains(log_of([&] { porta::setting_choice("PORTA_ALLOC"); }), "PORTA_ALLOC=pooled2"));
}

TEST(SettingsParser, BadChoiceOfATestKnobIsAnError) {
  ScopedEnv env("PORTA_RADIX", "fastest");
  std::string msg = thrown_message<porta::InvalidArgument>([] { porta::setting_choice("PORTA_RADIX"); });
  EXPECT_TRUE(contains(msg, "PORTA_RADIX=fastest")) << msg;
  EXPECT_TRUE(contains(msg, "auto, serial, tiled, ballot")) << msg;
  ScopedEnv scan("PORTA_SCAN", "groups");
  msg = thrown_message<porta::InvalidArgument>([] { porta::setting_choice("PORTA_SCAN"); });
  EXPECT_TRUE(contains(msg, "PORTA_SCAN=groups")) << msg;
}

TEST(SettingsParser, Flags) {
  {
    ScopedEnv env("PORTA_CACHE", nullptr);
    EXPECT_TRUE(porta::setting_flag("PORTA_CACHE"));
    ScopedEnv mpi("PORTA_MPI_NCCL_SHARED_GPU", nullptr);
    EXPECT_FALSE(porta::setting_flag("PORTA_MPI_NCCL_SHARED_GPU"));
  }
  for (const char* v : {"off", "OFF", "0", "false", "No"}) {
    ScopedEnv env("PORTA_CACHE", v);
    EXPECT_FALSE(porta::setting_flag("PORTA_CACHE")) << v;
  }
  for (const char* v : {"on", "1", "TRUE", "yes"}) {
    ScopedEnv env("PORTA_MPI_NCCL_SHARED_GPU", v);
    EXPECT_TRUE(porta::setting_flag("PORTA_MPI_NCCL_SHARED_GPU")) << v;
  }
}

TEST(SettingsParser, BadFlagWarnsAndUsesTheDefault) {
  require_warnings();
  ScopedEnv env("PORTA_OPENCL_COMMAND_BUFFER", "disabled");
  bool on = false;
  std::string log = log_of([&] { on = porta::setting_flag("PORTA_OPENCL_COMMAND_BUFFER"); });
  EXPECT_TRUE(on);
  EXPECT_TRUE(contains(log, "PORTA_OPENCL_COMMAND_BUFFER=disabled")) << log;
  EXPECT_TRUE(contains(log, "using on")) << log;
}

TEST(SettingsParser, Integers) {
  {
    ScopedEnv env("PORTA_SCAN_WINDOW", nullptr);
    EXPECT_EQ(porta::setting_int("PORTA_SCAN_WINDOW"), 64);
    ScopedEnv items("PORTA_SCAN_ITEMS", nullptr);
    EXPECT_EQ(porta::setting_int("PORTA_SCAN_ITEMS"), std::nullopt) << "the device decides";
  }
  {
    ScopedEnv env("PORTA_SCAN_WINDOW", " 3 ");
    EXPECT_EQ(porta::setting_int("PORTA_SCAN_WINDOW"), 3);
  }
  for (int v : {2, 4, 8, 16, 32}) {
    ScopedEnv env("PORTA_SCAN_ITEMS", std::to_string(v).c_str());
    EXPECT_EQ(porta::setting_int("PORTA_SCAN_ITEMS"), v);
  }
  for (const char* bad : {"5", "64", "1", "16abc", "-2", "sixteen"}) {
    ScopedEnv env("PORTA_SCAN_ITEMS", bad);
    std::string msg = thrown_message<porta::InvalidArgument>([] { porta::setting_int("PORTA_SCAN_ITEMS"); });
    EXPECT_TRUE(contains(msg, std::string("PORTA_SCAN_ITEMS=") + bad)) << msg;
    EXPECT_TRUE(contains(msg, "a power of two from 2 to 32")) << msg;
  }
  ScopedEnv blocks("PORTA_RADIX_BLOCKS", "9");
  EXPECT_THROW(porta::setting_int("PORTA_RADIX_BLOCKS"), porta::InvalidArgument);
}

TEST(SettingsParser, Numbers) {
  {
    ScopedEnv env("PORTA_GIL_HOLD_US", nullptr);
    EXPECT_EQ(porta::setting_number("PORTA_GIL_HOLD_US"), 8.0);
  }
  for (auto [text, value] : {std::pair{"0", 0.0}, std::pair{"2.5", 2.5}, std::pair{"100", 100.0}}) {
    ScopedEnv env("PORTA_GIL_HOLD_US", text);
    EXPECT_EQ(porta::setting_number("PORTA_GIL_HOLD_US"), value) << text;
  }
}

TEST(SettingsParser, BadNumberWarnsAndUsesTheDefault) {
  require_warnings();
  for (const char* bad : {"-1", "fast", "8us", "nan"}) {
    ScopedEnv env("PORTA_GIL_HOLD_US", bad);
    double v = -1;
    std::string log = log_of([&] { v = porta::setting_number("PORTA_GIL_HOLD_US"); });
    EXPECT_EQ(v, 8.0) << bad;
    EXPECT_TRUE(contains(log, std::string("PORTA_GIL_HOLD_US=") + bad)) << log;
    EXPECT_TRUE(contains(log, "using 8")) << log;
  }
}

TEST(SettingsParser, TextAndPaths) {
  {
    ScopedEnv env("PORTA_DEVICE", nullptr);
    EXPECT_EQ(porta::setting_text("PORTA_DEVICE"), std::nullopt);
  }
  {
    ScopedEnv env("PORTA_DEVICE", "  opencl:0 ");
    EXPECT_EQ(porta::setting_text("PORTA_DEVICE"), "opencl:0");
  }
  {
    ScopedEnv env("PORTA_DEVICE", "   ");
    EXPECT_EQ(porta::setting_text("PORTA_DEVICE"), std::nullopt);
  }
  {
    ScopedEnv env("PORTA_CACHE_DIR", "/tmp/a dir ");
    EXPECT_EQ(porta::setting_text("PORTA_CACHE_DIR"), "/tmp/a dir ") << "a path is taken as it is";
  }
}

TEST(SettingsParser, ReadersThatParseThemselvesTakeThePolicy) {
  std::string msg = thrown_message<porta::InvalidArgument>(
      [] { porta::detail::bad_setting("PORTA_OPENCL_GEMM", "fastest", "not a matmul path"); });
  EXPECT_EQ(msg, "PORTA_OPENCL_GEMM=fastest: not a matmul path");
  require_warnings();
  std::string log = log_of([] { porta::detail::bad_setting("PORTA_LAUNCH", "later", "not one of auto, thread, sync"); });
  EXPECT_TRUE(contains(log, "PORTA_LAUNCH=later: not one of auto, thread, sync; using auto")) << log;
}

TEST(SettingsParser, NamesTheTableLacksAreRefused) {
  std::string msg = thrown_message<porta::InvalidArgument>([] { porta::setting_text("PORTA_SCAN_LOAD"); });
  EXPECT_TRUE(contains(msg, "PORTA_SCAN_LOAD")) << msg;
  EXPECT_TRUE(contains(msg, "src/base/settings.cpp")) << msg;
  EXPECT_THROW(porta::setting_flag("PORTA_NOPE"), porta::InvalidArgument);
  EXPECT_THROW(porta::detail::bad_setting("PORTA_NOPE", "x", "y"), porta::InvalidArgument);
  // A getter of another type is the same kind of mistake.
  EXPECT_THROW(porta::setting_int("PORTA_MATMUL"), porta::InvalidArgument);
  EXPECT_THROW(porta::setting_flag("PORTA_SCAN_WINDOW"), porta::InvalidArgument);
}

// A test knob with a bad value stops the operation it forces: PORTA_RADIX is read at each sort.
TEST(SettingsInUse, BadRadixStopsTheSort) {
  for (const auto& d : porta::devices()) {
    if (!d.compiles_at_runtime()) continue;
    SCOPED_TRACE(d.spec());
    ScopedEnv env("PORTA_RADIX", "fastest");
    std::string msg = thrown_message<porta::InvalidArgument>(
        [&] { porta::sort(porta::arange(100, porta::DType::int32, d)).eval(); });
    EXPECT_TRUE(contains(msg, "PORTA_RADIX=fastest")) << msg;
  }
}

}  // namespace
