#include "shell/Theme.h"

#include <QActionGroup>
#include <QApplication>
#include <QMenu>
#include <QProcess>
#include <QProcessEnvironment>
#include <QSettings>
#include <QStandardPaths>
#include <QStyle>
#include <QStyleFactory>

namespace loopscope {

namespace {

const char* const kKey = "view/theme";

QPalette& platformPalette()
{
    // The palette the platform gave before any theme was applied.
    static QPalette palette = QApplication::palette();
    return palette;
}

} // namespace

ThemeChoice savedTheme()
{
    const QString v = QSettings().value(QLatin1String(kKey)).toString();
    if (v == QLatin1String("light")) return ThemeChoice::Light;
    if (v == QLatin1String("dark")) return ThemeChoice::Dark;
    return ThemeChoice::FollowDesktop;
}

void saveTheme(ThemeChoice choice)
{
    QSettings().setValue(QLatin1String(kKey), choice == ThemeChoice::Light ? QStringLiteral("light")
                                              : choice == ThemeChoice::Dark
                                                  ? QStringLiteral("dark")
                                                  : QStringLiteral("desktop"));
}

bool desktopPrefersDark()
{
    const QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    if (env.value(QStringLiteral("GTK_THEME")).endsWith(QLatin1String(":dark"))) return true;
    const QString gsettings = QStandardPaths::findExecutable(QStringLiteral("gsettings"));
    if (!gsettings.isEmpty()) {
        QProcess p;
        p.start(gsettings, {QStringLiteral("get"), QStringLiteral("org.gnome.desktop.interface"),
                            QStringLiteral("color-scheme")});
        if (p.waitForFinished(500) && p.exitCode() == 0 &&
            QString::fromUtf8(p.readAllStandardOutput()).contains(QLatin1String("dark")))
            return true;
    }
    return platformPalette().color(QPalette::Window).lightnessF() < 0.5;
}

QPalette darkPalette()
{
    QPalette p;
    const QColor window(0x2b, 0x2d, 0x31), base(0x1e, 0x1f, 0x22), text(0xdf, 0xe1, 0xe5);
    const QColor disabled(0x7a, 0x7e, 0x85), highlight(0x3d, 0x6e, 0xb4);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, window);
    p.setColor(QPalette::ToolTipBase, window);
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, disabled);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, Qt::white);
    p.setColor(QPalette::Light, window.lighter(140));
    p.setColor(QPalette::Midlight, window.lighter(120));
    p.setColor(QPalette::Mid, window.darker(120));
    p.setColor(QPalette::Dark, window.darker(160));
    p.setColor(QPalette::Shadow, Qt::black);
    p.setColor(QPalette::Highlight, highlight);
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(0x6c, 0xa8, 0xf0));
    p.setColor(QPalette::LinkVisited, QColor(0xb0, 0x8c, 0xe8));
    for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, disabled);
    p.setColor(QPalette::Disabled, QPalette::Highlight, window.lighter(130));
    return p;
}

QPalette lightPalette()
{
    QStyle* fusion = QStyleFactory::create(QStringLiteral("Fusion"));
    QPalette p = fusion ? fusion->standardPalette() : QPalette();
    delete fusion;
    return p;
}

bool applyTheme(ThemeChoice choice)
{
    platformPalette(); // remember the platform's before changing it
    const bool dark = choice == ThemeChoice::Dark ||
                      (choice == ThemeChoice::FollowDesktop && desktopPrefersDark());
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    QApplication::setPalette(dark ? darkPalette() : lightPalette());
    return dark;
}

void addThemeMenu(QMenu* view)
{
    QMenu* theme = view->addMenu(QObject::tr("&Theme"));
    auto* themes = new QActionGroup(theme);
    for (auto [label, choice] :
         {std::pair{QObject::tr("Follow the &Desktop"), ThemeChoice::FollowDesktop},
          std::pair{QObject::tr("&Light"), ThemeChoice::Light},
          std::pair{QObject::tr("&Dark"), ThemeChoice::Dark}}) {
        QAction* a = theme->addAction(label);
        a->setCheckable(true);
        a->setChecked(savedTheme() == choice);
        themes->addAction(a);
        QObject::connect(a, &QAction::triggered, theme, [choice = choice] {
            saveTheme(choice);
            applyTheme(choice);
        });
    }
}

} // namespace loopscope
