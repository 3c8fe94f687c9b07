// Typing into the real window as a user does: one key event at a time into the editor, with the
// script re-evaluated, re-lowered and the panels updated between keys. Whatever runs in between
// must leave the cursor, the selection and the undo history alone, and the buffer and the saved
// file must hold exactly what was typed. (Typing a schedule statement inside a variant block used
// to move the cursor to another variant the moment the statement became valid.)
#include "editor/EditorPane.h"
#include "explore/Explorer.h"
#include "shell/MainWindow.h"
#include "worker/WorkerClient.h"

#include "support/QtTestMain.h"

#include <Qsci/qsciscintilla.h>

#include <QAction>
#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

using namespace loopscope;

namespace {

QString readFile(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QString::fromUtf8(f.readAll());
}

// Where to type and what: a new line after `afterLine` (1-based) holding `statement`.
struct Place {
    int afterLine = 0;
    QString statement;
    QString what;
};

// Places in several variant blocks (after their last statement, where a user adds the next step)
// and one at the top of the script. The statement becomes a valid step only with its last key.
QList<Place> placesIn(const QString& script)
{
    const Exploration x = explore(script.toStdString());
    QList<Place> places;
    places.append(
        {1, QStringLiteral("# a note typed at the top"), QStringLiteral("top of the script")});
    if (!x.ok || x.variants.empty()) return places;
    std::vector<std::size_t> picks{0, x.variants.size() / 2, x.variants.size() - 1};
    picks.erase(std::unique(picks.begin(), picks.end()), picks.end());
    for (std::size_t k : picks) {
        const VariantView& v = x.variants[k];
        // The variant's output stage, by the variable the script names it with.
        QString tensor;
        for (const StageInfo& stage : v.steps.back().stages) {
            if (!stage.output) continue;
            for (const auto& [var, name] : v.tensorVars)
                if (name == stage.name) tensor = QString::fromStdString(var);
        }
        if (tensor.isEmpty() || v.scheduleVar.empty()) continue;
        const QString statement = QStringLiteral("%1[%2].compute_root()")
                                      .arg(QString::fromStdString(v.scheduleVar), tensor);
        places.append({v.lastLine, statement,
                       QStringLiteral("end of variant '%1'").arg(QString::fromStdString(v.name))});
        // A script with one variant: its block's first line too (before its other steps).
        if (x.variants.size() == 1 && v.lastLine > v.line)
            places.append(
                {v.line, statement,
                 QStringLiteral("start of variant '%1'").arg(QString::fromStdString(v.name))});
    }
    return places;
}

} // namespace

class TypingTest : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("LoopscopeTypingTest"));
        QCoreApplication::setApplicationName(QStringLiteral("LoopscopeTypingTest"));
    }

    void typedKeysLandWhereTheyAreTyped_data()
    {
        QTest::addColumn<QString>("sample");
        const QDir samples(QStringLiteral(LOOPSCOPE_SOURCE_DIR "/samples"));
        for (const QString& name :
             samples.entryList({QStringLiteral("*.py")}, QDir::Files, QDir::Name))
            QTest::newRow(qPrintable(name)) << samples.filePath(name);
    }

    void typedKeysLandWhereTheyAreTyped()
    {
        QFETCH(QString, sample);
        QTemporaryDir dir;
        const QString path = dir.filePath(QFileInfo(sample).fileName());
        QVERIFY(QFile::copy(sample, path));
        QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner);
        const QString original = readFile(path);

        MainWindow w;
        w.worker()->setWorkerPath(QStringLiteral(LOOPSCOPE_WORKER));
        QSignalSpy analysed(&w, &MainWindow::analysisApplied);
        QVERIFY(w.openFile(path));
        w.resize(1366, 768);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(analysed.wait(10000));
        auto* sci = w.editor()->findChild<QsciScintilla*>();
        QVERIFY(sci);
        sci->setFocus();

        // From the bottom up, so that earlier places keep their line numbers.
        QList<Place> places = placesIn(original);
        QVERIFY2(places.size() >= 3,
                 qPrintable(QStringLiteral("only %1 places").arg(places.size())));
        std::sort(places.begin(), places.end(),
                  [](const Place& a, const Place& b) { return a.afterLine > b.afterLine; });
        QStringList expected = original.split(u'\n');
        for (const Place& place : places) {
            // Put the cursor at the end of the line, as a click there would, and open a new line.
            const int line = place.afterLine - 1; // 0-based
            sci->setCursorPosition(line, sci->text(line).remove(u'\n').size());
            sci->ensureCursorVisible();
            QTest::keyClick(sci, Qt::Key_Return);
            expected.insert(place.afterLine, QString());
            for (int typed = 0; typed < place.statement.size(); ++typed) {
                analysed.clear();
                QTest::keyClicks(sci, place.statement.mid(typed, 1));
                // Let the evaluation run and its result land between keys.
                analysed.wait(2000);
                int cursorLine = -1, cursorIndex = -1;
                sci->getCursorPosition(&cursorLine, &cursorIndex);
                const QString where = QStringLiteral("%1, after typing '%2'")
                                          .arg(place.what, place.statement.left(typed + 1));
                QVERIFY2(cursorLine == line + 1 && cursorIndex == typed + 1,
                         qPrintable(QStringLiteral("%1: the cursor moved to line %2, column %3")
                                        .arg(where)
                                        .arg(cursorLine + 1)
                                        .arg(cursorIndex + 1)));
                QVERIFY2(!sci->hasSelectedText(),
                         qPrintable(where + QStringLiteral(": text got selected")));
                const long first = sci->SendScintilla(QsciScintillaBase::SCI_GETFIRSTVISIBLELINE);
                const long shown = sci->SendScintilla(QsciScintillaBase::SCI_LINESONSCREEN);
                // In display lines: a diagnostic's annotation under a line takes lines of its own.
                const long display = sci->SendScintilla(QsciScintillaBase::SCI_VISIBLEFROMDOCLINE,
                                                        static_cast<unsigned long>(cursorLine));
                QVERIFY2(
                    display >= first && display <= first + shown, // the last line may show in part
                    qPrintable(where +
                               QStringLiteral(": the editor scrolled the cursor out of view (line "
                                              "%1 shown as %2; %3 lines from %4 on screen)")
                                   .arg(cursorLine + 1)
                                   .arg(display)
                                   .arg(shown)
                                   .arg(first)));
            }
            expected[place.afterLine] = place.statement;
            QCOMPARE(w.editor()->text(), expected.join(u'\n'));
        }
        // Saved as typed.
        QAction* save = nullptr;
        for (QAction* a : w.findChildren<QAction*>())
            if (a->shortcut() == QKeySequence(QKeySequence::Save)) save = a;
        QVERIFY(save);
        save->trigger();
        QCOMPARE(readFile(path), expected.join(u'\n'));

        // The undo history holds the typing and nothing else: undoing it all gives the original.
        int undos = 0;
        while (w.editor()->isUndoAvailable() && undos < 10000) {
            w.editor()->undo();
            ++undos;
        }
        QCOMPARE(w.editor()->text(), original);
    }
};

LOOPSCOPE_QTEST_MAIN(TypingTest)
#include "TypingTest.moc"
