// ChartsView offscreen: one line per variant with one point per measured size, the peak and the
// dashed OpenBLAS line, the bar chart at one size, the roofline, legend toggles, CSV content and
// PNG / SVG / CSV export files, and rendering with grab(). The legend inside the chart at every
// size, on screen and exported; twelve variants in twelve styles; what hovering a point says;
// export names without a suffix.
#include "charts/ChartsView.h"
#include "charts/ChartExport.h"

#include "support/QtTestMain.h"

#include <QApplication>
#include <QFile>
#include <QFontMetricsF>
#include <QImage>
#include <QImageReader>
#include <QPainter>
#include <QPixmap>
#include <QSet>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QToolTip>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLineSeries>
#include <QtCharts/QScatterSeries>
#include <QtTest>

using loopscope::ChartExport;
using loopscope::ChartPoint;
using loopscope::ChartsView;

namespace {

ChartPoint point(const QString& variant, qint64 size, double gflops, bool reference = false)
{
    ChartPoint p;
    p.variant = variant;
    p.size = size;
    p.gflops = gflops;
    p.msMedian = 2.0 * size * size * size / (gflops * 1e6);
    p.msMin = p.msMedian * 0.9;
    p.msMax = p.msMedian * 1.1;
    p.intensity = 2.0 * size / 12.0;
    p.checked = !reference;
    p.reference = reference;
    return p;
}

void fill(ChartsView& v)
{
    v.setSizeLabel({QStringLiteral("M"), QStringLiteral("N"), QStringLiteral("K")});
    v.setReferenceLabel(QStringLiteral("OpenBLAS 0.3.21"));
    for (qint64 size : {64, 128, 256}) {
        v.addPoint(point(QStringLiteral("baseline"), size, 2.0));
        v.addPoint(point(QStringLiteral("blocking"), size, 20.0 + static_cast<double>(size) / 64));
        v.addPoint(point(QStringLiteral("OpenBLAS"), size, 60.0, true));
    }
    ChartPoint skipped = point(QStringLiteral("baseline"), 512, 0);
    skipped.gflops = 0;
    skipped.skipped = true;
    v.addPoint(skipped);
}

// Twelve variants with long names, OpenBLAS and the peak: fourteen legend entries.
QStringList manyVariants()
{
    return {QStringLiteral("baseline"),         QStringLiteral("blocking"),
            QStringLiteral("vectorization"),    QStringLiteral("loop permutation"),
            QStringLiteral("array packing"),    QStringLiteral("write cache"),
            QStringLiteral("parallel"),         QStringLiteral("parallel, unrolled by 8"),
            QStringLiteral("packed and tiled"), QStringLiteral("cache_write + compute_at"),
            QStringLiteral("eleventh variant"), QStringLiteral("the twelfth and last variant")};
}

void fillMany(ChartsView& v)
{
    v.setSizeLabel({QStringLiteral("M"), QStringLiteral("N"), QStringLiteral("K")});
    v.setReferenceLabel(QStringLiteral("OpenBLAS 0.3.21"));
    v.setPeakGflops(1234.5);
    v.setBandwidthGbs(40);
    const QStringList variants = manyVariants();
    for (qint64 size : {64, 256, 1024})
        for (int i = 0; i < variants.size(); ++i)
            v.addPoint(point(variants[i], size, 5.0 + 7.0 * i + static_cast<double>(size) / 100));
    for (qint64 size : {64, 256, 1024})
        v.addPoint(point(QStringLiteral("OpenBLAS"), size, 300.0, true));
}

// Whether a pixel of about this colour is inside the rectangle (in the image's logical pixels).
bool drawnIn(const QImage& image, const QRectF& rect, const QColor& color)
{
    const double scale = image.devicePixelRatio();
    const QRect r = QRectF(rect.topLeft() * scale, rect.size() * scale).toRect() & image.rect();
    for (int y = r.top(); y <= r.bottom(); ++y)
        for (int x = r.left(); x <= r.right(); ++x) {
            const QColor c = image.pixelColor(x, y);
            if (std::abs(c.red() - color.red()) + std::abs(c.green() - color.green()) +
                    std::abs(c.blue() - color.blue()) <
                40)
                return true;
        }
    return false;
}

// Every entry of the legend whole and inside `area`, none over the plot or over another, and
// each name in full (its rectangle as wide as the name in the legend's font is).
void checkLegend(const QList<ChartsView::LegendEntry>& legend, const QRectF& area,
                 const QRectF& plot, const QStringList& names, const QString& where)
{
    QCOMPARE(legend.size(), names.size());
    for (int i = 0; i < legend.size(); ++i) {
        const ChartsView::LegendEntry& e = legend[i];
        const QString what = where + QStringLiteral(": '") + e.name + QStringLiteral("' at ") +
                             QString::number(e.rect.x()) + u',' + QString::number(e.rect.y()) +
                             u' ' + QString::number(e.rect.width()) + u'x' +
                             QString::number(e.rect.height()) + QStringLiteral(" in ") +
                             QString::number(area.width()) + u'x' + QString::number(area.height());
        QVERIFY2(names.contains(e.name), qPrintable(what));
        QVERIFY2(area.contains(e.rect), qPrintable(what));
        QVERIFY2(e.rect.contains(e.textRect), qPrintable(what));
        QVERIFY2(!e.rect.intersects(plot), qPrintable(what));
        for (int j = 0; j < i; ++j)
            QVERIFY2(!legend[j].rect.intersects(e.rect), qPrintable(what));
    }
}

// A variant's entry: drawn in its own colour (OpenBLAS, the peak and the roof are in the text's).
bool isVariant(const ChartsView::LegendEntry& e)
{
    return manyVariants().contains(e.name) || e.name == QStringLiteral("baseline");
}

QStringList legendNames(const ChartsView& v, ChartsView::Tab tab)
{
    QStringList names = v.seriesNames(tab);
    names.removeAll(QString());
    return names;
}

} // namespace

