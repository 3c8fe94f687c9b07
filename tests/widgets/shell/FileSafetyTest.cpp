// Nothing the user made is lost to a damaged file or a failed save. The files the app keeps for
// itself (the ladder's and the sweep's caches, the autosaved text, the settings) are set aside
// when they cannot be read, with a message, and the app carries on without them; values of the
// wrong kind in the settings fall back to the defaults; a save that fails (no such directory, a
// directory, a full disk, no permission) keeps the text in the editor, unsaved, says why, and
// leaves the file on disk as it was.
#include "charts/ChartsView.h"
#include "charts/SweepStore.h"
#include "editor/EditorPane.h"
#include "shell/Document.h"
#include "shell/ExportDialog.h"
#include "shell/MainWindow.h"
#include "shell/RecoveryStore.h"
#include "shell/RunController.h"
#include "views/LadderStore.h"

#include "support/QtTestMain.h"

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPointer>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <csignal>
#include <fcntl.h>
#include <functional>
#include <linux/fs.h>
#include <memory>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <unistd.h>

using namespace loopscope;

namespace {

QByteArray readFile(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

void writeFile(const QString& path, const QByteArray& bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(bytes);
}

// The files beside `file` that it was set aside as.
QStringList setAsideCopies(const QString& file)
{
    const QFileInfo info(file);
    QStringList copies;
    for (const QString& name :
         info.dir().entryList({info.fileName() + QStringLiteral(".corrupt-*")}, QDir::Files))
        copies << info.dir().filePath(name);
    return copies;
}

// What a damaged cache or autosave can look like: cut short, not JSON at all, JSON of another
// shape, values of the wrong kind.
struct Damage {
    const char* name;
    QByteArray bytes;
};

QList<Damage> damagedJson(const QByteArray& wellFormed, const QList<Damage>& wrongShapes)
{
    QList<Damage> all{
        {"empty", QByteArray()},
        {"cut short", wellFormed.left(wellFormed.size() / 2)},
        {"binary garbage", QByteArray("\x00\x01\x02\xff\xfe\x7f\x80garbage\x00", 15)},
        {"a JSON array", QByteArray("[1, 2, 3]")},
        {"a JSON string", QByteArray("\"text\"")},
    };
    if (wellFormed.contains("\"version\":"))
        all.append({"the version as text",
                    QByteArray(wellFormed).replace("\"version\":", "\"version\":\"v\",\"x\":")});
    all += wrongShapes;
    return all;
}

// Answers the message boxes that open from now on with `buttons`, one each, in turn, and keeps
// their texts.
class MessageBoxAnswers : public QObject {
public:
    explicit MessageBoxAnswers(QList<QMessageBox::StandardButton> buttons)
        : m_buttons(std::move(buttons))
    {
        m_poll.setInterval(10);
        connect(&m_poll, &QTimer::timeout, this, &MessageBoxAnswers::answer);
        m_poll.start();
    }
    QStringList texts;

private:
    void answer()
    {
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        if (!box || box == m_last || m_buttons.isEmpty()) return;
        m_last = box;
        texts << box->text();
        if (QAbstractButton* b = box->button(m_buttons.takeFirst()))
            b->click();
        else
            box->reject();
    }
    QList<QMessageBox::StandardButton> m_buttons;
    QTimer m_poll;
    QPointer<QMessageBox> m_last;
};

QString sampleText()
{
    return QStringLiteral("import tvm\nfrom tvm import te\n\nN = 64\nA = te.placeholder((N,), "
                          "name=\"A\")\nB = te.compute((N,), lambda i: A[i] * 2, name=\"B\")\n\n"
                          "# variant: plain\ns = te.create_schedule(B.op)\n# the user's edit\n");
}

// Makes a directory where nobody may create files, root included (a read-only folder as a user
// meets it): the immutable attribute for root, the permissions otherwise. Undone on destruction.
class ReadOnlyDirectory {
public:
    explicit ReadOnlyDirectory(const QString& path) : m_path(path)
    {
        if (::geteuid() != 0) {
            m_ok = QFile::setPermissions(path, QFile::ReadOwner | QFile::ExeOwner);
            return;
        }
        m_fd = ::open(QFile::encodeName(path).constData(), O_RDONLY | O_DIRECTORY);
        int flags = 0;
        if (m_fd < 0 || ::ioctl(m_fd, FS_IOC_GETFLAGS, &flags) != 0) return;
        flags |= FS_IMMUTABLE_FL;
        m_ok = ::ioctl(m_fd, FS_IOC_SETFLAGS, &flags) == 0;
    }
    ~ReadOnlyDirectory()
    {
        if (m_fd >= 0) {
            int flags = 0;
            if (::ioctl(m_fd, FS_IOC_GETFLAGS, &flags) == 0) {
                flags &= ~FS_IMMUTABLE_FL;
                ::ioctl(m_fd, FS_IOC_SETFLAGS, &flags);
            }
            ::close(m_fd);
        } else {
            QFile::setPermissions(m_path, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        }
    }
    bool ok() const { return m_ok; }

private:
    QString m_path;
    int m_fd = -1;
    bool m_ok = false;
};

// While it lives, files cannot grow past `bytes`: writing more fails as on a full disk (EFBIG
// here, ENOSPC there, after the same short write). The process is not killed for it.
class FileSizeLimit {
public:
    explicit FileSizeLimit(rlim_t bytes)
    {
        ::getrlimit(RLIMIT_FSIZE, &m_before);
        m_handler = std::signal(SIGXFSZ, SIG_IGN);
        rlimit small = m_before;
        small.rlim_cur = bytes;
        ::setrlimit(RLIMIT_FSIZE, &small);
    }
    ~FileSizeLimit()
    {
        ::setrlimit(RLIMIT_FSIZE, &m_before);
        std::signal(SIGXFSZ, m_handler);
    }

private:
    rlimit m_before{};
    void (*m_handler)(int) = SIG_DFL;
};

} // namespace

class FileSafetyTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("LoopscopeFileSafetyTest"));
        QCoreApplication::setApplicationName(QStringLiteral("LoopscopeFileSafetyTest"));
        dataFolder = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
        QDir(dataFolder).removeRecursively();
        QSettings().clear();
    }

    void cleanup()
    {
        QDir(dataFolder).removeRecursively();
        QSettings().clear();
        QSettings().sync();
    }

    // ---- the caches and the autosave ----

    void aDamagedLadderCacheIsSetAsideAndTheLadderStartsEmpty_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        const QByteArray good = R"({"version":1,"scripts":{"/s.py":{"k":{"median_ms":2}}}})";
        for (const Damage& d : damagedJson(
                 good,
                 {{"scripts as a list", R"({"version":1,"scripts":[1,2]})"},
                  {"a script as a number", R"({"version":1,"scripts":{"/s.py":7}})"},
                  {"a measurement as text", R"({"version":1,"scripts":{"/s.py":{"k":"fast"}}})"}}))
            QTest::newRow(d.name) << d.bytes;
    }

    void aDamagedLadderCacheIsSetAsideAndTheLadderStartsEmpty()
    {
        QFETCH(QByteArray, bytes);
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("ladder-results.json"));
        writeFile(file, bytes);
        LadderStore store(file);
        store.setScript(QStringLiteral("/s.py"));
        const QString notice = store.takeNotice();
        QVERIFY2(notice.contains(QStringLiteral("the ladder's saved measurements")),
                 qPrintable(notice));
        QCOMPARE(store.takeNotice(), QString()); // told once
        QVERIFY(!store.find(QStringLiteral("k")));
        // Set aside whole, never written over.
        QVERIFY(!QFile::exists(file));
        const QStringList copies = setAsideCopies(file);
        QCOMPARE(copies.size(), 1);
        QCOMPARE(readFile(copies[0]), bytes);
        QVERIFY2(notice.contains(QDir::toNativeSeparators(copies[0])), qPrintable(notice));
        // The store carries on with a new file.
        LadderModel::Result r;
        r.medianMs = 3;
        store.add(QStringLiteral("k"), r);
        QVERIFY(QJsonDocument::fromJson(readFile(file)).isObject());
        QCOMPARE(readFile(copies[0]), bytes);
        LadderStore next(file);
        next.setScript(QStringLiteral("/s.py"));
        QCOMPARE(next.find(QStringLiteral("k")).value_or(LadderModel::Result{}).medianMs, 3.0);
    }

    void aLadderCacheOfAnotherVersionIsReplacedWithoutAWord()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("ladder-results.json"));
        writeFile(file, R"({"version":99,"scripts":{}})");
        LadderStore store(file);
        QCOMPARE(store.takeNotice(), QString());
        QVERIFY(setAsideCopies(file).isEmpty());
        writeFile(file, R"({"version":1,"scripts":{"/s.py":{"k":{"median_ms":2}}}})");
        LadderStore good(file);
        good.setScript(QStringLiteral("/s.py"));
        QCOMPARE(good.takeNotice(), QString());
        QVERIFY(good.find(QStringLiteral("k")));
    }

    void aDamagedSweepCacheIsSetAsideAndTheChartsStartEmpty_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        const QByteArray good =
            R"({"version":2,"points":[{"group":"g","variant":"v","values":[64],"threads":1}]})";
        for (const Damage& d :
             damagedJson(good, {{"points as an object", R"({"version":2,"points":{"a":1}})"},
                                {"a point as a number", R"({"version":2,"points":[1]})"}}))
            QTest::newRow(d.name) << d.bytes;
    }

    void aDamagedSweepCacheIsSetAsideAndTheChartsStartEmpty()
    {
        QFETCH(QByteArray, bytes);
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("sweep-points.json"));
        writeFile(file, bytes);
        SweepStore store(file);
        const QString notice = store.takeNotice();
        QVERIFY2(notice.contains(QStringLiteral("the measured sweep points")), qPrintable(notice));
        QCOMPARE(store.takeNotice(), QString());
        QCOMPARE(store.size(), 0);
        QVERIFY(!QFile::exists(file));
        const QStringList copies = setAsideCopies(file);
        QCOMPARE(copies.size(), 1);
        QCOMPARE(readFile(copies[0]), bytes);
        QVERIFY(store.save());
        QVERIFY(QJsonDocument::fromJson(readFile(file)).isObject());
        QCOMPARE(readFile(copies[0]), bytes);
    }

    void aDamagedAutosaveIsSetAsideWithAMessage_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        const QByteArray good = R"({"path":"","text":"import tvm\n","savedAt":"2024"})";
        for (const Damage& d :
             damagedJson(good, {{"the text as a number", R"({"path":"","text":7})"},
                                {"the path as a list", R"({"path":[],"text":"x"})"},
                                {"no text", R"({"path":"/s.py"})"}}))
            QTest::newRow(d.name) << d.bytes;
    }

    void aDamagedAutosaveIsSetAsideWithAMessage()
    {
        QFETCH(QByteArray, bytes);
        const QString file = dataFolder + QStringLiteral("/recovery.json");
        writeFile(file, bytes);
        MainWindow w;
        QVERIFY(!w.offerRecovery(false));
        QCOMPARE(w.notices().size(), 1);
        QVERIFY2(w.notices()[0].contains(QStringLiteral("the autosaved text")),
                 qPrintable(w.notices()[0]));
        QCOMPARE(w.statusBar()->currentMessage(), w.notices()[0]);
        QVERIFY(!QFile::exists(file));
        const QStringList copies = setAsideCopies(file);
        QCOMPARE(copies.size(), 1);
        QCOMPARE(readFile(copies[0]), bytes);
        // Typing goes on being autosaved.
        w.document()->secureText();
        w.setScriptText(sampleText(), QString(), true);
        w.editor()->replaceText(sampleText() + QStringLiteral("# more\n"));
        w.document()->secureText();
        QVERIFY(QJsonDocument::fromJson(readFile(file)).isObject());
        QCOMPARE(readFile(copies[0]), bytes);
    }

    void theDamagedCachesOfTheWindowAreSetAsideWithAMessageEach()
    {
        writeFile(dataFolder + QStringLiteral("/ladder-results.json"), "{\"version\":1,\"scr");
        writeFile(dataFolder + QStringLiteral("/sweep-points.json"), "\x01\x02 not json");
        MainWindow w;
        QCOMPARE(w.notices().size(), 2);
        QVERIFY(w.notices()[0].contains(QStringLiteral("ladder")));
        QVERIFY(w.notices()[1].contains(QStringLiteral("sweep")));
        QCOMPARE(setAsideCopies(dataFolder + QStringLiteral("/ladder-results.json")).size(), 1);
        QCOMPARE(setAsideCopies(dataFolder + QStringLiteral("/sweep-points.json")).size(), 1);
        // A second window finds nothing more to say.
        MainWindow again;
        QCOMPARE(again.notices(), QStringList());
    }

    // A session that never offered another session's autosave leaves it for the next start,
    // even when it closes normally (a screenshot or smoke test run after a crash).
    void anAutosaveNotOfferedOutlivesANormalClose()
    {
        const QString file = dataFolder + QStringLiteral("/recovery.json");
        {
            RecoveryStore crashed(dataFolder);
            crashed.textChanged(QString(), QStringLiteral("the lost text\n"));
            crashed.flush();
        }
        QVERIFY(QFile::exists(file));
        {
            MainWindow w;
            w.setScriptText(sampleText(), QString(), false);
            QVERIFY(w.close()); // nothing unsaved: closes without asking
        }
        QVERIFY(QFile::exists(file));
        MainWindow next;
        QVERIFY(next.offerRecovery(false));
        QCOMPARE(next.editor()->text(), QStringLiteral("the lost text\n"));
        next.editor()->setModified(false);
        QVERIFY(next.close());
        QVERIFY(!QFile::exists(file)); // offered, then closed normally: gone
    }

    // ---- the settings ----

    void damagedSettingsAreSetAsideAndTheDefaultsApply_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::newRow("binary garbage")
            << QByteArray("\x01\x02\xff\xfe garbage \x00\x00 [[[ ===\n", 30);
        QTest::newRow("a section cut short")
            << QByteArray("[window]\ngeometry=@ByteArray(\\x1\\xd9\n[run");
        QTest::newRow("zeros, as a crash can leave") << QByteArray(512, '\0');
        QTest::newRow("zeros after the text") << QByteArray("[run]\nthreads=4\n\0\0\0\0", 20);
    }

    void damagedSettingsAreSetAsideAndTheDefaultsApply()
    {
        QFETCH(QByteArray, bytes);
        const QString file = QSettings().fileName();
        writeFile(file, bytes);
        MainWindow w;
        QCOMPARE(w.notices().size(), 1);
        QVERIFY2(w.notices()[0].contains(QStringLiteral("the settings")),
                 qPrintable(w.notices()[0]));
        const QStringList copies = setAsideCopies(file);
        QCOMPARE(copies.size(), 1);
        QCOMPARE(readFile(copies[0]), bytes);
        QCOMPARE(QSettings().status(), QSettings::NoError);
        QVERIFY(!QSettings().contains(QStringLiteral("window/geometry")));
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.close());
        // The next start is quiet.
        MainWindow again;
        QCOMPARE(again.notices(), QStringList());
        QFile::remove(copies[0]);
    }

    void settingsOfTheWrongKindFallBackToTheDefaults()
    {
        {
            QSettings s;
            s.setValue(QStringLiteral("window/geometry"), QStringLiteral("not a geometry"));
            s.setValue(QStringLiteral("window/state"), 12345);
            s.setValue(QStringLiteral("run/threads"), 100000);
            s.setValue(QStringLiteral("run/repeat"), QStringLiteral("many"));
            s.setValue(QStringLiteral("run/timeLimitMs"), -5);
            s.setValue(QStringLiteral("view/structured"), QStringLiteral("perhaps"));
            s.setValue(QStringLiteral("view/theme"), 42);
            s.setValue(QStringLiteral("machine/peakGflops"), QStringLiteral("inf"));
            s.setValue(QStringLiteral("machine/bandwidthGBs"), 20.0);
            QStringList recent;
            for (int i = 0; i < 500; ++i)
                recent << QStringLiteral("/nowhere/script%1.py").arg(i);
            recent << QString();
            s.setValue(QStringLiteral("files/recent"), recent);
        }
        MainWindow w;
        QCOMPARE(w.notices(), QStringList());
        auto* threads = w.findChild<QSpinBox*>(QStringLiteral("threadsSpin"));
        QVERIFY(threads);
        QVERIFY(threads->value() >= 0 && threads->value() <= threads->maximum());
        QCOMPARE(w.runs()->settings().threads, threads->value());
        QVERIFY(w.runs()->settings().repeat >= 1);
        QVERIFY(w.runs()->settings().timeLimitMs >= 1000);
        QMenu* recentMenu = nullptr;
        for (QMenu* m : w.findChildren<QMenu*>())
            if (m->title().contains(QStringLiteral("Recent"))) recentMenu = m;
        QVERIFY(recentMenu);
        QCOMPARE(recentMenu->actions().size(), 10);
        QCOMPARE(w.chartsView()->peakGflops(), 0.0); // no line, to be measured again
        w.setScriptText(sampleText(), QString(), false);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.close());
    }

    void anAbsurdWindowGeometryIsBroughtOntoTheScreen()
    {
        const QRect screen = QGuiApplication::primaryScreen()->availableGeometry();
        {
            // Saved by a window on a screen far larger than this one, far away (never shown
            // here: a window that size has no room to be drawn).
            MainWindow w;
            w.setGeometry(-60000, -60000, 100000, 80000);
            QSettings().setValue(QStringLiteral("window/geometry"), w.saveGeometry());
        }
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY2(screen.intersects(w.frameGeometry()), qPrintable(QStringLiteral("%1,%2 %3x%4")
                                                                      .arg(w.x())
                                                                      .arg(w.y())
                                                                      .arg(w.width())
                                                                      .arg(w.height())));
        // At most the screen's size, unless the window cannot be that small.
        const QSize least = w.minimumSizeHint().expandedTo(w.minimumSize());
        QVERIFY2(w.width() <= std::max(screen.width(), least.width()) &&
                     w.height() <= std::max(screen.height(), least.height()),
                 qPrintable(QStringLiteral("%1x%2 on %3x%4, at least %5x%6")
                                .arg(w.width())
                                .arg(w.height())
                                .arg(screen.width())
                                .arg(screen.height())
                                .arg(least.width())
                                .arg(least.height())));
    }

    // ---- failed saves ----

    void aSaveIntoAFileAsIfADirectoryFailsAndKeepsTheText()
    {
        QTemporaryDir dir;
        const QString notADirectory = dir.filePath(QStringLiteral("file"));
        writeFile(notADirectory, "a file");
        expectSaveFails(notADirectory + QStringLiteral("/script.py"),
                        QStringLiteral("Not a directory"));
    }

    void aSaveOntoADirectoryFailsAndKeepsTheText()
    {
        QTemporaryDir dir;
        QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("script.py")));
        expectSaveFails(dir.filePath(QStringLiteral("script.py")), QStringLiteral("directory"));
        QVERIFY(QFileInfo(dir.filePath(QStringLiteral("script.py"))).isDir());
    }

    void aSaveOnAFullDiskFailsAndKeepsTheFileAsItWas()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("script.py"));
        writeFile(path, "# what was saved before\n");
        std::unique_ptr<FileSizeLimit> limit;
        expectSaveFails(path, QStringLiteral("too large"), [&](bool saving) {
            if (saving)
                limit = std::make_unique<FileSizeLimit>(64);
            else
                limit.reset();
        });
        QCOMPARE(readFile(path), QByteArray("# what was saved before\n"));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden),
                 QStringList{QStringLiteral("script.py")}); // no half-written copy left over
    }

    // The autosave, the caches and an export on a full disk keep what they had whole.
    void writesOnAFullDiskKeepTheirFilesAsTheyWere()
    {
        QTemporaryDir dir;
        RecoveryStore recovery(dir.path());
        recovery.textChanged(QString(), QStringLiteral("the text autosaved first\n"));
        recovery.flush();
        const QString file = dir.filePath(QStringLiteral("recovery.json"));
        const QByteArray first = readFile(file);
        QVERIFY(first.contains("autosaved first"));
        {
            FileSizeLimit full(first.size() + 8);
            recovery.textChanged(QString(), QStringLiteral("a much longer text, typed later, that "
                                                           "does not fit on the disk\n"));
            recovery.flush();
        }
        QCOMPARE(readFile(file), first);
        QCOMPARE(recovery.pending().text, QStringLiteral("the text autosaved first\n"));
        recovery.flush(); // room again: the newer text is written
        QVERIFY(readFile(file).contains("typed later"));

        const QString ladderFile = dir.filePath(QStringLiteral("ladder-results.json"));
        LadderStore ladder(ladderFile);
        ladder.setScript(QStringLiteral("/s.py"));
        LadderModel::Result r;
        r.medianMs = 1;
        ladder.add(QStringLiteral("first"), r);
        const QByteArray ladderBefore = readFile(ladderFile);
        {
            FileSizeLimit full(ladderBefore.size() + 8);
            ladder.add(QStringLiteral("second"), r);
        }
        QCOMPARE(readFile(ladderFile), ladderBefore);

        const QString exported = dir.filePath(QStringLiteral("export.py"));
        writeFile(exported, "# exported before\n");
        ExportDialog dialog(QStringLiteral("v"), QString(2000, u'x'), QStringLiteral("export.py"));
        QString error;
        {
            FileSizeLimit full(64);
            error = dialog.saveTo(exported);
        }
        QVERIFY2(error.contains(QStringLiteral("too large"), Qt::CaseInsensitive),
                 qPrintable(error));
        QCOMPARE(readFile(exported), QByteArray("# exported before\n"));
        QStringList left = QDir(dir.path()).entryList(QDir::Files | QDir::Hidden);
        left.sort();
        QCOMPARE(left,
                 (QStringList{QStringLiteral("export.py"), QStringLiteral("ladder-results.json"),
                              QStringLiteral("recovery.json")}));
    }

    void aSaveIntoAReadOnlyFolderFailsAndKeepsTheFileAsItWas()
    {
        QTemporaryDir dir;
        const QString folder = dir.filePath(QStringLiteral("read-only"));
        QVERIFY(QDir().mkpath(folder));
        const QString path = folder + QStringLiteral("/script.py");
        writeFile(path, "# what was saved before\n");
        {
            ReadOnlyDirectory readOnly(folder);
            if (!readOnly.ok())
                QSKIP("this file system cannot make a folder read-only for root (no immutable "
                      "attribute)");
            expectSaveFails(path, ::geteuid() == 0 ? QStringLiteral("not permitted")
                                                   : QStringLiteral("Permission denied"));
        }
        QCOMPARE(readFile(path), QByteArray("# what was saved before\n"));
    }

    // Closing with unsaved changes whose save fails: the window stays open with the text.
    void aFailedSaveOnCloseKeepsTheWindowOpen()
    {
        QTemporaryDir dir;
        writeFile(dir.filePath(QStringLiteral("file")), "a file");
        const QString path = dir.filePath(QStringLiteral("file/script.py"));
        MainWindow w;
        w.setScriptText(sampleText(), path, true);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        MessageBoxAnswers answers({QMessageBox::Save, QMessageBox::Ok});
        QVERIFY(!w.close());
        QCOMPARE(answers.texts.size(), 2); // save the changes? then why they were not saved
        QVERIFY2(answers.texts[1].contains(QStringLiteral("Not a directory")),
                 qPrintable(answers.texts[1]));
        QVERIFY(w.isVisible());
        QCOMPARE(w.editor()->text(), sampleText());
        QVERIFY(w.editor()->isModified());
        w.editor()->setModified(false);
    }

private:
    // Saves the window's text to `path`, which must fail: the user is told why (`reason` in the
    // message), and the text stays in the editor, unsaved.
    void expectSaveFails(const QString& path, const QString& reason,
                         const std::function<void(bool saving)>& around = {})
    {
        MainWindow w;
        w.setScriptText(sampleText(), path, true);
        QVERIFY(w.editor()->isModified());
        MessageBoxAnswers answers({QMessageBox::Ok});
        if (around) around(true);
        const bool saved = w.document()->save();
        if (around) around(false);
        QVERIFY(!saved);
        QCOMPARE(answers.texts.size(), 1);
        const QString& message = answers.texts[0];
        QVERIFY2(message.contains(QDir::toNativeSeparators(path)), qPrintable(message));
        QVERIFY2(message.contains(reason, Qt::CaseInsensitive), qPrintable(message));
        QCOMPARE(w.editor()->text(), sampleText());
        QVERIFY(w.editor()->isModified());
        QVERIFY(w.isWindowModified());
        QCOMPARE(w.documentPath(), path);
        w.editor()->setModified(false);
    }

    QString dataFolder;
};

LOOPSCOPE_QTEST_MAIN(FileSafetyTest)
#include "FileSafetyTest.moc"
