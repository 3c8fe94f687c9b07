# Tests of the views part (widgets/views): Qt Test executables on the offscreen platform. The
# test FooBarTest (views/FooBarTest.cpp) is the executable loopscope_foo_bar_tests.
find_package(Qt6 REQUIRED COMPONENTS Test)

foreach(name TirDiff LadderModel LadderView LoopNestView CodeView)
  string(REGEX REPLACE "([a-z])([A-Z])" "\\1_\\2" part ${name})
  string(TOLOWER "loopscope_${part}_tests" target)
  add_executable(${target} ${CMAKE_CURRENT_LIST_DIR}/views/${name}Test.cpp)
  set_target_properties(${target} PROPERTIES AUTOMOC ON)
  target_link_libraries(${target} PRIVATE loopscope_widgets Qt6::Test loopscope_warnings)
  target_compile_definitions(${target} PRIVATE LOOPSCOPE_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  add_test(NAME ${name}Test COMMAND ${target})
  set_tests_properties(${name}Test PROPERTIES ENVIRONMENT "QT_QPA_PLATFORM=offscreen" TIMEOUT 120)
endforeach()

# The ladder with the real worker: running rows, the fastest row, steps measured once across
# variants, measurements kept with the script, the dock's size kept.
if(TARGET loopscope-worker)
  add_executable(loopscope_ladder_run_tests ${CMAKE_CURRENT_LIST_DIR}/views/LadderRunTest.cpp)
  set_target_properties(loopscope_ladder_run_tests PROPERTIES AUTOMOC ON)
  target_link_libraries(loopscope_ladder_run_tests PRIVATE loopscope_widgets Qt6::Test loopscope_warnings)
  target_compile_definitions(loopscope_ladder_run_tests PRIVATE
    LOOPSCOPE_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    LOOPSCOPE_WORKER="$<TARGET_FILE:loopscope-worker>")
  add_dependencies(loopscope_ladder_run_tests loopscope-worker)
  add_test(NAME LadderRunTest COMMAND loopscope_ladder_run_tests)
  set_tests_properties(LadderRunTest PROPERTIES ENVIRONMENT "QT_QPA_PLATFORM=offscreen" TIMEOUT 300)
endif()

# Where the time goes, with the real worker: the tutorial's ladder profiled, heat in the loop nest
# and the assembly, TIR and assembly linked both ways, counters only where the machine has them.
if(TARGET loopscope-worker)
  add_executable(loopscope_profile_window_tests ${CMAKE_CURRENT_LIST_DIR}/views/ProfileWindowTest.cpp)
  set_target_properties(loopscope_profile_window_tests PROPERTIES AUTOMOC ON)
  target_link_libraries(loopscope_profile_window_tests PRIVATE loopscope_widgets Qt6::Test loopscope_warnings)
  target_compile_definitions(loopscope_profile_window_tests PRIVATE
    LOOPSCOPE_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    LOOPSCOPE_WORKER="$<TARGET_FILE:loopscope-worker>")
  add_dependencies(loopscope_profile_window_tests loopscope-worker)
  add_test(NAME ProfileWindow COMMAND loopscope_profile_window_tests)
  set_tests_properties(ProfileWindow PROPERTIES ENVIRONMENT "QT_QPA_PLATFORM=offscreen" TIMEOUT 300)
endif()