class ChartsViewTest : public QObject {
    Q_OBJECT
private slots:
    void linesHaveOnePointPerMeasuredSize()
    {
        ChartsView v;
        fill(v);
        v.setPeakGflops(100.0);
        QStringList names = v.seriesNames(ChartsView::LineTab);
        QVERIFY(names.contains(QStringLiteral("baseline")));
        QVERIFY(names.contains(QStringLiteral("blocking")));
        QVERIFY(names.contains(QStringLiteral("OpenBLAS 0.3.21")));
        QVERIFY(names.contains(QStringLiteral("peak 100.0 GFLOPS")));
        QCOMPARE(names.size(), 4);
        QCOMPARE(v.pointCount(ChartsView::LineTab, QStringLiteral("baseline")), 3); // 512 skipped
        QCOMPARE(v.pointCount(ChartsView::LineTab, QStringLiteral("blocking")), 3);
        QCOMPARE(v.pointCount(ChartsView::LineTab, QStringLiteral("peak 100.0 GFLOPS")), 2);

        // A point at a known variant and size replaces the old one.
        v.addPoint(point(QStringLiteral("blocking"), 128, 30.0));
        QCOMPARE(v.pointCount(ChartsView::LineTab, QStringLiteral("blocking")), 3);
        v.addPoint(point(QStringLiteral("blocking"), 1024, 30.0));
        QCOMPARE(v.pointCount(ChartsView::LineTab, QStringLiteral("blocking")), 4);
    }

    void barChartShowsOneSize()
    {
        ChartsView v;
        fill(v);
        QCOMPARE(v.barSize(), qint64(256)); // the largest measured size
        QCOMPARE(v.pointCount(ChartsView::BarTab, QStringLiteral("GFLOPS")), 3);
        v.addPoint(point(QStringLiteral("blocking"), 1024, 30.0));
        v.setBarSize(1024);
        QCOMPARE(v.pointCount(ChartsView::BarTab, QStringLiteral("GFLOPS")), 1);
    }

    void rooflineHasPointsAndRoof()
    {
        ChartsView v;
        fill(v);
        v.setPeakGflops(100.0);
        v.setBandwidthGbs(15.0);
        QCOMPARE(v.pointCount(ChartsView::RooflineTab, QStringLiteral("baseline")), 3);
        bool roof = false;
        for (auto& n : v.seriesNames(ChartsView::RooflineTab))
            roof = roof || n.startsWith(QStringLiteral("roof"));
        QVERIFY(roof);
    }

