// Fixture: a runtime file that includes a header of the api layer above it.
#include "api/core.hpp"
#include "base/internal.hpp"
