// loopscope-cli: the headless face of the core (DESIGN.md §4). Exit codes: 0 success, 1 the
// document has an error, 2 bad command-line usage, 3 a --check found wrong numbers.
#include "ChartExport.h"
#include "ModelCommand.h"
#include "ProfileCommand.h"
#include "TuneCommand.h"
#include "Version.h"
#include "export/Export.h"
#include "ir/Host.h"
#include "ir/Limits.h"
#include "ir/Printer.h"
#include "lower/Footprint.h"
#include "lower/Lower.h"
#include "lower/Tails.h"
#include "runtime/Microbench.h"
#include "runtime/Runner.h"
#include "runtime/RuntimeJit.h"
#include "runtime/Sweep.h"
#include "runtime/SweepJson.h"
#include "runtime/ThreadPool.h"
#include "runtime/VariantRun.h"
#include "runtime/VariantRunJson.h"
#include "schedule/Primitives.h"
#include "te/Program.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <new>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace loopscope;
using json = nlohmann::json;

namespace {

constexpr int kOk = 0;
constexpr int kDocumentError = 1;
constexpr int kUsage = 2;
constexpr int kWrongNumbers = 3;
constexpr int kInternalError = 70; // a bug in Loopscope (EX_SOFTWARE)

// One entry per command: its synopsis and what it does. `loopscope-cli --help` prints them all,
// `loopscope-cli COMMAND --help` its own with the options every command shares.
struct CommandHelp {
    const char* name;
    const char* text;
};
const CommandHelp kCommands[] = {
    {"lower",
     "  lower  FILE [--variant NAME ...] [--set P=V ...] [--structured] [--footprint] [--tails]\n"
     "         [--json]\n"
     "         print the lowered loop nest (TIR) of every variant, as tvm.lower prints it;\n"
     "         --footprint prints the bytes each loop touches in one iteration and in all of\n"
     "         them, against the host's cache sizes; --tails counts the iterations that run in\n"
     "         the partial tiles of non-divisible splits and how many the guards turn away\n"},
    {"check", "  check  FILE [--set P=V ...] [--json]\n"
              "         evaluate the script and lower every variant; report the first error\n"},
    {"run",
     "  run    FILE [--variant NAME ...] [--set P=V ...] [--check] [--threads N]\n"
     "         [--target \"llvm -mcpu=CPU\"] [--json]\n"
     "         compile and run each variant on seeded random inputs; --check compares every\n"
     "         output with the reference interpreter (exit 3 on wrong numbers)\n"},
    {"bench",
     "  bench  FILE [--variant NAME ...] [--set P=V ...] [--repeat R] [--min-repeat-ms MS]\n"
     "         [--number N] [--threads N] [--target \"llvm -mcpu=CPU\"] [--check] [--json]\n"
     "         time each variant (median of R measurements) and print the ladder: time, GFLOPS,\n"
     "         speedup over the first variant\n"},
    {"sweep",
     "  sweep  FILE --param P[,P...] --values V[,V...] [--variant NAME ...] [--threads N]\n"
     "         [--max-point-s S] [--blas] [--csv OUT] [--chart OUT.png|OUT.svg]\n"
     "         [--chart-kind lines|bars|roofline] [--target \"llvm -mcpu=CPU\"] [--json]\n"
     "         set every --param to each value together (default values 64,128,...,2048), run,\n"
     "         check and time each variant there; a point whose single run takes longer than\n"
     "         S seconds (default 10) is skipped; --blas adds the reference library: OpenBLAS\n"
     "         cblas_sgemm for a matmul, oneDNN's convolution for a 2-D convolution;\n"
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
     "         search schedules for a variant (default: the first; its steps stay as given)\n"
     "         with a learned cost model, measuring each candidate in the worker and checking\n"
     "         it against the reference (default 64 trials); prints the best as statements,\n"
     "         its GFLOPS and OpenBLAS's for a matmul; --forbid keeps primitives out;\n"
     "         records go to --log (default: the app's data folder, per script); --resume\n"
     "         counts the log's records as measured; --trials 0 --apply writes the log's best\n"
     "         --apply adds the result to FILE as a variant ('tuned from NAME')\n"},
    {"model",
     "  model  info|run|bench|tasks|test ...   ONNX models (loopscope-cli model --help)\n"},
    {"export",
     "  export FILE [--variant NAME] --format tvm|c|llvm|asm|obj [-o OUT] [--set P=V ...]\n"
     "         [--target \"llvm -mcpu=CPU -mattr=+F,...\"] [--lines]\n"
     "         write one variant (a script's only one needs no --variant) as a standalone TVM\n"
     "         script, C source, LLVM IR, assembly or an object file (obj needs -o and also\n"
     "         writes OUT's .h); text goes to stdout without -o. LLVM IR, assembly and objects\n"
     "         are for the CPU the variant's target names (tvm.build(..., target=...)), else\n"
     "         the host's; --target overrides it (and is the TVM script's build target);\n"
     "         --lines adds line info pointing at the lines `lower` prints (.loc in assembly)\n"},
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
std::string commandUsageText(const std::string& command)
{
    for (const CommandHelp& c : kCommands)
        if (command == c.name)
            return "usage: loopscope-cli " + command + (command == "machine" ? "" : " FILE") +
                   " [options]\n\n" + c.text + "\n" + kSharedOptions;
    return usageText();
}

struct Options {
    std::string command;
    std::string file;
    std::vector<std::string> variants;
    std::map<std::string, std::int64_t> sets;
    bool structured = false;
    bool footprint = false; // lower: --footprint
    bool tails = false;     // lower: --tails
    bool json = false;
    bool check = false;
    int threads = 0;
    int repeat = 5;
    int number = 1;
    double minRepeatMs = 50;
    std::map<std::string, std::int64_t> symbols; // --set values for te.var sizes
    std::string format;                          // export: tvm, c, llvm, asm or obj
    std::string target;               // export: a TVM target string, instead of the variant's
    std::string output;               // export: -o OUT
    std::vector<std::string> params;  // sweep: --param
    std::vector<std::int64_t> values; // sweep: --values
    double maxPointS = 10;            // sweep: --max-point-s
    bool blas = false;                // sweep: --blas
    std::string csv;                  // sweep: --csv OUT
    std::string chart;                // sweep: --chart OUT.png|OUT.svg
    std::string chartKind = "lines";  // sweep: --chart-kind lines|bars|roofline
    TuneArgs tune;                    // tune: its own options
    double profileSeconds = 1;        // profile: --seconds
    bool lines = false;               // export: --lines
    std::string jitCpu; // run, bench, sweep, profile: the CPU model --target names (empty: host's)
};

// Exit code 2. The usage text follows when the command line itself is malformed, not when it
// names a file that cannot be read or written or a parameter the script does not have.
class UsageError : public std::runtime_error {
public:
    explicit UsageError(const std::string& what, bool showUsage = true)
        : std::runtime_error(what), showUsage(showUsage)
    {
    }
    bool showUsage;
};

UsageError cannotRead(const std::string& path)
{
    return UsageError("cannot read '" + path + "'", false);
}

UsageError cannotWrite(const std::string& path, const std::string& why = {})
{
    return UsageError("cannot write '" + path + "'" + (why.empty() ? "" : ": " + why), false);
}

std::int64_t parseInteger(const std::string& text, const std::string& what)
{
    try {
        std::size_t used = 0;
        long long v = std::stoll(text, &used);
        if (used != text.size()) throw UsageError(what + ": '" + text + "' is not an integer");
        return v;
    } catch (const std::logic_error&) {
        throw UsageError(what + ": '" + text + "' is not an integer");
    }
}

Options parseOptions(int argc, char** argv)
{
    if (argc < 2) throw UsageError("missing command");
    Options o;
    o.command = argv[1];
    if (o.command == "model") std::exit(runModelCommand(argc - 1, argv + 1, argv[0]));
    if (o.command == "-h" || o.command == "--help" || o.command == "help") {
        std::cout << usageText();
        std::exit(kOk);
    }
    if (o.command == "--version" || o.command == "-V") {
        std::cout << "loopscope-cli " LOOPSCOPE_VERSION_STRING "\n";
        std::exit(kOk);
    }
    static const std::set<std::string> commands = {"lower", "check",   "run",  "bench",  "export",
                                                   "sweep", "machine", "tune", "profile"};
    if (!commands.count(o.command)) throw UsageError("unknown command '" + o.command + "'");
    for (int i = 2; i < argc; ++i)
        if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") {
            std::cout << commandUsageText(o.command);
            std::exit(kOk);
        }
    bool runs = o.command == "run" || o.command == "bench" || o.command == "sweep" ||
                o.command == "machine" || o.command == "tune" || o.command == "profile";
    const bool tune = o.command == "tune";
    bool sweep = o.command == "sweep";
    auto list = [](const std::string& text) {
        std::vector<std::string> out;
        std::stringstream ss(text);
        std::string item;
        while (std::getline(ss, item, ','))
            if (!item.empty()) out.push_back(item);
        return out;
    };
    for (int i = 2; i < argc; ++i) {
        std::string a = argv[i];
        auto value = [&](const std::string& flag) -> std::string {
            if (i + 1 >= argc) throw UsageError(flag + " needs a value");
            return argv[++i];
        };
        if (a == "--variant")
            o.variants.push_back(value(a));
        else if (a == "--max-unroll" || a == "--max-reference-steps") {
            std::int64_t n = parseInteger(value(a), a);
            if (n < 1) throw UsageError(a + " must be at least 1");
            Limits l = limits();
            (a == "--max-unroll" ? l.maxUnrollCopies : l.maxReferenceStepsPerElement) = n;
            setLimits(l);
        } else if (a == "--set") {
            std::string kv = value(a);
            auto eq = kv.find('=');
            if (eq == std::string::npos || eq == 0)
                throw UsageError("--set takes NAME=VALUE, not '" + kv + "'");
            o.sets[kv.substr(0, eq)] = parseInteger(kv.substr(eq + 1), "--set " + kv.substr(0, eq));
        } else if (a == "--structured" && o.command == "lower")
            o.structured = true;
        else if (a == "--footprint" && o.command == "lower")
            o.footprint = true;
        else if (a == "--tails" && o.command == "lower")
            o.tails = true;
        else if (a == "--check" && runs)
            o.check = true;
        else if (a == "--threads" && runs)
            o.threads = static_cast<int>(parseInteger(value(a), a));
        else if (a == "--repeat" && o.command == "bench")
            o.repeat = static_cast<int>(parseInteger(value(a), a));
        else if (a == "--number" && o.command == "bench")
            o.number = static_cast<int>(parseInteger(value(a), a));
        else if (a == "--min-repeat-ms" && o.command == "bench")
            o.minRepeatMs = static_cast<double>(parseInteger(value(a), a));
        else if (a == "--param" && sweep) {
            for (auto& p : list(value(a)))
                o.params.push_back(p);
        } else if (a == "--values" && sweep) {
            for (auto& v : list(value(a))) {
                std::int64_t x = parseInteger(v, a);
                if (x < 1) throw UsageError("--values: " + v + " is not a positive size");
                o.values.push_back(x);
            }
        } else if (a == "--max-point-s" && sweep) {
            std::string v = value(a);
            try {
                o.maxPointS = std::stod(v);
            } catch (const std::logic_error&) {
                throw UsageError("--max-point-s: '" + v + "' is not a number");
            }
            if (!(o.maxPointS > 0)) throw UsageError("--max-point-s must be more than 0");
        } else if (a == "--blas" && sweep)
            o.blas = true;
        else if (a == "--csv" && sweep)
            o.csv = value(a);
        else if (a == "--chart" && sweep)
            o.chart = value(a);
        else if (a == "--chart-kind" && sweep)
            o.chartKind = value(a);
        else if (a == "--format" && o.command == "export")
            o.format = value(a);
        else if (a == "--lines" && o.command == "export")
            o.lines = true;
        else if ((a == "-o" || a == "--output") && o.command == "export")
            o.output = value(a);
        else if (a == "--target" && runs && !tune && o.command != "machine") {
            // Code that runs here has this machine's features: only the CPU model is chosen.
            o.target = value(a);
            try {
                const TargetChoice c = parseTarget(o.target);
                if (o.target.rfind("llvm", 0) != 0 || !c.attrs.empty() || !c.triple.empty())
                    throw UsageError("--target for " + o.command +
                                         " takes \"llvm -mcpu=CPU\" alone: code that runs here "
                                         "has this machine's features (-mattr and -mtriple are "
                                         "for export)",
                                     false);
                if (!c.cpu.empty()) checkTarget("llvm -mcpu=" + c.cpu);
                o.jitCpu = c.cpu;
            } catch (const CodegenError& e) {
                throw UsageError(std::string("--target: ") + e.what(), false);
            }
        } else if (a == "--target" && o.command == "export") {
            o.target = value(a);
            if (o.target.rfind("llvm", 0) != 0)
                throw UsageError(
                    "--target '" + o.target +
                        "' is not supported: Loopscope generates code for CPUs (\"llvm ...\")",
                    false);
        } else if (a == "--trials" && tune) {
            o.tune.trials = static_cast<int>(parseInteger(value(a), a));
            if (o.tune.trials < 0) throw UsageError("--trials must be 0 or more");
        } else if (a == "--time" && tune) {
            std::string v = value(a);
            try {
                o.tune.seconds = std::stod(v);
            } catch (const std::logic_error&) {
                throw UsageError("--time: '" + v + "' is not a number of seconds");
            }
            if (!(o.tune.seconds > 0)) throw UsageError("--time must be more than 0 seconds");
        } else if (a == "--log" && tune)
            o.tune.log = value(a);
        else if (a == "--resume" && tune)
            o.tune.resume = true;
        else if (a == "--apply" && tune)
            o.tune.apply = true;
        else if (a == "--seed" && tune)
            o.tune.seed = static_cast<std::uint64_t>(parseInteger(value(a), a));
        else if (a == "--forbid" && tune) {
            for (auto& p : list(value(a))) {
                const PrimitiveSpec* spec = findPrimitive(p);
                if (!spec) throw UsageError("--forbid: '" + p + "' is not a schedule primitive");
                o.tune.forbidden.insert(p);
            }
        } else if (a == "--seconds" && o.command == "profile") {
            std::string v = value(a);
            try {
                o.profileSeconds = std::stod(v);
            } catch (const std::logic_error&) {
                throw UsageError("--seconds: '" + v + "' is not a number");
            }
            if (!(o.profileSeconds > 0)) throw UsageError("--seconds must be more than 0");
        } else if (a == "--json" && o.command != "export")
            o.json = true;
        else if (!a.empty() && a[0] == '-')
            throw UsageError("unknown option '" + a + "' for " + o.command);
        else if (o.file.empty())
            o.file = a;
        else
            throw UsageError("unexpected argument '" + a + "'");
    }
    if (o.file.empty() && o.command != "machine") throw UsageError("missing FILE");
    if (!o.file.empty() && o.command == "machine") throw UsageError("machine takes no FILE");
    if (sweep && o.params.empty())
        throw UsageError("sweep needs --param P[,P...] (e.g. --param M,N,K)");
    if (sweep && o.values.empty()) o.values = defaultSweepValues();
    // Output files are written after the sweep: a folder that is not there is said before it.
    for (const std::string* out : {&o.csv, &o.chart}) {
        if (out->empty()) continue;
        std::filesystem::path folder = std::filesystem::path(*out).parent_path();
        if (!folder.empty() && !std::filesystem::is_directory(folder))
            throw cannotWrite(*out, "no folder '" + folder.string() + "'");
    }
    if (!o.chart.empty()) {
        auto dot = o.chart.rfind('.');
        std::string ext = dot == std::string::npos ? "" : o.chart.substr(dot + 1);
        for (auto& c : ext)
            c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (ext != "png" && ext != "svg")
            throw UsageError("--chart: '" + o.chart + "' must end in .png or .svg");
    }
    if (o.chartKind != "lines" && o.chartKind != "bars" && o.chartKind != "roofline")
        throw UsageError("--chart-kind: '" + o.chartKind + "' is not lines, bars or roofline");
    if (o.threads < 0) throw UsageError("--threads must be 0 (all hardware threads) or more");
    if (o.repeat < 1) throw UsageError("--repeat must be at least 1");
    if (o.number < 1) throw UsageError("--number must be at least 1");
    if (o.command == "export") {
        if (o.variants.size() > 1)
            throw UsageError("export writes one variant: give one --variant NAME");
        if (o.format.empty()) throw UsageError("export needs --format tvm|c|llvm|asm|obj");
        if (std::find(std::begin(kExportFormats), std::end(kExportFormats), o.format) ==
            std::end(kExportFormats))
            throw UsageError("unknown format '" + o.format + "' (tvm, c, llvm, asm or obj)");
        if (o.format == "obj" && o.output.empty()) throw UsageError("--format obj needs -o OUT");
        if (o.format == "obj" && std::filesystem::path(o.output).extension() == ".h")
            throw UsageError(
                "-o " + o.output +
                ": the object's header goes next to it as .h; name the object differently");
    }
    return o;
}

bool readFile(const std::string& path, std::string* out)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    std::ostringstream ss;
    ss << in.rdbuf();
    *out = ss.str();
    return true;
}

