#include "Cli.h"

#include "codegen/Codegen.h"
#include "ir/Limits.h"
#include "runtime/GpuRun.h"
#include "runtime/RuntimeJit.h"
#include "runtime/VariantRun.h"

#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

namespace loopscope::cli {

UsageError cannotRead(const std::string& path)
{
    return UsageError("cannot read '" + path + "'", false);
}

UsageError cannotWrite(const std::string& path, const std::string& why)
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

double parseNumber(const std::string& text, const std::string& what, const std::string& unit)
{
    try {
        std::size_t used = 0;
        const double v = std::stod(text, &used);
        if (used == text.size()) return v;
    } catch (const std::logic_error&) {
    }
    throw UsageError(what + ": '" + text + "' is not a number" +
                     (unit.empty() ? "" : " of " + unit));
}

std::vector<std::string> splitList(const std::string& text)
{
    std::vector<std::string> out;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ','))
        if (!item.empty()) out.push_back(item);
    return out;
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

bool writeFile(const std::string& path, const std::string& data)
{
    std::ofstream out(path, std::ios::binary);
    out << data;
    return static_cast<bool>(out.flush());
}

std::string fixed(double v, int digits)
{
    std::ostringstream ss;
    ss << std::fixed << std::setprecision(digits) << v;
    return ss.str();
}

std::string pad(const std::string& s, std::size_t width, bool right)
{
    if (s.size() >= width) return s;
    return right ? std::string(width - s.size(), ' ') + s : s + std::string(width - s.size(), ' ');
}

// ---- one option parser --------------------------------------------------------------------

std::vector<std::string> parseCommandLine(int argc, char** argv, int first,
                                          const std::string& command,
                                          const std::vector<Option>& options)
{
    std::vector<std::string> words;
    for (int i = first; i < argc; ++i) {
        const std::string a = argv[i];
        const Option* option = nullptr;
        for (const Option& candidate : options)
            if (a == candidate.name || (!candidate.alias.empty() && a == candidate.alias))
                option = &candidate;
        if (option) {
            if (!option->takesValue) {
                option->apply({});
                continue;
            }
            if (i + 1 >= argc) throw UsageError(a + " needs a value");
            option->apply(argv[++i]);
        } else if (!a.empty() && a[0] == '-') {
            throw UsageError("unknown option '" + a + "' for " + command);
        } else {
            words.push_back(a);
        }
    }
    return words;
}

std::vector<Option> join(std::vector<std::vector<Option>> groups)
{
    std::vector<Option> all;
    for (auto& g : groups)
        for (auto& o : g)
            all.push_back(std::move(o));
    return all;
}

std::vector<Option> scriptOptions(Options& o)
{
    auto limit = [](const std::string& name) {
        return [name](const std::string& value) {
            const std::int64_t n = parseInteger(value, name);
            if (n < 1) throw UsageError(name + " must be at least 1");
            Limits l = limits();
            (name == "--max-unroll" ? l.maxUnrollCopies : l.maxReferenceStepsPerElement) = n;
            setLimits(l);
        };
    };
    return {
        {"--variant", "", true, [&o](const std::string& v) { o.variants.push_back(v); }},
        {"--max-unroll", "", true, limit("--max-unroll")},
        {"--max-reference-steps", "", true, limit("--max-reference-steps")},
        {"--set", "", true,
         [&o](const std::string& kv) {
             auto eq = kv.find('=');
             if (eq == std::string::npos || eq == 0)
                 throw UsageError("--set takes NAME=VALUE, not '" + kv + "'");
             o.sets[kv.substr(0, eq)] =
                 parseInteger(kv.substr(eq + 1), "--set " + kv.substr(0, eq));
         }},
    };
}

Option jsonOption(Options& o)
{
    return {"--json", "", false, [&o](const std::string&) { o.json = true; }};
}

std::vector<Option> runOptions(Options& o)
{
    return {
        {"--check", "", false, [&o](const std::string&) { o.check = true; }},
        {"--threads", "", true,
         [&o](const std::string& v) {
             o.threads = static_cast<int>(parseInteger(v, "--threads"));
             if (o.threads < 0)
                 throw UsageError("--threads must be 0 (all hardware threads) or more");
         }},
    };
}

