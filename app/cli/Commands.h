// The commands of loopscope-cli, one file each; Main.cpp lists them with their usage. Each takes
// the whole command line (argv[1] is the command), throws UsageError for a bad one and returns the
// process's exit code (Cli.h).
#pragma once

namespace loopscope::cli {

int commandLower(int argc, char** argv);   // LowerCommand.cpp
int commandCheck(int argc, char** argv);   // LowerCommand.cpp
int commandRun(int argc, char** argv);     // RunCommand.cpp
int commandBench(int argc, char** argv);   // RunCommand.cpp
int commandExport(int argc, char** argv);  // ExportCommand.cpp
int commandConvert(int argc, char** argv); // ExportCommand.cpp
int commandSweep(int argc, char** argv);   // SweepCommand.cpp
int commandMachine(int argc, char** argv); // MachineCommand.cpp
int commandTune(int argc, char** argv);    // TuneCommand.cpp
int commandProfile(int argc, char** argv); // ProfileCommand.cpp
int commandModel(int argc, char** argv);   // ModelCommand.cpp

} // namespace loopscope::cli
