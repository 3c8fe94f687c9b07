#include "TuneRounds.h"

#include "codegen/Codegen.h"
#include "runtime/Benchmark.h"
#include "runtime/VariantRun.h"
#include "te/Program.h"
#include "tune/TuneLog.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace loopscope {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// DIR's round folders (round-NNN), in order.
std::vector<fs::path> roundFolders(const std::string& dir)
{
    std::vector<fs::path> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec))
        if (e.is_directory() && e.path().filename().string().rfind("round-", 0) == 0)
            out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace

RoundsLearnt learnRounds(const std::string& dir, const std::string& logPath)
{
    RoundsLearnt out;
    for (const fs::path& folder : roundFolders(dir)) {
        const fs::path timesPath = folder / "times.jsonl";
        std::ifstream times(timesPath);
        if (!times) continue;
        const bool learnt = fs::exists(folder / "learnt");
        int appended = 0;
        int lineNo = 0;
        for (std::string line; std::getline(times, line);) {
            ++lineNo;
            if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
            const std::string where = timesPath.string() + ":" + std::to_string(lineNo) + ": ";
            json t;
            try {
                t = json::parse(line);
            } catch (const json::exception& e) {
                out.problems.push_back(where + e.what());
                continue;
            }
            if (const auto gpu = t.find("accelerator"); gpu != t.end() && gpu->is_string()) {
                out.gpu.gpu = gpu->get<std::string>();
                out.gpu.host = t.value("host", std::string());
            }
            if (learnt) continue;
            const std::string bundleName = t.value("bundle", std::string());
            std::string text;
            cli::readFile((folder / bundleName).string(), &text);
            TuneRecord r;
            std::string why;
            try {
                const json bundle = json::parse(text);
                if (!bundle.contains("tune")) throw std::runtime_error("it holds no tuning record");
                if (!parseRecord(bundle.at("tune").dump(), &r, &why)) throw std::runtime_error(why);
            } catch (const std::exception& e) {
                out.problems.push_back(where + "bundle '" + bundleName + "': " + e.what());
                continue;
            }
            r.status = t.value("status", std::string("error"));
            r.error = t.value("error", std::string());
            r.ms = t.value("ms", std::vector<double>{});
            std::sort(r.ms.begin(), r.ms.end());
            // The median a measurement in the worker takes (summarize), so that the log is the
            // same either way.
            r.msMedian = r.status == "ok" ? medianOf(r.ms) : 0;
            r.gflops = r.msMedian > 0 && r.flops > 0 ? r.flops / r.msMedian / 1e6 : 0;
            r.checked = r.status == "ok";
            r.machine = {};
            r.machine.gpu = t.value("accelerator", std::string());
            r.machine.host = t.value("host", std::string());
            r.time = t.value("time", isoTimeNow());
            if (!appendRecord(logPath, r, &why)) {
                out.problems.push_back(why);
                return out;
            }
            ++appended;
        }
        if (learnt) continue;
        std::ofstream(folder / "learnt")
            << appended << " record(s) appended to " << logPath << "\n";
        out.records += appended;
        ++out.rounds;
    }
    return out;
}

RoundWritten writeRound(const std::vector<RoundCandidate>& round, const std::string& dir,
                        const cli::Options& bundle, Measurer& checker, const std::string& logPath)
{
    RoundWritten out;
    const auto rounds = roundFolders(dir);
    int next = 1;
    if (!rounds.empty()) {
        try {
            next = std::stoi(rounds.back().filename().string().substr(6)) + 1;
        } catch (const std::exception&) {
            next = static_cast<int>(rounds.size()) + 1;
        }
    }
    char name[32];
    std::snprintf(name, sizeof name, "round-%03d", next);
    const fs::path folder = fs::path(dir) / name;
    std::error_code ec;
    fs::create_directories(folder, ec);
    if (ec) {
        out.problems.push_back("cannot make " + folder.string() + ": " + ec.message());
        return out;
    }
    out.folder = folder.string();
    auto record = [&](TuneRecord r, const std::string& status, const std::string& error) {
        r.status = status;
        r.error = error;
        r.time = isoTimeNow();
        std::string why;
        if (!appendRecord(logPath, r, &why)) out.problems.push_back(why);
    };
    for (const RoundCandidate& c : round) {
        // Checked here first: a GPU that only batch jobs reach is not the place to find a wrong
        // schedule.
        protocol::MeasureRequest check = c.request;
        check.time = false;
        const MeasureOutcome m = checker.measure(check);
        if (m.status == MeasureOutcome::Status::Wrong) {
            ++out.wrong;
            record(c.record, "wrong", m.message);
            continue;
        }
        if (m.status != MeasureOutcome::Status::Ok) {
            ++out.failed;
            record(c.record, statusName(m.status), m.message);
            continue;
        }
        try {
            cli::Options o = bundle;
            ScriptEvaluation e = evaluateWithValues(c.request.script, c.request.sets);
            if (!e.result.ok) throw CodegenError(e.result.error.message);
            o.symbols = e.symbols;
            const Variant* v = e.result.program.findVariant(c.request.variant);
            if (!v) throw CodegenError("the candidate's variant is missing");
            json b = cli::kernelBundle(o, e.result.program, *v);
            TuneRecord pending = c.record;
            pending.status = "untimed";
            pending.flops = b.value("flops", 0.0);
            pending.checked = m.checked;
            b["tune"] = json::parse(recordLine(pending));
            char file[32];
            std::snprintf(file, sizeof file, "trial-%04d.json", c.record.trial);
            std::ofstream(folder / file) << b.dump() << "\n";
            ++out.written;
        } catch (const std::exception& e) {
            ++out.failed;
            record(c.record, "error", e.what());
        }
    }
    return out;
}

} // namespace loopscope
