#include "TuneCommand.h"

#include "Cli.h"
#include "Commands.h"

#include "TuneRounds.h"
#include "codegen/Codegen.h"
#include "ir/GpuTarget.h"
#include "ir/Host.h"
#include "protocol/Json.h"
#include "runtime/BlasReference.h"
#include "runtime/DnnlReference.h"
#include "schedule/Primitives.h"
#include "te/Program.h"
#include "tune/RunnerPool.h"
#include "tune/Space.h"
#include "tune/TuneLog.h"
#include "tune/Tuner.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include <unistd.h>

namespace loopscope {

namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

std::atomic<bool> g_interrupted{false};

void onInterrupt(int)
{
    g_interrupted = true;
}

using cli::fixed;
using cli::readFile;

std::string sizesText(const std::map<std::string, std::int64_t>& sizes)
{
    std::string s;
    for (auto& [name, value] : sizes)
        s += (s.empty() ? "" : " ") + name + "=" + std::to_string(value);
    return s;
}

json recordJson(const TuneRecord& r)
{
    json j = json::parse(recordLine(r));
    j.erase("version");
    return j;
}

} // namespace

std::string defaultTuningLog(const std::string& scriptPath)
{
    fs::path data;
    if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg)
        data = xdg;
    else if (const char* home = std::getenv("HOME"); home && *home)
        data = fs::path(home) / ".local" / "share";
    else
        data = fs::temp_directory_path();
    return (data / "Loopscope" / "Loopscope" / "tuning" / tuningLogFileName(scriptPath)).string();
}

std::unique_ptr<Measurer> cliMeasurer(const std::string& self, const std::string& runner,
                                      int runners)
{
    std::unique_ptr<Measurer> m =
        loopscope::makeMeasurer(findWorkerExecutable(self), runner, runners);
    if (auto* pool = dynamic_cast<RunnerPool*>(m.get()))
        pool->onNote([](const std::string& note) { std::cerr << "note: " << note << "\n"; });
    return m;
}

std::unique_ptr<Measurer> cliMeasurer(const std::string& self, const std::string& runner,
                                      int runners, bool gpu, std::string* why)
{
    if (!gpu) return cliMeasurer(self, runner, runners);
    if (runners > 1) {
        *why = "--runners: GPU kernels are measured on one GPU runner";
        return nullptr;
    }
    auto m = std::make_unique<WorkerMeasurer>(
        findWorkerExecutable(self),
        runner.empty() ? std::vector<std::string>{}
                       : std::vector<std::string>{"LOOPSCOPE_RUNNER_COMMAND=" + runner});
    m->askForGpu();
    return m;
}

void checkRunnerOptions(const std::string& runner)
{
    if (runner.find_first_not_of(" \t") == std::string::npos)
        throw cli::UsageError(
            "--runner needs the command that starts loopscope-worker on the far side");
}

std::string runnerSummary(Measurer& measurer, double searchMs, double trainMs, double waitMs,
                          double wallMs, int searches)
{
    auto* pool = dynamic_cast<RunnerPool*>(&measurer);
    std::ostringstream s;
    const auto stats = pool ? pool->stats() : std::vector<RunnerPool::RunnerStats>{};
    for (std::size_t i = 0; i < stats.size(); ++i) {
        const auto& r = stats[i];
        s << "runner " << (i + 1) << (r.host.empty() ? "" : " (" + r.host + ")") << ": "
          << r.measured << " measured";
        if (r.lost > 0) s << ", " << r.lost << " lost (measured again elsewhere)";
        if (wallMs > 0) s << ", busy " << fixed(100 * r.busyMs / wallMs, 0) << "% of the run";
        if (r.setAside) s << ", set aside";
        s << "\n";
    }
    const double hostMs = wallMs * std::max(1, searches);
    if (wallMs > 0)
        s << "the host" << (searches > 1 ? " (" + std::to_string(searches) + " searches)" : "")
          << ": searching " << fixed(100 * searchMs / hostMs, 0) << "%, training "
          << fixed(100 * trainMs / hostMs, 0) << "%, waiting for the runners "
          << fixed(100 * waitMs / hostMs, 0) << "% of " << fixed(wallMs / 1000, 1) << " s\n";
    return s.str();
}

