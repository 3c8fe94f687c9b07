# The Tune panel (widgets/tune) in the real window with the real worker: a run, Add as Variant,
# cancel and resume, forbidden primitives, a script error.
if(TARGET loopscope-worker)
  find_package(Qt6 REQUIRED COMPONENTS Test)
  add_executable(loopscope_tune_panel_tests ${CMAKE_CURRENT_LIST_DIR}/tune/TunePanelTest.cpp)
  set_target_properties(loopscope_tune_panel_tests PROPERTIES AUTOMOC ON)
  target_link_libraries(loopscope_tune_panel_tests PRIVATE loopscope_widgets Qt6::Test loopscope_warnings)
  target_compile_definitions(loopscope_tune_panel_tests PRIVATE
    LOOPSCOPE_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    LOOPSCOPE_WORKER="$<TARGET_FILE:loopscope-worker>")
  add_dependencies(loopscope_tune_panel_tests loopscope-worker)
  add_test(NAME TunePanel COMMAND loopscope_tune_panel_tests)
  set_tests_properties(TunePanel PROPERTIES ENVIRONMENT "QT_QPA_PLATFORM=offscreen" TIMEOUT 600)
endif()
