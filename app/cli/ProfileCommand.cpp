#include "ProfileCommand.h"

#include "Cli.h"
#include "Commands.h"
#include "runtime/ThreadPool.h"
#include "runtime/VariantRun.h"

#include "protocol/Json.h"
#include "runtime/LocalRun.h"
#include "runtime/Replies.h"
#include "runtime/ThreadPool.h"
#include "runtime/VariantRun.h"

#include <nlohmann/json.hpp>

#include <iomanip>
#include <iostream>
#include <sstream>

namespace loopscope {

namespace {

using json = nlohmann::json;

std::string share(double s)
{
    if (s <= 0) return "";
    std::ostringstream out;
    out << std::fixed << std::setprecision(s < 0.001 ? 2 : 1) << s * 100 << "%";
    return out.str();
}

std::string column(const std::string& s, std::size_t width)
{
    return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

} // namespace

int runProfileCommand(const ProfileArgs& args, const Program& program, const Variant& variant,
                      Jit& jit)
{
    RunConfig config;
    config.symbols = args.symbols;
    config.jit = &jit;
    config.lineInfo = true;
    std::unique_ptr<PreparedRun> run;
    try {
        run = PreparedRun::prepare(program, variant, config);
    } catch (const UserError& e) {
        std::cerr << formatDiagnostic(args.file, e.diagnostic()) << "\n";
        return 1;
    } catch (const CodegenError& e) {
        std::cerr << formatDiagnostic(args.file, cannotRunDiagnostic(variant, e)) << "\n";
        return 1;
    }
    LineProfile profile;
    std::string why;
    if (!profileRuns(
            run->kernel(), [&] { run->run(); }, args.seconds, 3, &profile, &why)) {
        std::cerr << "loopscope-cli: " << why << "\n";
        return 1;
    }
    const HardwareCounts counts = countHardwareEvents([&] {
        for (int i = 0; i < std::max(1, profile.runs / 4); ++i)
            run->run();
    });
    std::vector<std::string> lines;
    {
        std::istringstream in(profile.tir);
        for (std::string l; std::getline(in, l);)
            lines.push_back(l);
    }
    const double outside = profile.samples > 0
                               ? static_cast<double>(profile.samples - profile.inKernel) /
                                     static_cast<double>(profile.samples)
                               : 0;
    if (args.json) {
        json ls = json::array();
        for (std::size_t i = 0; i < lines.size(); ++i) {
            json l{{"line", i + 1},
                   {"text", lines[i]},
                   {"samples", profile.lineSamples[i]},
                   {"share", profile.lineShare(static_cast<int>(i + 1))}};
            if (profile.isLoop[i]) {
                l["loop_samples"] = profile.loopSamples[i];
                l["loop_share"] = profile.loopShare(static_cast<int>(i + 1));
            }
            ls.push_back(l);
        }
        json j = protocol::toJson(stepProfileOf(profile, nullptr, counts, 0));
        j["ok"] = true;
        j["file"] = args.file;
        j["variant"] = variant.name;
        j["lines"] = ls;
        std::cout << j.dump(2) << "\n";
        return 0;
    }
    std::cout << args.file << ", variant '" << variant.name << "': " << profile.runs << " runs in "
              << std::fixed << std::setprecision(2) << profile.seconds << " s, " << profile.samples
              << " samples on " << profile.threads << " threads (" << profile.method << ")\n";
    std::cout << "  line: the samples on the line itself; loop: in the loop, its body and its "
                 "own control\n\n";
    std::cout << column("line", 7) << column("loop", 8) << "  TIR\n";
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const int line = static_cast<int>(i + 1);
        std::cout << column(share(profile.lineShare(line)), 7)
                  << column(profile.isLoop[i] ? share(profile.loopShare(line)) : "", 8) << "  "
                  << lines[i] << "\n";
    }
    std::cout << "\n"
              << std::setprecision(1) << share(1 - outside) << " of the samples in the kernel, "
              << share(outside)
              << " elsewhere (the thread pool waiting for work, the C library, the rest)";
    if (profile.lost > 0) std::cout << "; " << profile.lost << " samples lost";
    std::cout << "\n";
    if (counts.available) {
        std::cout << "hardware counters: IPC " << std::setprecision(2) << counts.ipc();
        if (counts.haveL1d)
            std::cout << ", L1D misses " << std::setprecision(1)
                      << counts.l1dMisses / counts.instructions * 1000 << " per 1000 instructions";
        if (counts.haveLlc)
            std::cout << ", LLC misses " << std::setprecision(2)
                      << counts.llcMisses / counts.instructions * 1000 << " per 1000 instructions";
        std::cout << "\n";
    } else {
        std::cout << "hardware counters: " << counts.why << "\n";
    }
    return 0;
}

namespace cli {

int commandProfile(int argc, char** argv)
{
    struct ProfileOptions : Options {
        double seconds = 1; // --seconds
    } o;
    parseCommand(argc, argv, o,
                 join({scriptOptions(o),
                       runOptions(o),
                       {jsonOption(o),
                        cpuTargetOption(o),
                        {"--seconds", "", true, [&](const std::string& v) {
                             o.seconds = parseNumber(v, "--seconds");
                             if (!(o.seconds > 0))
                                 throw UsageError("--seconds must be more than 0");
                         }}}}));
    EvalResult r;
    json err;
    if (!evaluate(o, &r, &err)) return documentError(o, err);
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
    args.seconds = o.seconds;
    args.json = o.json;
    return runProfileCommand(args, r.program, *v, cliJit(o));
}

} // namespace cli

} // namespace loopscope
