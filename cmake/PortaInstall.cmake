# Installs headers, libporta, the plugins (next to libporta) and porta-info, and a CMake
# package so that find_package(porta) and porta::porta work in another project.
include(CMakePackageConfigHelpers)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/porta DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/CHANGELOG.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(TARGETS porta EXPORT portaTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT portaTargets NAMESPACE porta:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/porta)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/portaConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/portaConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/porta)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/portaConfigVersion.cmake COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/portaConfig.cmake ${PROJECT_BINARY_DIR}/portaConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/porta)