Option gpuRunnerOption(Options& o)
{
    return {"--runner", "", true, [&o](const std::string& v) {
                if (v.find_first_not_of(" \t") == std::string::npos)
                    throw UsageError("--runner needs the command that starts loopscope-runner");
                o.runner = v;
            }};
}

Option cpuTargetOption(Options& o)
{
    return {"--target", "", true, [&o](const std::string& value) {
                o.target = value;
                try {
                    const TargetChoice c = parseTarget(o.target);
                    if (o.target.rfind("llvm", 0) != 0 || !c.attrs.empty() || !c.triple.empty())
                        throw UsageError("--target for " + o.command +
                                             " takes \"llvm -mcpu=CPU\" alone: code that runs "
                                             "here has this machine's features (-mattr and "
                                             "-mtriple are for export)",
                                         false);
                    if (!c.cpu.empty()) checkTarget("llvm -mcpu=" + c.cpu);
                    o.jitCpu = c.cpu;
                } catch (const CodegenError& e) {
                    throw UsageError(std::string("--target: ") + e.what(), false);
                }
            }};
}

void parseCommand(int argc, char** argv, Options& o, const std::vector<Option>& options,
                  bool takesFile)
{
    o.command = argv[1];
    for (const std::string& word : parseCommandLine(argc, argv, 2, o.command, options)) {
        if (!o.file.empty()) throw UsageError("unexpected argument '" + word + "'");
        o.file = word;
    }
    if (o.file.empty() && takesFile) throw UsageError("missing FILE");
    if (!o.file.empty() && !takesFile) throw UsageError(o.command + " takes no FILE");
}

// ---- the script ---------------------------------------------------------------------------

json diagnosticJson(const std::string& file, const Diagnostic& d)
{
    return {{"file", file}, {"line", d.loc.line}, {"column", d.loc.col}, {"message", d.message}};
}

void reportDiagnostic(const Options& o, const Diagnostic& d)
{
    std::cerr << formatDiagnostic(o.file, d) << "\n";
}

int documentError(const Options& o, const json& error)
{
    if (o.json) std::cout << json{{"ok", false}, {"error", error}}.dump(2) << "\n";
    return kDocumentError;
}

int documentError(const Options& o, const Diagnostic& d)
{
    reportDiagnostic(o, d);
    return documentError(o, diagnosticJson(o.file, d));
}

// Evaluates the document; prints its error and returns false when it has one.
bool evaluate(Options& o, EvalResult* result, json* errorJson)
{
    if (!readFile(o.file, &o.source)) throw cannotRead(o.file);
    ScriptEvaluation evaluation = evaluateWithValues(o.source, o.sets);
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

// GPU kernels run on a GPU, or are checked on this CPU and not timed; say so once per variant.
void noteThreadBindings(const Options& o, const Variant& v)
{
    for (auto& st : v.steps) {
        if (st.primitive != "bind") continue;
        std::cerr << o.file << ":" << st.loc.line << ":" << st.loc.col << ": note: variant '"
                  << v.name
                  << "' binds loops to GPU thread axes; its kernels run on the GPU where there is "
                     "one (through loopscope-runner), else they are checked on this CPU and not "
                     "timed\n";
        return;
    }
}

void warnLowering(const Options& o, const LoweredFunc& f)
{
    for (const Diagnostic& d : f.warnings)
        std::cerr << o.file << ":" << d.loc.line << ":" << d.loc.col << ": warning: " << d.message
                  << "\n";
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

GpuRunner& cliGpu(const Options& o)
{
    // A command goes through the shell, as the user wrote it ("ssh gpu1 loopscope-runner").
    static GpuRunner gpu(o.runner.empty()
                             ? std::vector<std::string>{GpuRunner::find("/proc/self/exe")}
                             : std::vector<std::string>{"/bin/sh", "-c", o.runner});
    return gpu;
}

Jit& cliJit(const Options& o)
{
    static std::unique_ptr<Jit> jit = createRuntimeJit(o.jitCpu);
    return *jit;
}

} // namespace loopscope::cli
