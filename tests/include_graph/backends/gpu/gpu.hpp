// Fixture: a plugin header that reaches into the core past the interface.
#pragma once
#include "base/internal.hpp"
#include "porta_backend/backend.hpp"
