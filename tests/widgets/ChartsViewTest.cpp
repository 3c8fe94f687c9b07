// ChartsView offscreen: one line per variant with one point per measured size, the peak and the
// dashed OpenBLAS line, the bar chart at one size, the roofline, legend toggles, CSV content and
// PNG / SVG / CSV export files, and rendering with grab().
#include "charts/ChartsView.h"

#include <QFile>
#include <QImage>
#include <QPixmap>
#include <QTemporaryDir>
#include <QtTest>

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
            v.csv(),
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
            QVERIFY(v.exportPng(png, tab));
            QVERIFY(v.exportSvg(svg, tab));
            QImage image(png);
            QVERIFY(!image.isNull());
            QFile f(svg);
            QVERIFY(f.open(QIODevice::ReadOnly));
            QByteArray text = f.readAll();
            QVERIFY(text.contains("<svg"));
            QVERIFY(text.size() > 1000);
        }
        QString csv = dir.filePath(QStringLiteral("data.csv"));
        QVERIFY(v.exportCsv(csv));
        QFile f(csv);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(f.readAll()), v.csv());

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

QTEST_MAIN(ChartsViewTest)
#include "ChartsViewTest.moc"
