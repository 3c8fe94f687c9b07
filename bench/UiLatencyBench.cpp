// How the window feels: time from a keystroke in the editor to the new TIR on screen (the
// analysisApplied signal), and the longest the UI thread is blocked while the ladder runs in the
// worker. Runs on the offscreen platform; prints the numbers.
#include "Version.h"
#include "editor/EditorPane.h"
#include "protocol/Codec.h"
#include "shell/CodeViewController.h"
#include "shell/MainWindow.h"
#include "shell/ProfileController.h"
#include "views/CodeView.h"
#include "views/LadderModel.h"
#include "views/LoopNestView.h"
#include "views/TirEditor.h"
#include "worker/WorkerClient.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

using loopscope::MainWindow;

int main(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--help" || a == "-h") {
            std::printf(
                "usage: loopscope_bench_ui [--help | --version]\n\n"
                "Times a keystroke in the editor to the new TIR on screen (opt_gemm.py, seven\n"
                "variants) and the longest UI-thread stall while the ladder runs in the worker,\n"
                "on the offscreen platform.\n");
            return 0;
        }
        if (a == "--version" || a == "-V") {
            std::printf("loopscope_bench_ui " LOOPSCOPE_VERSION_STRING "\n");
            return 0;
        }
        std::fprintf(stderr,
                     "loopscope_bench_ui: unknown option '%s'\n\nusage: loopscope_bench_ui [--help "
                     "| --version]\n",
                     a.c_str());
        return 2;
    }
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("LoopscopeBench"));
    MainWindow w;
    w.worker()->setWorkerPath(QStringLiteral(LOOPSCOPE_WORKER));
    QFile f(QStringLiteral(LOOPSCOPE_SOURCE_DIR "/samples/opt_gemm.py"));
    f.open(QIODevice::ReadOnly);
    QString text = QString::fromUtf8(f.readAll());
    w.setScriptText(text, QString(), false);
    w.show();
    QSignalSpy ready(&w, &MainWindow::analysisApplied);
    ready.wait(10000);
    w.selectVariant(QStringLiteral("write cache"));
    ready.wait(10000);

    // Keystroke to TIR: append one character to a comment, wait for the TIR of the variant under
    // the cursor (detailApplied), then for every variant's (analysisApplied).
    QSignalSpy detail(&w, &MainWindow::detailApplied);
    std::vector<double> first, all;
    for (int i = 0; i < 60; ++i) {
        ready.clear();
        detail.clear();
        QElapsedTimer t;
        t.start();
        w.editor()->insertAfterLine(1, QStringLiteral("#\n"));
        if (detail.isEmpty() && !detail.wait(5000)) break;
        first.push_back(static_cast<double>(t.nsecsElapsed()) / 1e6);
        if (ready.isEmpty() && !ready.wait(5000)) break;
        all.push_back(static_cast<double>(t.nsecsElapsed()) / 1e6);
        QTest::qWait(20); // a pause, as between keystrokes
    }
    auto report = [](const char* what, std::vector<double> v) {
        if (v.empty()) return;
        std::sort(v.begin(), v.end());
        std::printf("keystroke to %s (opt_gemm, 7 variants): median %.1f ms, p95 %.1f ms, max "
                    "%.1f ms over %zu edits\n",
                    what, v[v.size() / 2], v[(v.size() * 95) / 100], v.back(), v.size());
    };
    report("TIR of the variant under the cursor", first);
    report("TIR of every variant", all);

    // UI-thread stalls during a ladder run: a 1 ms timer measures the longest gap between ticks.
    QString small = text;
    for (auto p : {QStringLiteral("M"), QStringLiteral("K"), QStringLiteral("N")})
        small.replace(p + QStringLiteral(" = 1024"), p + QStringLiteral(" = 256"));
    w.setScriptText(small, QString(), false);
    ready.wait(10000);
    QElapsedTimer clock;
    clock.start();
    qint64 last = 0, worst = 0;
    QTimer tick;
    tick.setInterval(1);
    QObject::connect(&tick, &QTimer::timeout, [&] {
        qint64 now = clock.nsecsElapsed();
        if (last) worst = std::max(worst, now - last);
        last = now;
    });
    tick.start();
    QSignalSpy done(&w, &MainWindow::ladderFinished);
    QElapsedTimer run;
    run.start();
    w.runLadder();
    done.wait(300000);
    tick.stop();
    std::printf("ladder of 'write cache' at 256^3 ran in %.1f s; longest UI-thread block %.1f ms\n",
                static_cast<double>(run.elapsed()) / 1000.0, static_cast<double>(worst) / 1e6);

    // From a finished profiled run to the heat bars on screen: the worker's reply decoded (a
    // reply of the last step, taken from the worker itself), then the step shown with its heat
    // in the loop nest and its profiled assembly, both painted.
    {
        QProcess worker;
        worker.start(QStringLiteral(LOOPSCOPE_WORKER), {});
        worker.waitForStarted();
        loopscope::protocol::MeasureRequest request;
        request.script = small.toStdString();
        request.variant = "write cache";
        request.profileSeconds = 0.5;
        request.repeat = 1;
        worker.write(QByteArray::fromStdString(loopscope::protocol::encodeRequest(request, 1)) +
                     '\n');
        QByteArray reply; // the result line, after the progress lines
        while (reply.isEmpty() && worker.waitForReadyRead(60000)) {
            while (reply.isEmpty() && worker.canReadLine()) {
                const QByteArray line = worker.readLine().trimmed();
                try {
                    if (!loopscope::protocol::Incoming::parse(line.toStdString()).isProgress())
                        reply = line;
                } catch (const loopscope::protocol::ProtocolError&) {
                }
            }
        }
        worker.closeWriteChannel();
        worker.waitForFinished(5000);
        std::vector<double> decode;
        for (int i = 0; i < 20 && !reply.isEmpty(); ++i) {
            QElapsedTimer t;
            t.start();
            const loopscope::protocol::MeasureReply r =
                loopscope::protocol::Incoming::parse(reply.toStdString()).measure();
            decode.push_back(static_cast<double>(t.nsecsElapsed()) / 1e6);
            if (!r.profile) decode.clear();
        }
        std::sort(decode.begin(), decode.end());
        if (!decode.empty())
            std::printf("a profiled step's reply (%.0f KB) decoded in %.2f ms (median of %zu)\n",
                        double(reply.size()) / 1024, decode[decode.size() / 2], decode.size());
    }
    w.profile()->setProfiling(true);
    done.clear();
    w.runLadder();
    done.wait(300000);
    std::vector<double> shown;
    const int steps = w.ladderModel()->rowCount();
    for (int round = 0; round < 5; ++round)
        for (int step = 0; step < steps; ++step) {
            QElapsedTimer t;
            t.start();
            w.selectStep(step);
            w.loopNestView()->grab();
            w.code()->assemblyView()->grab();
            if (w.loopNestView()->afterEditor()->hasHeat())
                shown.push_back(static_cast<double>(t.nsecsElapsed()) / 1e6);
        }
    std::sort(shown.begin(), shown.end());
    if (!shown.empty())
        std::printf(
            "a profiled step shown (heat bars in the loop nest, the profiled assembly, both "
            "painted): median %.1f ms, max %.1f ms over %zu showings\n",
            shown[shown.size() / 2], shown.back(), shown.size());
    return 0;
}