json diagnosticJson(const std::string& file, const Diagnostic& d)
{
    return {{"file", file}, {"line", d.loc.line}, {"column", d.loc.col}, {"message", d.message}};
}

void reportDiagnostic(const Options& o, const Diagnostic& d)
{
    std::cerr << formatDiagnostic(o.file, d) << "\n";
}

// Evaluates the document; prints its error and returns false when it has one.
bool evaluate(Options& o, EvalResult* result, json* errorJson)
{
    std::string source;
    if (!readFile(o.file, &source)) throw cannotRead(o.file);
    ScriptEvaluation evaluation = evaluateWithValues(source, o.sets);
    *result = std::move(evaluation.result);
    if (!result->ok) {
        reportDiagnostic(o, result->error);
        *errorJson = diagnosticJson(o.file, result->error);
        return false;
    }
    // --set names that are symbolic sizes give their run-time values.
    o.symbols = evaluation.symbols;
    if (!evaluation.unknownNames.empty()) {
        std::string names;
        for (auto& n : evaluation.unknownNames)
            names += (names.empty() ? "" : ", ") + n;
        std::string known = parameterList(result->program);
        throw UsageError(
            "--set " + names + ": the script has no such parameter" +
                (known.empty() ? std::string(" (it has none)") : " (it has: " + known + ")"),
            false);
    }
    return true;
}

