#include "Cli.h"
#include "Commands.h"

#include "codegen/Codegen.h"
#include "ir/Host.h"
#include "protocol/Json.h"
#include "runtime/CpuCheckSize.h"
#include "runtime/GpuRun.h"
#include "runtime/LocalRun.h"
#include "runtime/Replies.h"
#include "runtime/ThreadPool.h"
#include "runtime/VariantRun.h"

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>

namespace loopscope::cli {

namespace {

struct RunOptions : Options {
    int repeat = 5;          // bench: --repeat
    int number = 1;          // bench: --number
    double minRepeatMs = 50; // bench: --min-repeat-ms
};

struct VariantOutcome {
    protocol::MeasureReply reply;
    json record; // the reply as --json prints it, with the variant and the parameters
};

// The machine a variant's numbers come from: this CPU, and the GPU runner's device (with its
// driver and host) for a variant that binds GPU threads.
json machineJson(const RunOptions& o, const Variant& v)
{
    protocol::Machine here = thisMachine();
    here.features.clear(); // its CPU implies them
    json m = protocol::toJson(here);
    if (bindsGpuThreads(v)) {
        GpuRunner& gpu = cliGpu(o);
        if (const auto& d = gpu.device())
            m["gpu"] = {{"name", d->name},
                        {"compute_capability", d->computeCapability},
                        {"driver", d->driverVersion},
                        {"host", gpu.host()}};
        else
            m["gpu"] = {{"none", gpu.unavailable()}, {"host", gpu.host()}};
    }
    return m;
}

// Compile, run, optionally check and time one variant. Document errors are rethrown.
VariantOutcome runVariant(const RunOptions& o, const Program& p, const Variant& v, bool timed)
{
    VariantRunOptions options;
    options.config.symbols = o.symbols;
    options.config.jit = &cliJit(o);
    options.config.gpu = &cliGpu(o);
    options.check = o.check;
    options.time = timed;
    options.benchmark.repeat = o.repeat;
    options.benchmark.number = o.number;
    options.benchmark.minRepeatMs = o.minRepeatMs;
    // A GPU variant without a GPU is checked on this CPU, at sizes it finishes in about a
    // second (the kernels' threads run as loops there).
    const std::optional<CpuCheckSize> smaller =
        cpuCheckSizeWithoutGpu(o.source, o.sets, p, v, &cliGpu(o));
    const Program& program = smaller ? smaller->evaluated.program : p;
    const Variant& variant = smaller ? *program.findVariant(v.name) : v;
    if (smaller) options.checkedAt = smaller->text;
    VariantRunOutcome run = loopscope::runVariant(program, variant, options);
    for (auto& n : run.notes)
        std::cerr << o.file << ": note: " << n << "\n";
    VariantOutcome out;
    out.reply = measureReplyOf(run);
    out.record = protocol::toJson(out.reply);
    out.record["variant"] = v.name;
    out.record["machine"] = machineJson(o, v);
    json params = parametersJson(p, o);
    for (auto& [name, value] : params.items())
        out.record[name] = value;
    if (smaller) {
        json at = json::object();
        for (const auto& [name, value] : smaller->values)
            at[name] = value;
        out.record["checked_at"] = at;
    }
    return out;
}

// "max abs error 0.0000012, max rel error 3.1e-07"
std::string errorSummary(const protocol::CheckedOutput& c, int absDigits)
{
    std::ostringstream rel;
    rel << std::setprecision(2) << c.maxRelError;
    return "max abs error " + fixed(c.maxAbsError, absDigits) + ", max rel error " + rel.str();
}

std::string checkSummary(const protocol::MeasureReply& reply)
{
    std::string s;
    for (const protocol::CheckedOutput& c : reply.checks) {
        if (!s.empty()) s += "; ";
        if (!c.error.empty())
            s += c.tensor + ": " + c.error;
        else if (c.ok && c.elements == 0 && !c.skipped.empty())
            s += c.tensor + " not checked: " + c.skipped;
        else if (c.ok)
            s += c.tensor + " ok (" + std::to_string(c.elements) + " elements, " +
                 errorSummary(c, 7) + ")" + (c.skipped.empty() ? std::string() : "; " + c.skipped);
        else
            s += c.tensor + " WRONG: " + c.firstMismatch + " (" + errorSummary(c, 6) + ")";
    }
    return s;
}

int runOrBench(RunOptions& o)
{
    bool timed = o.command == "bench";
    EvalResult r;
    json err;
    if (!evaluate(o, &r, &err)) return documentError(o, err);
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
            return documentError(o, e.diagnostic());
        } catch (const CodegenError& e) {
            Diagnostic d = cannotRunDiagnostic(*v, e);
            return documentError(o, d);
        }
        const protocol::MeasureReply& rec = out.reply;
        wrong = wrong || rec.wrong();
        results.push_back(out.record);
        if (o.json) continue;
        std::string name = pad(v->name, 22);
        if (timed && rec.timing) {
            const double ms = rec.timing->msMedian;
            if (firstMs == 0) firstMs = ms;
            std::cout << name << pad(fixed(ms, 3), 12, true)
                      << pad(fixed(rec.timing->msMin, 3) + "-" + fixed(rec.timing->msMax, 3), 22,
                             true)
                      << pad(fixed(rec.timing->gflops, 2), 10, true)
                      << pad(fixed(firstMs / ms, 2) + "x", 10, true);
            if (o.check) std::cout << "  " << checkSummary(rec);
            std::cout << "\n";
        } else if (timed) {
            std::cout << name << "  not timed: " << checkSummary(rec) << "\n";
        } else {
            std::cout << name << pad(fixed(rec.compileMs, 1), 12, true)
                      << pad(fixed(rec.runMs, 3), 12, true) << "  "
                      << (o.check ? checkSummary(rec) : std::string("not checked (use --check)"))
                      << "\n";
        }
        std::cout.flush();
    }
    if (o.json) std::cout << results.dump(2) << "\n";
    return wrong ? kWrongNumbers : kOk;
}

int parseAndRun(int argc, char** argv)
{
    RunOptions o;
    std::vector<Option> options = join(
        {scriptOptions(o), runOptions(o), {jsonOption(o), cpuTargetOption(o), gpuRunnerOption(o)}});
    if (std::string(argv[1]) == "bench") {
        auto count = [](int* to, const char* name) {
            return [to, name](const std::string& v) {
                *to = static_cast<int>(parseInteger(v, name));
                if (*to < 1) throw UsageError(std::string(name) + " must be at least 1");
            };
        };
        options.push_back({"--repeat", "", true, count(&o.repeat, "--repeat")});
        options.push_back({"--number", "", true, count(&o.number, "--number")});
        options.push_back({"--min-repeat-ms", "", true, [&](const std::string& v) {
                               o.minRepeatMs =
                                   static_cast<double>(parseInteger(v, "--min-repeat-ms"));
                           }});
    }
    parseCommand(argc, argv, o, options);
    return runOrBench(o);
}

} // namespace

int commandRun(int argc, char** argv)
{
    return parseAndRun(argc, argv);
}

int commandBench(int argc, char** argv)
{
    return parseAndRun(argc, argv);
}

} // namespace loopscope::cli
