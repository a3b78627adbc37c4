// A plugin that declares what the build tells it to (PORTA_FAKE_API_VERSION, PORTA_FAKE_BACKEND)
// and can make nothing: selection_test puts it where the loader looks for a real one, to see that
// a plugin of another interface version and a plugin of another backend are refused, each with
// its own message.
#include "porta_backend/backend.hpp"

namespace {

std::unique_ptr<porta::detail::BackendImpl> create(porta::Backend) { return nullptr; }

}  // namespace

extern "C" __attribute__((visibility("default"))) const porta::detail::PluginEntry* porta_plugin_entry() {
  static const porta::detail::PluginEntry entry{PORTA_FAKE_API_VERSION, PORTA_FAKE_BACKEND, "nothing: it is a test's fake", &create};
  return &entry;
}
