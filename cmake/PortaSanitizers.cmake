# PORTA_SANITIZE=thread|address,undefined: builds everything with those sanitizers (CI runs the
# threading and pool tests under each, .ci/run). At -O1, as the sanitizers advise: quicker to
# build on CI's two cores, and stacks keep their frames. UBSan's reports stop the program, as
# ASan's and TSan's do (with halt_on_error), so that a test run under it fails on any report.
set(PORTA_SANITIZE "" CACHE STRING "Sanitizers to build with: thread, or address,undefined")
if(PORTA_SANITIZE)
  add_compile_options(-fsanitize=${PORTA_SANITIZE} -fno-omit-frame-pointer -g -O1)
  add_link_options(-fsanitize=${PORTA_SANITIZE})
  if(PORTA_SANITIZE MATCHES "undefined")
    add_compile_options(-fno-sanitize-recover=undefined)
  endif()
endif()
