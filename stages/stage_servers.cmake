# stage_servers.cmake: stages/stage_servers.json, the one list of stage servers and wrong turns, read for
# CMake (the file describes its own fields). The top CMakeLists.txt includes it, so every folder has:
#
#   LAB_STAGE_SERVERS               every binary of the table, in its order
#   LAB_BUILT_STAGE_SERVERS         the binaries this copy builds: all of them, or in a learner's starter copy
#                                   (LAB_REFERENCE OFF: its only stage folder is 1_naive) stage 1 alone
#   lab_stage_server_row(BINARY PREFIX)   sets PREFIX_<field> for each field of BINARY's row: the value as
#                                   text, "" for null, the summary's lines joined by newlines, `does` as a list
#
# grader/base/stage_server_rows.cmake includes it as a script (cmake -P), where only the first and the last
# mean something.
set(LAB_STAGE_SERVERS_TABLE ${CMAKE_CURRENT_LIST_DIR}/stage_servers.json)
file(READ ${LAB_STAGE_SERVERS_TABLE} LAB_STAGE_SERVERS_JSON)
if(NOT CMAKE_SCRIPT_MODE_FILE)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${LAB_STAGE_SERVERS_TABLE})  # a new row re-configures
endif()

function(lab_stage_server_row binary prefix)
  list(FIND LAB_STAGE_SERVERS ${binary} index)
  if(index EQUAL -1)
    message(FATAL_ERROR "${binary} is not a row of ${LAB_STAGE_SERVERS_TABLE}")
  endif()
  foreach(field binary folder base stage label name title chapter must_fail)
    string(JSON value GET "${LAB_STAGE_SERVERS_JSON}" servers ${index} ${field})
    set(${prefix}_${field} "${value}" PARENT_SCOPE)
  endforeach()
  # Joined by hand: a line may hold a semicolon, which a CMake list would split it at.
  string(JSON lines LENGTH "${LAB_STAGE_SERVERS_JSON}" servers ${index} summary)
  set(summary "")
  math(EXPR last "${lines} - 1")
  foreach(line RANGE ${last})
    string(JSON text GET "${LAB_STAGE_SERVERS_JSON}" servers ${index} summary ${line})
    if(line GREATER 0)
      string(APPEND summary "\n")
    endif()
    string(APPEND summary "${text}")
  endforeach()
  set(${prefix}_summary "${summary}" PARENT_SCOPE)
  # What it truly does: its traits, as a CMake list (a trait is a word with dashes, never a semicolon).
  string(JSON count LENGTH "${LAB_STAGE_SERVERS_JSON}" servers ${index} does)
  set(does "")
  if(count GREATER 0)
    math(EXPR last "${count} - 1")
    foreach(i RANGE ${last})
      string(JSON trait GET "${LAB_STAGE_SERVERS_JSON}" servers ${index} does ${i})
      list(APPEND does ${trait})
    endforeach()
  endif()
  set(${prefix}_does "${does}" PARENT_SCOPE)
endfunction()

function(lab_read_stage_servers)
  set(all "")
  set(built "")
  string(JSON count LENGTH "${LAB_STAGE_SERVERS_JSON}" servers)
  math(EXPR last "${count} - 1")
  foreach(index RANGE ${last})
    string(JSON binary GET "${LAB_STAGE_SERVERS_JSON}" servers ${index} binary)
    list(APPEND all ${binary})
    string(JSON stage GET "${LAB_STAGE_SERVERS_JSON}" servers ${index} stage)
    string(JSON must_fail GET "${LAB_STAGE_SERVERS_JSON}" servers ${index} must_fail)
    if(LAB_REFERENCE OR (stage EQUAL 1 AND must_fail STREQUAL ""))
      list(APPEND built ${binary})
    endif()
  endforeach()
  set(LAB_STAGE_SERVERS ${all} PARENT_SCOPE)
  set(LAB_BUILT_STAGE_SERVERS ${built} PARENT_SCOPE)
endfunction()
lab_read_stage_servers()