    void legendTogglesSeries()
    {
        ChartsView v;
        fill(v);
        QVERIFY(v.isSeriesVisible(ChartsView::LineTab, QStringLiteral("baseline")));
        v.toggleSeries(QStringLiteral("baseline"));
        QVERIFY(!v.isSeriesVisible(ChartsView::LineTab, QStringLiteral("baseline")));
        // Stays hidden when points arrive and the chart is rebuilt.
        v.addPoint(point(QStringLiteral("blocking"), 1024, 30.0));
        QVERIFY(!v.isSeriesVisible(ChartsView::LineTab, QStringLiteral("baseline")));
        v.toggleSeries(QStringLiteral("baseline"));
        QVERIFY(v.isSeriesVisible(ChartsView::LineTab, QStringLiteral("baseline")));
        v.toggleSeries(QStringLiteral("OpenBLAS"));
        QVERIFY(!v.isSeriesVisible(ChartsView::LineTab, QStringLiteral("OpenBLAS 0.3.21")));
    }

    void csvContent()
    {
        ChartsView v;
        v.setSizeLabel({QStringLiteral("M"), QStringLiteral("N")});
        ChartPoint p = point(QStringLiteral("tiled, 32"), 64, 4.0);
        p.msMedian = 1.5;
        p.msMin = 1.25;
        p.msMax = 2;
        p.intensity = 8;
        v.addPoint(p);
        ChartPoint s = point(QStringLiteral("naive"), 128, 0);
        s.gflops = 0;
        s.skipped = true;
        s.checked = false;
        s.intensity = 16;
        v.addPoint(s);
        QCOMPARE(
            ChartExport(v).csv(),
            QStringLiteral("variant,M,N,ms_median,ms_min,ms_max,gflops,intensity,checked,skipped\n"
                           "\"tiled, 32\",64,64,1.5,1.25,2,4,8,true,false\n"
                           "naive,128,128,,,,,16,false,true\n"));
    }

    void exportsAndRenders()
    {
        ChartsView v;
        v.resize(900, 600);
        fill(v);
        v.setPeakGflops(100.0);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        for (auto tab : {ChartsView::LineTab, ChartsView::BarTab, ChartsView::RooflineTab}) {
            QString png = dir.filePath(QStringLiteral("chart%1.png").arg(int(tab)));
            QString svg = dir.filePath(QStringLiteral("chart%1.svg").arg(int(tab)));
            QVERIFY(ChartExport(v).png(png, tab));
            QVERIFY(ChartExport(v).svg(svg, tab));
            QImage image(png);
            QVERIFY(!image.isNull());
            QFile f(svg);
            QVERIFY(f.open(QIODevice::ReadOnly));
            QByteArray text = f.readAll();
            QVERIFY(text.contains("<svg"));
            QVERIFY(text.size() > 1000);
        }
        QString csv = dir.filePath(QStringLiteral("data.csv"));
        QVERIFY(ChartExport(v).csvFile(csv));
        QFile f(csv);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(f.readAll()), ChartExport(v).csv());

