// A fixture for the backend_names test: a tool comparing a backend's name (line 2) is reported.
bool is_kokkos(std::string_view name) { return name == "kokkos"; }
