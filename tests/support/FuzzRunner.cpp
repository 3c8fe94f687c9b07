#include "FuzzRunner.h"

#include "support/TestJit.h"

#include "lower/Lower.h"
#include "lower/gpu/EmulateThreads.h"
#include "runtime/LocalRun.h"
#include "te/Program.h"

#include <chrono>
#include <csignal>
#include <cstring>
#include <exception>
#include <sstream>
#include <unistd.h>

namespace loopscope {

namespace {

// Read from a signal handler: plain pointers, set before the case runs.
const char* volatile g_caseText = nullptr;
volatile std::size_t g_caseLength = 0;

void writeAll(const char* p, std::size_t n)
{
    while (n > 0) {
        ssize_t w = ::write(STDERR_FILENO, p, n);
        if (w <= 0) return;
        p += w;
        n -= static_cast<std::size_t>(w);
    }
}

extern "C" void reportCrash(int sig)
{
    const char* text = g_caseText;
    if (text) {
        const char* head = "\n==== loopscope: crashed while running this script ====\n";
        writeAll(head, std::strlen(head));
        writeAll(text, g_caseLength);
        const char* tail = "\n==== end of script ====\n";
        writeAll(tail, std::strlen(tail));
    }
    std::signal(sig, SIG_DFL);
    std::raise(sig);
}

std::string describe(const CheckResult& r)
{
    if (!r.error.empty()) return r.error;
    return r.firstMismatch + " (" + std::to_string(r.mismatches) + " of " +
           std::to_string(r.checked) + " elements differ, max abs error " +
           std::to_string(r.maxAbsError) + ")";
}

double msSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

std::map<std::string, std::int64_t> scriptSymbols(const std::string& script)
{
    std::map<std::string, std::int64_t> out;
    std::istringstream lines(script);
    const std::string tag = "# set:";
    for (std::string line; std::getline(lines, line);) {
        if (line.compare(0, tag.size(), tag) != 0) continue;
        std::istringstream words(line.substr(tag.size()));
        for (std::string w; words >> w;) {
            auto eq = w.find('=');
            if (eq == std::string::npos) continue;
            out[w.substr(0, eq)] = std::stoll(w.substr(eq + 1));
        }
    }
    return out;
}

void installCrashReporter()
{
    for (int sig : {SIGABRT, SIGSEGV, SIGFPE, SIGBUS, SIGILL})
        std::signal(sig, reportCrash);
}

CurrentCase::CurrentCase(const std::string& script, const std::string& label)
    : m_text("# " + label + "\n" + script)
{
    g_caseLength = m_text.size();
    g_caseText = m_text.c_str();
}

CurrentCase::~CurrentCase()
{
    g_caseText = nullptr;
    g_caseLength = 0;
}

namespace {

// Records how a variant's attempt ended, when it threw.
void recordFailure(CaseOutcome& out, const std::string& where, std::exception_ptr thrown)
{
    try {
        std::rethrow_exception(thrown);
    } catch (const UserError& e) {
        if (out.status == CaseOutcome::Status::Passed) out.status = CaseOutcome::Status::Rejected;
        out.message += where + "refused while lowering (line " + std::to_string(e.loc().line) +
                       "): " + e.message() + "\n";
    } catch (const CodegenError& e) {
        if (out.status == CaseOutcome::Status::Passed) out.status = CaseOutcome::Status::Rejected;
        out.message += where + "refused by code generation: " + e.what() + "\n";
    } catch (const std::exception& e) {
        out.status = CaseOutcome::Status::Failed;
        out.message += where + "unexpected exception: " + e.what() + "\n";
    }
}

bool evaluates(const std::string& script, EvalResult* eval, CaseOutcome* out)
{
    *eval = evaluateScript(script);
    if (eval->ok) return true;
    out->status = CaseOutcome::Status::Failed;
    out->message = "the script does not evaluate: line " + std::to_string(eval->error.loc.line) +
                   ": " + eval->error.message;
    return false;
}

} // namespace

CaseOutcome runScriptChecked(const std::string& script, int optLevel)
{
    CaseOutcome out;
    auto t0 = std::chrono::steady_clock::now();
    EvalResult eval;
    const bool ok = evaluates(script, &eval, &out);
    out.evaluateMs = msSince(t0);
    if (!ok) return out;
    RunConfig config = testRunConfig();
    config.optLevel = optLevel;
    config.symbols = scriptSymbols(script);
    for (const Variant& v : eval.program.variants) {
        ++out.variants;
        std::string where = "variant '" + v.name + "': ";
        try {
            auto run = PreparedRun::prepare(eval.program, v, config);
            out.lowerMs += run->lowerMs();
            out.compileMs += run->compileMs();
            t0 = std::chrono::steady_clock::now();
            run->run();
            out.runMs += msSince(t0);
            t0 = std::chrono::steady_clock::now();
            auto checks = run->check();
            out.checkMs += msSince(t0);
            for (const OutputCheck& c : checks) {
                if (c.result.ok) continue;
                out.status = CaseOutcome::Status::Failed;
                out.message += where + "output " + c.tensor + ": " + describe(c.result) + "\n";
            }
        } catch (...) {
            recordFailure(out, where, std::current_exception());
        }
    }
    return out;
}

CaseOutcome compileScriptFor(const std::string& script, const std::string& target)
{
    CaseOutcome out;
    EvalResult eval;
    if (!evaluates(script, &eval, &out)) return out;
    for (const Variant& v : eval.program.variants) {
        ++out.variants;
        try {
            auto t0 = std::chrono::steady_clock::now();
            PrimFunc f = lowerSchedule(v.schedule(), v.args, v.funcName).func;
            out.lowerMs += msSince(t0);
            t0 = std::chrono::steady_clock::now();
            // GPU kernels compile for a CPU as they are checked there: as loops.
            f.body = programForCpu(f.body);
            emitCode(f, EmitKind::Assembly, target);
            out.compileMs += msSince(t0);
        } catch (...) {
            recordFailure(out, "variant '" + v.name + "': ", std::current_exception());
        }
    }
    return out;
}

} // namespace loopscope
