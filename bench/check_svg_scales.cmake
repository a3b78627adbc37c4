# Checks that porta-bench's chart stays readable at an H200's scales (cmake -P): draws
# testdata/h200_chart.json (the chart rows of a run like the H200 runs of bench/results/: copy
# 3951 GB/s, HGEMM 647 TFLOP/s, 1100% of the float32 FMA peak) with --from-json and fails unless
# a bar at 100% of copy and the largest GEMM each take most of their panel's width: on one axis
# for both, the copy bar was a twelfth of it.
#
#   cmake -DPORTA_BENCH=path/to/porta-bench -DSVG=out.svg -P check_svg_scales.cmake
cmake_minimum_required(VERSION 3.19)

set(bars_px 500)  # the bar area's width in bench/report_svg.cpp
execute_process(COMMAND "${PORTA_BENCH}" "--from-json=${CMAKE_CURRENT_LIST_DIR}/testdata/h200_chart.json" "--svg=${SVG}"
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "porta-bench --from-json exited with ${rc}")
endif()
file(READ "${SVG}" svg)

# The width of the bar whose tooltip starts with `tooltip` (regex-escaped by the caller).
function(bar_width tooltip out)
  if(NOT svg MATCHES "width=\"([0-9.]+)\" height=\"[0-9.]+\" fill=\"[^\"]*\"><title>${tooltip}")
    message(FATAL_ERROR "no bar '${tooltip}' in ${SVG}")
  endif()
  set(${out} "${CMAKE_MATCH_1}" PARENT_SCOPE)
endfunction()

set(errors "")
foreach(bar "cuda:0: copy \\(x\\.copy\\(\\)\\) 100%" "opencl:1: saxpy a\\*x \\+ y 104%" "cuda:0: matmul float16 8192 647 TFLOP/s"
            "CuPy: small add \\(1024 floats, eval each\\) 11\\.0" "cuda:0: DevicePool, this device alone")
  bar_width("${bar}" w)
  math(EXPR least "${bars_px} * 6 / 10")
  if(w LESS least)
    list(APPEND errors "'${bar}' is ${w} px of ${bars_px}: squashed by another kind of figure on its axis")
  endif()
endforeach()
# Shares are drawn on a linear axis and the heading says which panel is which.
foreach(heading "Bandwidth: share of each device's copy ceiling" "Matmul: TFLOP/s")
  string(FIND "${svg}" ">${heading}" at)
  if(at EQUAL -1)
    list(APPEND errors "no panel '${heading}'")
  endif()
endforeach()
if(errors)
  list(JOIN errors "\n  " text)
  message(FATAL_ERROR "the chart of the H200 sample is not readable:\n  ${text}")
endif()
message(STATUS "the H200 sample's bandwidth, matmul and host panels each use their width")
