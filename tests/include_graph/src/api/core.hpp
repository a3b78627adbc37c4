// Fixture: a header of the api layer.
#pragma once
