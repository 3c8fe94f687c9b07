// loopscope: the desktop explorer. `loopscope [FILE]` opens FILE (default: the GEMM tutorial
// sample). `--screenshot PNG` renders the window once the script is analyzed and exits;
// `--sweep` starts the Charts dock's sweep (every variant, default sizes, OpenBLAS line);
// `--smoke-test` checks the whole path once and exits (SmokeTest.h); `--test-typing` types into
// the editor for a test that kills the window (TestTyping.h).
#include "SmokeTest.h"
#include "TestTyping.h"
#include "Version.h"
#include "charts/SweepPanel.h"
#include "model/ModelWindow.h"
#include "shell/Document.h"
#include "shell/MainWindow.h"
#include "shell/ProfileController.h"
#include "shell/Theme.h"
#include "tune/TunePanel.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QIcon>
#include <QPushButton>
#include <QScreen>
#include <QStyleHints>
#include <QTimer>

#include <cstdio>
#include <functional>

using loopscope::MainWindow;

namespace {

constexpr const char* kUsage =
    "usage: loopscope [options] [FILE]\n"
    "\n"
    "Loopscope: an explorer for tensor-program schedules. Opens FILE, a TE script (default: the\n"
    "GEMM tutorial sample, samples/opt_gemm.py).\n"
    "\n"
    "options:\n"
    "  -h, --help          print this text and exit\n"
    "  -V, --version       print the version and exit\n"
    "  --variant NAME      show this variant\n"
    "  --step INDEX        show this step of it (0: the untransformed schedule)\n"
    "  --run               run the ladder after opening\n"
    "  --profile           profile the ladder's runs (Run > Profile Runs): each step's loop\n"
    "                      nest and assembly show where its time goes\n"
    "  --sweep             start a sweep of every variant over the default sizes, with the\n"
    "                      OpenBLAS line, after opening\n"
    "  --tune TRIALS       tune the shown variant for TRIALS trials in the Tune panel, after\n"
    "                      opening\n"
    "  --model M.onnx      open the ONNX model's view (its graph and tasks); with --run, run\n"
    "                      and check the model; with --screenshot, render the model's view\n"
    "  --screenshot PNG    render the window to PNG once the script is analysed (after the\n"
    "                      run, sweep or tuning, when asked for) and exit\n"
    "  --smoke-test        open the script, lower every step of every variant, run the last\n"
    "                      variant's last step in the worker at a small size, check its numbers\n"
    "                      against the reference interpreter, print what it did and exit (0: "
    "passed)\n"
    "  --autosave-interval MS\n"
    "                      autosave the text at most MS milliseconds after an edit (default\n"
    "                      2000); the next start offers what a session that did not close\n"
    "                      normally left\n"
    "  --test-typing SEED  for tests: restore the autosaved text without asking, then type a\n"
    "                      numbered comment line into the editor every few milliseconds\n"
    "                      (printing \"typed N\" for each) and run the ladder now and then,\n"
    "                      until killed; SEED varies the pauses and the runs\n"
    "\n"
    "Qt's own options (-platform NAME, -style NAME, -display DISPLAY, ...) are accepted.\n";

// Qt's generic options, which QApplication takes out of the arguments itself: accepted here so
// that parsing can happen before there is an application (and so before a display is needed).
void addQtOptions(QCommandLineParser& parser)
{
    const char* withValue[] = {"platform",
                               "platformpluginpath",
                               "platformtheme",
                               "plugin",
                               "qwindowgeometry",
                               "qwindowicon",
                               "qwindowtitle",
                               "session",
                               "display",
                               "geometry",
                               "name",
                               "title",
                               "visual",
                               "style",
                               "stylesheet",
                               "qmljsdebugger"};
    const char* flags[] = {"reverse", "widgetcount", "nograb", "dograb", "sync"};
    for (const char* name : withValue) {
        QCommandLineOption o(QString::fromLatin1(name), QString(), QStringLiteral("value"));
        o.setFlags(QCommandLineOption::HiddenFromHelp);
        parser.addOption(o);
    }
    for (const char* name : flags) {
        QCommandLineOption o(QString::fromLatin1(name));
        o.setFlags(QCommandLineOption::HiddenFromHelp);
        parser.addOption(o);
    }
}

// The icon the desktop shows for the window: the PNG sizes (which need no SVG plugin) and the SVG.
QIcon applicationIcon()
{
    QIcon icon;
    for (int size : {16, 22, 24, 32, 48, 64, 128, 256, 512})
        icon.addFile(QStringLiteral(":/icons/hicolor/%1x%1/apps/loopscope.png").arg(size),
                     QSize(size, size));
    icon.addFile(QStringLiteral(":/icons/loopscope.svg"));
    return icon;
}

} // namespace

