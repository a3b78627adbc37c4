// porta: one array API over every GPU a machine has (CUDA, OpenCL, Kokkos).
#pragma once

#include <porta/array.hpp>
#include <porta/device.hpp>
#include <porta/dtype.hpp>
#include <porta/error.hpp>
#include <porta/event.hpp>
#include <porta/fft.hpp>
#include <porta/graph.hpp>
#include <porta/index.hpp>
#include <porta/kernel.hpp>
#include <porta/linalg.hpp>
#include <porta/manip.hpp>
#include <porta/ops.hpp>
#include <porta/pool.hpp>
#include <porta/random.hpp>
#include <porta/reduce.hpp>
#include <porta/scan.hpp>
#include <porta/settings.hpp>
#include <porta/sort.hpp>
