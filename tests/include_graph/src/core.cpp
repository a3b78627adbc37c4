// Fixture of the include-graph check's own test: a core file that includes a plugin's header.
#include "gpu/gpu.hpp"
#include "porta_backend/backend.hpp"
