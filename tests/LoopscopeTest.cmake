# loopscope_add_test(): the tests of one folder of tests/ as one executable, as Halide's
# tests(GROUPS ...) and ECM's ecm_add_test make them.
#
#   loopscope_add_test(FOLDER               # "core/te", "app/cli", "widgets/editor"
#     SOURCES file...                       # relative to the folder
#     [LINK library...]                     # what the tests use (GoogleTest or Qt Test is added)
#     [PROGRAMS target...]                  # built first; each one's path is LOOPSCOPE_<NAME>
#                                           # (loopscope-worker: LOOPSCOPE_WORKER, loopscope:
#                                           # LOOPSCOPE_APP)
#     [QT class...]                         # Qt Test classes, each a CTest test of its name;
#                                           # without QT, GoogleTest's tests are discovered
#     [QT_CORE]                             # a QCoreApplication, not a QApplication
#     [OWN_MAIN]                            # GoogleTest's tests with a main of their own
#     [TIMEOUT seconds]                     # each test's (default 120)
#     [SERIAL gtest-filter]                 # the GoogleTest tests that run alone
#     [PRE_TEST]                            # discover GoogleTest's tests when ctest runs
#     [ENVIRONMENT VAR=value...])
#
# The executable is loopscope_<folder with / as _>_tests (loopscope_core_te_tests); every test
# has the folder as its CTest label (ctest -L core, ctest -L widgets/editor), sees tests/ as an
# include root (support/SourceFiles.h: readSourceFile), the project's root as
# LOOPSCOPE_SOURCE_DIR, and runs on Qt's offscreen platform.
include(GoogleTest)
find_package(GTest REQUIRED)
find_package(Qt6 REQUIRED COMPONENTS Core Test Widgets)

set(LOOPSCOPE_TESTS_DIR ${CMAKE_CURRENT_LIST_DIR})

# The shared main of the Qt Test executables (support/QtTestMain.cpp), compiled once for each
# kind of application.
foreach(kind widgets core)
  add_library(loopscope_qt_test_main_${kind} STATIC ${LOOPSCOPE_TESTS_DIR}/support/QtTestMain.cpp)
  target_include_directories(loopscope_qt_test_main_${kind} PUBLIC ${LOOPSCOPE_TESTS_DIR})
  target_link_libraries(loopscope_qt_test_main_${kind} PUBLIC Qt6::Test PRIVATE loopscope_warnings)
endforeach()
target_link_libraries(loopscope_qt_test_main_widgets PUBLIC Qt6::Widgets)
target_compile_definitions(loopscope_qt_test_main_widgets PRIVATE LOOPSCOPE_QTEST_WIDGETS)

function(loopscope_add_test folder)
  cmake_parse_arguments(PARSE_ARGV 1 T "QT_CORE;PRE_TEST;OWN_MAIN" "TIMEOUT;SERIAL"
    "SOURCES;LINK;PROGRAMS;QT;ENVIRONMENT")
  string(REPLACE "/" "_" id ${folder})
  set(target loopscope_${id}_tests)
  set(sources)
  foreach(source ${T_SOURCES})
    list(APPEND sources ${LOOPSCOPE_TESTS_DIR}/${folder}/${source})
  endforeach()
  add_executable(${target} ${sources})
  target_include_directories(${target} PRIVATE ${LOOPSCOPE_TESTS_DIR})
  target_link_libraries(${target} PRIVATE ${T_LINK} loopscope_warnings)
  target_compile_definitions(${target} PRIVATE LOOPSCOPE_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  foreach(program ${T_PROGRAMS})
    if(program STREQUAL "loopscope")
      set(define LOOPSCOPE_APP)
    else()
      string(REGEX REPLACE "^loopscope-" "" define ${program})
      string(TOUPPER "LOOPSCOPE_${define}" define)
    endif()
    target_compile_definitions(${target} PRIVATE ${define}="$<TARGET_FILE:${program}>")
    add_dependencies(${target} ${program})
  endforeach()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  set(environment "QT_QPA_PLATFORM=offscreen" ${T_ENVIRONMENT})

  if(T_QT)
    set_target_properties(${target} PROPERTIES AUTOMOC ON)
    if(T_QT_CORE)
      target_link_libraries(${target} PRIVATE loopscope_qt_test_main_core)
    else()
      target_link_libraries(${target} PRIVATE loopscope_qt_test_main_widgets)
    endif()
    foreach(class ${T_QT})
      add_test(NAME ${class} COMMAND ${target} ${class})
      set_tests_properties(${class} PROPERTIES LABELS ${folder} TIMEOUT ${T_TIMEOUT}
        ENVIRONMENT "${environment}")
    endforeach()
  else()
    target_link_libraries(${target} PRIVATE GTest::gtest)
    if(NOT T_OWN_MAIN)
      target_link_libraries(${target} PRIVATE GTest::gtest_main)
    endif()
    set(mode)
    if(T_PRE_TEST)
      set(mode DISCOVERY_MODE PRE_TEST)
    endif()
    string(REPLACE ";" "\\;" environment_arg "${environment}")
    if(T_SERIAL)
      gtest_discover_tests(${target} DISCOVERY_TIMEOUT 60 ${mode} TEST_FILTER "-${T_SERIAL}"
        PROPERTIES LABELS ${folder} TIMEOUT ${T_TIMEOUT} ENVIRONMENT "${environment_arg}")
      gtest_discover_tests(${target} DISCOVERY_TIMEOUT 60 ${mode} TEST_FILTER "${T_SERIAL}"
        PROPERTIES LABELS ${folder} TIMEOUT ${T_TIMEOUT} ENVIRONMENT "${environment_arg}"
        RUN_SERIAL TRUE)
    else()
      gtest_discover_tests(${target} DISCOVERY_TIMEOUT 60 ${mode}
        PROPERTIES LABELS ${folder} TIMEOUT ${T_TIMEOUT} ENVIRONMENT "${environment_arg}")
    endif()
  endif()
  # Every test program of a group (core, app, widgets), for building them together:
  # loopscope_core_tests builds the core's.
  string(REGEX REPLACE "/.*" "" group ${folder})
  if(NOT TARGET loopscope_${group}_tests)
    add_custom_target(loopscope_${group}_tests)
  endif()
  add_dependencies(loopscope_${group}_tests ${target})
endfunction()