std::vector<const Variant*> selectVariants(const Options& o, const Program& p)
{
    std::vector<const Variant*> out;
    if (o.variants.empty()) {
        for (auto& v : p.variants)
            out.push_back(&v);
        return out;
    }
    for (auto& name : o.variants) {
        const Variant* v = p.findVariant(name);
        if (!v)
            throw UsageError("no variant '" + name + "' in " + o.file +
                                 " (variants: " + variantList(p) + ")",
                             false);
        out.push_back(v);
    }
    return out;
}

// GPU thread bindings are shown but never run; say so once per variant.
void noteThreadBindings(const Options& o, const Variant& v)
{
    for (auto& st : v.steps) {
        if (st.primitive != "bind") continue;
        std::cerr
            << o.file << ":" << st.loc.line << ":" << st.loc.col << ": note: variant '" << v.name
            << "' binds loops to GPU thread axes; Loopscope shows its TIR but runs only CPU code\n";
        return;
    }
}

json stepsJson(const Variant& v)
{
    json steps = json::array();
    for (auto& s : v.steps)
        steps.push_back({{"primitive", s.primitive},
                         {"stage", s.stage},
                         {"line", s.loc.line},
                         {"text", s.text}});
    return steps;
}

std::string fixed(double v, int digits)
{
    std::ostringstream ss;
    ss << std::fixed << std::setprecision(digits) << v;
    return ss.str();
}

