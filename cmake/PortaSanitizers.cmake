# PORTA_SANITIZE=thread|address,undefined: builds everything with those sanitizers (CI runs the
# threading and pool tests under each, .ci/run). At -O0 with line tables only (-g1): the
# sanitized builds must fit CI's 30 minutes on two cores next to the main build, and these tests
# spend their time in PoCL's compiler, which is not instrumented; frames stay complete. UBSan's reports stop the program, as
# ASan's and TSan's do (with halt_on_error), so that a test run under it fails on any report.
set(PORTA_SANITIZE "" CACHE STRING "Sanitizers to build with: thread, or address,undefined")
if(PORTA_SANITIZE)
  add_compile_options(-fsanitize=${PORTA_SANITIZE} -fno-omit-frame-pointer -g1 -O0)
  add_link_options(-fsanitize=${PORTA_SANITIZE})
  if(PORTA_SANITIZE MATCHES "undefined")
    add_compile_options(-fno-sanitize-recover=undefined)
  endif()
endif()
