#include "shell/SettingsController.h"

#include "shell/MainWindow.h"
#include "shell/RunController.h"
#include "shell/RunSettingsDialog.h"
#include "views/SafeFile.h"

#include <QAction>
#include <QFile>
#include <QGuiApplication>
#include <QScreen>
#include <QSettings>
#include <QSpinBox>
#include <QStringDecoder>
#include <QStyle>
#include <QTemporaryFile>

namespace loopscope {

SettingsController::SettingsController(MainWindow* window, RunController* runs, QSpinBox* threads,
                                       QAction* structured)
    : QObject(window), m_window(window), m_runs(runs), m_threads(threads), m_structured(structured)
{
}

QString SettingsController::setAsideDamaged()
{
    const QString file = QSettings().fileName();
    QFile settings(file);
    if (!settings.open(QIODevice::ReadOnly)) return {};
    const QByteArray bytes = settings.readAll();
    settings.close();
    // Settings files are UTF-8 text: zeros (what a crash can leave in a file) or other binary
    // bytes mean something else wrote there, even where QSettings would read keys out of them.
    QStringDecoder utf8(QStringDecoder::Utf8);
    [[maybe_unused]] const QString text = utf8.decode(bytes);
    bool damaged = bytes.contains('\0') || utf8.hasError();
    if (!damaged) {
        // Read afresh from a copy: QSettings reads a file once per process, and only the first
        // reader hears that it is damaged.
        QTemporaryFile copy;
        if (!copy.open() || copy.write(bytes) < 0 || !copy.flush()) return {};
        copy.close();
        damaged =
            QSettings(copy.fileName(), QSettings::IniFormat).status() == QSettings::FormatError;
    }
    if (!damaged) return {};
    return setAsideDamagedFile(file, tr("the settings"),
                               tr("Loopscope starts with the default settings"));
}

void SettingsController::restore()
{
    QSettings s;
    const QByteArray savedGeometry = s.value(QStringLiteral("window/geometry")).toByteArray();
    if (savedGeometry.isEmpty() || !m_window->restoreGeometry(savedGeometry)) {
        // The first start: most of the screen, up to a full-HD screen's, with room for the
        // window's frame and the desktop's panels.
        const QScreen* primary = QGuiApplication::primaryScreen();
        const QRect available = primary ? primary->availableGeometry() : QRect();
        const QSize preferred(1920, 1200);
        if (available.isValid())
            m_window->setGeometry(
                QStyle::alignedRect(Qt::LeftToRight, Qt::AlignCenter,
                                    preferred.boundedTo(QSize(available.width() * 19 / 20,
                                                              available.height() * 9 / 10)),
                                    available));
        else
            m_window->resize(preferred);
    }
    // A geometry off every screen or larger than this one (saved on another screen, or damaged)
    // is brought onto the screen, at most its size: a window far too large cannot be drawn.
    const QRect geometry = m_window->geometry();
    const QScreen* screen = QGuiApplication::screenAt(geometry.center());
    if (!screen) screen = QGuiApplication::primaryScreen();
    if (const QRect available = screen ? screen->availableGeometry() : QRect();
        available.isValid() &&
        (!available.intersects(geometry) || geometry.width() > available.width() ||
         geometry.height() > available.height())) {
        const QSize size = geometry.size().boundedTo(available.size());
        m_window->setGeometry(
            QStyle::alignedRect(Qt::LeftToRight, Qt::AlignCenter, size, available));
    }
    // A layout saved by a version with other docks is dropped for the default one.
    m_layoutRestored = m_window->restoreState(s.value(QStringLiteral("window/state")).toByteArray(),
                                              kLayoutVersion);
    m_threads->setValue(m_runs->settings().threads);
    m_runs->setThreads(m_threads->value()); // within the box's range, whatever the file says
    connect(m_threads, &QSpinBox::valueChanged, m_runs, &RunController::setThreads);
    m_structured->setChecked(s.value(QStringLiteral("view/structured"), false).toBool());
}

void SettingsController::save() const
{
    QSettings s;
    s.setValue(QStringLiteral("window/geometry"), m_window->saveGeometry());
    s.setValue(QStringLiteral("window/state"), m_window->saveState(kLayoutVersion));
    m_runs->settings().save();
    s.setValue(QStringLiteral("view/structured"), m_structured->isChecked());
}

void SettingsController::showDialog()
{
    RunSettingsDialog dialog(m_runs->settings(), m_window);
    if (dialog.exec() != QDialog::Accepted) return;
    m_runs->setSettings(dialog.settings());
    save();
}

} // namespace loopscope