std::string pad(const std::string& s, std::size_t width, bool right = false)
{
    if (s.size() >= width) return s;
    return right ? std::string(width - s.size(), ' ') + s : s + std::string(width - s.size(), ' ');
}

int commandLower(Options& o)
{
    EvalResult r;
    json err;
    if (!evaluate(o, &r, &err)) {
        if (o.json) std::cout << json{{"ok", false}, {"error", err}}.dump(2) << "\n";
        return kDocumentError;
    }
    json variants = json::array();
    std::string text;
    auto selected = selectVariants(o, r.program);
    for (const Variant* v : selected) {
        LoweredFunc f;
        try {
            f = lowerSchedule(v->schedule(), v->args, v->funcName);
        } catch (const UserError& e) {
            reportDiagnostic(o, e.diagnostic());
            if (o.json)
                std::cout << json{{"ok", false}, {"error", diagnosticJson(o.file, e.diagnostic())}}
                                 .dump(2)
                          << "\n";
            return kDocumentError;
        }
        noteThreadBindings(o, *v);
        std::string tir =
            o.structured ? printStructured(f.structured, f.args) : printTVMScript(f.func);
        if (o.footprint) {
            const auto loops = loopFootprints(f);
            const HostCaches& host = hostCacheInfo();
            const auto& caches = host.levels;
            const auto outgrown = outgrownLevels(loops, caches);
            if (o.json) {
                json ls = json::array();
                for (std::size_t i = 0; i < loops.size(); ++i) {
                    const LoopFootprint& l = loops[i];
                    json ts = json::array();
                    for (auto& t : l.tensors)
                        ts.push_back({{"tensor", t.tensor},
                                      {"per_iteration_bytes", t.perIteration},
                                      {"whole_loop_bytes", t.wholeLoop}});
                    json levels = json::array();
                    for (auto& c : outgrown[i])
                        levels.push_back(c.name);
                    ls.push_back({{"loop", l.var},
                                  {"depth", l.depth},
                                  {"extent", l.extent},
                                  {"line", l.line},
                                  {"structured_line", l.structuredLine},
                                  {"per_iteration_bytes", l.perIteration},
                                  {"whole_loop_bytes", l.wholeLoop},
                                  {"exact", l.exact},
                                  {"outgrows", levels},
                                  {"tensors", ts}});
                }
                json cs = json::array();
                for (auto& c : caches)
                    cs.push_back({{"name", c.name}, {"bytes", c.bytes}});
                variants.push_back({{"name", v->name},
                                    {"caches", cs},
                                    {"caches_source", host.source},
                                    {"loops", ls}});
                continue;
            }
            std::ostringstream t;
            if (selected.size() > 1) t << "# variant: " << v->name << "\n";
            t << "bytes touched per loop (host caches: " << describeHostCaches(host) << ")\n";
            t << pad("loop", 28) << pad("extent", 8, true) << pad("one iteration", 16, true)
              << pad("whole loop", 14, true) << "  tensors (whole loop)\n";
            for (std::size_t i = 0; i < loops.size(); ++i) {
                const LoopFootprint& l = loops[i];
                std::string name = std::string(static_cast<std::size_t>(2 * l.depth), ' ') + l.var;
                std::string tensors;
                for (auto& x : l.tensors)
                    tensors +=
                        (tensors.empty() ? "" : ", ") + x.tensor + " " + byteSize(x.wholeLoop);
                t << pad(name, 28) << pad(std::to_string(l.extent), 8, true)
                  << pad(byteSize(l.perIteration), 16, true) << pad(byteSize(l.wholeLoop), 14, true)
                  << "  " << tensors;
                for (auto& c : outgrown[i])
                    t << "  <- outgrows " << c.name;
                if (!l.exact) t << "  (a bound)";
                t << "\n";
            }
            text += t.str();
            if (selected.size() > 1) text += "\n";
            continue;
        }
        if (o.tails) {
            const TailReport tr = guardedTails(f);
            if (o.json) {
                json ts = json::array();
                for (const GuardedTail& t : tr.tails)
                    ts.push_back({{"loop", t.loop},
                                  {"loop_line", t.loopLine},
                                  {"guard_lines", t.lines},
                                  {"loops", t.loops},
                                  {"iterations", t.iterations},
                                  {"in_tail", t.inTail},
                                  {"guarded_off", t.guardedOff}});
                variants.push_back({{"name", v->name},
                                    {"tails", ts},
                                    {"tail_share", tr.tailShare},
                                    {"guarded_off_share", tr.offShare},
                                    {"uncounted_guards", tr.uncounted}});
                continue;
            }
            std::ostringstream t;
            t.setf(std::ios::fixed);
            t.precision(1);
            t << (selected.size() > 1 ? "# variant: " + v->name + "\n" : "");
            if (tr.tails.empty()) t << "no partial tiles: every split divides its loop\n";
            for (const GuardedTail& g : tr.tails) {
                t << describeTail(g);
                if (!g.lines.empty()) t << "  (guard on line " << g.lines.front() << ")";
                t << "\n";
            }
            if (!tr.tails.empty())
                t << 100 * tr.tailShare << " % of the stores' iterations run in a partial tile, "
                  << 100 * tr.offShare << " % are guarded off\n";
            if (tr.uncounted > 0) t << tr.uncounted << " guard(s) too large to count\n";
            text += t.str();
            if (selected.size() > 1) text += "\n";
            continue;
        }
        if (o.json) {
            variants.push_back(
                {{"name", v->name}, {"line", v->loc.line}, {"steps", stepsJson(*v)}, {"tir", tir}});
        } else {
            if (selected.size() > 1) text += "# variant: " + v->name + "\n";
            text += tir;
            if (!tir.empty() && tir.back() != '\n') text += "\n";
            if (selected.size() > 1) text += "\n";
        }
    }
    if (o.json)
        std::cout << json{{"ok", true}, {"file", o.file}, {"variants", variants}}.dump(2) << "\n";
    else
        std::cout << text;
    return kOk;
}

