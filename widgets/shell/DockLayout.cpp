#include "shell/DockLayout.h"

#include "views/LadderView.h"

#include <QDockWidget>
#include <QFontDatabase>
#include <QFontMetrics>
#include <QLayout>
#include <QMainWindow>
#include <QScreen>
#include <QTimer>

#include <algorithm>

namespace loopscope {

DockLayout::DockLayout(QMainWindow* window, LadderView* ladder)
    : QObject(window), m_window(window), m_ladder(ladder)
{
}

QDockWidget* DockLayout::dock(const char* name) const
{
    return m_window->findChild<QDockWidget*>(QString::fromLatin1(name));
}

QList<QDockWidget*> DockLayout::rightHandDocks(const QList<QDockWidget*>& except) const
{
    QList<QDockWidget*> docks;
    for (QDockWidget* d : m_window->findChildren<QDockWidget*>())
        if (!except.contains(d) && m_window->dockWidgetArea(d) == Qt::RightDockWidgetArea &&
            !d->isFloating())
            docks << d;
    return docks;
}

void DockLayout::tabBehind(QDockWidget* first, const QList<QDockWidget*>& docks)
{
    QDockWidget* last = first;
    for (QDockWidget* d : docks) {
        m_window->removeDockWidget(d);
        m_window->tabifyDockWidget(last, d);
        d->show();
        last = d;
    }
}

void DockLayout::applyDefault()
{
    QDockWidget* schedule = dock("ScheduleDock");
    QDockWidget* variants = dock("VariantTreeDock");
    QDockWidget* loopNest = dock("LoopNestDock");
    QDockWidget* ladder = dock("LadderDock");
    if (!schedule || !variants || !loopNest || !ladder) return;
    const int width = m_window->width();
    const int column =
        QFontMetrics(QFontDatabase::systemFont(QFontDatabase::FixedFont)).horizontalAdvance(u'x');
    const int pane = kPaneColumns * column;
    const int scheduleWidth =
        std::max(schedule->minimumSizeHint().width(), schedule->widget()->minimumWidth());
    if (width >= scheduleWidth + 2 * pane) {
        m_window->resizeDocks({schedule, loopNest}, {scheduleWidth, (width - scheduleWidth) / 2},
                              Qt::Horizontal);
        m_window->resizeDocks({schedule, variants},
                              {3 * m_window->height() / 4, m_window->height() / 4}, Qt::Vertical);
    } else {
        // Right after the loop nest's tab, the other right-hand docks behind them.
        tabBehind(loopNest, QList<QDockWidget*>{schedule, variants} +
                                rightHandDocks({loopNest, schedule, variants}));
        loopNest->raise();
        // A window the three columns made wider than its screen fits it again.
        m_window->layout()->activate();
        QSize size = m_window->size();
        if (const QScreen* screen = m_window->screen())
            size = size.boundedTo(screen->availableGeometry().size());
        size = size.expandedTo(m_window->minimumSizeHint());
        if (size != m_window->size()) m_window->resize(size);
        m_window->resizeDocks({loopNest}, {size.width() / 2}, Qt::Horizontal);
    }
    // Room for the longest ladders of the samples without scrolling.
    m_window->resizeDocks(
        {ladder},
        {m_ladder->heightForRows(LadderView::kRowsShown) + ladder->height() - m_ladder->height()},
        Qt::Vertical);
}

void DockLayout::showAssemblyBesideLoopNest()
{
    QDockWidget* loopNest = dock("LoopNestDock");
    QDockWidget* assembly = dock("AsmDock");
    if (!loopNest || !assembly) return;
    const int before = loopNest->width();
    // Out of their tab group (a dock split from a tabbed one would join its tabs).
    const QList<QDockWidget*> others = rightHandDocks({loopNest, assembly});
    for (QDockWidget* d : others)
        m_window->removeDockWidget(d);
    m_window->removeDockWidget(assembly);
    m_window->removeDockWidget(loopNest);
    m_window->addDockWidget(Qt::RightDockWidgetArea, loopNest);
    m_window->splitDockWidget(loopNest, assembly, Qt::Horizontal);
    tabBehind(assembly, others);
    loopNest->show();
    assembly->show();
    assembly->raise();
    // Once the layout has placed them: the two share what the loop nest had, and some more.
    QTimer::singleShot(0, this, [this, loopNest, assembly, before] {
        const int w = std::max(before, m_window->width() / 2);
        m_window->resizeDocks({loopNest, assembly}, {w / 2, w - w / 2}, Qt::Horizontal);
    });
}

} // namespace loopscope
