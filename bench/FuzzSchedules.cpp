// loopscope-fuzz: runs random schedules of random small TE programs (tests/support) for as long
// as asked, checks every one against the reference interpreter, and prints (and optionally saves)
// every case that fails. Not part of the test verdict: the test suite runs a fixed 2,000 seeds.
//
//   loopscope-fuzz [--start SEED] [--cases N] [--seconds S] [--save DIR] [--opt LEVEL]
//                  [--show-refused] [--print] [--slow MS] [--compile-for TARGET]
//   loopscope-fuzz --run FILE [--run FILE ...] [--opt LEVEL] [--compile-for TARGET]
//
// --compile-for "llvm -mcpu=znver4" only lowers and compiles each case (or script) to assembly
// for that CPU (a back-end failure fails the case): for instructions this machine cannot run.
// --run checks the given scripts (every variant) with the same oracle: for minimizing a failure.
// --print prints every script before running it, --show-refused the schedules lowering refused,
// --slow the cases whose compilation took longer than MS milliseconds.

#include "Version.h"
#include "codegen/Codegen.h"
#include "support/FuzzRunner.h"
#include "support/RandomSchedule.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace loopscope;

namespace {

struct Options {
    std::uint64_t start = 1;
    std::int64_t cases = -1; // -1: no limit
    double seconds = -1;     // -1: no limit
    std::string saveDir;
    int optLevel = 1;
    bool showRefused = false;
    bool printScripts = false;
    double slowMs = -1;             // print cases whose compile time exceeds this
    std::string compileFor;         // compile for this target only, without running
    std::vector<std::string> files; // --run: check these scripts instead of random cases
};

[[noreturn]] void usage(const char* message, bool asked = false)
{
    std::fprintf(
        asked ? stdout : stderr,
        "loopscope-fuzz: %s\n"
        "usage: loopscope-fuzz [--start SEED] [--cases N] [--seconds S] [--save DIR]\n"
        "                      [--opt 0-3] [--show-refused] [--print] [--slow MS]\n"
        "                      [--compile-for \"llvm -mcpu=CPU ...\"]\n"
        "       loopscope-fuzz --run FILE [--run FILE ...] [--opt 0-3] [--compile-for TARGET]\n"
        "       loopscope-fuzz --help | --version\n"
        "Without --cases or --seconds, runs 60 seconds.\n",
        message);
    std::exit(asked ? 0 : 2);
}

Options parse(int argc, char** argv)
{
    Options o;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) usage(("missing value after " + a).c_str());
            return argv[++i];
        };
        try {
            if (a == "--start")
                o.start = std::stoull(value());
            else if (a == "--cases")
                o.cases = std::stoll(value());
            else if (a == "--seconds")
                o.seconds = std::stod(value());
            else if (a == "--save")
                o.saveDir = value();
            else if (a == "--opt")
                o.optLevel = std::stoi(value());
            else if (a == "--show-refused")
                o.showRefused = true;
            else if (a == "--print")
                o.printScripts = true;
            else if (a == "--slow")
                o.slowMs = std::stod(value());
            else if (a == "--run")
                o.files.push_back(value());
            else if (a == "--compile-for") {
                o.compileFor = value();
                try {
                    checkTarget(o.compileFor);
                } catch (const CodegenError& e) {
                    usage(("--compile-for: " + std::string(e.what())).c_str());
                }
            } else if (a == "--help" || a == "-h")
                usage("runs random schedules and checks them against the reference interpreter",
                      true);
            else if (a == "--version" || a == "-V") {
                std::printf("loopscope-fuzz " LOOPSCOPE_VERSION_STRING "\n");
                std::exit(0);
            } else
                usage(("unknown argument " + a).c_str());
        } catch (const std::logic_error&) {
            usage(("bad value for " + a).c_str());
        }
    }
    if (o.cases < 0 && o.seconds < 0) o.seconds = 60;
    return o;
}

void save(const Options& o, std::uint64_t seed, const FuzzCase& c, const std::string& message)
{
    if (o.saveDir.empty()) return;
    fs::create_directories(o.saveDir);
    std::ofstream out(fs::path(o.saveDir) / ("seed-" + std::to_string(seed) + ".py"));
    out << "# " << c.description << "\n";
    std::string m = message;
    for (std::size_t p = 0, n; p < m.size(); p = n + 1) {
        n = m.find('\n', p);
        if (n == std::string::npos) n = m.size();
        out << "# " << m.substr(p, n - p) << "\n";
    }
    out << c.script;
}

std::string readFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

