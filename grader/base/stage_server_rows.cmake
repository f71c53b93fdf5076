# stage_server_rows.cmake: writes the grader's copy of stages/stage_servers.json: the rows of
# grader/base/stage_binaries.cc:stage_servers, a StageServer initializer a line.
#
#   cmake -DOUT=FILE -P grader/base/stage_server_rows.cmake
#
# Run by the build (grader/base/CMakeLists.txt), and by scripts/gradescope/package.sh into the zip, which
# Gradescope compiles with g++ alone, without CMake.
include(${CMAKE_CURRENT_LIST_DIR}/../../stages/stage_servers.cmake)

function(cxx_string out text)   # text as a C++ string literal
  string(REPLACE "\\" "\\\\" text "${text}")
  string(REPLACE "\"" "\\\"" text "${text}")
  set(${out} "\"${text}\"" PARENT_SCOPE)
endfunction()

set(rows "")
foreach(binary ${LAB_STAGE_SERVERS})
  lab_stage_server_row(${binary} row)
  set(fields "")
  foreach(field binary label name title chapter)
    cxx_string(literal "${row_${field}}")
    string(APPEND fields ".${field} = ${literal}, ")
  endforeach()
  if(row_must_fail STREQUAL "")
    set(must_fail "std::nullopt")
  else()
    cxx_string(must_fail "${row_must_fail}")
  endif()
  set(does "")
  foreach(trait ${row_does})
    string(APPEND does "\"${trait}\", ")
  endforeach()
  string(APPEND rows "{${fields}.stage = ${row_stage}, .must_fail = ${must_fail}, .does = {${does}}},\n")
endforeach()

file(WRITE ${OUT} "\
// stage_server_rows.inc: generated from stages/stage_servers.json by grader/base/stage_server_rows.cmake.
// Do not edit. The rows of grader/base/stage_binaries.cc:stage_servers, in the table's order.
${rows}")
