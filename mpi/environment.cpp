// MPI start-up and shut-down for programs that let porta do it, and MPI error checks.
#include "mpi_impl.hpp"

#include <cstdio>

namespace porta::mpi {

std::string_view name(Op op) {
  switch (op) {
    case Op::sum: return "sum";
    case Op::prod: return "prod";
    case Op::min: return "min";
    case Op::max: return "max";
  }
  return "unknown op";
}

Environment::Environment(int* argc, char*** argv) {
  int initialized = 0;
  detail::check(MPI_Initialized(&initialized), "MPI_Initialized");
  if (initialized) {
    detail::check(MPI_Query_thread(&provided_), "MPI_Query_thread");
  } else {
    detail::check(MPI_Init_thread(argc, argv, kThreadLevel, &provided_), "MPI_Init_thread");
    owns_ = true;
  }
  if (provided_ < MPI_THREAD_SERIALIZED) {
    if (owns_) MPI_Finalize();
    throw Error("porta::mpi: the MPI library gives thread level " + std::to_string(provided_) +
                " but porta needs at least MPI_THREAD_SERIALIZED (" + std::to_string(MPI_THREAD_SERIALIZED) +
                "); initialise MPI with MPI_Init_thread(..., MPI_THREAD_MULTIPLE, ...)");
  }
}

Environment::~Environment() {
  if (!owns_) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) detail::check_noexcept(MPI_Finalize(), "MPI_Finalize");
}

namespace detail {

static std::string error_text(int rc) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) return "MPI error " + std::to_string(rc);
  return std::string(text, static_cast<std::size_t>(len));
}

void check(int rc, const char* call) {
  if (rc != MPI_SUCCESS) throw Error(std::string("porta::mpi: ") + call + " failed: " + error_text(rc));
}

void check_noexcept(int rc, const char* call) noexcept {
  if (rc != MPI_SUCCESS) std::fprintf(stderr, "porta::mpi: %s failed: %s\n", call, error_text(rc).c_str());
}

}  // namespace detail
}  // namespace porta::mpi
