// loopscope-cli: the headless face of the core (DESIGN.md §4). Exit codes: 0 success, 1 the
// document has an error, 2 bad command-line usage, 3 a --check found wrong numbers.
// This file lists the commands with their usage; each command is a file of its own
// (Commands.h), and what they share is in Cli.h.
#include "Cli.h"
#include "Commands.h"
#include "Version.h"

#include "ir/Diagnostic.h"

#include <iostream>
#include <new>
#include <string>

using namespace loopscope::cli;

namespace {

// One entry per command: its synopsis and what it does. `loopscope-cli --help` prints them all,
// `loopscope-cli COMMAND --help` its own with the options every command shares.
struct CommandHelp {
    const char* name;
    const char* text;
};
const CommandHelp kCommands[] = {
    {"lower",
     "  lower  FILE [--variant NAME ...] [--set P=V ...] [--structured] [--compiled] [--trace]\n"
     "         [--footprint] [--tails] [--access [--target \"cuda -arch=sm_XX\"]] [--json]\n"
     "         print the lowered loop nest (TIR) of every variant, as tvm.lower prints it (a\n"
     "         TensorIR variant as sch.mod.show() prints it, blocks kept; --compiled: after\n"
     "         the lowering passes; --trace: its steps as sch.trace.show() prints them);\n"
     "         --footprint prints the bytes each loop touches in one iteration and in all of\n"
     "         them, against the host's cache sizes; --tails counts the iterations that run in\n"
     "         the partial tiles of non-divisible splits and how many the guards turn away;\n"
     "         --access shows a GPU schedule's kernels (threads, shared memory, registers,\n"
     "         occupancy on the target's architecture) and at each access to global memory\n"
     "         the bytes a warp uses of those fetched, at each access to shared memory its\n"
     "         bank conflicts\n"},
    {"check", "  check  FILE [--set P=V ...] [--json]\n"
              "         evaluate the script and lower every variant; report the first error\n"},
    {"run",
     "  run    FILE [--variant NAME ...] [--set P=V ...] [--check] [--threads N]\n"
     "         [--target \"llvm -mcpu=CPU\"] [--runner COMMAND] [--json]\n"
     "         compile and run each variant on seeded random inputs; --check compares every\n"
     "         output with the reference interpreter (exit 3 on wrong numbers). Variants bound\n"
     "         to GPU threads run on the NVIDIA GPU of loopscope-runner (the one beside this\n"
     "         program, or the one --runner starts: 'ssh HOST loopscope-runner'); without a\n"
     "         GPU they are checked on this CPU and not timed\n"},
    {"bench",
     "  bench  FILE [--variant NAME ...] [--set P=V ...] [--repeat R] [--min-repeat-ms MS]\n"
     "         [--number N] [--threads N] [--target \"llvm -mcpu=CPU\"] [--check]\n"
     "         [--runner COMMAND] [--json]\n"
     "         time each variant (median of R measurements) and print the ladder: time, GFLOPS,\n"
     "         speedup over the first variant\n"},
    {"sweep",
     "  sweep  FILE --param P[,P...] --values V[,V...] [--variant NAME ...] [--threads N]\n"
     "         [--max-point-s S] [--blas] [--csv OUT] [--chart OUT.png|OUT.svg]\n"
     "         [--chart-kind lines|bars|roofline] [--target \"llvm -mcpu=CPU\"]\n"
     "         [--runner COMMAND] [--json]\n"
     "         set every --param to each value together (default values 64,128,...,2048), run,\n"
     "         check and time each variant there; a point whose single run takes longer than\n"
     "         S seconds (default 10) is skipped; --blas adds the reference library: OpenBLAS\n"
     "         cblas_sgemm for a matmul, oneDNN's convolution for a 2-D convolution,\n"
     "         oneDNN's int8 matmul and convolution for uint8 x int8 -> int32 ones;\n"
     "         --chart draws the app's chart with the measured peak and memory bandwidth\n"},
    {"profile",
     "  profile FILE [--variant NAME] [--set P=V ...] [--threads N] [--seconds S]\n"
     "         [--target \"llvm -mcpu=CPU\"] [--json]\n"
     "         where the variant's time goes (default: the last variant): it runs again and\n"
     "         again for S seconds (default 1) while the CPU clock samples it, and its loop\n"
     "         nest is printed with each line's share of the time and each loop's, and the\n"
     "         hardware counters (IPC, cache misses) where the machine has them\n"},
    {"machine",
     "  machine [--threads N] [--json]\n"
     "         what this machine is to Loopscope (its CPU as LLVM names it and the model code is\n"
     "         generated for, its caches and where they were read, the cores it may use), and\n"
     "         its measured peak float32 GFLOPS (FMA microbenchmark) and memory bandwidth\n"
     "         (triad)\n"},
    {"tune",
     "  tune   FILE [--variant NAME] [--trials N | --time S] [--log F] [--resume]\n"
     "         [--forbid P,...] [--threads N] [--set P=V ...] [--seed N] [--apply] [--json]\n"
     "         [--runner 'COMMAND'] [--runners N]\n"
     "         [--rounds-out DIR | --rounds-in DIR] [--target \"cuda -arch=sm_XX\"]\n"
     "         search schedules for a variant (default: the first; its steps stay as given)\n"
     "         with a learned cost model, measuring each candidate in the worker and checking\n"
     "         it against the reference (default 64 trials); prints the best as statements,\n"
     "         its GFLOPS and OpenBLAS's for a matmul; --forbid keeps primitives out;\n"
     "         records go to --log (default: the app's data folder, per script); --resume\n"
     "         counts the log's records as measured; --trials 0 --apply writes the log's best\n"
     "         --apply adds the result to FILE as a variant ('tuned from NAME');\n"
     "         --runners N measures N candidates at once, each in a worker started by\n"
     "         --runner (a command through the shell: 'ssh node7 loopscope-worker',\n"
     "         'srun -N1 -n1 --exclusive loopscope-worker'; default: the worker here)\n"
     "         a GPU variant (a GPU target, or loops bound to threads), or any with --target\n"
     "         \"cuda -arch=sm_XX\", is searched from its\n"
     "         declaration with GPU rules and measured on the GPU by loopscope-runner: the one\n"
     "         beside the worker, or the one --runner starts ('ssh gpu1 loopscope-runner');\n"
     "         for a GPU that only batch jobs reach, --rounds-out DIR writes a round of\n"
     "         candidates (checked here) as kernel bundles for --target's GPU,\n"
     "         'loopscope-runner --measure DIR' times them there, and --rounds-in DIR learns\n"
     "         their times (into the same log) and writes the next round\n"},
    {"model",
     "  model  info|run|bench|tasks|test ...   ONNX models (loopscope-cli model --help)\n"},
    {"export",
     "  export FILE [--variant NAME] --format tvm|tvm-trace|c|llvm|asm|obj|ptx|cuda|bundle\n"
     "         [-o OUT]\n"
     "         [--set P=V ...] [--target \"llvm -mcpu=CPU -mattr=+F,...\"|\"cuda -arch=sm_XX\"]\n"
     "         [--lines] [--tvm 0.17..0.26]\n"
     "         write one variant (a script's only one needs no --variant) as a standalone TVM\n"
     "         script, C source, LLVM IR, assembly or an object file (obj needs -o and also\n"
     "         writes OUT's .h); text goes to stdout without -o. LLVM IR, assembly and objects\n"
     "         are for the CPU the variant's target names (tvm.build(..., target=...)), else\n"
     "         the host's; --target overrides it (and is the TVM script's build target);\n"
     "         --lines adds line info pointing at the lines `lower` prints (.loc in assembly)\n"
     "         A GPU schedule's kernels: ptx (through LLVM's NVPTX for the architecture of\n"
     "         --target or the variant's, else sm_50) or cuda (CUDA C, as TVM prints it)\n"
     "         --tvm: the TVM release the script runs in: 0.17 (the default) writes a TE\n"
     "         schedule; 0.20 to 0.26 write a tir.Schedule variant as TVMScript and its trace,\n"
     "         in v0.20-v0.23's spelling or v0.24-v0.26's; a TE variant for 0.20 on is its\n"
     "         schedule as the tir.Schedule calls that make the same loop nest\n"
     "         tvm-trace: the variant's tir.Schedule trace as TVM's trace.as_json() writes it\n"
     "         (--tvm 0.20..0.26, default 0.26), for Trace.apply_json_to_schedule and\n"
     "         MetaSchedule databases\n"},
    {"convert",
     "  convert FILE [--tvm 0.20..0.26] [-o OUT] [--set P=V ...]\n"
     "         write the whole script for today's TVM (default 0.26's spelling): each TE\n"
     "         variant's schedule becomes the tir.Schedule calls that make its loop nest, on\n"
     "         te.create_prim_func of its arguments; the declarations stay as written. A variant\n"
     "         with no translation stays TE under a comment that says why (exit status 1)\n"},
};

const char* kUsageHead = "usage: loopscope-cli COMMAND FILE [options]\n"
                         "       loopscope-cli --help | --version\n"
                         "       loopscope-cli COMMAND --help\n";

const char* kSharedOptions =
    "--set P=V rebinds a parameter (a top-level integer such as M = 1024) or gives a symbolic\n"
    "size (te.var) its value for running.\n"
    "\n"
    "--target \"llvm -mcpu=CPU\" for run, bench, sweep and profile: the code that runs here is\n"
    "scheduled for CPU's model (e.g. generic, znver4) with this machine's own features; without\n"
    "it, for the model LLVM names this CPU, or the nearest it knows (loopscope-cli machine).\n"
    "\n"
    "limits (every command that lowers or checks):\n"
    "  --max-unroll N           copies of loop bodies explicit unrolling may make in one\n"
    "                           kernel (default 1024)\n"
    "  --max-reference-steps N  steps the reference interpreter may spend on one checked\n"
    "                           element (default 67108864); elements that need more are not\n"
    "                           compared, and the check says so\n";

std::string usageText()
{
    std::string text = std::string(kUsageHead) + "\ncommands:\n";
    for (const CommandHelp& c : kCommands)
        text += c.text;
    return text + "\n" + kSharedOptions;
}

// `loopscope-cli COMMAND --help`: the command's own entry and the options every command shares.
std::string usageOf(const std::string& command)
{
    for (const CommandHelp& c : kCommands)
        if (command == c.name)
            return "usage: loopscope-cli " + command + (command == "machine" ? "" : " FILE") +
                   " [options]\n\n" + c.text + "\n" + kSharedOptions;
    return usageText();
}

} // namespace

