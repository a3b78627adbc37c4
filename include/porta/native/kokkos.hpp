// Opt-in, for programs that use Kokkos themselves: an unmanaged Kokkos::View of a porta array on
// the Kokkos device, and a porta array over a host-space Kokkos::View, both without a copy.
// Include it only in code that includes <Kokkos_Core.hpp>.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <type_traits>

#include <porta/error.hpp>
#include <porta/interop.hpp>

namespace porta::native {

template <class DataType>
using UnmanagedHostView =
    Kokkos::View<DataType, Kokkos::LayoutStride, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

// A View of `a`'s elements (evaluated first) with its shape and strides; DataType names the rank
// and element type, e.g. `float**`. Unmanaged: `a` (or an array sharing its buffer) must outlive
// it. Throws InvalidArgument for a device other than Kokkos', a rank that differs or negative
// strides (LayoutStride has none); DTypeError for another element type.
template <class DataType>
UnmanagedHostView<DataType> kokkos_view(const Array& a) {
  using View = UnmanagedHostView<DataType>;
  using T = typename View::non_const_value_type;
  if (a.device().backend() != Backend::kokkos)
    throw InvalidArgument("kokkos_view: " + a.device().spec() + " is not the Kokkos device; use a.to(porta::device(\"kokkos\"))");
  if (static_cast<int>(View::rank) != a.ndim())
    throw InvalidArgument("kokkos_view: a View of rank " + std::to_string(View::rank) + " for an array of " +
                          std::to_string(a.ndim()) + " dimensions " + to_string(a.shape()));
  if (dtype_of<T> != a.dtype())
    throw DTypeError("kokkos_view: the View's element type is " + std::string(name(dtype_of<T>)) + " but the array is " +
                     std::string(name(a.dtype())));
  NativeMemory m = native_memory(a);
  Kokkos::LayoutStride layout;
  for (int i = 0; i < a.ndim(); ++i) {
    if (m.strides[static_cast<std::size_t>(i)] < 0)
      throw InvalidArgument("kokkos_view: axis " + std::to_string(i) + " has a negative stride; Kokkos::LayoutStride "
                            "has none: use a.copy() first");
    layout.dimension[i] = static_cast<std::size_t>(a.dim(i));
    layout.stride[i] = static_cast<std::size_t>(m.strides[static_cast<std::size_t>(i)]);
  }
  return View(static_cast<T*>(m.host), layout);
}

// A porta array on `device` (the Kokkos device, or an OpenCL CPU device) over a View of host
// memory: the array keeps a copy of the View (so a managed View's memory lives on) until its last
// porta user is gone.
template <class View>
Array from_kokkos_view(const View& v, const Device& device) {
  static_assert(Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename View::memory_space>::accessible,
                "from_kokkos_view takes Views the host can access");
  using T = typename View::non_const_value_type;
  Shape shape;
  std::vector<std::int64_t> strides;
  for (int i = 0; i < static_cast<int>(View::rank); ++i) {
    shape.push_back(static_cast<std::int64_t>(v.extent(static_cast<unsigned>(i))));
    strides.push_back(static_cast<std::int64_t>(v.stride(static_cast<std::size_t>(i))));
  }
  ExternalMemory mem{const_cast<T*>(v.data()), MemoryKind::host, v.span() * sizeof(T)};
  return wrap_memory(mem, dtype_of<T>, std::move(shape), std::move(strides), 0, device, [keep = v]() mutable { keep = View(); });
}

}  // namespace porta::native
