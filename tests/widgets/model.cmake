# The model view (widgets/model) with the real worker: a sample model's graph and tasks, a run
# checked and ranked, a task opened as a script and tuned in the Tune panel, its log recorded in
# the model's project file; a file that is not a model.
if(TARGET loopscope-worker)
  find_package(Qt6 REQUIRED COMPONENTS Test)
  add_executable(loopscope_model_window_tests ${CMAKE_CURRENT_LIST_DIR}/model/ModelWindowTest.cpp)
  set_target_properties(loopscope_model_window_tests PROPERTIES AUTOMOC ON)
  target_link_libraries(loopscope_model_window_tests PRIVATE loopscope_widgets Qt6::Test loopscope_warnings)
  target_compile_definitions(loopscope_model_window_tests PRIVATE
    LOOPSCOPE_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    LOOPSCOPE_WORKER="$<TARGET_FILE:loopscope-worker>")
  add_dependencies(loopscope_model_window_tests loopscope-worker)
  add_test(NAME ModelWindow COMMAND loopscope_model_window_tests)
  set_tests_properties(ModelWindow PROPERTIES ENVIRONMENT "QT_QPA_PLATFORM=offscreen" TIMEOUT 600)
endif()
