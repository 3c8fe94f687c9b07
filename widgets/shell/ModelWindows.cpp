#include "shell/ModelWindows.h"

#include "model/ModelWindow.h"

#include <QFileInfo>

namespace loopscope {

ModelWindows::ModelWindows(QWidget* parentWindow)
    : QObject(parentWindow), m_parentWindow(parentWindow)
{
}

ModelWindow* ModelWindows::open(const QString& path)
{
    const QString key = QFileInfo(path).absoluteFilePath();
    ModelWindow* w = m_views.value(key);
    if (!w) {
        w = new ModelWindow(m_parentWindow);
        m_views.insert(key, w);
        connect(w, &ModelWindow::openScriptRequested, this, &ModelWindows::openScriptRequested);
        w->openModel(key);
    }
    w->show();
    w->raise();
    w->activateWindow();
    return w;
}

QStringList ModelWindows::recordTuning(const QString& scriptPath, const QString& logPath)
{
    QStringList models;
    for (ModelWindow* w : std::as_const(m_views))
        if (w->recordTuning(scriptPath, logPath)) models << QFileInfo(w->modelPath()).fileName();
    return models;
}

} // namespace loopscope
