// The tuning run's convergence chart (wraps Qt Charts): every measured candidate as a dot at
// its trial (failed ones on the axis, in another colour), the best so far as a rising step line,
// and the machine's peak and the reference library (OpenBLAS, oneDNN) as flat lines. Speeds are
// GFLOPS, or runs per second for a program without arithmetic.
#pragma once

#include <QString>
#include <QWidget>

class QChartView;
class QLabel;
class QLineSeries;
class QScatterSeries;
class QValueAxis;

namespace loopscope {

class TuneChart : public QWidget {
    Q_OBJECT

public:
    explicit TuneChart(QWidget* parent = nullptr);

    // An empty chart for a run of `planned` trials (0: unknown), speeds in GFLOPS or not.
    void begin(int planned, bool gflops = true);
    // One measured trial (`speed` <= 0 or !ok: failed).
    void addTrial(int trial, double speed, bool ok);
    void setReference(const QString& name, double speed); // name empty: none
    void setPeak(double gflops);                          // 0: none
    // The fastest of the script's own variants (name empty: none).
    void setHand(const QString& name, double speed);

    int trials() const { return m_trials; }
    double best() const { return m_best; }
    QChartView* view() const { return m_view; }
    // "12 measured, 2 failed, best 180.3 at trial 9": what the chart shows, for tests and tips.
    QString summary() const;
    QString legendText() const;

private:
    void updateAxes();
    void updateFlatLines();
    void updateLegend();

    QChartView* m_view = nullptr;
    QScatterSeries* m_measured = nullptr;
    QScatterSeries* m_failed = nullptr;
    QLineSeries* m_bestLine = nullptr;
    QLineSeries* m_referenceLine = nullptr;
    QLineSeries* m_peakLine = nullptr;
    QLineSeries* m_handLine = nullptr;
    QValueAxis* m_x = nullptr;
    QValueAxis* m_y = nullptr;
    QLabel* m_legend = nullptr; // wraps, so no name is ever cut
    QString m_referenceName, m_handName;
    int m_planned = 0;
    int m_trials = 0;
    int m_failedCount = 0;
    int m_bestTrial = 0;
    double m_best = 0;
    double m_top = 0;
    double m_reference = 0;
    double m_peak = 0;
    double m_hand = 0;
    bool m_gflops = true;
};

} // namespace loopscope
