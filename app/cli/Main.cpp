// loopscope-cli: the headless face of the core (DESIGN.md §4). Exit codes: 0 success, 1 the
// document has an error, 2 bad command-line usage, 3 a --check found wrong numbers.
#include "te/Program.h"
#include "tir/Lower.h"
#include "tir/Printer.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using namespace loopscope;
using json = nlohmann::json;

namespace {

constexpr int kOk = 0;
constexpr int kDocumentError = 1;
constexpr int kUsage = 2;

const char* kUsageText =
    "usage: loopscope-cli COMMAND FILE [options]\n"
    "\n"
    "commands:\n"
    "  lower  FILE [--variant NAME ...] [--set P=V ...] [--structured] [--json]\n"
    "         print the lowered loop nest (TIR) of every variant, as tvm.lower prints it\n"
    "  check  FILE [--set P=V ...] [--json]\n"
    "         evaluate the script and lower every variant; report the first error\n";

struct Options {
    std::string command;
    std::string file;
    std::vector<std::string> variants;
    std::map<std::string, std::int64_t> sets;
    bool structured = false;
    bool json = false;
};

class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

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

Options parseOptions(int argc, char** argv)
{
    if (argc < 2) throw UsageError("missing command");
    Options o;
    o.command = argv[1];
    if (o.command == "-h" || o.command == "--help") {
        std::cout << kUsageText;
        std::exit(kOk);
    }
    if (o.command != "lower" && o.command != "check") throw UsageError("unknown command '" + o.command + "'");
    for (int i = 2; i < argc; ++i) {
        std::string a = argv[i];
        auto value = [&](const std::string& flag) -> std::string {
            if (i + 1 >= argc) throw UsageError(flag + " needs a value");
            return argv[++i];
        };
        if (a == "--variant") o.variants.push_back(value(a));
        else if (a == "--set") {
            std::string kv = value(a);
            auto eq = kv.find('=');
            if (eq == std::string::npos || eq == 0) throw UsageError("--set takes NAME=VALUE, not '" + kv + "'");
            o.sets[kv.substr(0, eq)] = parseInteger(kv.substr(eq + 1), "--set " + kv.substr(0, eq));
        } else if (a == "--structured" && o.command == "lower") o.structured = true;
        else if (a == "--json") o.json = true;
        else if (!a.empty() && a[0] == '-') throw UsageError("unknown option '" + a + "' for " + o.command);
        else if (o.file.empty()) o.file = a;
        else throw UsageError("unexpected argument '" + a + "'");
    }
    if (o.file.empty()) throw UsageError("missing FILE");
    return o;
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

json diagnosticJson(const std::string& file, const Diagnostic& d)
{
    return {{"file", file}, {"line", d.loc.line}, {"column", d.loc.col}, {"message", d.message}};
}

void reportDiagnostic(const Options& o, const Diagnostic& d)
{
    std::cerr << formatDiagnostic(o.file, d) << "\n";
}

// Evaluates the document; prints its error and returns false when it has one.
bool evaluate(const Options& o, EvalResult* result, json* errorJson)
{
    std::string source;
    if (!readFile(o.file, &source)) throw UsageError("cannot read '" + o.file + "'");
    std::vector<std::string> unused;
    *result = evaluateScript(source, o.sets, &unused);
    if (!result->ok) {
        reportDiagnostic(o, result->error);
        *errorJson = diagnosticJson(o.file, result->error);
        return false;
    }
    if (!unused.empty()) {
        std::string names;
        for (auto& n : unused) names += (names.empty() ? "" : ", ") + n;
        std::string known;
        for (auto& p : result->program.parameters) known += (known.empty() ? "" : ", ") + p.name;
        throw UsageError("--set " + names + ": the script has no such parameter" +
                         (known.empty() ? std::string(" (it has none)") : " (it has: " + known + ")"));
    }
    return true;
}

std::vector<const Variant*> selectVariants(const Options& o, const Program& p)
{
    std::vector<const Variant*> out;
    if (o.variants.empty()) {
        for (auto& v : p.variants) out.push_back(&v);
        return out;
    }
    for (auto& name : o.variants) {
        const Variant* v = p.findVariant(name);
        if (!v) {
            std::string known;
            for (auto& x : p.variants) known += (known.empty() ? "" : ", ") + x.name;
            throw UsageError("no variant '" + name + "' in " + o.file + " (variants: " + known + ")");
        }
        out.push_back(v);
    }
    return out;
}

// GPU thread bindings are shown but never run; say so once per variant.
void noteThreadBindings(const Options& o, const Variant& v)
{
    for (auto& st : v.steps) {
        if (st.primitive != "bind") continue;
        std::cerr << o.file << ":" << st.loc.line << ":" << st.loc.col << ": note: variant '" << v.name
                  << "' binds loops to GPU thread axes; Loopscope shows its TIR but runs only CPU code\n";
        return;
    }
}

json stepsJson(const Variant& v)
{
    json steps = json::array();
    for (auto& s : v.steps)
        steps.push_back({{"primitive", s.primitive}, {"stage", s.stage}, {"line", s.loc.line}, {"text", s.text}});
    return steps;
}

int commandLower(const Options& o)
{
    EvalResult r;
    json err;
    if (!evaluate(o, &r, &err)) {
        if (o.json) std::cout << json{{"ok", false}, {"error", err}}.dump(2) << "\n";
        return kDocumentError;
    }
    json variants = json::array();
    std::string text;
    auto selected = selectVariants(o, r.program);
    for (const Variant* v : selected) {
        LoweredFunc f;
        try {
            f = lowerSchedule(v->schedule(), v->args, v->funcName);
        } catch (const UserError& e) {
            reportDiagnostic(o, e.diagnostic());
            if (o.json) std::cout << json{{"ok", false}, {"error", diagnosticJson(o.file, e.diagnostic())}}.dump(2) << "\n";
            return kDocumentError;
        }
        noteThreadBindings(o, *v);
        std::string tir = o.structured ? printStructured(f.structured, f.args) : printTVMScript(f.func);
        if (o.json) {
            variants.push_back({{"name", v->name}, {"line", v->loc.line}, {"steps", stepsJson(*v)}, {"tir", tir}});
        } else {
            if (selected.size() > 1) text += "# variant: " + v->name + "\n";
            text += tir;
            if (!tir.empty() && tir.back() != '\n') text += "\n";
            if (selected.size() > 1) text += "\n";
        }
    }
    if (o.json) std::cout << json{{"ok", true}, {"file", o.file}, {"variants", variants}}.dump(2) << "\n";
    else std::cout << text;
    return kOk;
}

int commandCheck(const Options& o)
{
    EvalResult r;
    json err;
    if (!evaluate(o, &r, &err)) {
        if (o.json) std::cout << json{{"ok", false}, {"error", err}}.dump(2) << "\n";
        return kDocumentError;
    }
    json variants = json::array();
    for (auto& v : r.program.variants) {
        try {
            lowerSchedule(v.schedule(), v.args, v.funcName);
        } catch (const UserError& e) {
            reportDiagnostic(o, e.diagnostic());
            if (o.json) std::cout << json{{"ok", false}, {"error", diagnosticJson(o.file, e.diagnostic())}}.dump(2) << "\n";
            return kDocumentError;
        }
        noteThreadBindings(o, v);
        variants.push_back({{"name", v.name}, {"line", v.loc.line}, {"steps", v.steps.size()}});
    }
    if (o.json) {
        json params = json::array();
        for (auto& p : r.program.parameters) params.push_back({{"name", p.name}, {"value", p.value}, {"line", p.loc.line}});
        std::cout << json{{"ok", true}, {"file", o.file}, {"parameters", params}, {"variants", variants}}.dump(2) << "\n";
    } else {
        std::cout << o.file << ": ok, " << r.program.variants.size() << " variant"
                  << (r.program.variants.size() == 1 ? "" : "s");
        for (auto& v : r.program.variants) std::cout << (&v == &r.program.variants.front() ? ": " : ", ") << v.name;
        std::cout << "\n";
    }
    return kOk;
}

}  // namespace

int main(int argc, char** argv)
{
    try {
        Options o = parseOptions(argc, argv);
        if (o.command == "lower") return commandLower(o);
        return commandCheck(o);
    } catch (const UsageError& e) {
        std::cerr << "loopscope-cli: " << e.what() << "\n\n" << kUsageText;
        return kUsage;
    }
}
