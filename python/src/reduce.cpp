// Binds reduce.hpp: one axis or the whole array; porta/_reduce.py adds tuples of axes and dtype=.
#include "bindings.hpp"

namespace porta::python {

void bind_reduce(nb::module_& m) {
  using Whole = Array (*)(const Array&);
  using Axis = Array (*)(const Array&, int, bool);
  struct Reduction {
    const char* name;
    Whole whole;
    Axis axis;
  };
  const Reduction reductions[] = {
      {"_sum", porta::sum, porta::sum},          {"_mean", porta::mean, porta::mean},
      {"_prod", porta::prod, porta::prod},       {"_min", porta::min, porta::min},
      {"_max", porta::max, porta::max},          {"_argmin", porta::argmin, porta::argmin},
      {"_argmax", porta::argmax, porta::argmax}, {"_all", porta::all, porta::all},
      {"_any", porta::any, porta::any},
  };
  for (const Reduction& r : reductions)
    m.def(r.name, [r](const Array& a, std::optional<int> axis, bool keepdims) {
      return axis ? r.axis(a, *axis, keepdims) : r.whole(a);
    }, nb::arg("a"), nb::arg("axis") = nb::none(), nb::arg("keepdims") = false, release_gil());
}

}  // namespace porta::python
