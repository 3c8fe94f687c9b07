// `loopscope-cli model test`: ONNX's own test cases, each run in a child process of its own (a
// crash in generated code is that case's failure) and compared with its expected outputs, or
// skipped with the reason.
#include "Cli.h"
#include "ModelCommand.h"

#include "graph/Interpreter.h"
#include "graph/ModelRun.h"
#include "graph/OnnxImport.h"
#include "graph/Operators.h"
#include "graph/Passes.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>

#include <sys/wait.h>
#include <unistd.h>

namespace loopscope {

namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;
using cli::UsageError;

struct CaseResult {
    std::string name;
    std::string status; // "pass", "fail", "skip"
    std::string reason;
};

// One case, in a child process: a crash in generated code is that case's failure.
CaseResult runCase(const fs::path& dir)
{
    CaseResult result{dir.filename().string(), "fail", ""};
    int fds[2];
    if (::pipe(fds) != 0) {
        result.reason = "cannot make a pipe";
        return result;
    }
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::close(fds[0]);
        json out;
        auto finish = [&](const std::string& status, const std::string& reason) {
            out = {{"status", status}, {"reason", reason}};
            const std::string text = out.dump();
            (void)!::write(fds[1], text.data(), text.size());
            ::_exit(0);
        };
        // Integer inputs (a Reshape's shape, a Slice's starts) are given at import as constants.
        const fs::path data = dir / "test_data_set_0";
        ImportOptions options;
        const std::vector<std::string> names = modelInputNames((dir / "model.onnx").string());
        std::vector<std::pair<std::string, HostBuffer>> files;
        for (int i = 0;; ++i) {
            const fs::path file = data / ("input_" + std::to_string(i) + ".pb");
            if (!fs::exists(file)) break;
            std::string name, why;
            HostBuffer b;
            if (!readTensorFile(file.string(), &name, &b, &why)) finish("skip", why);
            if (name.empty() && static_cast<std::size_t>(i) < names.size())
                name = names[static_cast<std::size_t>(i)];
            if (bindsAsConstant(b) && !name.empty()) options.constants[name] = b;
            files.emplace_back(name, std::move(b));
        }
        ImportResult r = importOnnx((dir / "model.onnx").string(), options);
        if (!r.ok) finish("skip", r.error);
        try {
            optimizeGraph(r.graph);
        } catch (const GraphError& e) {
            finish("fail", std::string("a graph pass: ") + e.what());
        }
        std::map<std::string, HostBuffer> inputs;
        for (auto& [name, value] : files) {
            if (options.constants.count(name)) continue;
            inputs[name] = std::move(value);
        }
        std::string why;
        auto model = CompiledModel::compile(r.graph, {}, &why);
        if (!model) finish("fail", why);
        for (auto& [name, value] : inputs)
            if (!model->setInput(name, value, &why)) finish("skip", why);
        if (inputs.size() != r.graph.inputs.size())
            finish("skip", "the test data names its inputs differently");
        model->run();
        for (std::size_t i = 0; i < r.graph.outputs.size(); ++i) {
            std::string name;
            HostBuffer expected;
            if (!readTensorFile((data / ("output_" + std::to_string(i) + ".pb")).string(), &name,
                                &expected, &why))
                finish("skip", why);
            const HostBuffer got = model->value(r.graph.outputs[i]);
            const Comparison c = compareTensors(got, expected, 1e-3, 1e-5);
            if (!c.ok)
                finish("fail", "output " + std::to_string(i) + " (" + r.graph.outputs[i] + ") " +
                                   c.first + "; " + std::to_string(c.mismatches) + " of " +
                                   std::to_string(c.elements) + " elements differ");
        }
        finish("pass", "");
    }
    ::close(fds[1]);
    std::string text;
    char buffer[4096];
    ssize_t n;
    while ((n = ::read(fds[0], buffer, sizeof buffer)) > 0)
        text.append(buffer, static_cast<std::size_t>(n));
    ::close(fds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (WIFSIGNALED(status)) {
        result.reason = "crashed (signal " + std::to_string(WTERMSIG(status)) + ")";
        return result;
    }
    try {
        json j = json::parse(text);
        result.status = j.value("status", "fail");
        result.reason = j.value("reason", "");
    } catch (const json::exception&) {
        result.reason = "the case ended without a result";
    }
    return result;
}

} // namespace

int runModelTests(const std::vector<std::string>& folders, bool asJson)
{
    std::vector<fs::path> cases;
    for (auto& f : folders) {
        fs::path p(f);
        if (fs::exists(p / "model.onnx")) {
            cases.push_back(p);
            continue;
        }
        std::error_code ec;
        std::vector<fs::path> found;
        for (auto& e : fs::directory_iterator(p, ec))
            if (fs::exists(e.path() / "model.onnx")) found.push_back(e.path());
        if (ec) throw UsageError("cannot read '" + f + "': " + ec.message());
        std::sort(found.begin(), found.end());
        cases.insert(cases.end(), found.begin(), found.end());
    }
    if (cases.empty())
        throw UsageError("no test cases (folders with model.onnx) in the given folders");
    std::vector<CaseResult> results;
    int pass = 0, fail = 0, skip = 0;
    for (auto& c : cases) {
        results.push_back(runCase(c));
        const CaseResult& r = results.back();
        (r.status == "pass" ? pass : r.status == "skip" ? skip : fail) += 1;
        if (!asJson && r.status != "skip")
            std::cout << r.status << "  " << c.string() << (r.reason.empty() ? "" : "  " + r.reason)
                      << "\n";
    }
    if (asJson) {
        json list = json::array();
        for (auto& r : results)
            list.push_back({{"case", r.name}, {"status", r.status}, {"reason", r.reason}});
        std::cout << json{{"ok", fail == 0},
                          {"passed", pass},
                          {"failed", fail},
                          {"skipped", skip},
                          {"cases", list}}
                         .dump(2)
                  << "\n";
    } else {
        // Why cases were skipped, most common first.
        std::map<std::string, int> reasons;
        for (auto& r : results)
            if (r.status == "skip") {
                std::string key = r.reason.substr(0, r.reason.find('\n'));
                if (key.size() > 100) key = key.substr(0, 100) + "...";
                ++reasons[key];
            }
        std::vector<std::pair<int, std::string>> sorted;
        for (auto& [k, n] : reasons)
            sorted.emplace_back(n, k);
        std::sort(sorted.rbegin(), sorted.rend());
        std::cout << cases.size() << " cases: " << pass << " passed, " << fail << " failed, "
                  << skip << " skipped\n";
        for (std::size_t i = 0; i < sorted.size() && i < 12; ++i)
            std::cout << "  skipped " << sorted[i].first << ": " << sorted[i].second << "\n";
    }
    return fail == 0 ? cli::kOk : cli::kWrongNumbers;
}

} // namespace loopscope
