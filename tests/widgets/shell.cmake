# Tests of the shell (widgets/shell): the main window driven as a user would, typing into it, and
# nothing lost to a damaged file or a failed save (Qt Test, offscreen).
find_package(Qt6 REQUIRED COMPONENTS Test)

# The main window driven as a user would: open, click primitives, undo, break the script, run,
# cancel, survive a crashing worker, recover after a crash.
if(TARGET loopscope-worker)
  add_executable(loopscope_main_window_tests ${CMAKE_CURRENT_LIST_DIR}/shell/MainWindowTest.cpp)
  set_target_properties(loopscope_main_window_tests PROPERTIES AUTOMOC ON)
  target_link_libraries(loopscope_main_window_tests PRIVATE loopscope_widgets Qt6::Test loopscope_warnings)
  # app/RunShell.h (tests/app) runs the shell as the desktop binary does.
  target_include_directories(loopscope_main_window_tests PRIVATE ${PROJECT_SOURCE_DIR}/tests)
  target_compile_definitions(loopscope_main_window_tests PRIVATE
    LOOPSCOPE_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    LOOPSCOPE_WORKER="$<TARGET_FILE:loopscope-worker>"
    LOOPSCOPE_CLI="$<TARGET_FILE:loopscope-cli>")
  add_dependencies(loopscope_main_window_tests loopscope-worker loopscope-cli)
  add_test(NAME MainWindow COMMAND loopscope_main_window_tests)
  set_tests_properties(MainWindow PROPERTIES ENVIRONMENT "QT_QPA_PLATFORM=offscreen;MALLOC_PERTURB_=165" TIMEOUT 300)
  # The first size on a laptop's screen, 1366x768 (the offscreen platform's screen from a file).
  add_test(NAME MainWindow.FirstSizeOn1366x768
    COMMAND loopscope_main_window_tests theFirstSizeComesFromTheScreen theWindowFits1366x768
            theScriptAndTheLoopNestAreReadable)
  set_tests_properties(MainWindow.FirstSizeOn1366x768 PROPERTIES
    ENVIRONMENT "QT_QPA_PLATFORM=offscreen:configfile=${CMAKE_CURRENT_LIST_DIR}/shell/screen-1366x768.json"
    FAIL_REGULAR_EXPRESSION "SKIP   :" TIMEOUT 120)
  # And on a full-HD screen.
  add_test(NAME MainWindow.FirstSizeOn1920x1080
    COMMAND loopscope_main_window_tests theFirstSizeComesFromTheScreen
            theScriptAndTheLoopNestAreReadable)
  set_tests_properties(MainWindow.FirstSizeOn1920x1080 PROPERTIES
    ENVIRONMENT "QT_QPA_PLATFORM=offscreen:configfile=${CMAKE_CURRENT_LIST_DIR}/shell/screen-1920x1080.json"
    FAIL_REGULAR_EXPRESSION "SKIP   :" TIMEOUT 120)
endif()

# Typing one key at a time into every sample, with the analysis landing between keys.
if(TARGET loopscope-worker)
  add_executable(loopscope_typing_tests ${CMAKE_CURRENT_LIST_DIR}/shell/TypingTest.cpp)
  set_target_properties(loopscope_typing_tests PROPERTIES AUTOMOC ON)
  target_link_libraries(loopscope_typing_tests PRIVATE loopscope_widgets Qt6::Test loopscope_warnings)
  target_compile_definitions(loopscope_typing_tests PRIVATE
    LOOPSCOPE_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    LOOPSCOPE_WORKER="$<TARGET_FILE:loopscope-worker>")
  add_dependencies(loopscope_typing_tests loopscope-worker)
  add_test(NAME Typing COMMAND loopscope_typing_tests)
  set_tests_properties(Typing PROPERTIES ENVIRONMENT "QT_QPA_PLATFORM=offscreen" TIMEOUT 300)
endif()

# Nothing lost to a damaged file or a failed save: damaged caches, autosaves and settings are set
# aside with a message, settings of the wrong kind fall back to the defaults, a failed save keeps
# the text.
add_executable(loopscope_file_safety_tests ${CMAKE_CURRENT_LIST_DIR}/shell/FileSafetyTest.cpp)
set_target_properties(loopscope_file_safety_tests PROPERTIES AUTOMOC ON)
target_link_libraries(loopscope_file_safety_tests PRIVATE loopscope_widgets Qt6::Test loopscope_warnings)
add_test(NAME FileSafety COMMAND loopscope_file_safety_tests)
set_tests_properties(FileSafety PROPERTIES ENVIRONMENT "QT_QPA_PLATFORM=offscreen" TIMEOUT 120)