        QImage shot = v.grab().toImage();
        QVERIFY(!shot.isNull());
        // Something besides the background was drawn.
        QColor first = shot.pixelColor(shot.width() / 2, shot.height() / 2);
        bool varied = false;
        for (int y = 0; y < shot.height() && !varied; y += 7)
            for (int x = 0; x < shot.width() && !varied; x += 7)
                varied = shot.pixelColor(x, y) != first;
        QVERIFY(varied);
    }

    void theLegendIsWholeInTheWidgetAtEverySize()
    {
        const QString shots = qEnvironmentVariable("LOOPSCOPE_CHART_SHOTS"); // to look at them
        for (QSize size : {QSize(600, 400), QSize(420, 320), QSize(800, 500), QSize(1280, 800),
                           QSize(2400, 1400)}) {
            ChartsView v;
            fillMany(v);
            v.resize(size);
            v.show();
            QVERIFY(QTest::qWaitForWindowExposed(&v));
            for (auto tab : {ChartsView::LineTab, ChartsView::RooflineTab}) {
                v.setCurrentTab(tab);
                QApplication::processEvents();
                auto* view = v.findChild<QChartView*>(tab == ChartsView::LineTab
                                                          ? QStringLiteral("lineChart")
                                                          : QStringLiteral("rooflineChart"));
                QVERIFY(view);
                const QString where = QStringLiteral("%1x%2 tab %3")
                                          .arg(size.width())
                                          .arg(size.height())
                                          .arg(int(tab));
                // The chart fills the view, and the legend lies inside the chart.
                const QRectF chart = v.chartRect(tab);
                QVERIFY2(QRectF(QPointF(0, 0), view->viewport()->size()).contains(chart),
                         qPrintable(where));
                const QList<ChartsView::LegendEntry> legend = v.legendEntries(tab);
                checkLegend(legend, chart, v.plotArea(tab), legendNames(v, tab), where);
                QCOMPARE(legend.size(), tab == ChartsView::LineTab ? 14 : 14);
                // Drawn where it says: each variant's colour is inside its entry on screen.
                const QImage shot = view->grab().toImage();
                for (const auto& e : legend)
                    if (isVariant(e))
                        QVERIFY2(drawnIn(shot, e.rect, e.color), qPrintable(where + e.name));
                if (!shots.isEmpty())
                    shot.save(QStringLiteral("%1/widget-%2x%3-%4.png")
                                  .arg(shots)
                                  .arg(size.width())
                                  .arg(size.height())
                                  .arg(int(tab)));
            }
        }
    }

    void theLegendIsWholeInExportsAtEverySize()
    {
        ChartsView v;
        fillMany(v);
        v.resize(600, 400);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        QTemporaryDir dir;
        const QString shots = qEnvironmentVariable("LOOPSCOPE_CHART_SHOTS");
        for (QSize size : {QSize(480, 320), QSize(800, 500), QSize(1920, 1080)}) {
            for (auto tab : {ChartsView::LineTab, ChartsView::RooflineTab}) {
                QList<ChartsView::LegendEntry> legend;
                QRectF plot;
                const QImage image = ChartExport(v).image(tab, size, &legend, &plot);
                QCOMPARE(image.size(), size * 2);
                const QString where = QStringLiteral("export %1x%2 tab %3")
                                          .arg(size.width())
                                          .arg(size.height())
                                          .arg(int(tab));
                QVERIFY2(plot.width() > size.width() / 3.0 && plot.height() > size.height() / 4.0,
                         qPrintable(
                             where +
                             QStringLiteral(": plot %1x%2").arg(plot.width()).arg(plot.height())));
                checkLegend(legend, QRectF(QPointF(0, 0), size), plot, legendNames(v, tab), where);
                for (const auto& e : legend)
                    if (isVariant(e))
                        QVERIFY2(drawnIn(image, e.rect, e.color), qPrintable(where + e.name));
                if (!shots.isEmpty())
                    image.save(QStringLiteral("%1/export-%2x%3-%4.png")
                                   .arg(shots)
                                   .arg(size.width())
                                   .arg(size.height())
                                   .arg(int(tab)));
            }
        }
        // The files: PNG and SVG at the view's size (at least 800x500), the legend inside.
        for (auto tab : {ChartsView::LineTab, ChartsView::RooflineTab}) {
            QList<ChartsView::LegendEntry> legend;
            ChartExport(v).image(tab, QSize(800, 500), &legend);
            const QString png = dir.filePath(QStringLiteral("c%1.png").arg(int(tab)));
            const QString svg = dir.filePath(QStringLiteral("c%1.svg").arg(int(tab)));
            QVERIFY(ChartExport(v).png(png, tab));
            QVERIFY(ChartExport(v).svg(svg, tab));
            QImage fromPng(png);
            fromPng.setDevicePixelRatio(2);
            QSvgRenderer renderer(svg);
            QVERIFY(renderer.isValid());
            QImage fromSvg(QSize(800, 500), QImage::Format_ARGB32);
            fromSvg.fill(Qt::white);
            QPainter painter(&fromSvg);
            renderer.render(&painter);
            painter.end();
            checkLegend(legend, QRectF(0, 0, 800, 500), QRectF(), legendNames(v, tab),
                        QStringLiteral("files"));
            for (const auto& e : legend) {
                if (!isVariant(e)) continue;
                QVERIFY2(drawnIn(fromPng, e.rect, e.color), qPrintable(e.name));
                QVERIFY2(drawnIn(fromSvg, e.rect, e.color), qPrintable(e.name));
            }
            if (!shots.isEmpty()) fromSvg.save(shots + QStringLiteral("/svg-%1.png").arg(int(tab)));
        }
    }

    void twelveVariantsHaveTwelveStyles()
    {
        ChartsView v;
        fillMany(v);
        QSet<QRgb> colors;
        QSet<QPair<QRgb, int>> pairs;
        const QStringList variants = manyVariants();
        ChartsView::Marker previous = ChartsView::Marker::Star;
        for (const QString& variant : variants) {
            const ChartsView::SeriesStyle style = v.styleOf(variant);
            colors.insert(style.color.rgb());
            pairs.insert({style.color.rgb(), static_cast<int>(style.marker)});
            QVERIFY(style.marker != previous); // neighbours differ in shape too
            previous = style.marker;
        }
        QCOMPARE(colors.size(), 12);
        QCOMPARE(pairs.size(), 12);
        QVERIFY(!colors.contains(v.styleOf(QStringLiteral("OpenBLAS")).color.rgb()));
        // The series are drawn so: each line in its colour, with the image of its marker.
        auto* view = v.findChild<QChartView*>(QStringLiteral("lineChart"));
        QSet<qint64> markers;
        for (QAbstractSeries* s : view->chart()->series()) {
            auto* line = qobject_cast<QLineSeries*>(s);
            if (!line || !variants.contains(s->name())) continue;
            QCOMPARE(line->pen().color().rgb(), v.styleOf(s->name()).color.rgb());
            QVERIFY(!line->lightMarker().isNull());
            markers.insert(line->lightMarker().cacheKey());
        }
        QCOMPARE(markers.size(), 12);
        // The palette is the one documented: Okabe-Ito's first.
        QCOMPARE(ChartsView::seriesColors().size(), 12);
        QCOMPARE(ChartsView::seriesColors().first(), QColor(0x00, 0x72, 0xB2));
    }

    void hoveringAPointTellsVariantSizeMsAndGflops()
    {
        ChartsView v;
        fill(v);
        v.resize(900, 600);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        auto* view = v.findChild<QChartView*>(QStringLiteral("lineChart"));
        QLineSeries* blocking = nullptr;
        for (QAbstractSeries* s : view->chart()->series())
            if (s->name() == QStringLiteral("blocking")) blocking = qobject_cast<QLineSeries*>(s);
        QVERIFY(blocking);
        // Near the 128 point (blocking: 22 GFLOPS there).
        emit blocking->hovered(QPointF(120, 21.5), true);
        const ChartPoint expected = point(QStringLiteral("blocking"), 128, 22.0);
        const QString text = v.hoverText();
        QVERIFY2(text.startsWith(QStringLiteral("blocking\n")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("M = N = K = 128")), qPrintable(text));
        QVERIFY2(text.contains(QString::number(expected.msMedian, 'f', 3) + QStringLiteral(" ms")),
                 qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("22.00 GFLOPS")), qPrintable(text));
        QTRY_COMPARE(QToolTip::text(), text);
        emit blocking->hovered(QPointF(120, 21.5), false);
        QVERIFY(v.hoverText().isEmpty());

        // The roofline's points and the bars tell the same.
        auto* roofline = v.findChild<QChartView*>(QStringLiteral("rooflineChart"));
        QScatterSeries* baseline = nullptr;
        for (QAbstractSeries* s : roofline->chart()->series())
            if (s->name() == QStringLiteral("baseline"))
                baseline = qobject_cast<QScatterSeries*>(s);
        QVERIFY(baseline);
        const ChartPoint at256 = point(QStringLiteral("baseline"), 256, 2.0);
        emit baseline->hovered(QPointF(at256.intensity, 2.0), true);
        QVERIFY2(v.hoverText().contains(QStringLiteral("M = N = K = 256")),
                 qPrintable(v.hoverText()));
        QVERIFY2(v.hoverText().contains(QStringLiteral("2.00 GFLOPS")), qPrintable(v.hoverText()));
    }

    void clickingALegendEntryHidesItsSeries()
    {
        ChartsView v;
        fill(v);
        v.resize(900, 600);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        auto* view = v.findChild<QChartView*>(QStringLiteral("lineChart"));
        auto entry = [&](const QString& name) {
            for (const auto& e : v.legendEntries(ChartsView::LineTab))
                if (e.name == name) return e;
            return ChartsView::LegendEntry{};
        };
        auto click = [&](const QString& name) {
            const QPointF at = view->chart()->mapToScene(entry(name).rect.center());
            QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->mapFromScene(at));
        };
        QVERIFY(!entry(QStringLiteral("baseline")).rect.isEmpty());
        click(QStringLiteral("baseline"));
        QVERIFY(!v.isSeriesVisible(ChartsView::LineTab, QStringLiteral("baseline")));
        QVERIFY(entry(QStringLiteral("baseline")).hidden); // struck out, still listed
        QVERIFY(v.isSeriesVisible(ChartsView::LineTab, QStringLiteral("blocking")));
        click(QStringLiteral("baseline"));
        QVERIFY(v.isSeriesVisible(ChartsView::LineTab, QStringLiteral("baseline")));
        QVERIFY(!entry(QStringLiteral("baseline")).hidden);
    }

    void movingThePointerOntoAPointShowsItsTooltip()
    {
        ChartsView v;
        fill(v);
        v.resize(900, 600);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        auto* view = v.findChild<QChartView*>(QStringLiteral("lineChart"));
        QLineSeries* blocking = nullptr;
        for (QAbstractSeries* s : view->chart()->series())
            if (s->name() == QStringLiteral("blocking")) blocking = qobject_cast<QLineSeries*>(s);
        QVERIFY(blocking);
        const QPointF onChart = view->chart()->mapToPosition(QPointF(256, 24.0), blocking);
        const QPoint at = view->mapFromScene(view->chart()->mapToScene(onChart));
        QTest::mouseMove(view->viewport(), at + QPoint(-30, 0));
        QTest::mouseMove(view->viewport(), at);
        QTRY_VERIFY(v.hoverText().contains(QStringLiteral("M = N = K = 256")));
        QVERIFY(v.hoverText().startsWith(QStringLiteral("blocking\n")));
        QVERIFY(v.hoverText().contains(QStringLiteral("24.00 GFLOPS")));
    }

    void anExportNamedWithoutASuffixGetsOne()
    {
        ChartsView v;
        fill(v);
        v.resize(800, 500);
        QTemporaryDir dir;
        QVERIFY(ChartExport(v).png(dir.filePath(QStringLiteral("gemm")), ChartsView::LineTab));
        QVERIFY(QFile::exists(dir.filePath(QStringLiteral("gemm.png"))));
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("gemm"))));
        QCOMPARE(QImageReader(dir.filePath(QStringLiteral("gemm.png"))).format(),
                 QByteArray("png"));
        QVERIFY(ChartExport(v).svg(dir.filePath(QStringLiteral("gemm")), ChartsView::LineTab));
        QVERIFY(QFile::exists(dir.filePath(QStringLiteral("gemm.svg"))));
        QVERIFY(ChartExport(v).csvFile(dir.filePath(QStringLiteral("gemm"))));
        QVERIFY(QFile::exists(dir.filePath(QStringLiteral("gemm.csv"))));
        // A name with a suffix keeps it.
        QVERIFY(ChartExport(v).png(dir.filePath(QStringLiteral("chart.png")), ChartsView::BarTab));
        QVERIFY(QFile::exists(dir.filePath(QStringLiteral("chart.png"))));
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("chart.png.png"))));
        QCOMPARE(ChartExport::withSuffix(QStringLiteral("/a/b.c/chart"), QStringLiteral("svg")),
                 QStringLiteral("/a/b.c/chart.svg"));
    }

    void followsThePalette()
    {
        ChartsView v;
        fill(v);
        QPalette dark;
        dark.setColor(QPalette::Base, QColor(30, 30, 30));
        dark.setColor(QPalette::Text, QColor(230, 230, 230));
        dark.setColor(QPalette::Window, QColor(40, 40, 40));
        v.setPalette(dark);
        v.resize(800, 500);
        QImage shot = v.grab().toImage();
        // The chart background takes the palette's base color: the corner of the chart is dark.
        QVERIFY(shot.pixelColor(shot.width() - 5, shot.height() - 5).lightness() < 100);
    }
};

LOOPSCOPE_QTEST_MAIN(ChartsViewTest)
#include "ChartsViewTest.moc"