namespace {

// tune --rounds-out / --rounds-in: a round of GPU candidates written for a GPU that only batch
// jobs reach, after learning the rounds it timed (TuneRounds.h).
int runTuneRounds(const TuneArgs& args, const std::string& script, TuneOptions options)
{
    const std::string out = args.roundsOut.empty() ? args.roundsIn : args.roundsOut;
    RoundsLearnt learnt;
    if (!args.roundsIn.empty()) {
        learnt = learnRounds(args.roundsIn, options.logPath);
        for (const std::string& p : learnt.problems)
            std::cerr << "note: " << p << "\n";
        std::cerr << "learnt " << learnt.records << " record(s) of " << learnt.rounds
                  << " round(s) timed in " << args.roundsIn
                  << (learnt.gpu.gpu.empty() ? "" : " on " + learnt.gpu.gpu) << "\n";
    }
    options.roundOnly = true;
    options.roundsMachine = learnt.gpu;
    options.resume = true;
    options.trials = args.trials > 0 ? args.trials : 16;
    // The candidates are checked on this CPU by the worker here, which has no GPU to ask.
    WorkerMeasurer checker(findWorkerExecutable(args.self));
    Tuner tuner(script, options, checker);
    TuneOutcome tuned = tuner.run();
    for (auto& note : tuned.notes)
        std::cerr << "note: " << note << "\n";
    if (!tuned.ok) {
        std::cerr << args.file << ": error: " << tuned.error << "\n";
        return 1;
    }
    if (tuned.haveBest)
        std::cout << "best so far: trial " << tuned.best.trial << ", "
                  << (tuned.best.flops > 0 ? fixed(tuned.best.gflops, 1) + " GFLOPS ("
                                           : std::string("(")) +
                         fixed(tuned.best.msMedian, 3) + " ms)"
                  << (tuned.best.machine.gpu.empty() ? "" : " on " + tuned.best.machine.gpu)
                  << "\n";
    if (tuned.round.empty()) {
        std::cout << "no new candidate to write: the search found none it has not measured\n";
        return 0;
    }
    std::cout << "search: " << fixed(tuned.times.searchMs / 1000, 1) << " s (lowering and features "
              << fixed(tuned.times.featureMs / 1000, 1) << " s)\n";
    cli::Options bundle;
    bundle.file = args.file;
    bundle.target = args.target;
    bundle.command = "tune";
    const auto writing = std::chrono::steady_clock::now();
    const RoundWritten w = writeRound(tuned.round, out, bundle, checker, options.logPath);
    const double writeS =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - writing).count();
    for (const std::string& p : w.problems)
        std::cerr << "note: " << p << "\n";
    if (w.folder.empty()) return 1;
    std::cout << w.written << " candidate(s) written to " << w.folder;
    if (w.wrong > 0) std::cout << "; " << w.wrong << " computed wrong numbers on this CPU";
    if (w.failed > 0) std::cout << "; " << w.failed << " could not be compiled";
    if (w.wrong + w.failed > 0) std::cout << " (recorded in " << options.logPath << ")";
    std::cout << " in " << fixed(writeS, 1) << " s (checked on this CPU, compiled, bundled)\n"
              << "time them on the GPU:  loopscope-runner --measure " << w.folder << "\n"
              << "then learn and write the next round:  loopscope-cli tune " << args.file
              << (args.variant.empty() ? "" : " --variant '" + args.variant + "'")
              << (args.target.empty() ? "" : " --target '" + args.target + "'")
              << (args.log.empty() ? "" : " --log '" + args.log + "'") << " --rounds-in " << out
              << "\n";
    return w.written > 0 ? 0 : 1;
}

} // namespace

