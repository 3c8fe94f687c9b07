// The charts' exports: the chart as PNG or SVG, laid out (legend included) for the picture's
// size, the data as CSV; and the view's context menu that offers them.
#include "charts/ChartExport.h"

#include <QtCharts/QChart>
#include <QtCharts/QChartView>

#include <QCursor>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QGraphicsLayout>
#include <QGraphicsScene>
#include <QMenu>
#include <QPainter>
#include <QSaveFile>
#include <QSvgGenerator>

namespace loopscope {

QString ChartExport::csv() const
{
    auto field = [](const QString& s) -> QString {
        if (!s.contains(QLatin1Char(',')) && !s.contains(QLatin1Char('"')) &&
            !s.contains(QLatin1Char('\n')))
            return s;
        QString q = s;
        q.replace(QStringLiteral("\""), QStringLiteral("\"\""));
        return QStringLiteral("\"") + q + QStringLiteral("\"");
    };
    const QStringList parameters = m_view.sizeParameters();
    QStringList params = parameters.isEmpty() ? QStringList{QStringLiteral("size")} : parameters;
    QString out = QStringLiteral("variant,") + params.join(QLatin1Char(',')) +
                  QStringLiteral(",ms_median,ms_min,ms_max,gflops,intensity,checked,skipped\n");
    for (auto& p : m_view.points()) {
        out += field(p.variant);
        for (int i = 0; i < params.size(); ++i)
            out += QLatin1Char(',') + QString::number(p.size);
        if (p.gflops > 0)
            out += QLatin1Char(',') + QString::number(p.msMedian, 'g', 6) + QLatin1Char(',') +
                   QString::number(p.msMin, 'g', 6) + QLatin1Char(',') +
                   QString::number(p.msMax, 'g', 6) + QLatin1Char(',') +
                   QString::number(p.gflops, 'g', 6);
        else
            out += QStringLiteral(",,,,");
        out += QLatin1Char(',') + QString::number(p.intensity, 'g', 6);
        out += p.checked ? QStringLiteral(",true") : QStringLiteral(",false");
        out += p.skipped ? QStringLiteral(",true\n") : QStringLiteral(",false\n");
    }
    return out;
}

QString ChartExport::withSuffix(const QString& path, const QString& suffix)
{
    if (path.isEmpty() || !QFileInfo(path).suffix().isEmpty()) return path;
    return path + u'.' + suffix;
}

QImage ChartExport::image(ChartsView::Tab tab, QSize size, QList<ChartsView::LegendEntry>* legend,
                          QRectF* plot) const
{
    QChartView* v = m_view.view(tab);
    QChart* chart = v->chart();
    if (size.isEmpty()) size = v->size().expandedTo(QSize(800, 500));
    const QSizeF before = chart->size();
    // Laid out for the picture's size, legend included, then back to the view's.
    chart->resize(size);
    if (chart->layout()) chart->layout()->activate();
    m_view.layoutLegend(tab);
    if (chart->layout()) chart->layout()->activate();
    if (legend) *legend = m_view.legendEntries(tab);
    if (plot) *plot = chart->plotArea();
    QImage image(size * 2, QImage::Format_ARGB32);
    image.setDevicePixelRatio(2);
    image.fill(m_view.palette().color(QPalette::Base));
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    v->scene()->render(&painter, QRectF(QPointF(0, 0), size),
                       QRectF(chart->scenePos(), QSizeF(size)));
    painter.end();
    chart->resize(before);
    if (chart->layout()) chart->layout()->activate();
    m_view.layoutLegend(tab);
    return image;
}

bool ChartExport::png(const QString& path, ChartsView::Tab tab) const
{
    return image(tab).save(withSuffix(path, QStringLiteral("png")), "PNG");
}

bool ChartExport::svg(const QString& path, ChartsView::Tab tab) const
{
    const QString file = withSuffix(path, QStringLiteral("svg"));
    QChartView* v = m_view.view(tab);
    QChart* chart = v->chart();
    const QSize size = v->size().expandedTo(QSize(800, 500));
    const QSizeF before = chart->size();
    chart->resize(size);
    if (chart->layout()) chart->layout()->activate();
    m_view.layoutLegend(tab);
    if (chart->layout()) chart->layout()->activate();
    QSvgGenerator generator;
    generator.setFileName(file);
    generator.setSize(size);
    generator.setViewBox(QRect(QPoint(0, 0), size));
    generator.setTitle(chart->title());
    QPainter painter;
    bool ok = painter.begin(&generator);
    if (ok) {
        painter.fillRect(QRect(QPoint(0, 0), size), m_view.palette().color(QPalette::Base));
        v->scene()->render(&painter, QRectF(QPointF(0, 0), size),
                           QRectF(chart->scenePos(), QSizeF(size)));
        painter.end();
    }
    chart->resize(before);
    if (chart->layout()) chart->layout()->activate();
    m_view.layoutLegend(tab);
    QFile f(file);
    return ok && f.exists() && f.size() > 0;
}

bool ChartExport::csvFile(const QString& path) const
{
    QSaveFile f(withSuffix(path, QStringLiteral("csv")));
    if (!f.open(QIODevice::WriteOnly | QIODevice::Text)) return false;
    f.write(csv().toUtf8());
    return f.commit();
}

void ChartsView::showContextMenu(const QPoint& pos)
{
    auto* source = qobject_cast<QWidget*>(sender());
    Tab tab = source == m_barView ? BarTab : source == m_rooflineView ? RooflineTab : LineTab;
    QMenu menu(this);
    QAction* png = menu.addAction(tr("Export chart as PNG…"));
    QAction* svg = menu.addAction(tr("Export chart as SVG…"));
    QAction* csvAction = menu.addAction(tr("Export data as CSV…"));
    QAction* chosen = menu.exec(source ? source->mapToGlobal(pos) : QCursor::pos());
    if (!chosen) return;
    auto savePath = [this](const QString& title, const QString& filter, const QString& suffix) {
        QFileDialog dialog(this, title, QString(), filter);
        dialog.setAcceptMode(QFileDialog::AcceptSave);
        dialog.setDefaultSuffix(suffix);
        return dialog.exec() == QDialog::Accepted && !dialog.selectedFiles().isEmpty()
                   ? dialog.selectedFiles().constFirst()
                   : QString();
    };
    // A name typed without a suffix gets the format's (the dialog's default, and withSuffix).
    if (chosen == png) {
        const QString path =
            savePath(tr("Export chart"), tr("PNG image (*.png)"), QStringLiteral("png"));
        if (!path.isEmpty()) ChartExport(*this).png(path, tab);
    } else if (chosen == svg) {
        const QString path =
            savePath(tr("Export chart"), tr("SVG image (*.svg)"), QStringLiteral("svg"));
        if (!path.isEmpty()) ChartExport(*this).svg(path, tab);
    } else if (chosen == csvAction) {
        const QString path = savePath(tr("Export data"), tr("CSV (*.csv)"), QStringLiteral("csv"));
        if (!path.isEmpty()) ChartExport(*this).csvFile(path);
    }
}

} // namespace loopscope
