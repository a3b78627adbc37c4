// Whether NVIDIA's OpenCL runs a work-group with more local memory than the 48 KiB that
// CL_DEVICE_LOCAL_MEM_SIZE reports (the H200 has 227 KiB of shared memory a block; CUDA grants
// more than 48 KiB of dynamic shared memory only after cuFuncSetAttribute). Each size is given
// to a kernel as a __local argument (dynamic shared memory), which every work-item fills and
// reads back crosswise after a barrier; the probe prints each call's status and the errors.
//
// Build: g++ -O1 -std=c++17 local_mem_probe.cpp -lOpenCL -o local_mem_probe
// Seen on the H200 (driver 580, 2026-12-04): CL_DEVICE_LOCAL_MEM_SIZE 49152; 16 KiB ran; 48 KiB,
// 48 KiB + 4, 64, 96, 163 and 227 KiB each CL_OUT_OF_RESOURCES (-5) at clEnqueueNDRangeKernel.
#include "nvidia_cl.hpp"

#include <cstdint>
#include <cstdio>
#include <vector>

namespace {
const char* kSource = R"(
__kernel void fill_read(__global uint* errors, __local uint* buf, uint words) {
  const uint t = get_local_id(0), n = get_local_size(0), g = get_group_id(0);
  for (uint i = t; i < words; i += n) buf[i] = i * 2654435761u + g;
  barrier(CLK_LOCAL_MEM_FENCE);
  uint bad = 0;
  for (uint i = t; i < words; i += n) {
    const uint j = words - 1 - i;
    bad += buf[j] != j * 2654435761u + g;
  }
  if (bad) atomic_add(errors, bad);
}
)";
}  // namespace

int main(int argc, char** argv) {
  const ProbeStart start = start_probe(argc, argv, kSource);
  if (start.exit >= 0) return start.exit;
  const NvidiaCl& cl = start.cl;
  cl_ulong reported = 0;
  clGetDeviceInfo(cl.dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof reported, &reported, nullptr);
  std::printf("CL_DEVICE_LOCAL_MEM_SIZE %llu\n", static_cast<unsigned long long>(reported));
  cl_int st = CL_SUCCESS;
  cl_kernel k = clCreateKernel(start.src, "fill_read", &st);
  cl_mem errors = clCreateBuffer(cl.ctx, CL_MEM_READ_WRITE, 4, nullptr, &st);
  bool any_above = false;
  for (std::size_t bytes : {16384ul, 49152ul, 49156ul, 65536ul, 98304ul, 166912ul, 232448ul}) {
    const cl_uint zero = 0, words = static_cast<cl_uint>(bytes / 4);
    clEnqueueWriteBuffer(cl.q, errors, CL_TRUE, 0, 4, &zero, 0, nullptr, nullptr);
    cl_int a0 = clSetKernelArg(k, 0, sizeof errors, &errors);
    cl_int a1 = clSetKernelArg(k, 1, bytes, nullptr);
    cl_int a2 = clSetKernelArg(k, 2, sizeof words, &words);
    const std::size_t local = 256, global = 256 * 264;
    cl_int run = clEnqueueNDRangeKernel(cl.q, k, 1, nullptr, &global, &local, 0, nullptr, nullptr);
    cl_int fin = clFinish(cl.q);
    cl_uint bad = 0xffffffffu;
    cl_int rd = clEnqueueReadBuffer(cl.q, errors, CL_TRUE, 0, 4, &bad, 0, nullptr, nullptr);
    std::printf("%zu bytes: set args %d %d %d, enqueue %d, finish %d, read %d, errors %u\n", bytes, a0, a1, a2, run, fin, rd, bad);
    if (bytes > 49152 && run == CL_SUCCESS && fin == CL_SUCCESS && rd == CL_SUCCESS && bad == 0) any_above = true;
  }
  std::printf("RESULT: %s\n", any_above ? "a work-group ran with more than 48 KiB of local memory" : "48 KiB is the limit");
  return 0;
}
