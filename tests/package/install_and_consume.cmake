# ctest's package_consumer: installs the built library into a fresh prefix, then configures, builds
# and runs tests/package/consumer against it with find_package(gdn2). Arguments (-D):
#   BUILD_DIR (this build), SOURCE_DIR (the repository), GENERATOR (CMake generator).
set(work "${BUILD_DIR}/package_consumer")
file(REMOVE_RECURSE "${work}")

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${err}")
  endif()
endfunction()

run("install" ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${work}/prefix")
file(GLOB_RECURSE config "${work}/prefix/*/gdn2Config.cmake")
if(NOT EXISTS "${work}/prefix/include/gdn2/gdn2.h" OR NOT config)
  message(FATAL_ERROR "install: include/gdn2/gdn2.h or gdn2Config.cmake is missing")
endif()
run("configure" ${CMAKE_COMMAND} -S "${SOURCE_DIR}/tests/package/consumer" -B "${work}/build"
    -G "${GENERATOR}" -DCMAKE_PREFIX_PATH=${work}/prefix -DCMAKE_BUILD_TYPE=Release)
run("build" ${CMAKE_COMMAND} --build "${work}/build")
run("run" "${work}/build/gdn2_consumer")