int runFiles(const Options& o)
{
    int failed = 0;
    for (auto& f : o.files) {
        std::string script = readFile(f);
        CurrentCase current(script, f);
        CaseOutcome r = o.compileFor.empty() ? runScriptChecked(script, o.optLevel)
                                             : compileScriptFor(script, o.compileFor);
        const char* status = r.status == CaseOutcome::Status::Passed     ? "passed"
                             : r.status == CaseOutcome::Status::Rejected ? "refused"
                                                                         : "FAILED";
        std::printf("%s: %s (%d variant%s)\n%s", f.c_str(), status, r.variants,
                    r.variants == 1 ? "" : "s", r.message.c_str());
        failed += r.status == CaseOutcome::Status::Failed;
    }
    return failed ? 1 : 0;
}

} // namespace

int main(int argc, char** argv)
{
    Options o = parse(argc, argv);
    installCrashReporter();
    if (!o.files.empty()) {
        try {
            return runFiles(o);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "loopscope-fuzz: %s\n", e.what());
            return 2;
        }
    }
    auto t0 = std::chrono::steady_clock::now();
    auto elapsed = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    };
    std::int64_t done = 0, passed = 0, refused = 0, failed = 0, schedules = 0;
    double lastReport = 0;
    double generateMs = 0, evaluateMs = 0, lowerMs = 0, compileMs = 0, runMs = 0, checkMs = 0;
    std::uint64_t seed = o.start;
    for (; (o.cases < 0 || done < o.cases) && (o.seconds < 0 || elapsed() < o.seconds); ++seed) {
        FuzzCase c;
        auto g0 = std::chrono::steady_clock::now();
        try {
            c = generateCase(seed);
            generateMs +=
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - g0)
                    .count();
        } catch (const std::exception& e) {
            ++done, ++failed;
            std::printf("FAILED seed %llu: the generator failed: %s\n",
                        static_cast<unsigned long long>(seed), e.what());
            continue;
        }
        if (o.printScripts) {
            std::printf("# %s\n%s\n", c.description.c_str(), c.script.c_str());
            std::fflush(stdout); // the case may crash the process
        }
        CaseOutcome r;
        {
            CurrentCase current(c.script, c.description);
            r = o.compileFor.empty() ? runScriptChecked(c.script, o.optLevel)
                                     : compileScriptFor(c.script, o.compileFor);
        }
        ++done;
        schedules += r.variants;
        if (o.slowMs >= 0 && r.compileMs > o.slowMs)
            std::printf("slow: compile %.0f ms, %s\n", r.compileMs, c.description.c_str());
        evaluateMs += r.evaluateMs, lowerMs += r.lowerMs, compileMs += r.compileMs;
        runMs += r.runMs, checkMs += r.checkMs;
        if (r.status == CaseOutcome::Status::Passed) {
            ++passed;
        } else if (r.status == CaseOutcome::Status::Rejected) {
            ++refused;
            if (o.showRefused) {
                std::printf("refused: %s\n%s---- script ----\n%s\n", c.description.c_str(),
                            r.message.c_str(), c.script.c_str());
            }
        } else {
            ++failed;
            std::printf("FAILED %s\n%s---- script ----\n%s---- end ----\n", c.description.c_str(),
                        r.message.c_str(), c.script.c_str());
            save(o, seed, c, r.message);
            std::fflush(stdout);
        }
        if (elapsed() - lastReport >= 5) {
            lastReport = elapsed();
            std::printf("[%.0fs] %lld cases, %lld schedules (seeds %llu..%llu): %lld passed, %lld "
                        "refused, %lld failed; %.1f cases/s\n",
                        lastReport, static_cast<long long>(done), static_cast<long long>(schedules),
                        static_cast<unsigned long long>(o.start),
                        static_cast<unsigned long long>(seed), static_cast<long long>(passed),
                        static_cast<long long>(refused), static_cast<long long>(failed),
                        static_cast<double>(done) / lastReport);
            std::fflush(stdout);
        }
    }
    double total = elapsed();
    std::printf("done: %lld cases, %lld schedules (seeds %llu..%llu) in %.1fs: %lld passed, %lld "
                "refused, %lld failed; %.1f cases/s\n",
                static_cast<long long>(done), static_cast<long long>(schedules),
                static_cast<unsigned long long>(o.start), static_cast<unsigned long long>(seed - 1),
                total, static_cast<long long>(passed), static_cast<long long>(refused),
                static_cast<long long>(failed),
                total > 0 ? static_cast<double>(done) / total : 0.0);
    if (done > 0) {
        double n = static_cast<double>(done);
        std::printf("per case (ms): generate %.2f, evaluate %.2f, lower %.2f, compile %.2f, run "
                    "%.3f, check %.2f\n",
                    generateMs / n, evaluateMs / n, lowerMs / n, compileMs / n, runMs / n,
                    checkMs / n);
    }
    return failed ? 1 : 0;
}
