# The main window driven as a user would: open, click primitives, undo, break the script, run,
# cancel, survive a crashing worker, recover after a crash.
if(TARGET loopscope-worker)
  find_package(Qt6 REQUIRED COMPONENTS Test)
  add_executable(loopscope_mainwindow_tests widgets/MainWindowTest.cpp)
  set_target_properties(loopscope_mainwindow_tests PROPERTIES AUTOMOC ON)
  target_link_libraries(loopscope_mainwindow_tests PRIVATE loopscope_widgets Qt6::Test loopscope_warnings)
  target_include_directories(loopscope_mainwindow_tests PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_compile_definitions(loopscope_mainwindow_tests PRIVATE
    LOOPSCOPE_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    LOOPSCOPE_WORKER="$<TARGET_FILE:loopscope-worker>"
    LOOPSCOPE_CLI="$<TARGET_FILE:loopscope-cli>")
  add_dependencies(loopscope_mainwindow_tests loopscope-worker loopscope-cli)
  add_test(NAME MainWindow COMMAND loopscope_mainwindow_tests)
  set_tests_properties(MainWindow PROPERTIES ENVIRONMENT "QT_QPA_PLATFORM=offscreen;MALLOC_PERTURB_=165" TIMEOUT 300)
  # The first size on a laptop's screen, 1366x768 (the offscreen platform's screen from a file).
  add_test(NAME MainWindow.FirstSizeOn1366x768
    COMMAND loopscope_mainwindow_tests theFirstSizeComesFromTheScreen theWindowFits1366x768)
  set_tests_properties(MainWindow.FirstSizeOn1366x768 PROPERTIES
    ENVIRONMENT "QT_QPA_PLATFORM=offscreen:configfile=${CMAKE_CURRENT_SOURCE_DIR}/widgets/screen-1366x768.json"
    FAIL_REGULAR_EXPRESSION "SKIP   :" TIMEOUT 120)
endif()

# Typing one key at a time into every sample, with the analysis landing between keys.
if(TARGET loopscope-worker)
  add_executable(loopscope_typing_tests widgets/TypingTest.cpp)
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
add_executable(loopscope_file_safety_tests widgets/FileSafetyTest.cpp)
set_target_properties(loopscope_file_safety_tests PROPERTIES AUTOMOC ON)
target_link_libraries(loopscope_file_safety_tests PRIVATE loopscope_widgets Qt6::Test loopscope_warnings)
add_test(NAME FileSafety COMMAND loopscope_file_safety_tests)
set_tests_properties(FileSafety PROPERTIES ENVIRONMENT "QT_QPA_PLATFORM=offscreen" TIMEOUT 120)

# The Tune panel in the real window with the real worker: a run, Add as Variant, cancel and
# resume, forbidden primitives, a script error.
if(TARGET loopscope-worker)
  add_executable(loopscope_tune_panel_tests widgets/TunePanelTest.cpp)
  set_target_properties(loopscope_tune_panel_tests PROPERTIES AUTOMOC ON)
  target_link_libraries(loopscope_tune_panel_tests PRIVATE loopscope_widgets Qt6::Test loopscope_warnings)
  target_compile_definitions(loopscope_tune_panel_tests PRIVATE
    LOOPSCOPE_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    LOOPSCOPE_WORKER="$<TARGET_FILE:loopscope-worker>")
  add_dependencies(loopscope_tune_panel_tests loopscope-worker)
  add_test(NAME TunePanel COMMAND loopscope_tune_panel_tests)
  set_tests_properties(TunePanel PROPERTIES ENVIRONMENT "QT_QPA_PLATFORM=offscreen" TIMEOUT 600)
endif()

# The model view with the real worker: a sample model's graph and tasks, a run checked and
# ranked, a task opened as a script and tuned in the Tune panel, its log recorded in the model's
# project file; a file that is not a model.
if(TARGET loopscope-worker)
  add_executable(loopscope_model_window_tests widgets/ModelWindowTest.cpp)
  set_target_properties(loopscope_model_window_tests PROPERTIES AUTOMOC ON)
  target_link_libraries(loopscope_model_window_tests PRIVATE loopscope_widgets Qt6::Test loopscope_warnings)
  target_compile_definitions(loopscope_model_window_tests PRIVATE
    LOOPSCOPE_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    LOOPSCOPE_WORKER="$<TARGET_FILE:loopscope-worker>")
  add_dependencies(loopscope_model_window_tests loopscope-worker)
  add_test(NAME ModelWindow COMMAND loopscope_model_window_tests)
  set_tests_properties(ModelWindow PROPERTIES ENVIRONMENT "QT_QPA_PLATFORM=offscreen" TIMEOUT 600)
endif()

# Where the time goes, with the real worker: the tutorial's ladder profiled, heat in the loop nest
# and the assembly, TIR and assembly linked both ways, counters only where the machine has them.
if(TARGET loopscope-worker)
  add_executable(loopscope_profile_window_tests widgets/ProfileWindowTest.cpp)
  set_target_properties(loopscope_profile_window_tests PROPERTIES AUTOMOC ON)
  target_link_libraries(loopscope_profile_window_tests PRIVATE loopscope_widgets Qt6::Test loopscope_warnings)
  target_compile_definitions(loopscope_profile_window_tests PRIVATE
    LOOPSCOPE_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    LOOPSCOPE_WORKER="$<TARGET_FILE:loopscope-worker>")
  add_dependencies(loopscope_profile_window_tests loopscope-worker)
  add_test(NAME ProfileWindow COMMAND loopscope_profile_window_tests)
  set_tests_properties(ProfileWindow PROPERTIES ENVIRONMENT "QT_QPA_PLATFORM=offscreen" TIMEOUT 300)
endif()
