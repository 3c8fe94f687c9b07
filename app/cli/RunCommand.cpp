#include "Cli.h"
#include "Commands.h"

#include "codegen/Codegen.h"
#include "runtime/Runner.h"
#include "runtime/ThreadPool.h"
#include "runtime/VariantRun.h"
#include "runtime/VariantRunJson.h"

#include <iomanip>
#include <iostream>
#include <sstream>

namespace loopscope::cli {

namespace {

struct RunOptions : Options {
    int repeat = 5;          // bench: --repeat
    int number = 1;          // bench: --number
    double minRepeatMs = 50; // bench: --min-repeat-ms
};

struct VariantOutcome {
    json record;
    bool wrong = false;
};

// Compile, run, optionally check and time one variant. Document errors are rethrown.
VariantOutcome runVariant(const RunOptions& o, const Program& p, const Variant& v, bool timed)
{
    VariantRunOptions options;
    options.config.symbols = o.symbols;
    options.config.jit = &cliJit(o);
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

int parseAndRun(int argc, char** argv)
{
    RunOptions o;
    std::vector<Option> options =
        join({scriptOptions(o), runOptions(o), {jsonOption(o), cpuTargetOption(o)}});
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
