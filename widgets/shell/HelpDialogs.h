// Help ▸ Keyboard Shortcuts and Help ▸ About: what the window's own actions say they are bound
// to, and the versions a bug report needs (Loopscope, Qt, LLVM and the CPU it generates code for).
#pragma once

#include "protocol/Messages.h"

#include <QList>
#include <QPair>
#include <QString>

class QWidget;

namespace loopscope {

// Every action of the window's menus with a shortcut (menu path, shortcut), then the editor's.
QList<QPair<QString, QString>> keyboardShortcuts(QWidget* window);
void showKeyboardShortcuts(QWidget* window);

// The About text; `machine` as the worker described it (an empty cpu: not described yet).
QString aboutText(const protocol::PingReply& machine);

} // namespace loopscope
