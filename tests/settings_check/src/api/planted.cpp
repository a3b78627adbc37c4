// A fixture of CTest's settings.check.catches_drift (cmake/PortaSettingsCheck.cmake): a read of
// a PORTA_* variable around the settings table, and a getter naming a variable the table lacks.
#include <cstdlib>

const char* planted_read() { return std::getenv("PORTA_PLANTED"); }
bool planted_getter() { return porta::setting_flag("PORTA_NOT_IN_THE_TABLE"); }
