// Fixture of the include-graph check's own test: an api file that includes a plugin's header (and, allowed, a lower layer's).
#include "gpu/gpu.hpp"
#include "base/internal.hpp"
#include "porta_backend/backend.hpp"
