// The runner of porta_mpi's tests under mpirun: MPI at porta's thread level, every rank runs every
// test in the same order (the collectives inside them must meet), rank 0 prints GoogleTest's
// report, the other ranks print only their failures, and the exit code is the worst of all ranks,
// so a failure on any rank fails the run.
#include <gtest/gtest.h>

#include <porta/mpi.hpp>
#include <porta/porta.hpp>

#include <cstdio>
#include <iostream>
#include <string>

namespace {

// What a rank other than 0 prints: its failures, each named with the rank and the test.
class RankFailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit RankFailurePrinter(int rank) : rank_(rank) {}
  // The name is kept here: asking UnitTest::current_test_info() from OnTestPartResult deadlocks
  // (GoogleTest holds its own lock while it reports a result).
  void OnTestStart(const ::testing::TestInfo& test) override {
    test_ = std::string(test.test_suite_name()) + "." + test.name();
  }
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (!r.failed()) return;
    std::cout << "[rank " << rank_ << "] FAILED " << test_ << " at " << (r.file_name() ? r.file_name() : "?") << ":"
              << r.line_number() << "\n"
              << r.summary() << std::endl;
  }

 private:
  int rank_;
  std::string test_;
};

}  // namespace

int main(int argc, char** argv) {
  porta::mpi::Environment env(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new RankFailurePrinter(rank));
  } else {
    const auto info = porta::mpi::library_info();
    std::cout << "porta_mpi tests on " << size << " ranks; " << info.mpi_library << "; thread level "
              << env.thread_level() << "; devices:";
    for (const auto& d : porta::devices()) std::cout << "  " << d.spec() << " (" << d.name() << ")";
    std::cout << std::endl;
  }
  const int rc = RUN_ALL_TESTS();
  int worst = rc;
  MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0 && worst != 0 && rc == 0) std::cout << "FAILED: tests failed on another rank (see [rank N] lines)\n";
  return worst;
}