int commandCheck(Options& o)
{
    EvalResult r;
    json err;
    if (!evaluate(o, &r, &err)) {
        if (o.json) std::cout << json{{"ok", false}, {"error", err}}.dump(2) << "\n";
        return kDocumentError;
    }
    json variants = json::array();
    for (auto& v : r.program.variants) {
        try {
            lowerSchedule(v.schedule(), v.args, v.funcName);
        } catch (const UserError& e) {
            reportDiagnostic(o, e.diagnostic());
            if (o.json)
                std::cout << json{{"ok", false}, {"error", diagnosticJson(o.file, e.diagnostic())}}
                                 .dump(2)
                          << "\n";
            return kDocumentError;
        }
        noteThreadBindings(o, v);
        variants.push_back({{"name", v.name}, {"line", v.loc.line}, {"steps", v.steps.size()}});
    }
    if (o.json) {
        json params = json::array();
        for (auto& p : r.program.parameters)
            params.push_back({{"name", p.name}, {"value", p.value}, {"line", p.loc.line}});
        std::cout << json{{"ok", true},
                          {"file", o.file},
                          {"parameters", params},
                          {"variants", variants}}
                         .dump(2)
                  << "\n";
    } else {
        std::cout << o.file << ": ok, " << r.program.variants.size() << " variant"
                  << (r.program.variants.size() == 1 ? "" : "s");
        for (auto& v : r.program.variants)
            std::cout << (&v == &r.program.variants.front() ? ": " : ", ") << v.name;
        std::cout << "\n";
    }
    return kOk;
}

json parametersJson(const Program& p, const Options& o)
{
    json params = json::object();
    for (auto& x : p.parameters)
        params[x.name] = x.value;
    for (auto& [name, value] : o.symbols)
        params[name] = value;
    return params;
}