namespace loopscope::cli {

std::string commandUsageText(const std::string& command)
{
    return usageOf(command);
}

} // namespace loopscope::cli

int main(int argc, char** argv)
{
    using Command = int (*)(int, char**);
    static const std::pair<const char*, Command> kRun[] = {
        {"lower", commandLower},     {"check", commandCheck},   {"run", commandRun},
        {"bench", commandBench},     {"export", commandExport}, {"sweep", commandSweep},
        {"machine", commandMachine}, {"tune", commandTune},     {"profile", commandProfile},
        {"convert", commandConvert},
    };
    try {
        if (argc < 2) throw UsageError("missing command");
        const std::string command = argv[1];
        if (command == "model") return commandModel(argc - 1, argv + 1);
        if (command == "-h" || command == "--help" || command == "help") {
            std::cout << usageText();
            return kOk;
        }
        if (command == "--version" || command == "-V") {
            std::cout << "loopscope-cli " LOOPSCOPE_VERSION_STRING "\n";
            return kOk;
        }
        Command run = nullptr;
        for (auto& [name, fn] : kRun)
            if (command == name) run = fn;
        if (!run) throw UsageError("unknown command '" + command + "'");
        for (int i = 2; i < argc; ++i)
            if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") {
                std::cout << commandUsageText(command);
                return kOk;
            }
        return run(argc, argv);
    } catch (const UsageError& e) {
        std::cerr << "loopscope-cli: " << e.what() << "\n";
        // A known command's own usage; the whole list where the command is what is wrong.
        if (e.showUsage) std::cerr << "\n" << commandUsageText(argc > 1 ? argv[1] : "");
        return kUsage;
    } catch (const loopscope::InternalError& e) {
        std::cerr << "loopscope-cli: " << e.what()
                  << "\n(this is a bug in Loopscope, not in the script)\n";
        return kInternalError;
    } catch (const std::bad_alloc&) {
        std::cerr << "loopscope-cli: out of memory: the program needs more memory than this "
                     "machine could give (try smaller sizes with --set)\n";
        return kDocumentError;
    }
}