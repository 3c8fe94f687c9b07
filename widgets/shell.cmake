# The shell: the main window and what it is made of. The window builds the docks, menus and
# toolbar (MainWindowLayout.cpp; DockLayout arranges the docks) and applies each analysis; the
# code views, the profiles, the settings, the status bar, the Tune panel's runs and the model views
# have controllers of their own (CodeViewController, ProfileController, SettingsController,
# StatusBarController, TuningController, ModelWindows); the document owns the file and its text; the run controller
# sends every request to the background worker and turns the replies into what the window shows;
# the charts dock shows sweeps; the dialogs are their own classes.
target_sources(loopscope_widgets PRIVATE
  shell/AnalysisService.cpp
  shell/RecoveryStore.cpp
  shell/Document.h
  shell/Document.cpp
  shell/RunSettingsDialog.h
  shell/RunSettingsDialog.cpp
  shell/ExportDialog.h
  shell/ExportDialog.cpp
  shell/RunController.h
  shell/RunController.cpp
  shell/ChartsDock.h
  shell/ChartsDock.cpp
  shell/HelpDialogs.h
  shell/HelpDialogs.cpp
  shell/Theme.h
  shell/Theme.cpp
  shell/MainWindow.h
  shell/MainWindow.cpp
  shell/MainWindowLayout.cpp
  shell/ModelWindows.h
  shell/ModelWindows.cpp
  shell/MigrationController.h
  shell/MigrationController.cpp
  shell/TuningController.h
  shell/TuningController.cpp
  shell/CodeViewController.h
  shell/CodeViewController.cpp
  shell/ProfileController.h
  shell/ProfileController.cpp
  shell/SettingsController.h
  shell/SettingsController.cpp
  shell/DockLayout.h
  shell/DockLayout.cpp
  shell/StatusBarController.h
  shell/StatusBarController.cpp
)
target_compile_definitions(loopscope_widgets PRIVATE LOOPSCOPE_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
