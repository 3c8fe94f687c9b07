#include "ChartExport.h"
#include "Cli.h"
#include "Commands.h"

#include "protocol/Json.h"
#include "runtime/Microbench.h"
#include "runtime/Sweep.h"
#include "runtime/VariantRun.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iostream>

namespace loopscope::cli {

namespace {

struct SweepArgs : Options {
    std::vector<std::string> params;  // --param
    std::vector<std::int64_t> values; // --values
    double maxPointS = 10;            // --max-point-s
    bool blas = false;                // --blas
    std::string csv;                  // --csv OUT
    std::string chart;                // --chart OUT.png|OUT.svg
    std::string chartKind = "lines";  // --chart-kind lines|bars|roofline
};

int sweep(SweepArgs& o)
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
        result = runSweep(cliJit(o), request, nullptr, &cliGpu(o), hooks);
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
    if (table && !result.blas.empty()) std::cout << "reference: " << result.blas << "\n";
    if (o.json) {
        json points = json::array();
        for (auto& pt : result.points)
            points.push_back(protocol::toJson(pt, result.parameters));
        std::cout << points.dump(2) << "\n";
    }
    if (!o.csv.empty() && !writeFile(o.csv, sweepCsv(result))) throw cannotWrite(o.csv);
    if (!o.chart.empty()) {
        // The reference lines of the Charts dock: the machine's peak and memory bandwidth.
        protocol::ChartRequest chart;
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

} // namespace

int commandSweep(int argc, char** argv)
{
    SweepArgs o;
    parseCommand(
        argc, argv, o,
        join({scriptOptions(o),
              runOptions(o),
              {jsonOption(o),
               cpuTargetOption(o),
               gpuRunnerOption(o),
               {"--param", "", true,
                [&](const std::string& v) {
                    for (auto& p : splitList(v))
                        o.params.push_back(p);
                }},
               {"--values", "", true,
                [&](const std::string& v) {
                    for (auto& s : splitList(v)) {
                        const std::int64_t x = parseInteger(s, "--values");
                        if (x < 1) throw UsageError("--values: " + s + " is not a positive size");
                        o.values.push_back(x);
                    }
                }},
               {"--max-point-s", "", true,
                [&](const std::string& v) {
                    o.maxPointS = parseNumber(v, "--max-point-s");
                    if (!(o.maxPointS > 0)) throw UsageError("--max-point-s must be more than 0");
                }},
               {"--blas", "", false, [&](const std::string&) { o.blas = true; }},
               {"--csv", "", true, [&](const std::string& v) { o.csv = v; }},
               {"--chart", "", true, [&](const std::string& v) { o.chart = v; }},
               {"--chart-kind", "", true, [&](const std::string& v) { o.chartKind = v; }}}}));
    if (o.params.empty()) throw UsageError("sweep needs --param P[,P...] (e.g. --param M,N,K)");
    if (o.values.empty()) o.values = defaultSweepValues();
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
    return sweep(o);
}

} // namespace loopscope::cli
