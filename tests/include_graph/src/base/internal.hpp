// Fixture: a core-internal header.
#pragma once
