#include "editor/FindBar.h"

#include <Qsci/qsciscintilla.h>

#include <QGridLayout>
#include <QLabel>
#include <QLineEdit>
#include <QShortcut>
#include <QToolButton>

namespace loopscope {

namespace {

bool caseSensitive(const QString& text)
{
    return text != text.toLower();
}

} // namespace

FindBar::FindBar(QsciScintilla* editor, QWidget* parent) : QWidget(parent), m_editor(editor)
{
    setObjectName(QStringLiteral("findBar"));
    auto* bar = new QGridLayout(this);
    bar->setContentsMargins(4, 2, 4, 2);
    m_find = new QLineEdit(this);
    m_find->setObjectName(QStringLiteral("findEdit"));
    m_find->setPlaceholderText(tr("Find"));
    m_find->setClearButtonEnabled(true);
    m_replace = new QLineEdit(this);
    m_replace->setObjectName(QStringLiteral("replaceEdit"));
    m_replace->setPlaceholderText(tr("Replace with"));
    m_status = new QLabel(this);
    auto button = [this](const QString& text, const QString& tip, auto slot) {
        auto* b = new QToolButton(this);
        b->setText(text);
        b->setToolTip(tip);
        connect(b, &QToolButton::clicked, this, slot);
        return b;
    };
    bar->addWidget(m_find, 0, 0);
    bar->addWidget(button(tr("Previous"), tr("Find the previous match (Shift+F3)"),
                          [this] { findNext(true); }),
                   0, 1);
    bar->addWidget(button(tr("Next"), tr("Find the next match (F3)"), [this] { findNext(); }), 0,
                   2);
    bar->addWidget(m_status, 0, 3);
    bar->addWidget(button(tr("Close"), tr("Close the find bar (Esc)"), [this] { close(); }), 0, 4);
    m_replaceOne =
        button(tr("Replace"), tr("Replace this match and find the next"), [this] { replaceOne(); });
    m_replaceAll =
        button(tr("All"), tr("Replace every match (one undo)"), [this] { replaceAll(); });
    bar->addWidget(m_replace, 1, 0);
    bar->addWidget(m_replaceOne, 1, 1);
    bar->addWidget(m_replaceAll, 1, 2);
    bar->setColumnStretch(0, 1);
    connect(m_find, &QLineEdit::returnPressed, this, [this] { findNext(); });
    connect(m_replace, &QLineEdit::returnPressed, this, [this] { replaceOne(); });
    auto* escape = new QShortcut(QKeySequence(Qt::Key_Escape), this);
    escape->setContext(Qt::WidgetWithChildrenShortcut);
    connect(escape, &QShortcut::activated, this, [this] { close(); });
    hide();
}

void FindBar::open(bool withReplace)
{
    for (QWidget* w : {static_cast<QWidget*>(m_replace), static_cast<QWidget*>(m_replaceOne),
                       static_cast<QWidget*>(m_replaceAll)})
        w->setVisible(withReplace);
    show();
    if (m_editor->hasSelectedText() && !m_editor->selectedText().contains(u'\n'))
        m_find->setText(m_editor->selectedText());
    m_find->setFocus();
    m_find->selectAll();
}

void FindBar::close()
{
    hide();
    m_editor->setFocus();
}

void FindBar::setFindText(const QString& text)
{
    m_find->setText(text);
}

void FindBar::setReplaceText(const QString& text)
{
    m_replace->setText(text);
}

bool FindBar::findNext(bool backwards)
{
    const QString what = m_find->text();
    if (what.isEmpty()) return false;
    int line = 0, index = 0;
    if (backwards && m_editor->hasSelectedText()) {
        int l2, i2;
        m_editor->getSelection(&line, &index, &l2, &i2);
    } else {
        m_editor->getCursorPosition(&line, &index);
    }
    const bool found = m_editor->findFirst(what, false, caseSensitive(what), false, true,
                                           !backwards, line, index, true);
    m_status->setText(found ? QString() : tr("not found"));
    return found;
}

bool FindBar::replaceOne()
{
    const QString what = m_find->text();
    if (what.isEmpty()) return false;
    const Qt::CaseSensitivity cs = caseSensitive(what) ? Qt::CaseSensitive : Qt::CaseInsensitive;
    if (!m_editor->hasSelectedText() || m_editor->selectedText().compare(what, cs) != 0)
        return findNext();
    m_editor->replaceSelectedText(m_replace->text());
    findNext();
    return true;
}

int FindBar::replaceAll()
{
    const QString what = m_find->text();
    if (what.isEmpty()) return 0;
    int count = 0;
    m_editor->beginUndoAction();
    bool found =
        m_editor->findFirst(what, false, caseSensitive(what), false, false, true, 0, 0, false);
    while (found) {
        m_editor->replace(m_replace->text());
        ++count;
        found = m_editor->findNext();
    }
    m_editor->endUndoAction();
    m_status->setText(tr("%n replaced", nullptr, count));
    return count;
}

} // namespace loopscope
