// Opt-in: DLPack's structs for porta's to_dlpack / from_dlpack (<porta/interop.hpp>). Takes the
// installed <dlpack/dlpack.h> where there is one; where it is older than 1.0 (Debian's
// libdlpack-dev is 0.6, without DLManagedTensorVersioned) the 1.x structs are added here with
// DLPack 1.x's exact layout and names, so code written for 1.x builds; a 1.x dlpack.h, included
// before or instead, defines them itself and nothing is added. Without any dlpack.h, the whole
// 1.x header's part that porta uses is defined here.
#pragma once

#if __has_include(<dlpack/dlpack.h>)
#include <dlpack/dlpack.h>
#endif

#include <stddef.h>
#include <stdint.h>

#ifndef DLPACK_DLPACK_H_
// No dlpack.h: the 0.x part of DLPack, as dlpack.h 1.x defines it.
#define DLPACK_DLPACK_H_
extern "C" {
typedef enum {
  kDLCPU = 1,
  kDLCUDA = 2,
  kDLCUDAHost = 3,
  kDLOpenCL = 4,
  kDLVulkan = 7,
  kDLMetal = 8,
  kDLVPI = 9,
  kDLROCM = 10,
  kDLROCMHost = 11,
  kDLExtDev = 12,
  kDLCUDAManaged = 13,
  kDLOneAPI = 14,
  kDLWebGPU = 15,
  kDLHexagon = 16,
} DLDeviceType;
typedef struct {
  DLDeviceType device_type;
  int32_t device_id;
} DLDevice;
typedef enum {
  kDLInt = 0U,
  kDLUInt = 1U,
  kDLFloat = 2U,
  kDLOpaqueHandle = 3U,
  kDLBfloat = 4U,
  kDLComplex = 5U,
  kDLBool = 6U,
} DLDataTypeCode;
typedef struct {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
} DLDataType;
typedef struct {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;
  uint64_t byte_offset;
} DLTensor;
typedef struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(struct DLManagedTensor* self);
} DLManagedTensor;
}
#endif

#ifndef DLPACK_MAJOR_VERSION
// dlpack.h before 1.0: the versioned form of DLPack 1.x, with its layout.
#define DLPACK_MAJOR_VERSION 1
#define DLPACK_MINOR_VERSION 0
#define DLPACK_FLAG_BITMASK_READ_ONLY (1UL << 0UL)
#define DLPACK_FLAG_BITMASK_IS_COPIED (1UL << 1UL)
extern "C" {
typedef struct {
  uint32_t major;
  uint32_t minor;
} DLPackVersion;
typedef struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(struct DLManagedTensorVersioned* self);
  uint64_t flags;
  DLTensor dl_tensor;
} DLManagedTensorVersioned;
}
#endif

namespace porta {
// DLPack's bool type code (kDLBool), which dlpack.h before 0.8 does not name.
inline constexpr uint8_t kDLPackBoolCode = 6;
}  // namespace porta
