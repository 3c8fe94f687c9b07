#include "TestTyping.h"

#include "editor/EditorPane.h"
#include "shell/MainWindow.h"

#include <QCoreApplication>
#include <QKeyEvent>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QSpinBox>
#include <QTimer>
#include <Qsci/qsciscintilla.h>

#include <algorithm>
#include <cstdio>
#include <memory>

namespace loopscope {
namespace {

// The ladder runs after a random number of lines (a session killed early may not run it at all,
// and then only the autosave keeps its lines), then after every this many.
constexpr int kLinesPerRun = 32;

struct Typist {
    MainWindow* window = nullptr;
    QsciScintilla* editor = nullptr;
    QRandomGenerator random;
    int next = 0;  // the number of the next line
    int typed = 0; // lines typed in this session
    int runAt = 0; // the ladder runs when this many lines are typed
    int runs = 0;
    QTimer timer;
};

void press(QsciScintilla* editor, Qt::Key key, const QString& text)
{
    QKeyEvent down(QEvent::KeyPress, key, Qt::NoModifier, text);
    QCoreApplication::sendEvent(editor, &down);
    QKeyEvent up(QEvent::KeyRelease, key, Qt::NoModifier, text);
    QCoreApplication::sendEvent(editor, &up);
}

// Types `text` (ASCII letters, digits, spaces and '#') key by key, then Return.
void typeLine(QsciScintilla* editor, const QString& text)
{
    for (QChar c : text)
        press(editor, static_cast<Qt::Key>(c.toUpper().unicode()), QString(c));
    press(editor, Qt::Key_Return, QStringLiteral("\r"));
}

int highestNumber(const QString& text)
{
    static const QRegularExpression line(QStringLiteral("^# edit (\\d+)$"),
                                         QRegularExpression::MultilineOption);
    int highest = -1;
    for (auto it = line.globalMatch(text); it.hasNext();)
        highest = std::max(highest, it.next().captured(1).toInt());
    return highest;
}

void typeNext(const std::shared_ptr<Typist>& t)
{
    // At the end of the text, where a new line starts.
    t->editor->SendScintilla(QsciScintillaBase::SCI_DOCUMENTEND);
    if (!t->window->editor()->text().endsWith(u'\n'))
        press(t->editor, Qt::Key_Return, QStringLiteral("\r"));
    const int number = t->next++;
    typeLine(t->editor, QStringLiteral("# edit %1").arg(number));
    std::printf("typed %d\n", number);
    std::fflush(stdout);
    if (++t->typed == t->runAt) {
        t->runAt += kLinesPerRun;
        // Another thread count each time: steps measured before would not run again.
        if (auto* threads = t->window->findChild<QSpinBox*>(QStringLiteral("threadsSpin")))
            threads->setValue(1 + (t->next + t->runs++) % threads->maximum());
        t->window->runLadder();
        std::printf("ran\n");
        std::fflush(stdout);
    }
    t->timer.start(t->random.bounded(10, 40));
}

} // namespace

void startTestTyping(MainWindow& window, quint32 seed)
{
    auto t = std::make_shared<Typist>();
    t->window = &window;
    t->editor = window.editor()->findChild<QsciScintilla*>();
    t->random.seed(seed);
    t->runAt = t->random.bounded(4, 40);
    t->next = highestNumber(window.editor()->text()) + 1;
    t->timer.setSingleShot(true);
    QObject::connect(&t->timer, &QTimer::timeout, &window, [t] { typeNext(t); });
    if (!t->editor) return;
    t->editor->setFocus();
    t->timer.start(0);
}

} // namespace loopscope
