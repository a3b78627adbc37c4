// A fixture for the backend_names test: the core naming a backend (line 3) is reported.
// A comment may say "cuda" and porta::Device may be compared: neither is reported.
bool is_opencl(const porta::Device& d) { return d.backend() == porta::Backend::opencl; }