int runTuneCommand(const TuneArgs& args)
{
    const auto started = std::chrono::steady_clock::now();
    std::string script;
    if (!readFile(args.file, &script)) {
        std::cerr << "loopscope-cli: cannot read '" << args.file << "'\n";
        return 2;
    }
    EvalResult eval = evaluateScript(script, args.sets);
    if (!eval.ok) {
        std::cerr << formatDiagnostic(args.file, eval.error) << "\n";
        if (args.json)
            std::cout << json{{"ok", false}, {"error", eval.error.message}}.dump(2) << "\n";
        return 1;
    }
    if (!args.variant.empty() && !eval.program.findVariant(args.variant)) {
        std::cerr << "loopscope-cli: no variant '" << args.variant << "' in " << args.file
                  << " (variants: " <<
            [&] {
                std::string s;
                for (auto& v : eval.program.variants)
                    s += (s.empty() ? "" : ", ") + v.name;
                return s;
            }() << ")\n";
        return 2;
    }

    TuneOptions options;
    options.variant = args.variant;
    options.sets = args.sets;
    options.trials = args.trials >= 0 ? args.trials : (args.seconds > 0 ? 0 : 64);
    options.seconds = args.seconds;
    options.threads = args.threads;
    options.forbidden = args.forbidden;
    options.logPath = args.log.empty() ? defaultTuningLog(args.file) : args.log;
    options.resume = args.resume || (options.trials == 0 && options.seconds == 0);
    options.seed = args.seed;
    options.target = args.target;
    options.testingCrashFirst = std::getenv("LOOPSCOPE_TUNE_TESTING_CRASH") != nullptr;
    std::error_code ec;
    fs::path logFolder = fs::path(options.logPath).parent_path();
    if (!logFolder.empty()) fs::create_directories(logFolder, ec);
    if (!args.roundsOut.empty() || !args.roundsIn.empty())
        return runTuneRounds(args, script, options);

    // GPU kernels are measured by the worker here on its GPU runner: the one beside it, or the
    // one --runner starts ('ssh gpu1 loopscope-runner').
    const Variant* start =
        args.variant.empty()
            ? (eval.program.variants.empty() ? nullptr : &eval.program.variants.front())
            : eval.program.findVariant(args.variant);
    const bool gpu = start && (tunesGpuKernels(*start) || !args.target.empty());
    std::string why;
    std::unique_ptr<Measurer> measurerOwned =
        cliMeasurer(args.self, args.runner, args.runners, gpu, &why);
    if (!measurerOwned) {
        std::cerr << "loopscope-cli: " << why << "\n";
        return 2;
    }
    Measurer& measurer = *measurerOwned;
    Tuner tuner(script, options, measurer);

    std::signal(SIGINT, onInterrupt);
    std::signal(SIGTERM, onInterrupt);
    bool announced = false;
    auto progress = [&](const TuneProgress& p) {
        if (!announced && p.phase == TuneProgress::Phase::Searching) {
            announced = true;
            if (measurer.runners() > 1 || !args.runner.empty())
                std::cerr << "measuring on " << measurer.runners() << " runner"
                          << (measurer.runners() == 1 ? "" : "s") << ": "
                          << describeMachine(measurer.machine()) << "\n";
        }
        if (p.phase != TuneProgress::Phase::Measuring || !p.latest) return;
        const TuneRecord& r = *p.latest;
        std::ostringstream line;
        line << "trial " << std::setw(4) << p.trialsDone;
        if (p.trialsPlanned > 0) line << "/" << p.trialsPlanned;
        const bool flops = r.flops > 0;
        auto speed = [&](double gflops, double ms) {
            return flops ? fixed(gflops, 1) + " GFLOPS" : fixed(ms, 3) + " ms";
        };
        line << "  " << std::setw(15)
             << (r.status == "ok" ? speed(r.gflops, r.msMedian) : r.status);
        line << "   best " << std::setw(15) << speed(p.bestGflops, p.bestMs) << " (trial "
             << p.bestTrial << ")   " << fixed(p.elapsedS, 1) << " s";
        if (p.remainingS >= 0) line << ", about " << fixed(p.remainingS, 0) << " s left";
        if (r.status != "ok" && !r.error.empty()) line << "   " << r.error.substr(0, 120);
        std::cerr << line.str() << "\n";
    };
    TuneOutcome out = tuner.run(progress, [] { return g_interrupted.load(); });
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);

    for (auto& note : out.notes)
        std::cerr << "note: " << note << "\n";
    if (!out.ok) {
        std::cerr << args.file << ": error: " << out.error << "\n";
        if (args.json) std::cout << json{{"ok", false}, {"error", out.error}}.dump(2) << "\n";
        return 1;
    }

    std::map<std::string, std::int64_t> sizes;
    for (auto& p : eval.program.parameters) {
        auto it = args.sets.find(p.name);
        sizes[p.name] = it != args.sets.end() ? it->second : p.value;
    }
    // The reference line: OpenBLAS for a plain matmul, oneDNN for a convolution, timed now,
    // with the same threads.
    json reference;
    std::string referenceText;
    // A library timed here is compared with numbers from the runners only where they are this
    // machine; elsewhere it is shown as this machine's, not as a ratio.
    const bool runnersHere = args.runner.empty() || (out.machine.host == hostName() &&
                                                     out.machine.cpu == hostTarget().cpu);
    // (GPU kernels: the libraries here time this CPU, which says nothing of the GPU.)
    if (gpu) {
    } else if (!runnersHere) {
        referenceText = "the reference library is not timed: the candidates were measured on " +
                        describeMachine(out.machine) + ", not on this machine (" + hostName() + ")";
    } else if (auto conv = conv2dShape(eval.program)) {
        if (const DnnlLibrary* dnnl = DnnlLibrary::load()) {
            double ms = dnnl->convMs(*conv, args.threads, 5, 100);
            if (ms > 0) {
                double gflops = conv->flops() / ms / 1e6;
                reference = {{"name", dnnl->label()}, {"ms", ms}, {"gflops", gflops}};
                referenceText =
                    dnnl->label() + ": " + fixed(gflops, 1) + " GFLOPS (" + fixed(ms, 3) + " ms)";
                if (out.haveBest)
                    referenceText +=
                        "; the tuned variant: " + fixed(out.best.gflops / gflops, 2) + "x";
            }
        }
    } else if (auto shape = matmulShape(eval.program)) {
        if (const BlasLibrary* blas = BlasLibrary::openblas()) {
            double ms = blas->sgemmMs(static_cast<int>(shape->m), static_cast<int>(shape->n),
                                      static_cast<int>(shape->k), args.threads, 5, 100);
            double gflops = 2.0 * static_cast<double>(shape->m) * static_cast<double>(shape->n) *
                            static_cast<double>(shape->k) / ms / 1e6;
            reference = {{"name", blas->label()}, {"ms", ms}, {"gflops", gflops}};
            referenceText =
                blas->label() + ": " + fixed(gflops, 1) + " GFLOPS (" + fixed(ms, 3) + " ms)";
            if (out.haveBest)
                referenceText += "; the tuned variant: " + fixed(out.best.gflops / gflops, 2) + "x";
        }
    }

    std::vector<std::string> names;
    for (auto& v : eval.program.variants)
        names.push_back(v.name);
    const std::string newName = tunedVariantName(out.startVariant, names);
    std::string applied;
    if (args.apply && out.haveBest) {
        const Variant* start = eval.program.findVariant(out.startVariant);
        // GPU kernels are written from the declaration, not after the start's own steps.
        std::string updated = scriptWithVariant(script, gpu ? declaration(*start) : *start, newName,
                                                out.bestStatements, false);
        std::string why;
        if (!writeFileSafely(args.file, updated, &why)) {
            std::cerr << "loopscope-cli: " << why << "\n";
            return 2;
        }
        applied = newName;
    }

    const int failed = out.failed;
    if (args.json) {
        json trials = json::array();
        for (auto& r : out.trials)
            trials.push_back(recordJson(r));
        json j{{"ok", true},
               {"file", args.file},
               {"variant", out.startVariant},
               {"sizes", sizes},
               {"workload", out.workload},
               {"machine", protocol::toJson(static_cast<const protocol::Machine&>(out.machine))},
               {"runners", measurer.runners()},
               {"log", options.logPath},
               {"trials", trials},
               {"reused", out.reused.size()},
               {"failed", failed},
               {"wrong", out.wrong},
               {"cancelled", out.cancelled},
               {"notes", out.notes},
               {"times",
                {{"search_ms", out.times.searchMs},
                 {"feature_ms", out.times.featureMs},
                 {"predict_ms", out.times.predictMs},
                 {"train_ms", out.times.trainMs},
                 {"measure_ms", out.times.measureMs},
                 {"compile_ms", out.times.compileMs},
                 {"rounds", out.times.rounds},
                 {"candidates_ranked", out.times.candidatesRanked}}}};
        if (out.haveBest) {
            j["best"] = recordJson(out.best);
            j["name"] = newName;
            j["statements"] = out.bestStatements;
        }
        if (!reference.is_null()) j["reference"] = reference;
        if (!applied.empty()) j["applied"] = applied;
        std::cout << j.dump(2) << "\n";
    } else {
        std::cout << "tuned '" << out.startVariant << "' of " << args.file << " ("
                  << sizesText(sizes) << ") on " << describeMachine(out.machine) << ": "
                  << out.trials.size() << " trials";
        if (!out.reused.empty()) std::cout << " (and " << out.reused.size() << " from the log)";
        if (failed > 0) std::cout << ", " << failed << " failed";
        if (out.cancelled) std::cout << ", cancelled";
        std::cout << "\n";
        if (out.haveBest) {
            std::cout << "best: trial " << out.best.trial << ", ";
            if (out.best.flops > 0) std::cout << fixed(out.best.gflops, 1) << " GFLOPS, ";
            std::cout << fixed(out.best.msMedian, 3) << " ms, checked\n";
            if (!out.best.sketch.empty()) std::cout << "sketch: " << out.best.sketch << "\n";
        } else {
            std::cout << "no candidate ran correctly\n";
        }
        if (!referenceText.empty()) std::cout << referenceText << "\n";
        if (out.haveBest) {
            std::cout << "\n# variant: " << newName << "\n";
            for (auto& s : out.bestStatements)
                std::cout << s << "\n";
            std::cout << "\n";
        }
        const auto& t = out.times;
        std::cout << "time: search " << fixed(t.searchMs / 1000, 1) << " s (lowering and features "
                  << fixed(t.featureMs / 1000, 1) << " s, prediction "
                  << fixed(t.predictMs / 1000, 1) << " s), training " << fixed(t.trainMs / 1000, 1)
                  << " s, measuring " << fixed(t.measureMs / 1000, 1) << " s (of which compiling "
                  << fixed(t.compileMs / 1000, 1) << " s)\n";
        std::cout << runnerSummary(
            measurer, t.searchMs, t.trainMs, t.measureMs,
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
                .count());
        std::cout << "log: " << options.logPath << "\n";
        if (!applied.empty())
            std::cout << "added variant '" << applied << "' to " << args.file << "\n";
    }
    return out.haveBest ? 0 : 1;
}

