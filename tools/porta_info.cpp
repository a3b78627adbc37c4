// porta-info: what porta sees on this machine, in the spirit of clinfo and nvidia-smi: every
// backend (built? loaded? why not), every setting with its value and where it came from, every
// device, and the default device. Exits with status 2 and the message when PORTA_BACKEND or
// PORTA_DEVICE names something that does not exist. --settings-markdown prints the table of
// docs/guide/settings.md (CTest's settings.doc compares the two).
#include <porta/porta.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "porta_backend/disk_cache.hpp"
#include "porta_backend/services.hpp"
#include "porta_backend/strings.hpp"
#if defined(PORTA_HAVE_MPI_SUMMARY)
#include "porta_mpi_summary.h"
#endif

namespace {

std::string dtypes_of(const porta::Device& d) {
  std::vector<std::string> names;
  for (porta::DType t : porta::all_dtypes())
    if (d.supports(t)) names.emplace_back(porta::name(t));
  return porta::detail::join(names, " ");
}

// The dtypes a device lacks, each with why: the device's hardware (double or half precision), or
// porta's kernels, which do not compute the dtype yet (core_computes: the same on every device).
std::string missing_dtypes_of(const porta::Device& d) {
  std::vector<std::string> hardware, not_yet;
  for (porta::DType t : porta::all_dtypes()) {
    if (d.supports(t)) continue;
    if (!porta::detail::core_computes(t)) {
      not_yet.emplace_back(porta::name(t));
    } else if (t == porta::DType::float64 || t == porta::DType::complex128) {
      hardware.push_back(std::string(porta::name(t)) + (t == porta::DType::complex128 ? " (its parts are float64)" : "") +
                         ": no double precision on the device (OpenCL's cl_khr_fp64)");
    } else if (t == porta::DType::float16) {
      hardware.push_back("float16: no half precision on the device");
    } else {
      hardware.push_back(std::string(porta::name(t)) + ": the backend does not declare it");
    }
  }
  std::string out = porta::detail::join(hardware, "; ");
  if (!not_yet.empty()) {
    if (!out.empty()) out += "; ";
    out += porta::detail::join(not_yet, " ") + ": porta's kernels do not compute " + (not_yet.size() == 1 ? "it" : "them") +
           " yet (on any device)";
  }
  return out;
}

// The table's words without Markdown's backticks, for the terminal.
std::string plain(std::string text) {
  std::erase(text, '`');
  return text;
}

void print_settings() {
  auto all = porta::settings();
  for (const char* audience : {"user", "tuning"}) {
    std::printf("%s", std::string(audience) == "user" ? "\nSettings (docs/guide/settings.md):\n"
                                                      : "\nTuning settings, for porta's own tests, benchmarks and probes:\n");
    for (const auto& s : all) {
      if (s.audience != audience) continue;
      std::printf("  %-29s %-12s %s\n", s.name.c_str(), s.source.c_str(), plain(s.value).c_str());
      if (!s.problem.empty()) std::printf("  %-29s bad value: %s\n", "", plain(s.problem).c_str());
    }
  }
}

// A table cell: no line breaks, and '|' escaped.
std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

// The tables of docs/guide/settings.md, from porta's settings table (src/base/settings.cpp).
void print_settings_markdown() {
  auto all = porta::settings();
  for (const char* audience : {"user", "tuning"}) {
    bool user = std::string(audience) == "user";
    std::printf("%s", user ? "### For users\n\n" : "\n### Tuning: for porta's own tests, benchmarks and probes\n\n");
    std::printf("| variable | values | default | read | bad value | meaning |\n|---|---|---|---|---|---|\n");
    for (const auto& s : all) {
      if (s.audience != audience) continue;
      std::string bad = s.bad_value == "error" ? "error: " + s.why_error : s.bad_value;
      std::printf("| `%s` | %s: %s | %s | %s | %s | %s |\n", s.name.c_str(), s.type.c_str(), cell(s.values).c_str(),
                  cell(s.default_value).c_str(), cell(s.read).c_str(), cell(bad).c_str(), cell(s.meaning).c_str());
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      std::printf("usage: porta-info [--settings-markdown]\nLists porta's backends, the kernel disk cache, every setting "
                  "(PORTA_* environment variables) with its value and source,\ndevices and the default device.\n"
                  "--settings-markdown prints the settings' table as Markdown (docs/guide/settings.md) and nothing else.\n");
      return 0;
    }
    if (a == "--settings-markdown") {
      print_settings_markdown();
      return 0;
    }
    std::fprintf(stderr, "porta-info: unknown argument '%s' (try --help)\n", a.c_str());
    return 2;
  }
  std::printf("porta %s\n\nBackends:\n", PORTA_VERSION);
  for (const auto& b : porta::backends()) {
    std::string state = !b.built ? "not built" : b.loaded ? "loaded" : "unavailable";
    std::printf("  %-7s %-12s", std::string(porta::name(b.backend)).c_str(), state.c_str());
    if (b.loaded)
      std::printf("%d device%s  %s\n", b.device_count, b.device_count == 1 ? "" : "s", b.version.c_str());
    else
      std::printf("%s\n", b.reason.rfind("not built: ", 0) == 0 ? b.reason.c_str() + 11 : b.reason.c_str());
    if (b.loaded && !b.plugin_path.empty()) std::printf("          plugin %s\n", b.plugin_path.c_str());
  }
#if defined(PORTA_HAVE_MPI_SUMMARY)
  // Written by mpi/CMakeLists.txt at configure time: porta-info does not link MPI.
  std::printf("\nMPI: %s\n", PORTA_MPI_SUMMARY);
#endif
  const auto& cache = porta::detail::DiskCache::get();
  if (cache.enabled()) {
    auto u = cache.usage();
    std::printf("\nKernel cache: %s (%llu files, %s)\n", cache.directory().c_str(), static_cast<unsigned long long>(u.files),
                porta::detail::format_bytes(u.bytes).c_str());
  } else {
    std::printf("\nKernel cache: off (%s)\n", cache.why_disabled().c_str());
  }
  print_settings();
  try {
    auto devs = porta::devices();
    std::printf("\nDevices:\n");
    if (devs.empty()) std::printf("  (none)\n");
    for (const auto& d : devs) {
      std::printf("  %-9s %s\n", d.spec().c_str(), d.name().c_str());
      std::printf("            kind %s, vendor %s, platform %s, driver %s\n", std::string(porta::name(d.kind())).c_str(),
                  d.vendor().c_str(), d.platform().c_str(), d.driver_version().c_str());
      std::printf("            memory %s, compute units %d%s%s%s\n", porta::detail::format_bytes(d.memory_bytes()).c_str(),
                  d.compute_units(), d.pci_bus_id().empty() ? "" : ", PCI ", d.pci_bus_id().c_str(),
                  d.max_local_bytes() ? (", local memory " + porta::detail::format_bytes(d.max_local_bytes()) + " per group").c_str() : "");
      std::printf("            dtypes %s; %s\n", dtypes_of(d).c_str(),
                  d.compiles_at_runtime() ? "compiles kernels at run time" : "runs plans through the block interpreter");
      if (auto missing = missing_dtypes_of(d); !missing.empty()) std::printf("            lacks %s\n", missing.c_str());
      if (auto m = d.matmul_path(); !m.empty()) std::printf("            matmul: %s\n", m.c_str());
      const auto& caps = d.impl().info().caps;
      std::printf("            fft: %s\n", caps.fft.empty() ? "none (porta::fft refuses this device)"
                                                             : caps.fft_max_rank > 1 ? porta::detail::cat(caps.fft, ", up to ", caps.fft_max_rank, " axes a plan").c_str()
                                                             : porta::detail::cat(caps.fft, ", one axis a plan").c_str());
      if (auto s = d.solver_path(); !s.empty()) std::printf("            linalg: %s\n", s.c_str());
    }
    // What each backend with devices here tells about itself (the OpenCL matmul paths).
    for (const auto& b : porta::backends())
      if (b.loaded && !b.notes.empty() &&
          std::any_of(devs.begin(), devs.end(), [&](const porta::Device& d) { return d.backend() == b.backend; }))
        std::printf("\n%s", b.notes.c_str());
    auto def = porta::default_device();
    std::printf("\nDefault device: %s (%s)\n", def.spec().c_str(), def.name().c_str());
  } catch (const porta::Error& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "porta-info: %s\n", e.what());
    return 2;
  }
  return 0;
}
