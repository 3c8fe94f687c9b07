#include "ChartExport.h"

#include "charts/ChartsView.h"
#include "runtime/SweepJson.h"

#include <QApplication>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>

#include <cstdio>

namespace loopscope {

namespace {

QtMessageHandler g_previousHandler = nullptr;

// Drawing a chart with no display makes Qt say two things that concern only a desktop session
// (no runtime folder; the offscreen platform ignores window size hints). They would read as
// problems in the CLI's output, so they are dropped; anything else still reaches stderr.
void quietOffscreenMessages(QtMsgType type, const QMessageLogContext& context,
                            const QString& message)
{
    if (type == QtWarningMsg &&
        (message.startsWith(QLatin1String("QStandardPaths: XDG_RUNTIME_DIR not set")) ||
         message.contains(QLatin1String("does not support propagateSizeHints"))))
        return;
    if (g_previousHandler)
        g_previousHandler(type, context, message);
    else
        std::fprintf(stderr, "%s\n", qPrintable(qFormatLogMessage(type, context, message)));
}

} // namespace

std::string writeSweepChart(const SweepResult& result, const ChartFile& file)
{
    // No display is needed: the view is drawn offscreen unless the caller chose a platform.
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QtMessageHandler previous = qInstallMessageHandler(quietOffscreenMessages);
    if (previous != quietOffscreenMessages)
        g_previousHandler = previous; // a second chart keeps the first's
    static int argc = 1;
    static char name[] = "loopscope-cli";
    static char* argv[] = {name, nullptr};
    QApplication app(argc, argv);

    ChartsView view;
    view.setAttribute(Qt::WA_DontShowOnScreen);
    view.resize(1000, 620);
    QStringList parameters;
    for (auto& p : result.parameters)
        parameters << QString::fromStdString(p);
    view.setSizeLabel(parameters);
    view.setPeakGflops(file.peakGflops);
    view.setBandwidthGbs(file.bandwidthGbs);
    if (!result.blasLabel.empty()) view.setReferenceLabel(QString::fromStdString(result.blasLabel));
    // Through the points' JSON form, as the app receives them from the worker.
    QList<ChartPoint> points;
    for (const SweepPoint& s : result.points) {
        const std::string text = sweepPointJson(s, result.parameters).dump();
        points << chartPointFromJson(
            QJsonDocument::fromJson(QByteArray::fromStdString(text)).object());
    }
    view.setPoints(points);

    const ChartsView::Tab tab = file.kind == "bars"       ? ChartsView::BarTab
                                : file.kind == "roofline" ? ChartsView::RooflineTab
                                                          : ChartsView::LineTab;
    view.setCurrentTab(tab);
    view.show();
    QApplication::processEvents();

    const QString path = QString::fromStdString(file.path);
    const QString suffix = QFileInfo(path).suffix().toLower();
    bool ok =
        suffix == QLatin1String("svg") ? view.exportSvg(path, tab) : view.exportPng(path, tab);
    return ok ? std::string() : "cannot write '" + file.path + "'";
}

} // namespace loopscope
