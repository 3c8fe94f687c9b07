// loopscope: the desktop explorer. `loopscope [FILE]` opens FILE (default: the GEMM tutorial
// sample). `--screenshot PNG` renders the window once the script is analyzed and exits;
// `--sweep` starts the Charts dock's sweep (every variant, default sizes, OpenBLAS line).
#include "charts/SweepPanel.h"
#include "shell/MainWindow.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QScreen>
#include <QStyleHints>
#include <QPushButton>
#include <QTimer>

#include <cstdio>

using loopscope::MainWindow;

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Loopscope"));
    QApplication::setApplicationName(QStringLiteral("Loopscope"));
    QApplication::setApplicationVersion(QStringLiteral("0.1"));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("An explorer for tensor-program schedules."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("file"), QStringLiteral("The TE script to open."));
    QCommandLineOption screenshot(QStringLiteral("screenshot"), QStringLiteral("Render the window to PNG and exit."),
                                  QStringLiteral("png"));
    QCommandLineOption variant(QStringLiteral("variant"), QStringLiteral("The variant to show."), QStringLiteral("name"));
    QCommandLineOption step(QStringLiteral("step"), QStringLiteral("The step to show."), QStringLiteral("index"));
    QCommandLineOption run(QStringLiteral("run"), QStringLiteral("Run the ladder after opening."));
    QCommandLineOption sweep(QStringLiteral("sweep"),
                             QStringLiteral("Start a sweep of every variant over the default sizes, with the "
                                            "OpenBLAS line, after opening (with --screenshot: render when it ends)."));
    parser.addOptions({screenshot, variant, step, run, sweep});
    parser.process(app);

    MainWindow window;
    bool recovered = !parser.isSet(screenshot) && window.offerRecovery();
    if (!recovered) {
        QString file = parser.positionalArguments().value(0);
        if (file.isEmpty()) {
            const QStringList candidates{
                QApplication::applicationDirPath() + QStringLiteral("/../../samples/opt_gemm.py"),
                QApplication::applicationDirPath() + QStringLiteral("/../share/loopscope/samples/opt_gemm.py"),
                QStringLiteral(LOOPSCOPE_SOURCE_DIR "/samples/opt_gemm.py")};
            for (const QString& c : candidates) {
                if (QFileInfo::exists(c)) {
                    file = c;
                    break;
                }
            }
        }
        // Rendering a screenshot runs unattended: a file it cannot read is an error on stderr,
        // not a message box that waits for a click.
        if (parser.isSet(screenshot) && !file.isEmpty() && !QFileInfo(file).isReadable()) {
            std::fprintf(stderr, "loopscope: cannot read '%s'\n", qPrintable(QDir::toNativeSeparators(file)));
            return 1;
        }
        if (!file.isEmpty() && !window.openFile(file) && parser.isSet(screenshot)) return 1;
    }
    window.resize(1500, 950);
    window.show();

    QElapsedTimer sweepClock;
    auto startSweep = [&window, &sweepClock] {
        window.sweepPanel()->setReference(true);
        sweepClock.start();
        window.sweepPanel()->startButton()->click();
    };
    QObject::connect(&window, &MainWindow::sweepFinished, &window, [&sweepClock] {
        if (sweepClock.isValid())
            std::printf("sweep finished in %.1f s\n", sweepClock.elapsed() / 1000.0);
        std::fflush(stdout);
    });

    if (parser.isSet(screenshot)) {
        QString png = parser.value(screenshot);
        bool wantRun = parser.isSet(run);
        bool wantSweep = parser.isSet(sweep);
        int wantStep = parser.isSet(step) ? parser.value(step).toInt() : -1;
        QString wantVariant = parser.value(variant);
        auto shoot = [&window, png] {
            window.grab().save(png);
            QApplication::quit();
        };
        QObject::connect(&window, &MainWindow::analysisApplied, &window, [&, shoot]() mutable {
            static bool done = false;
            if (!wantVariant.isEmpty() && window.currentVariant() != wantVariant) {
                window.selectVariant(wantVariant);
                return;
            }
            if (done) return;
            done = true;
            if (wantStep >= 0) window.selectStep(wantStep);
            if (wantSweep) {
                QObject::connect(&window, &MainWindow::sweepFinished, &window, [shoot] { QTimer::singleShot(300, shoot); });
                startSweep();
                return;
            }
            if (wantRun) {
                QObject::connect(&window, &MainWindow::ladderFinished, &window, [shoot] { QTimer::singleShot(300, shoot); });
                window.runLadder();
                return;
            }
            QTimer::singleShot(300, shoot);
        });
        QTimer::singleShot(wantSweep ? 900000 : 120000, &app, [] { QApplication::exit(2); });
    } else if (parser.isSet(sweep)) {
        QObject::connect(&window, &MainWindow::analysisApplied, &window, [startSweep] {
            static bool started = false;
            if (!started) {
                started = true;
                startSweep();
            }
        });
    } else if (parser.isSet(run)) {
        QObject::connect(&window, &MainWindow::analysisApplied, &window, [&window] {
            static bool started = false;
            if (!started) {
                started = true;
                window.runLadder();
            }
        });
    }
    return app.exec();
}
