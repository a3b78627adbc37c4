// Binds random.hpp: Philox draws, the same bits on every device for a seed.
#include "bindings.hpp"

namespace porta::python {

void bind_random(nb::module_& m) {
  m.def("_seed", &porta::random::seed, release_gil());
  m.def("_uniform", [](nb::handle shape, double low, double high, nb::handle dtype, nb::handle device) {
    Shape s = to_shape(shape);
    DType t = to_dtype(dtype);
    Device d = to_device(device);
    nb::gil_scoped_release unlocked;
    return porta::random::uniform(std::move(s), low, high, t, std::move(d));
  }, nb::arg("shape"), nb::arg("low"), nb::arg("high"), nb::arg("dtype"), nb::arg("device").none());
  m.def("_normal", [](nb::handle shape, double mean, double stddev, nb::handle dtype, nb::handle device) {
    Shape s = to_shape(shape);
    DType t = to_dtype(dtype);
    Device d = to_device(device);
    nb::gil_scoped_release unlocked;
    return porta::random::normal(std::move(s), mean, stddev, t, std::move(d));
  }, nb::arg("shape"), nb::arg("mean"), nb::arg("stddev"), nb::arg("dtype"), nb::arg("device").none());
  // integers: each bound as (int64 bits, above INT64_MAX, exactly 2^64), made by porta/random.py
  // from a Python int of any size.
  m.def("_integers", [](nb::handle shape, std::int64_t lo_bits, bool lo_big, std::int64_t hi_bits, bool hi_big,
                        bool hi_2_64, nb::handle dtype, nb::handle device) {
    Shape s = to_shape(shape);
    DType t = to_dtype(dtype);
    Device d = to_device(device);
    const porta::random::Generator::IntegerBound lo{lo_bits, lo_big, false}, hi{hi_bits, hi_big, hi_2_64};
    nb::gil_scoped_release unlocked;
    return porta::random::integers_in(std::move(s), lo, hi, t, std::move(d));
  }, nb::arg("shape"), nb::arg("lo_bits"), nb::arg("lo_big"), nb::arg("hi_bits"), nb::arg("hi_big"), nb::arg("hi_2_64"),
     nb::arg("dtype"), nb::arg("device").none());
}

}  // namespace porta::python