// The CPU model the command's JIT schedules for (--target "llvm -mcpu=CPU"; empty: the host's).
std::string g_jitCpu;

// The command-line tool's JIT, made on first use (commands that only lower need none).
Jit& cliJit()
{
    static std::unique_ptr<Jit> jit = createRuntimeJit(g_jitCpu);
    return *jit;
}

struct VariantOutcome {
    json record;
    bool wrong = false;
};

// Compile, run, optionally check and time one variant. Document errors are rethrown.
VariantOutcome runVariant(const Options& o, const Program& p, const Variant& v, bool timed)
{
    VariantRunOptions options;
    options.config.symbols = o.symbols;
    options.config.jit = &cliJit();
    options.check = o.check;
    options.time = timed;
    options.benchmark.repeat = o.repeat;
    options.benchmark.number = o.number;
    options.benchmark.minRepeatMs = o.minRepeatMs;
    VariantRunOutcome run = loopscope::runVariant(p, v, options);
    for (auto& n : run.notes)
        std::cerr << o.file << ": note: " << n << "\n";
    VariantOutcome out;
    out.record = variantRunJson(run);
    out.record["variant"] = v.name;
    json params = parametersJson(p, o);
    for (auto& [name, value] : params.items())
        out.record[name] = value;
    out.wrong = run.wrong;
    return out;
}

// "max abs error 0.0000012, max rel error 3.1e-07"
std::string errorSummary(const json& c, int absDigits)
{
    std::ostringstream rel;
    rel << std::setprecision(2) << c["max_rel_error"].get<double>();
    return "max abs error " + fixed(c["max_abs_error"].get<double>(), absDigits) +
           ", max rel error " + rel.str();
}

std::string checkSummary(const json& rec)
{
    if (!rec.contains("check")) return "";
    std::string s;
    for (auto& c : rec["check"]) {
        if (!s.empty()) s += "; ";
        const std::int64_t elements = c["elements"].get<std::int64_t>();
        if (c.contains("error"))
            s += c["tensor"].get<std::string>() + ": " + c["error"].get<std::string>();
        else if (c["ok"].get<bool>() && elements == 0 && c.contains("skipped"))
            s +=
                c["tensor"].get<std::string>() + " not checked: " + c["skipped"].get<std::string>();
        else if (c["ok"].get<bool>())
            s += c["tensor"].get<std::string>() + " ok (" + std::to_string(elements) +
                 " elements, " + errorSummary(c, 7) + ")" +
                 (c.contains("skipped") ? "; " + c["skipped"].get<std::string>() : std::string());
        else
            s += c["tensor"].get<std::string>() +
                 " WRONG: " + c["first_mismatch"].get<std::string>() + " (" + errorSummary(c, 6) +
                 ")";
    }
    return s;
}

int commandRunOrBench(Options& o)
{
    bool timed = o.command == "bench";
    EvalResult r;
    json err;
    if (!evaluate(o, &r, &err)) {
        if (o.json) std::cout << json{{"ok", false}, {"error", err}}.dump(2) << "\n";
        return kDocumentError;
    }
    setParallelThreads(o.threads);
    json results = json::array();
    bool wrong = false;
    auto selected = selectVariants(o, r.program);
    double firstMs = 0;
    if (!o.json) {
        if (timed)
            std::cout << pad("variant", 22) << pad("median ms", 12, true)
                      << pad("min-max ms", 22, true) << pad("GFLOPS", 10, true)
                      << pad("speedup", 10, true) << "\n";
        else
            std::cout << pad("variant", 22) << pad("compile ms", 12, true)
                      << pad("run ms", 12, true) << "  check\n";
    }
    for (const Variant* v : selected) {
        VariantOutcome out;
        try {
            out = runVariant(o, r.program, *v, timed);
        } catch (const UserError& e) {
            reportDiagnostic(o, e.diagnostic());
            if (o.json)
                std::cout << json{{"ok", false}, {"error", diagnosticJson(o.file, e.diagnostic())}}
                                 .dump(2)
                          << "\n";
            return kDocumentError;
        } catch (const CodegenError& e) {
            Diagnostic d = cannotRunDiagnostic(*v, e);
            reportDiagnostic(o, d);
            if (o.json)
                std::cout << json{{"ok", false}, {"error", diagnosticJson(o.file, d)}}.dump(2)
                          << "\n";
            return kDocumentError;
        }
        wrong = wrong || out.wrong;
        const json& rec = out.record;
        results.push_back(rec);
        if (o.json) continue;
        std::string name = pad(v->name, 22);
        if (timed && rec.contains("ms_median")) {
            double ms = rec["ms_median"].get<double>();
            if (firstMs == 0) firstMs = ms;
            std::cout << name << pad(fixed(ms, 3), 12, true)
                      << pad(fixed(rec["ms_min"].get<double>(), 3) + "-" +
                                 fixed(rec["ms_max"].get<double>(), 3),
                             22, true)
                      << pad(fixed(rec["gflops"].get<double>(), 2), 10, true)
                      << pad(fixed(firstMs / ms, 2) + "x", 10, true);
            if (o.check) std::cout << "  " << checkSummary(rec);
            std::cout << "\n";
        } else if (timed) {
            std::cout << name << "  not timed: " << checkSummary(rec) << "\n";
        } else {
            std::cout << name << pad(fixed(rec["compile_ms"].get<double>(), 1), 12, true)
                      << pad(fixed(rec["run_ms"].get<double>(), 3), 12, true) << "  "
                      << (o.check ? checkSummary(rec) : std::string("not checked (use --check)"))
                      << "\n";
        }
        std::cout.flush();
    }
    if (o.json) std::cout << results.dump(2) << "\n";
    return wrong ? kWrongNumbers : kOk;
}

