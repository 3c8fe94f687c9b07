// loopscope-chart: draws a sweep with the desktop app's own charts view, offscreen, into a PNG
// or SVG file, so `loopscope-cli sweep --chart` gives the picture a user sees in the Charts dock.
// It reads one chart request (protocol::ChartRequest) on standard input; loopscope-cli starts it,
// and the CLI itself loads no Qt. Exit codes: 0 written, 1 the request or the file failed, 2 bad
// usage.
#include "Version.h"
#include "charts/ChartExport.h"
#include "charts/ChartsView.h"
#include "protocol/Json.h"

#include <QApplication>
#include <QFileInfo>
#include <QStringList>

#include <cstdio>
#include <iostream>
#include <iterator>
#include <string>

using namespace loopscope;

namespace {

QtMessageHandler g_previousHandler = nullptr;

// Drawing with no display makes Qt say two things that concern only a desktop session (no
// runtime folder; the offscreen platform ignores window size hints). They would read as problems
// in the CLI's output, so they are dropped; anything else still reaches stderr.
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

int draw(const protocol::ChartRequest& r, int argc, char** argv)
{
    // No display is needed: the view is drawn offscreen unless the caller chose a platform.
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    g_previousHandler = qInstallMessageHandler(quietOffscreenMessages);
    QApplication app(argc, argv);

    ChartsView view;
    view.setAttribute(Qt::WA_DontShowOnScreen);
    view.resize(1000, 620);
    QStringList parameters;
    for (const std::string& p : r.sweep.parameters)
        parameters << QString::fromStdString(p);
    view.setSizeLabel(parameters);
    view.setPeakGflops(r.peakGflops);
    view.setBandwidthGbs(r.bandwidthGbs);
    if (!r.sweep.blas.empty()) view.setReferenceLabel(QString::fromStdString(r.sweep.blas));
    QList<ChartPoint> points;
    for (const protocol::SweepPoint& s : r.sweep.points)
        points << chartPointOf(s);
    view.setPoints(points);

    const ChartsView::Tab tab = r.kind == "bars"       ? ChartsView::BarTab
                                : r.kind == "roofline" ? ChartsView::RooflineTab
                                                       : ChartsView::LineTab;
    view.setCurrentTab(tab);
    view.show();
    QApplication::processEvents();

    const QString path = QString::fromStdString(r.path);
    const bool ok = QFileInfo(path).suffix().toLower() == QLatin1String("svg")
                        ? ChartExport(view).svg(path, tab)
                        : ChartExport(view).png(path, tab);
    if (!ok) {
        std::cerr << "cannot write '" << r.path << "'\n";
        return 1;
    }
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    const std::string usage = "usage: loopscope-chart < REQUEST.json\n"
                              "draws a sweep (a chart request, as loopscope-cli sweep --chart "
                              "writes it) into a PNG or SVG file\n";
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--version") {
            std::cout << "loopscope-chart " << LOOPSCOPE_VERSION_STRING << "\n";
            return 0;
        }
        if (a == "--help" || a == "-h") {
            std::cout << usage;
            return 0;
        }
        std::cerr << "loopscope-chart: unknown option '" << a << "'\n" << usage;
        return 2;
    }
    const std::string text{std::istreambuf_iterator<char>(std::cin), {}};
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    std::string why = "standard input is not JSON";
    std::optional<protocol::ChartRequest> request =
        j.is_discarded() ? std::nullopt : protocol::chartRequestFromJson(j, &why);
    if (!request) {
        std::cerr << "loopscope-chart: " << why << "\n";
        return 1;
    }
    return draw(*request, argc, argv);
}
