#include "RequestHandler.h"
#include "ModelRequest.h"
#include "TuneRequest.h"

#include "Version.h"
#include "codegen/Codegen.h"
#include "export/Export.h"
#include "ir/Host.h"
#include "ir/Limits.h"
#include "lower/Lower.h"
#include "runtime/Microbench.h"
#include "runtime/ProfileJson.h"
#include "runtime/RuntimeJit.h"
#include "runtime/SweepJson.h"
#include "runtime/ThreadPool.h"
#include "runtime/VariantRun.h"
#include "runtime/VariantRunJson.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <limits>
#include <new>
#include <thread>

namespace loopscope::worker {

using json = nlohmann::json;

namespace {

// A failure reported as an error result.
struct Failure {
    std::string kind; // "request", "document", "codegen", "internal"
    std::string message;
    SourceLoc loc;
};

[[noreturn]] void badRequest(const std::string& message)
{
    throw Failure{"request", message, {}};
}

const json* find(const json& request, const char* name)
{
    auto it = request.find(name);
    if (it == request.end() || it->is_null()) return nullptr;
    return &*it;
}

std::string stringField(const json& request, const char* name, const std::string& fallback,
                        bool required = false)
{
    const json* v = find(request, name);
    if (!v) {
        if (required) badRequest(std::string("the request has no \"") + name + "\"");
        return fallback;
    }
    if (!v->is_string()) badRequest(std::string("\"") + name + "\" must be a string");
    return v->get<std::string>();
}

std::int64_t intField(const json& request, const char* name, std::int64_t fallback,
                      std::int64_t min = std::numeric_limits<std::int64_t>::min(),
                      std::int64_t max = std::numeric_limits<std::int64_t>::max())
{
    const json* v = find(request, name);
    if (!v) return fallback;
    if (!v->is_number_integer()) badRequest(std::string("\"") + name + "\" must be an integer");
    if (v->is_number_unsigned() && v->get<std::uint64_t>() > static_cast<std::uint64_t>(max))
        badRequest(std::string("\"") + name + "\" must be at most " + std::to_string(max));
    std::int64_t x = v->get<std::int64_t>();
    if (x < min)
        badRequest(std::string("\"") + name + "\" must be at least " + std::to_string(min));
    if (x > max) badRequest(std::string("\"") + name + "\" must be at most " + std::to_string(max));
    return x;
}

double numberField(const json& request, const char* name, double fallback, double min)
{
    const json* v = find(request, name);
    if (!v) return fallback;
    if (!v->is_number()) badRequest(std::string("\"") + name + "\" must be a number");
    double x = v->get<double>();
    if (!(x >= min))
        badRequest(std::string("\"") + name + "\" must be at least " + std::to_string(min));
    return x;
}

bool boolField(const json& request, const char* name, bool fallback)
{
    const json* v = find(request, name);
    if (!v) return fallback;
    if (!v->is_boolean()) badRequest(std::string("\"") + name + "\" must be true or false");
    return v->get<bool>();
}

std::map<std::string, std::int64_t> setsField(const json& request)
{
    std::map<std::string, std::int64_t> sets;
    const json* v = find(request, "sets");
    if (!v) return sets;
    if (!v->is_object()) badRequest("\"sets\" must be an object of NAME: integer");
    for (auto& [name, value] : v->items()) {
        if (!value.is_number_integer()) badRequest("sets: " + name + " must be an integer");
        sets[name] = value.get<std::int64_t>();
    }
    return sets;
}

// The script evaluated with the request's "sets", and the variant and step it names.
struct Target {
    ScriptEvaluation evaluation;
    const Variant* variant = nullptr;
    int step = -1;
};

void evaluateTarget(const json& request, Target* t)
{
    std::string script = stringField(request, "script", "", true);
    t->evaluation = evaluateWithValues(script, setsField(request));
    const EvalResult& r = t->evaluation.result;
    if (!r.ok) throw Failure{"document", r.error.message, r.error.loc};
    if (!t->evaluation.unknownNames.empty()) {
        std::string names;
        for (auto& n : t->evaluation.unknownNames)
            names += (names.empty() ? "" : ", ") + n;
        std::string known = parameterList(r.program);
        badRequest("sets: the script has no parameter named " + names +
                   (known.empty() ? std::string(" (it has none)") : " (it has: " + known + ")"));
    }
    const Program& p = r.program;
    if (p.variants.empty()) badRequest("the script has no variant (no te.create_schedule)");
    std::string name = stringField(request, "variant", "");
    if (name.empty())
        t->variant = &p.variants.front();
    else
        t->variant = p.findVariant(name);
    if (!t->variant)
        badRequest("no variant '" + name + "' in the script (variants: " + variantList(p) + ")");
    std::int64_t step = intField(request, "step", -1, std::numeric_limits<int>::min(),
                                 std::numeric_limits<int>::max());
    t->step = static_cast<int>(step);
    if (!isValidStep(*t->variant, t->step)) {
        std::size_t n = t->variant->steps.size();
        badRequest("variant '" + t->variant->name + "' has " + std::to_string(n) + " step" +
                   (n == 1 ? "" : "s") + "; there is no step " + std::to_string(step) + " (0 to " +
                   std::to_string(n) + ", or -1 for the last)");
    }
}

int resolvedStep(const Target& t)
{
    return t.step < 0 ? static_cast<int>(t.variant->steps.size()) : t.step;
}

// "variant 'tiled' step 3", as the messages name what ran.
std::string describe(const Target& t)
{
    return "variant '" + t.variant->name + "' step " + std::to_string(resolvedStep(t));
}

// Testing hook: changes one element of the first output so that the check must fail.
void corruptOutput(PreparedRun& run, const Variant& variant)
{
    const auto& outputs = variant.snapshots.front().outputs();
    for (std::size_t i = 0; i < variant.args.size(); ++i) {
        const Tensor& t = variant.args[i];
        if (t->isPlaceholder() || std::find(outputs.begin(), outputs.end(), t) == outputs.end())
            continue;
        // The run owns its buffers and is not const here; only the accessor is.
        auto& b = const_cast<HostBuffer&>(run.buffers()[i]);
        if (b.elementCount() == 0) continue;
        if (b.dtype().isBool())
            b.setInt(0, b.getInt(0) ? 0 : 1);
        else if (b.dtype().isFloat())
            b.set(0, b.get(0) + 1.0 + 2.0 * std::abs(b.get(0)));
        else
            b.setInt(0, b.getInt(0) + 1);
        return;
    }
}

const char* phaseName(RunPhase phase)
{
    switch (phase) {
    case RunPhase::Compiling: return "compiling";
    case RunPhase::Checking: return "checking";
    case RunPhase::Timing: return "timing";
    }
    return "compiling";
}

json errorResult(const std::string& kind, const std::string& message, SourceLoc loc = {})
{
    return {{"status", "error"},
            {"kind", kind},
            {"message", message},
            {"line", loc.line},
            {"column", loc.col}};
}

// nlohmann's messages start with "[json.exception.parse_error.101] "; the rest is plain.
std::string withoutExceptionTag(const std::string& what)
{
    if (what.rfind("[json.exception.", 0) == 0) {
        auto end = what.find("] ");
        if (end != std::string::npos) return what.substr(end + 2);
    }
    return what;
}

} // namespace

RequestHandler::RequestHandler(HandlerOptions options)
    : m_options(options), m_sweepCache(std::make_shared<SweepCache>())
{
    m_commands["sweep"] = [this](const json& r, const Progress& p) { return sweep(r, p); };
    m_commands["machine"] = [this](const json& r, const Progress&) { return machine(r); };
    m_commands["ping"] = [this](const json&, const Progress&) { return ping(); };
    m_commands["measure"] = [this](const json& r, const Progress& p) { return measure(r, p); };
    m_commands["emit"] = [this](const json& r, const Progress& p) { return emitCode(r, p); };
    m_commands["model"] = [](const json& r, const Progress& p) {
        try {
            return runModelRequest(r, [&](const std::string& phase, double fraction) {
                p(phase, fraction, json::object());
            });
        } catch (const std::invalid_argument& e) {
            badRequest(e.what());
        }
    };
    m_commands["model_choice"] = [](const json& r, const Progress&) {
        try {
            return runModelChoiceRequest(r);
        } catch (const std::invalid_argument& e) {
            badRequest(e.what());
        }
    };
    m_commands["tune"] = [this](const json& r, const Progress& p) {
        try {
            return runTuneRequest(
                r,
                [&](const json& m) {
                    json extra = m;
                    extra.erase("phase");
                    extra.erase("fraction");
                    p(m.value("phase", "tune"), m.value("fraction", 0.0), extra);
                },
                "/proc/self/exe", m_options.testing);
        } catch (const std::invalid_argument& e) {
            badRequest(e.what());
        }
    };
}

Jit& RequestHandler::jit() const
{
    if (!m_jit) m_jit = createRuntimeJit(); // throws CodegenError, answered as an error
    return *m_jit;
}

std::vector<std::string> RequestHandler::commands() const
{
    std::vector<std::string> names;
    for (auto& [name, command] : m_commands)
        names.push_back(name);
    return names;
}

void RequestHandler::handleLine(const std::string& line, const Emit& emit) const
{
    if (line.find_first_not_of(" \t\r\n") == std::string::npos) return;
    json request;
    try {
        request = json::parse(line);
    } catch (const json::exception& e) {
        emit(errorResult("request",
                         "the request is not valid JSON: " + withoutExceptionTag(e.what())));
        return;
    }
    handle(request, emit);
}

void RequestHandler::handle(const json& request, const Emit& emit) const
{
    json id; // null until known
    try {
        if (!request.is_object()) badRequest("a request must be a JSON object");
        if (const json* v = find(request, "id")) {
            if (!v->is_number_integer()) badRequest("\"id\" must be an integer");
            id = *v;
        }
        // A client of another build: refused before anything of the request is read.
        if (const json* v = find(request, "protocol")) {
            if (!v->is_number_integer()) badRequest("\"protocol\" must be an integer");
            const std::string mismatch = protocolMismatch(v->get<int>(), "the client");
            if (!mismatch.empty())
                throw Failure{"protocol",
                              mismatch + "; this worker is Loopscope " LOOPSCOPE_VERSION_STRING,
                              {}};
        }
        std::string cmd = stringField(request, "cmd", "", true);
        auto it = m_commands.find(cmd);
        if (it == m_commands.end()) {
            std::string known;
            for (auto& n : commands())
                known += (known.empty() ? "" : ", ") + n;
            badRequest("unknown command '" + cmd + "' (commands: " + known + ")");
        }
        // The bounds the window's settings give (core's Limits); without them, the defaults.
        Limits l;
        l.maxUnrollCopies = intField(request, "max_unroll", l.maxUnrollCopies, 1);
        l.maxReferenceStepsPerElement =
            intField(request, "max_reference_steps", l.maxReferenceStepsPerElement, 1);
        setLimits(l);
        Progress progress{[&](const std::string& phase, double fraction, const json& extra) {
            json m{{"status", "progress"}, {"phase", phase}, {"fraction", fraction}};
            for (auto& [key, value] : extra.items())
                m[key] = value;
            if (!id.is_null()) m["id"] = id;
            emit(m);
        }};
        json result = it->second(request, progress);
        if (!id.is_null()) result["id"] = id;
        emit(result);
        return;
    } catch (const Failure& f) {
        json result = errorResult(f.kind, f.message, f.loc);
        if (!id.is_null()) result["id"] = id;
        emit(result);
    } catch (const UserError& e) {
        json result = errorResult("document", e.message(), e.loc());
        if (!id.is_null()) result["id"] = id;
        emit(result);
    } catch (const json::exception& e) {
        json result = errorResult("request", withoutExceptionTag(e.what()));
        if (!id.is_null()) result["id"] = id;
        emit(result);
    } catch (const std::bad_alloc&) {
        json result = errorResult("document", "out of memory: the program needs more memory than "
                                              "this machine could give (try smaller sizes)");
        if (!id.is_null()) result["id"] = id;
        emit(result);
    } catch (const InternalError& e) {
        json result = errorResult("internal", e.what());
        if (!id.is_null()) result["id"] = id;
        emit(result);
    } catch (const std::exception& e) {
        json result = errorResult("internal", std::string("internal error: ") + e.what());
        if (!id.is_null()) result["id"] = id;
        emit(result);
    }
}

json RequestHandler::ping() const
{
    HostTarget host = hostTarget();
    json names = json::array();
    for (auto& n : commands())
        names.push_back(n);
    return {{"status", "ok"},
            {"version", LOOPSCOPE_VERSION_STRING},
            {"protocol", kProtocolVersion},
            {"commands", names},
            {"triple", host.triple},
            {"cpu", host.cpu},
            {"llvm_cpu", host.llvmCpu},
            {"cpu_note", host.cpuReason},
            {"features", host.features},
            {"vector_bits", host.vectorBits},
            {"llvm", host.llvmVersion},
            // What "threads": 0 uses (the pool's size follows the last request otherwise).
            {"threads", usableCores()},
            {"testing", m_options.testing}};
}

json RequestHandler::profileKernel(PreparedRun& run, double seconds) const
{
    LineProfile profile;
    std::string why;
    const auto t0 = std::chrono::steady_clock::now();
    if (!profileRuns(
            run.kernel(), [&] { run.run(); }, seconds, 3, &profile, &why))
        return json{{"error", why}};
    const double profileMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    json p = profileSummaryJson(profile);
    p["tir"] = profile.tir;
    p["profile_ms"] = profileMs;
    json line = json::array(), loop = json::array();
    for (std::size_t i = 0; i < profile.lineSamples.size(); ++i) {
        line.push_back(profile.lineShare(static_cast<int>(i + 1)));
        loop.push_back(profile.isLoop[i] ? profile.loopShare(static_cast<int>(i + 1)) : -1.0);
    }
    p["line_share"] = line;
    p["loop_share"] = loop;
    // The kernel's instructions as the JIT loaded them, each with its line and samples.
    if (const KernelLines* k = run.kernel().lines()) {
        json ins = json::array();
        for (std::size_t i = 0; i < k->instructionOffsets.size(); ++i) {
            const std::uint32_t off = k->instructionOffsets[i];
            ins.push_back(
                {{"o", off},
                 {"t", k->instructionText[i]},
                 {"l", k->lineAt(k->codeStart + off)},
                 {"s", i < profile.instructionSamples.size() ? profile.instructionSamples[i] : 0}});
        }
        p["instructions"] = ins;
    }
    const HardwareCounts counts = countHardwareEvents([&] {
        for (int i = 0; i < std::max(1, profile.runs / 4); ++i)
            run.run();
    });
    addCountersJson(counts, &p);
    return p;
}

json RequestHandler::measure(const json& request, const Progress& progress) const
{
    Target t;
    evaluateTarget(request, &t);
    const Program& program = t.evaluation.result.program;
    VariantRunOptions options;
    options.step = t.step;
    options.check = boolField(request, "check", true);
    options.time = boolField(request, "time", true);
    options.benchmark.repeat = static_cast<int>(intField(request, "repeat", 5, 1, 1000000));
    options.benchmark.number = static_cast<int>(intField(request, "number", 1, 1, 1000000000));
    options.benchmark.minRepeatMs = numberField(request, "min_repeat_ms", 50.0, 0.0);
    options.maxFirstRunMs = numberField(request, "max_run_ms", 0.0, 0.0);
    options.config.symbols = t.evaluation.symbols;
    options.config.seed = static_cast<std::uint64_t>(intField(request, "seed", 1, 0));
    options.config.optLevel = static_cast<int>(intField(request, "opt_level", 3, 0, 3));
    int threads = static_cast<int>(intField(request, "threads", 0, 0, 4096));

    bool corrupt = false, crash = false;
    std::int64_t sleepMs = 0;
    if (m_options.testing) {
        LS_ASSERT(!boolField(request, "internal_error", false),
                  "a testing hook asked for an internal error");
        corrupt = boolField(request, "corrupt_output", false);
        crash = boolField(request, "crash", false);
        sleepMs = intField(request, "sleep_ms", 0, 0);
    }

    // Profiling: the kernel keeps its line info, and after its first run it runs again and
    // again for `profile_seconds` while the CPU clock samples it.
    const double profileSeconds = numberField(request, "profile_seconds", 0.0, 0.0);
    if (profileSeconds > 30) throw Failure{"request", "profile_seconds is at most 30", {}};
    if (profileSeconds > 0) options.config.lineInfo = true;
    json profileJson;

    VariantRunHooks hooks;
    hooks.progress = [&](RunPhase phase, double fraction) { progress(phaseName(phase), fraction); };
    // Held: compiled now, it runs when told to, with the run's parameters of then.
    if (boolField(request, "hold", false)) {
        const std::int64_t id = request.value("id", std::int64_t{-1});
        hooks.beforeFirstRun = [this, id](PreparedRun&, VariantRunOptions& o) {
            const json go = m_awaitGo ? m_awaitGo(id) : json();
            // No "go" ever comes: the tuner has gone (its end of the pipe is closed).
            if (go.is_null()) std::_Exit(0);
            o.benchmark.repeat =
                static_cast<int>(intField(go, "repeat", o.benchmark.repeat, 1, 1000000));
            o.benchmark.minRepeatMs =
                numberField(go, "min_repeat_ms", o.benchmark.minRepeatMs, 0.0);
            o.maxFirstRunMs = numberField(go, "max_run_ms", o.maxFirstRunMs, 0.0);
        };
    }
    hooks.afterFirstRun = [&](PreparedRun& run) {
        if (profileSeconds > 0) profileJson = profileKernel(run, profileSeconds);
        if (corrupt) corruptOutput(run, *t.variant);
        if (sleepMs > 0) std::this_thread::sleep_for(std::chrono::milliseconds(sleepMs));
        if (crash) {
            std::signal(SIGSEGV, SIG_DFL);
            std::raise(SIGSEGV);
        }
    };

    setParallelThreads(threads);
    VariantRunOutcome out;
    try {
        options.config.jit = &jit();
        out = runVariant(program, *t.variant, options, hooks);
    } catch (const CodegenError& e) {
        Diagnostic d = cannotRunDiagnostic(*t.variant, e);
        throw Failure{"codegen", d.message, d.loc};
    }

    json result = variantRunJson(out);
    if (!profileJson.is_null()) result["profile"] = profileJson;
    result["variant"] = t.variant->name;
    result["step"] = resolvedStep(t);
    result["steps"] = t.variant->steps.size();
    result["threads"] = parallelThreads();
    json parameters = json::object();
    for (auto& p : program.parameters)
        parameters[p.name] = p.value;
    for (auto& [name, value] : t.evaluation.symbols)
        parameters[name] = value;
    result["parameters"] = parameters;
    json notes = json::array();
    for (auto& n : out.notes)
        notes.push_back(n);
    result["notes"] = notes;
    if (out.wrong) {
        // Wrong numbers are an error of the schedule, never a speed.
        result["status"] = "wrong";
        result.erase("run_ms");
        result["first_mismatch"] = out.firstProblem();
        result["max_abs_error"] = out.maxAbsError();
        result["message"] = describe(t) + " computes wrong numbers: " + out.firstProblem();
    } else {
        result["status"] = "ok";
    }
    return result;
}

namespace {

std::string base64(const std::string& bytes)
{
    static const char* const digits =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    for (std::size_t i = 0; i < bytes.size(); i += 3) {
        const std::uint32_t b0 = static_cast<unsigned char>(bytes[i]);
        const std::uint32_t b1 =
            i + 1 < bytes.size() ? static_cast<unsigned char>(bytes[i + 1]) : 0;
        const std::uint32_t b2 =
            i + 2 < bytes.size() ? static_cast<unsigned char>(bytes[i + 2]) : 0;
        const std::uint32_t n = (b0 << 16) | (b1 << 8) | b2;
        out += digits[(n >> 18) & 63];
        out += digits[(n >> 12) & 63];
        out += i + 1 < bytes.size() ? digits[(n >> 6) & 63] : '=';
        out += i + 2 < bytes.size() ? digits[n & 63] : '=';
    }
    return out;
}

} // namespace

json RequestHandler::emitCode(const json& request, const Progress& progress) const
{
    Target t;
    evaluateTarget(request, &t);
    ExportOptions options;
    options.format = stringField(request, "format", "llvm");
    if (std::find(std::begin(kExportFormats), std::end(kExportFormats), options.format) ==
        std::end(kExportFormats))
        badRequest("unknown format '" + options.format + "' (llvm, asm, c, tvm or obj)");
    options.step = t.step;
    options.symbols = t.evaluation.symbols;
    options.sourceName = stringField(request, "source", "");
    options.lineInfo = boolField(request, "lines", false);
    const Variant& v = *t.variant;
    if (options.format == "llvm" || options.format == "asm" || options.format == "obj") {
        try {
            checkTarget(v.target);
        } catch (const CodegenError& e) {
            throw Failure{"codegen", "target '" + v.target + "': " + e.what(), v.targetLoc};
        }
    }
    progress("lowering", 0.0);
    ExportResult exported;
    try {
        exported = exportVariant(stringField(request, "script", "", true),
                                 t.evaluation.result.program, v, options);
    } catch (const CodegenError& e) {
        throw Failure{"codegen",
                      "variant '" + v.name + "' cannot be exported as " + options.format +
                          " for target '" + v.target + "': " + e.what(),
                      v.loc};
    }
    json out = {{"status", "ok"},
                {"format", options.format},
                {"variant", v.name},
                {"step", resolvedStep(t)},
                {"steps", v.steps.size()},
                {"function", exported.function},
                {"suffix", exported.suffix},
                {"target", v.target}};
    if (options.format == "obj") {
        // An object's bytes travel as base64; its header, the typed prototype, as text.
        out["data"] = base64(exported.text);
        out["header"] = exported.header;
        out["text"] = exported.header;
    } else {
        out["text"] = exported.text;
    }
    return out;
}

namespace {

std::vector<std::string> stringListField(const json& request, const char* name)
{
    std::vector<std::string> out;
    const json* v = find(request, name);
    if (!v) return out;
    if (!v->is_array()) badRequest(std::string("\"") + name + "\" must be a list of strings");
    for (auto& x : *v) {
        if (!x.is_string()) badRequest(std::string("\"") + name + "\" must be a list of strings");
        out.push_back(x.get<std::string>());
    }
    return out;
}

} // namespace

json RequestHandler::sweep(const json& request, const Progress& progress) const
{
    SweepRequest r;
    r.script = stringField(request, "script", "", true);
    r.parameters = stringListField(request, "params");
    if (r.parameters.empty()) badRequest("\"params\" must name at least one parameter");
    if (const json* v = find(request, "values")) {
        if (!v->is_array() || v->empty())
            badRequest("\"values\" must be a non-empty list of sizes");
        for (auto& x : *v) {
            if (!x.is_number_integer() || x.get<std::int64_t>() < 1)
                badRequest("\"values\" must be a non-empty list of positive integers");
            r.values.push_back(x.get<std::int64_t>());
        }
    } else {
        r.values = defaultSweepValues();
    }
    r.variants = stringListField(request, "variants");
    r.threads = static_cast<int>(intField(request, "threads", 0, 0, 4096));
    r.maxPointSeconds = numberField(request, "max_point_s", 10.0, 0.0);
    if (!(r.maxPointSeconds > 0)) badRequest("\"max_point_s\" must be more than 0");
    r.check = boolField(request, "check", true);
    r.blas = boolField(request, "blas", false);
    r.benchmark.repeat = static_cast<int>(intField(request, "repeat", 3, 1, 1000000));
    r.benchmark.minRepeatMs = numberField(request, "min_repeat_ms", 20.0, 0.0);

    // Points the client measured before (the app keeps them when a cancel restarts the worker):
    // they join the cache, so they are reported as cached instead of measured again.
    if (const json* known = find(request, "known")) {
        if (!known->is_array()) badRequest("\"known\" must be a list of sweep points");
        for (auto& k : *known) {
            std::optional<SweepPoint> p = sweepPointFromJson(k);
            if (!p || p->values.size() != r.parameters.size() || p->threads < 1)
                badRequest("\"known\" holds a point without variant, threads or one value per "
                           "parameter");
            m_sweepCache->store(
                SweepCache::key(r.script, p->variant, r.parameters, p->values, p->threads), *p);
        }
    }

    SweepHooks hooks;
    hooks.point = [&](const SweepPoint& point, int done, int total) {
        progress(
            "sweep", total > 0 ? static_cast<double>(done) / total : 1.0,
            json{{"done", done}, {"total", total}, {"point", sweepPointJson(point, r.parameters)}});
        if (m_betweenSweepPoints) m_betweenSweepPoints();
    };
    SweepResult result;
    try {
        result = runSweep(jit(), r, m_sweepCache.get(), hooks);
    } catch (const UserError& e) {
        if (e.loc().line > 0) throw;
        badRequest(e.message());
    }
    json points = json::array();
    for (auto& p : result.points)
        points.push_back(sweepPointJson(p, r.parameters));
    json out{
        {"status", "ok"},           {"params", r.parameters}, {"variants", result.variants},
        {"points", points},         {"total", result.total},  {"measured", result.measuredCount},
        {"threads", result.threads}};
    if (!result.blasLabel.empty()) out["blas"] = result.blasLabel;
    if (!result.blasNote.empty()) out["blas_note"] = result.blasNote;
    return out;
}

bool RequestHandler::isGo(const std::string& line)
{
    try {
        const json j = json::parse(line);
        return j.is_object() && j.value("cmd", "") == "go";
    } catch (const json::exception&) {
        return false;
    }
}

bool RequestHandler::mayGoBetween(const std::string& line)
{
    json request = json::parse(line, nullptr, false);
    if (!request.is_object()) return false;
    const json* cmd = find(request, "cmd");
    return cmd && cmd->is_string() && *cmd == "emit";
}

json RequestHandler::machine(const json& request) const
{
    int threads = static_cast<int>(intField(request, "threads", 0, 0, 4096));
    PeakFlops peak = measurePeakFlops(threads);
    Bandwidth bandwidth = measureTriadBandwidth(threads);
    return {{"status", "ok"},
            {"peak_gflops", peak.gflops},
            {"vector_bits", peak.vectorBits},
            {"bandwidth_gbs", bandwidth.gbPerS},
            {"threads", peak.threads},
            {"clock_ghz", hostClockGhz()}};
}

std::string serializeMessage(const json& message)
{
    return message.dump(-1, ' ', false, json::error_handler_t::replace);
}

} // namespace loopscope::worker
