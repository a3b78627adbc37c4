# PORTA_SANITIZE=thread|address,undefined: builds everything with those sanitizers (CI runs the
# threading tests under each).
set(PORTA_SANITIZE "" CACHE STRING "Sanitizers to build with: thread, or address,undefined")
if(PORTA_SANITIZE)
  add_compile_options(-fsanitize=${PORTA_SANITIZE} -fno-omit-frame-pointer -g)
  add_link_options(-fsanitize=${PORTA_SANITIZE})
endif()
