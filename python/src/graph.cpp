// Binds graph.hpp: porta.record(inputs, outputs, fn) and porta.Graph.replay (torch.cuda.CUDAGraph's
// capture and replay, with the arrays named when recording and replaceable at each replay).
#include "bindings.hpp"

#include <nanobind/stl/function.h>

namespace porta::python {

namespace {

std::vector<Array> arrays(nb::handle seq) {
  std::vector<Array> out;
  if (seq.is_none()) return out;
  for (nb::handle h : seq) out.push_back(nb::cast<Array>(h));
  return out;
}

}  // namespace

void bind_graph(nb::module_& m) {
  nb::class_<Graph>(m, "Graph", "A recorded sequence of porta calls on one device; make one with porta.record().")
      .def("replay", [](const Graph& g, nb::handle inputs, nb::handle outputs) {
        std::vector<Array> in = arrays(inputs), out = arrays(outputs);
        nb::gil_scoped_release unlocked;
        if (in.empty() && out.empty()) g.replay();
        else g.replay(in, out);
      }, nb::arg("inputs") = nb::none(), nb::arg("outputs") = nb::none(),
         "Queues the recorded work again: on the recorded arrays, or on `inputs` and `outputs` in their place "
         "(each of the recorded one's shape, dtype, device and layout).")
      .def_prop_ro("device", &Graph::device)
      .def_prop_ro("inputs", &Graph::inputs)
      .def_prop_ro("outputs", &Graph::outputs)
      .def_prop_ro("operations", &Graph::operations)
      .def_prop_ro("kind", &Graph::kind);
  // The function runs with the GIL (it is Python); the porta calls it makes release it as usual.
  m.def("record", [](nb::handle inputs, nb::handle outputs, nb::callable fn, bool warmup) {
    std::vector<Array> in = arrays(inputs), out = arrays(outputs);
    return record(in, out, [&fn] { fn(); }, RecordOptions{warmup});
  }, nb::arg("inputs"), nb::arg("outputs"), nb::arg("fn"), nb::arg("warmup") = true,
     "Records the porta calls fn() makes on this thread's queue (run once first as a warm-up unless "
     "warmup=False); inputs and outputs are the arrays it reads and writes.");
}

}  // namespace porta::python
