# porta_option(NAME "doc" DEFAULT): a tri-state AUTO|ON|OFF option, in the style of
# Kokkos' kokkos_enable_option. AUTO builds the feature when its SDK is found; ON fails the
# configure when it is not.
function(porta_option name doc default)
  set(${name} ${default} CACHE STRING "${doc}")
  set_property(CACHE ${name} PROPERTY STRINGS AUTO ON OFF)
  string(TOUPPER "${${name}}" value)
  if(NOT value MATCHES "^(AUTO|ON|OFF|TRUE|FALSE|YES|NO|1|0)$")
    message(FATAL_ERROR "${name}=${${name}}: use AUTO, ON or OFF")
  endif()
endfunction()

# porta_resolve_option(NAME FOUND WHY): sets PORTA_BUILD_<suffix> from the option and whether
# the SDK was found; stops the configure when the option is ON and the SDK is missing.
function(porta_resolve_option name found why)
  string(TOUPPER "${${name}}" value)
  if(value MATCHES "^(OFF|FALSE|NO|0)$")
    set(${name}_ENABLED OFF PARENT_SCOPE)
    message(STATUS "porta: ${name}=OFF")
  elseif(found)
    set(${name}_ENABLED ON PARENT_SCOPE)
    message(STATUS "porta: ${name} will be built")
  elseif(value MATCHES "^(ON|TRUE|YES|1)$")
    message(FATAL_ERROR "porta: ${name}=ON but ${why}")
  else()
    set(${name}_ENABLED OFF PARENT_SCOPE)
    message(STATUS "porta: ${name} not built: ${why}")
  endif()
endfunction()