namespace cli {

int commandTune(int argc, char** argv)
{
    Options o;
    TuneArgs t;
    parseCommand(argc, argv, o,
                 join({scriptOptions(o),
                       runOptions(o),
                       {jsonOption(o),
                        {"--trials", "", true,
                         [&](const std::string& v) {
                             t.trials = static_cast<int>(parseInteger(v, "--trials"));
                             if (t.trials < 0) throw UsageError("--trials must be 0 or more");
                         }},
                        {"--time", "", true,
                         [&](const std::string& v) {
                             t.seconds = parseNumber(v, "--time", "seconds");
                             if (!(t.seconds > 0))
                                 throw UsageError("--time must be more than 0 seconds");
                         }},
                        {"--log", "", true, [&](const std::string& v) { t.log = v; }},
                        {"--runner", "", true,
                         [&](const std::string& v) {
                             t.runner = v;
                             checkRunnerOptions(t.runner);
                         }},
                        {"--runners", "", true,
                         [&](const std::string& v) {
                             t.runners = static_cast<int>(parseInteger(v, "--runners"));
                             if (t.runners < 1) throw UsageError("--runners must be 1 or more");
                         }},
                        {"--resume", "", false, [&](const std::string&) { t.resume = true; }},
                        {"--rounds-out", "", true, [&](const std::string& v) { t.roundsOut = v; }},
                        {"--rounds-in", "", true, [&](const std::string& v) { t.roundsIn = v; }},
                        {"--target", "", true,
                         [&](const std::string& v) {
                             std::string why;
                             if (!parseGpuTarget(v, &why))
                                 throw UsageError("--target: tune takes a GPU's (\"cuda "
                                                  "-arch=sm_90\"): the search is for its "
                                                  "kernels" +
                                                  (why.empty() ? std::string() : ": " + why));
                             t.target = v;
                         }},
                        {"--apply", "", false, [&](const std::string&) { t.apply = true; }},
                        {"--seed", "", true,
                         [&](const std::string& v) {
                             t.seed = static_cast<std::uint64_t>(parseInteger(v, "--seed"));
                         }},
                        {"--forbid", "", true, [&](const std::string& v) {
                             for (auto& p : splitList(v)) {
                                 const auto& names = tunerPrimitives();
                                 if (std::find(names.begin(), names.end(), p) == names.end()) {
                                     std::string list;
                                     for (auto& n : names)
                                         list += (list.empty() ? "" : ", ") + n;
                                     throw UsageError("--forbid: '" + p +
                                                      (findPrimitive(p)
                                                           ? "' is not a primitive the tuner writes"
                                                           : "' is not a schedule primitive") +
                                                      " (it writes: " + list + ")");
                                 }
                                 t.forbidden.insert(p);
                             }
                         }}}}));
    if (o.variants.size() > 1) throw UsageError("tune starts from one variant: give one --variant");
    if ((!t.roundsOut.empty() || !t.roundsIn.empty()) && (!t.runner.empty() || t.runners > 0))
        throw UsageError("--rounds-out and --rounds-in are for a GPU timed elsewhere: they take "
                         "no --runner");
    t.file = o.file;
    t.variant = o.variants.empty() ? "" : o.variants.front();
    t.sets = o.sets;
    t.threads = o.threads;
    t.json = o.json;
    t.self = "/proc/self/exe";
    return runTuneCommand(t);
}

} // namespace cli

} // namespace loopscope