bool writeFile(const std::string& path, const std::string& data)
{
    std::ofstream out(path, std::ios::binary);
    out << data;
    return static_cast<bool>(out.flush());
}

int commandExport(Options& o)
{
    EvalResult r;
    json err;
    if (!evaluate(o, &r, &err)) return kDocumentError;
    // Without --variant, a script's only variant.
    if (o.variants.empty() && r.program.variants.size() != 1) {
        throw UsageError("export needs --variant NAME: " + o.file + " has " +
                             std::to_string(r.program.variants.size()) + " variants (" +
                             variantList(r.program) + ")",
                         false);
    }
    const Variant& v = *selectVariants(o, r.program).front();
    ExportOptions options;
    options.format = o.format;
    options.target = o.target;
    options.sourceName = std::filesystem::path(o.file).filename().string();
    options.symbols = o.symbols;
    options.lineInfo = o.lines;
    if (o.lines && (o.format == "tvm" || o.format == "c"))
        std::cerr << "loopscope-cli: note: --lines is for llvm, asm and obj\n";
    if (o.format == "c" && !o.target.empty())
        std::cerr << "loopscope-cli: note: --target does not change C source\n";
    if (o.format != "tvm" && o.format != "c") {
        const std::string& target = o.target.empty() ? v.target : o.target;
        try {
            checkTarget(target);
        } catch (const CodegenError& e) {
            if (!o.target.empty()) throw UsageError(std::string("--target: ") + e.what(), false);
            reportDiagnostic(
                o, Diagnostic{v.targetLoc, std::string("target '") + target + "': " + e.what()});
            return kDocumentError;
        }
    }
    if (o.format != "tvm") noteThreadBindings(o, v);
    std::string text;
    std::vector<std::pair<std::string, std::string>> files; // path, contents
    try {
        std::string source;
        if (o.format == "tvm") readFile(o.file, &source);
        ExportResult exported = exportVariant(source, r.program, v, options);
        text = std::move(exported.text);
        if (!exported.header.empty())
            files.push_back({std::filesystem::path(o.output).replace_extension(".h").string(),
                             exported.header});
    } catch (const UserError& e) {
        reportDiagnostic(o, e.diagnostic());
        return kDocumentError;
    } catch (const CodegenError& e) {
        reportDiagnostic(o, Diagnostic{v.loc, "variant '" + v.name + "' cannot be exported as " +
                                                  o.format + ": " + e.what()});
        return kDocumentError;
    }
    if (o.output.empty()) {
        std::cout << text;
        return kOk;
    }
    files.insert(files.begin(), {o.output, text});
    for (auto& [path, contents] : files)
        if (!writeFile(path, contents)) throw cannotWrite(path);
    return kOk;
}

int commandSweep(Options& o)
{
    SweepRequest request;
    if (!readFile(o.file, &request.script)) throw cannotRead(o.file);
    request.parameters = o.params;
    request.values = o.values;
    request.variants = o.variants;
    request.threads = o.threads;
    request.maxPointSeconds = o.maxPointS;
    request.blas = o.blas;
    SweepHooks hooks;
    bool table = !o.json;
    if (table) {
        std::cout << pad("variant", 22);
        for (auto& p : o.params)
            std::cout << pad(p, 7, true);
        std::cout << pad("median ms", 12, true) << pad("GFLOPS", 10, true) << pad("FLOP/B", 9, true)
                  << "  check\n";
        hooks.point = [&](const SweepPoint& pt, int, int) {
            std::cout << pad(pt.variant, 22);
            for (auto v : pt.values)
                std::cout << pad(std::to_string(v), 7, true);
            if (pt.measured())
                std::cout << pad(fixed(pt.msMedian, 3), 12, true)
                          << pad(fixed(pt.gflops, 2), 10, true);
            else
                std::cout << pad("-", 12, true) << pad("-", 10, true);
            std::cout << pad(fixed(pt.intensity, 1), 9, true) << "  "
                      << (pt.skipped     ? "skipped: " + pt.message
                          : pt.failed    ? "FAILED: " + pt.message
                          : pt.reference ? std::string("reference")
                          : pt.checked   ? std::string("ok")
                                         : std::string("not checked"))
                      << "\n";
            std::cout.flush();
        };
    }
    SweepResult result;
    try {
        result = runSweep(cliJit(), request, nullptr, hooks);
    } catch (const UserError& e) {
        if (e.loc().line > 0)
            reportDiagnostic(o, e.diagnostic());
        else
            throw UsageError(e.message());
        if (o.json)
            std::cout
                << json{{"ok", false}, {"error", diagnosticJson(o.file, e.diagnostic())}}.dump(2)
                << "\n";
        return kDocumentError;
    }
    if (!result.blasNote.empty())
        std::cerr << o.file << ": note: no reference line: " << result.blasNote << "\n";
    if (table && !result.blasLabel.empty()) std::cout << "reference: " << result.blasLabel << "\n";
    if (o.json) {
        json points = json::array();
        for (auto& pt : result.points)
            points.push_back(sweepPointJson(pt, result.parameters));
        std::cout << points.dump(2) << "\n";
    }
    if (!o.csv.empty() && !writeFile(o.csv, sweepCsv(result))) throw cannotWrite(o.csv);
    if (!o.chart.empty()) {
        // The reference lines of the Charts dock: the machine's peak and memory bandwidth.
        ChartRequest chart;
        chart.path = o.chart;
        chart.kind = o.chartKind;
        chart.peakGflops = measurePeakFlops(o.threads).gflops;
        chart.bandwidthGbs = measureTriadBandwidth(o.threads).gbPerS;
        chart.sweep = std::move(result);
        std::string error = writeSweepChart(chart, "/proc/self/exe");
        result = std::move(chart.sweep);
        if (!error.empty()) throw UsageError(error, false);
    }
    bool wrong = std::any_of(result.points.begin(), result.points.end(), [](const SweepPoint& p) {
        return p.failed && p.message.rfind("wrong numbers", 0) == 0;
    });
    return wrong ? kWrongNumbers : kOk;
}

