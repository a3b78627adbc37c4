// Binds event.hpp: porta.Event, a point in this thread's queue that the device times
// (cupy.cuda.Event's record / synchronize / get_elapsed_time).
#include "bindings.hpp"

namespace porta::python {

void bind_event(nb::module_& m) {
  nb::class_<Event>(m, "Event", "Event.record(device=None): a point in this thread's queue on the device.")
      .def_static("record", [](nb::handle device) {
        Device d = to_device(device);
        nb::gil_scoped_release unlocked;
        return Event::record(d);
      }, nb::arg("device") = nb::none())
      .def("synchronize", &Event::synchronize, release_gil())
      .def_prop_ro("done", &Event::done, release_gil())
      .def("elapsed_ms", &Event::elapsed_ms, nb::arg("start"), release_gil(),
           "Milliseconds from `start` to this event, timed by the device.");
  m.def("get_elapsed_time", [](const Event& start, const Event& end) { return end.elapsed_ms(start); },
        nb::arg("start_event"), nb::arg("end_event"), release_gil(), "cupy.cuda.get_elapsed_time: milliseconds.");
}

}  // namespace porta::python
