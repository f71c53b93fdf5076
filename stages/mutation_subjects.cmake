# mutation_subjects.cmake: the targets `make mutation-score` builds its operator mutants with
# (scripts/mutation_score.py; docs/teach/grader.md "The grader", docs/teach/grader-checks-itself.md "Mutation score: the mistakes nobody wrote"). Included by stages/CMakeLists.txt.
#
# For each stage 2-6 and each of its lesson files (key_table.cc, money_handler.cc, idempotency_policy.cc,
# sweeper.cc, where the stage has it) one executable, mutation_<binary>_<stem>, is built from a copy of that
# file in the build tree (mutation/<binary>/<file>, which the script overwrites with each mutant in turn) and
# the stage's other files, compiled once (lab_part_<binary>_<stem>, also used by the hand-written mutants).
# Built only on demand. A mutant that warns is still a mutant: these targets do not make warnings errors.
set(LAB_MUTATION_LESSON_FILES key_table.cc money_handler.cc idempotency_policy.cc sweeper.cc)

# lab_stage_parts(BINARY FOLDER): an object library per source file of the stage, lab_part_<BINARY>_<stem>.
function(lab_stage_parts binary folder)
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${folder}/*.cc)
  foreach(source ${sources})
    get_filename_component(stem ${source} NAME_WE)
    add_library(lab_part_${binary}_${stem} OBJECT EXCLUDE_FROM_ALL ${source})
    target_include_directories(lab_part_${binary}_${stem} PRIVATE ${CMAKE_CURRENT_BINARY_DIR}/stage_info/${binary})
    target_link_libraries(lab_part_${binary}_${stem} PRIVATE lab_common)
  endforeach()
endfunction()

# lab_parts_except(BINARY FOLDER STEM OUT): the objects of every part of the stage but STEM.
function(lab_parts_except binary folder except out)
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${folder}/*.cc)
  set(parts "")
  foreach(source ${sources})
    get_filename_component(stem ${source} NAME_WE)
    if(NOT stem STREQUAL except)
      list(APPEND parts $<TARGET_OBJECTS:lab_part_${binary}_${stem}>)
    endif()
  endforeach()
  set(${out} ${parts} PARENT_SCOPE)
endfunction()

add_custom_target(mutation_subjects)
foreach(binary ${LAB_BUILT_STAGE_SERVERS})
  lab_stage_server_row(${binary} server)
  if(NOT server_must_fail STREQUAL "" OR server_stage LESS 2)
    continue()   # wrong turns are mistakes already; stage 1 has no key to get wrong
  endif()
  lab_stage_parts(${binary} ${server_folder})
  foreach(file ${LAB_MUTATION_LESSON_FILES})
    set(original ${CMAKE_CURRENT_SOURCE_DIR}/${server_folder}/${file})
    if(NOT EXISTS ${original})
      continue()
    endif()
    get_filename_component(stem ${file} NAME_WE)
    set(copy ${CMAKE_CURRENT_BINARY_DIR}/mutation/${binary}/${file})
    if(NOT EXISTS ${copy})
      configure_file(${original} ${copy} COPYONLY)   # the script writes each mutant over it
    endif()
    lab_parts_except(${binary} ${server_folder} ${stem} parts)
    set(target mutation_${binary}_${stem})
    add_executable(${target} EXCLUDE_FROM_ALL ${copy} ${parts})
    target_include_directories(${target} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/${server_folder}
                                                 ${CMAKE_CURRENT_BINARY_DIR}/stage_info/${binary})
    target_compile_options(${target} PRIVATE -Wno-error)
    target_link_libraries(${target} PRIVATE lab_common)
    add_dependencies(mutation_subjects ${target})
  endforeach()
endforeach()