int commandProfile(Options& o)
{
    EvalResult r;
    json err;
    if (!evaluate(o, &r, &err)) {
        if (o.json) std::cout << json{{"ok", false}, {"error", err}}.dump(2) << "\n";
        return kDocumentError;
    }
    if (o.variants.size() > 1)
        throw UsageError("profile takes one variant: give one --variant NAME");
    const Variant* v = o.variants.empty()
                           ? (r.program.variants.empty() ? nullptr : &r.program.variants.back())
                           : selectVariants(o, r.program).front();
    if (!v) throw UsageError(o.file + " has no variant to profile", false);
    setParallelThreads(o.threads);
    ProfileArgs args;
    args.file = o.file;
    args.symbols = o.symbols;
    args.seconds = o.profileSeconds;
    args.json = o.json;
    return runProfileCommand(args, r.program, *v, cliJit());
}

int commandMachine(const Options& o)
{
    // What is read from the machine (README, "What Loopscope reads from the machine").
    const HostTarget host = hostTarget();
    const CpuIdentity id = hostCpuIdentity();
    const HostCaches& caches = hostCacheInfo();
    PeakFlops peak = measurePeakFlops(o.threads);
    Bandwidth bw = measureTriadBandwidth(o.threads);
    if (o.json) {
        json levels = json::array();
        for (auto& c : caches.levels)
            levels.push_back({{"name", c.name}, {"bytes", c.bytes}});
        std::cout << json{{"cpu", host.cpu},
                          {"llvm_cpu", host.llvmCpu},
                          {"cpu_note", host.cpuReason},
                          {"cpu_brand", id.brand},
                          {"features", host.features},
                          {"llvm", host.llvmVersion},
                          {"caches", levels},
                          {"caches_source", caches.source},
                          {"usable_cores", usableCores()},
                          {"peak_gflops", peak.gflops},
                          {"peak_threads", peak.threads},
                          {"vector_bits", peak.vectorBits},
                          {"bandwidth_gbs", bw.gbPerS},
                          {"bandwidth_threads", bw.threads},
                          {"bandwidth_mb", bw.megabytes},
                          {"clock_ghz", hostClockGhz()}}
                         .dump(2)
                  << "\n";
    } else {
        std::cout << "CPU:          " << (id.brand.empty() ? "(no brand string)" : id.brand) << "\n"
                  << "code for:     " << host.cpu << " (LLVM " << host.llvmVersion
                  << (host.cpu == host.llvmCpu ? " names this CPU so"
                                               : " names this CPU " + host.llvmCpu)
                  << "), " << host.vectorBits << "-bit vectors\n";
        if (!host.cpuReason.empty()) std::cout << "              " << host.cpuReason << "\n";
        std::cout << "caches:       " << describeHostCaches(caches) << "\n"
                  << "cores:        " << usableCores() << " usable by this process\n"
                  << "peak float32: " << fixed(peak.gflops, 1) << " GFLOPS (FMA, "
                  << peak.vectorBits << "-bit vectors, " << peak.threads << " thread"
                  << (peak.threads == 1 ? "" : "s") << ")\n"
                  << "bandwidth:    " << fixed(bw.gbPerS, 1) << " GB/s (triad over "
                  << fixed(bw.megabytes, 0) << " MB, " << bw.threads << " thread"
                  << (bw.threads == 1 ? "" : "s") << ")\n";
    }
    return kOk;
}

} // namespace

int main(int argc, char** argv)
{
    try {
        Options o = parseOptions(argc, argv);
        g_jitCpu = o.jitCpu;
        if (o.command == "lower") return commandLower(o);
        if (o.command == "run" || o.command == "bench") return commandRunOrBench(o);
        if (o.command == "export") return commandExport(o);
        if (o.command == "sweep") return commandSweep(o);
        if (o.command == "machine") return commandMachine(o);
        if (o.command == "profile") return commandProfile(o);
        if (o.command == "tune") {
            o.tune.file = o.file;
            o.tune.variant = o.variants.empty() ? "" : o.variants.front();
            o.tune.sets = o.sets;
            o.tune.threads = o.threads;
            o.tune.json = o.json;
            o.tune.self = "/proc/self/exe";
            if (o.variants.size() > 1)
                throw UsageError("tune starts from one variant: give one --variant");
            return runTuneCommand(o.tune);
        }
        return commandCheck(o);
    } catch (const UsageError& e) {
        std::cerr << "loopscope-cli: " << e.what() << "\n";
        // A known command's own usage; the whole list where the command is what is wrong.
        if (e.showUsage) std::cerr << "\n" << commandUsageText(argc > 1 ? argv[1] : "");
        return kUsage;
    } catch (const InternalError& e) {
        std::cerr << "loopscope-cli: " << e.what()
                  << "\n(this is a bug in Loopscope, not in the script)\n";
        return kInternalError;
    } catch (const std::bad_alloc&) {
        std::cerr << "loopscope-cli: out of memory: the program needs more memory than this "
                     "machine could give (try smaller sizes with --set)\n";
        return kDocumentError;
    }
}
