#include "SmokeTest.h"

#include "editor/EditorPane.h"
#include "explore/Explorer.h"
#include "shell/MainWindow.h"
#include "worker/WorkerClient.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <memory>

namespace loopscope {
namespace {

// The size each parameter takes for the run: small enough to run and check in a moment.
constexpr std::int64_t kSmokeSize = 96;

struct SmokeState {
    bool analysed = false;
    bool done = false;
    QElapsedTimer clock;
};

void say(const QString& line)
{
    std::printf("smoke: %s\n", qPrintable(line));
    std::fflush(stdout);
}

void finish(const std::shared_ptr<SmokeState>& state, int code, const QString& line)
{
    if (state->done) return;
    state->done = true;
    say(line);
    say(code == 0 ? QStringLiteral("passed in %1 s").arg(state->clock.elapsed() / 1000.0, 0, 'f', 1)
                  : QStringLiteral("FAILED"));
    QApplication::exit(code);
}

// How the run ended, said in one line.
void finishRun(const std::shared_ptr<SmokeState>& state,
               const worker::Reply<protocol::MeasureReply>& reply)
{
    using Ending = worker::Reply<protocol::MeasureReply>::Ending;
    const protocol::MeasureReply& r = reply.result;
    switch (reply.ending) {
    case Ending::Answered:
        if (r.wrong())
            finish(
                state, 1,
                QStringLiteral("wrong numbers: %1").arg(QString::fromStdString(r.firstMismatch)));
        else if (!r.checked)
            finish(state, 1, QStringLiteral("the run was not checked"));
        else
            finish(state, 0,
                   QStringLiteral("its numbers match the reference interpreter; compiled in %1 "
                                  "ms, ran in %2 ms")
                       .arg(r.compileMs, 0, 'f', 0)
                       .arg(r.timing ? r.timing->msMedian : 0.0, 0, 'f', 3));
        return;
    case Ending::Refused:
        finish(state, 1, QStringLiteral("the worker answered: %1").arg(reply.message()));
        return;
    case Ending::Failed:
        finish(state, 1, QStringLiteral("the worker failed: %1").arg(reply.failure));
        return;
    case Ending::Cancelled: finish(state, 1, QStringLiteral("the run was cancelled")); return;
    }
}

// Evaluates and lowers every step of every variant; submits the run. False when it finished.
bool analyseAndRun(MainWindow& window, const std::shared_ptr<SmokeState>& state)
{
    const std::string script = window.editor()->text().toStdString();
    Exploration e = explore(script);
    if (!e.ok) {
        finish(state, 1,
               QStringLiteral("the script has an error at line %1:%2: %3")
                   .arg(e.error.loc.line)
                   .arg(e.error.loc.col)
                   .arg(QString::fromStdString(e.error.message)));
        return false;
    }
    if (e.variants.empty()) {
        finish(state, 1, QStringLiteral("the script has no variant (no te.create_schedule)"));
        return false;
    }
    int steps = 0;
    for (const VariantView& v : e.variants) {
        for (const StepView& s : v.steps) {
            if (s.error) {
                finish(state, 1,
                       QStringLiteral("variant '%1', step '%2' does not lower: %3")
                           .arg(QString::fromStdString(v.name), QString::fromStdString(s.label),
                                QString::fromStdString(s.error->message)));
                return false;
            }
            ++steps;
        }
    }
    say(QStringLiteral("evaluated %1 parameters; lowered %2 variants, %3 steps in %4 ms")
            .arg(e.parameters.size())
            .arg(e.variants.size())
            .arg(steps)
            .arg(e.evaluateMs + e.lowerMs, 0, 'f', 1));

    protocol::MeasureRequest request;
    QStringList shown;
    for (const Parameter& p : e.parameters) {
        std::int64_t value = std::min(p.value, kSmokeSize);
        request.sets[p.name] = value;
        shown << QStringLiteral("%1=%2").arg(QString::fromStdString(p.name)).arg(value);
    }
    const VariantView& variant = e.variants.back(); // the most transformed, usually
    say(QStringLiteral("running variant '%1' (its last step) in the worker at %2")
            .arg(QString::fromStdString(variant.name),
                 shown.isEmpty() ? QStringLiteral("its sizes") : shown.join(u' ')));
    request.script = script;
    request.variant = variant.name;
    request.step = -1;
    request.check = true;
    request.repeat = 1;
    request.minRepeatMs = 1;
    window.worker()->submit(
        request, &window,
        [state](const worker::Reply<protocol::MeasureReply>& r) { finishRun(state, r); });
    return true;
}

} // namespace

void startSmokeTest(MainWindow& window, const QString& file, int timeoutMs)
{
    auto state = std::make_shared<SmokeState>();
    state->clock.start();
    say(QStringLiteral("opened %1").arg(file));
    QObject::connect(&window, &MainWindow::analysisApplied, &window, [&window, state] {
        if (state->analysed || state->done) return;
        state->analysed = true;
        analyseAndRun(window, state);
    });
    QTimer::singleShot(timeoutMs, &window, [state, timeoutMs] {
        finish(state, 1, QStringLiteral("no result after %1 s").arg(timeoutMs / 1000));
    });
}

} // namespace loopscope