int main(int argc, char** argv)
{
    // The command line is read before QApplication exists: --help, --version and a mistake are
    // answered without a display.
    QStringList arguments;
    for (int i = 0; i < argc; ++i)
        arguments << QString::fromLocal8Bit(argv[i]);
    QCommandLineParser parser;
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    QCommandLineOption help(QStringList{QStringLiteral("h"), QStringLiteral("help")});
    QCommandLineOption version(QStringList{QStringLiteral("V"), QStringLiteral("version")});
    QCommandLineOption screenshot(QStringLiteral("screenshot"), QString(), QStringLiteral("png"));
    QCommandLineOption variant(QStringLiteral("variant"), QString(), QStringLiteral("name"));
    QCommandLineOption step(QStringLiteral("step"), QString(), QStringLiteral("index"));
    QCommandLineOption run(QStringLiteral("run"));
    QCommandLineOption profile(QStringLiteral("profile"));
    QCommandLineOption sweep(QStringLiteral("sweep"));
    QCommandLineOption tune(QStringLiteral("tune"), QString(), QStringLiteral("trials"));
    QCommandLineOption smokeTest(QStringLiteral("smoke-test"));
    QCommandLineOption autosave(QStringLiteral("autosave-interval"), QString(),
                                QStringLiteral("ms"));
    QCommandLineOption testTyping(QStringLiteral("test-typing"), QString(), QStringLiteral("seed"));
    QCommandLineOption model(QStringLiteral("model"), QString(), QStringLiteral("onnx"));
    parser.addOptions({help, version, screenshot, variant, step, run, profile, sweep, tune,
                       smokeTest, autosave, testTyping, model});
    addQtOptions(parser);
    QString usageError;
    if (!parser.parse(arguments))
        usageError = parser.errorText();
    else if (parser.positionalArguments().size() > 1)
        usageError =
            QStringLiteral("one file at a time, not %1").arg(parser.positionalArguments().size());
    else if (bool number = false;
             parser.isSet(step) && (parser.value(step).toInt(&number) < 0 || !number))
        usageError = QStringLiteral("--step takes a step number, not '%1'").arg(parser.value(step));
    else if (bool number = false;
             parser.isSet(autosave) && (parser.value(autosave).toInt(&number) < 1 || !number))
        usageError = QStringLiteral("--autosave-interval takes milliseconds (1 or more), not '%1'")
                         .arg(parser.value(autosave));
    else if (bool number = false;
             parser.isSet(testTyping) && (parser.value(testTyping).toUInt(&number), !number))
        usageError =
            QStringLiteral("--test-typing takes a number, not '%1'").arg(parser.value(testTyping));
    if (!usageError.isEmpty()) {
        std::fprintf(stderr, "loopscope: %s\n\n%s", qPrintable(usageError), kUsage);
        return 2;
    }
    if (parser.isSet(help)) {
        std::fputs(kUsage, stdout);
        return 0;
    }
    if (parser.isSet(version)) {
        std::printf("loopscope %s (Qt %s)\n", LOOPSCOPE_VERSION_STRING, qVersion());
        return 0;
    }

    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Loopscope"));
    QApplication::setApplicationName(QStringLiteral("Loopscope"));
    QApplication::setApplicationVersion(QStringLiteral(LOOPSCOPE_VERSION_STRING));
    QApplication::setWindowIcon(applicationIcon());
    QApplication::setDesktopFileName(QStringLiteral("org.loopscope.Loopscope"));
    // Light or dark as the desktop asks, unless the user chose (View ▸ Theme).
    loopscope::applyTheme(loopscope::savedTheme());

    MainWindow window;
    if (parser.isSet(autosave))
        window.document()->setAutosaveIntervalMs(parser.value(autosave).toInt());
    const bool unattended = parser.isSet(screenshot) || parser.isSet(smokeTest);
    bool recovered = !unattended && window.offerRecovery(!parser.isSet(testTyping));
    if (!recovered) {
        QString file = parser.positionalArguments().value(0);
        if (file.isEmpty()) {
            const QStringList candidates{
                QApplication::applicationDirPath() + QStringLiteral("/../../samples/opt_gemm.py"),
                QApplication::applicationDirPath() +
                    QStringLiteral("/../share/loopscope/samples/opt_gemm.py"),
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
        if (unattended && (file.isEmpty() || !QFileInfo(file).isReadable())) {
            std::fprintf(stderr, "loopscope: cannot read '%s'\n",
                         file.isEmpty() ? "the default sample"
                                        : qPrintable(QDir::toNativeSeparators(file)));
            return 1;
        }
        if (!file.isEmpty() && !window.openFile(file) && unattended) return 1;
        if (parser.isSet(smokeTest))
            loopscope::startSmokeTest(window, QDir::toNativeSeparators(file));
    }
    if (parser.isSet(profile)) window.profile()->setProfiling(true);
    window.show();
    if (parser.isSet(testTyping))
        loopscope::startTestTyping(window, parser.value(testTyping).toUInt());

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

    auto startTune = [&window, &parser, &tune] {
        if (auto* dock = window.findChild<QDockWidget*>(QStringLiteral("TuneDock"))) dock->raise();
        window.tunePanel()->setTrials(qMax(1, parser.value(tune).toInt()));
        window.tunePanel()->startButton()->click();
    };
    QObject::connect(&window, &MainWindow::tuneFinished, &window, [&window] {
        std::printf("tuning finished: %s\n", qPrintable(window.tunePanel()->bestText()));
        std::fflush(stdout);
    });

    if (parser.isSet(model)) {
        // The model's view, read (and run, with --run) in its worker; with --screenshot, rendered
        // once that is done.
        loopscope::ModelWindow* view = window.openModel(parser.value(model));
        const QString png = parser.value(screenshot);
        const bool wantRun = parser.isSet(run);
        auto shoot = [view, png] {
            if (!png.isEmpty()) {
                view->grab().save(png);
                QApplication::quit();
            }
        };
        QObject::connect(view, &loopscope::ModelWindow::modelLoaded, view, [view, wantRun, shoot] {
            static bool started = false;
            if (wantRun && !started) {
                started = true;
                view->runModel();
                return;
            }
            if (!wantRun) QTimer::singleShot(500, shoot);
        });
        QObject::connect(view, &loopscope::ModelWindow::modelRan, view, [view, shoot] {
            std::printf("%s\n", qPrintable(view->statusText()));
            std::fflush(stdout);
            QTimer::singleShot(500, shoot);
        });
        QObject::connect(view, &loopscope::ModelWindow::failed, view, [png](const QString& m) {
            std::fprintf(stderr, "loopscope: %s\n", qPrintable(m));
            if (!png.isEmpty()) QApplication::exit(1);
        });
        if (!png.isEmpty()) QTimer::singleShot(900000, &app, [] { QApplication::exit(2); });
    } else if (parser.isSet(screenshot)) {
        QString png = parser.value(screenshot);
        bool wantRun = parser.isSet(run);
        bool wantSweep = parser.isSet(sweep);
        bool wantTune = parser.isSet(tune);
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
                QObject::connect(&window, &MainWindow::sweepFinished, &window,
                                 [shoot] { QTimer::singleShot(300, shoot); });
                startSweep();
                return;
            }
            if (wantTune) {
                QObject::connect(&window, &MainWindow::tuneFinished, &window,
                                 [shoot] { QTimer::singleShot(300, shoot); });
                startTune();
                return;
            }
            if (wantRun) {
                QObject::connect(&window, &MainWindow::ladderFinished, &window,
                                 [shoot] { QTimer::singleShot(300, shoot); });
                window.runLadder();
                return;
            }
            QTimer::singleShot(300, shoot);
        });
        QTimer::singleShot(wantSweep || wantTune ? 900000 : 120000, &app,
                           [] { QApplication::exit(2); });
    } else {
        // Attended: show the variant and step asked for, then start what was asked for.
        const QString wantVariant = parser.value(variant);
        const int wantStep = parser.isSet(step) ? parser.value(step).toInt() : -1;
        std::function<void()> then;
        if (parser.isSet(tune))
            then = startTune;
        else if (parser.isSet(sweep))
            then = startSweep;
        else if (parser.isSet(run))
            then = [&window] { window.runLadder(); };
        if (!wantVariant.isEmpty() || wantStep >= 0 || then) {
            QObject::connect(&window, &MainWindow::analysisApplied, &window,
                             [&window, wantVariant, wantStep, then] {
                                 static bool done = false;
                                 if (done) return;
                                 if (!wantVariant.isEmpty() &&
                                     window.currentVariant() != wantVariant) {
                                     static bool asked = false;
                                     if (!asked) {
                                         asked = true;
                                         window.selectVariant(wantVariant);
                                         return;
                                     }
                                 }
                                 done = true;
                                 if (wantStep >= 0) window.selectStep(wantStep);
                                 if (then) then();
                             });
        }
    }
    return app.exec();
}
