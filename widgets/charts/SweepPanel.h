// The sweep's settings above the charts: which parameters to sweep together and over which
// values, which variants, the per-point limit and the reference library, with Start/Cancel and a
// progress bar (points done of total, time left); it builds the worker's sweep request.
#pragma once

#include "charts/ChartsView.h"
#include "explore/Explorer.h"
#include "protocol/Messages.h"

#include <QElapsedTimer>
#include <QList>
#include <QSet>
#include <QString>
#include <QStringList>
#include <QWidget>

class QCheckBox;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QListWidget;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace loopscope {

class SweepPanel : public QWidget {
    Q_OBJECT
public:
    explicit SweepPanel(QWidget* parent = nullptr);
    ~SweepPanel() override;

    // Offers the analysis' parameters and variants; choices made before are kept by name.
    void setExploration(ExplorationPtr exploration);

    // The choices (checked parameters and variants in script order; values as typed, empty when
    // the text is not a list of positive integers).
    QStringList parameters() const;
    QStringList variants() const;
    QList<qint64> values() const;
    int pointLimitSeconds() const;
    bool reference() const;

    void setParameterChecked(const QString& name, bool checked);
    void setVariantChecked(const QString& name, bool checked);
    void setValuesText(const QString& text);
    QString valuesText() const;
    void setPointLimitSeconds(int seconds);
    void setReference(bool on);

    // The sweep of the script these choices make: parameters, values, variants, the per-point
    // limit and the reference library (the rest as the request's defaults).
    protocol::SweepRequest sweepRequest(const QString& script) const;
    // The number of points the current choices make (the reference's not counted).
    int pointTotal() const;

    bool isRunning() const { return m_running; }
    bool canStart() const;
    QString progressText() const;

    // For tests: the buttons as a user presses them.
    QPushButton* startButton() const { return m_start; }
    QPushButton* cancelButton() const { return m_cancel; }

public slots:
    void setProgress(int done, int total);
    void setRunning(bool running);

signals:
    void startRequested();
    void cancelRequested();

private:
    void updateButtons();
    static QString formatDuration(qint64 ms);
    // Predicted from how long the sizes swept so far took.
    qint64 timeLeftMs(int done, int total, int perValue) const;

    QWidget* m_parameterBox = nullptr;
    QHBoxLayout* m_parameterLayout = nullptr;
    QList<QCheckBox*> m_parameterChecks;
    QListWidget* m_variantList = nullptr;
    QLineEdit* m_values = nullptr;
    QSpinBox* m_limit = nullptr;
    QCheckBox* m_reference = nullptr;
    QPushButton* m_start = nullptr;
    QPushButton* m_cancel = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_noParameters = nullptr;

    QSet<QString> m_uncheckedVariants; // remembered by name across analyses
    QSet<QString> m_parameterChoice;   // parameters the user checked or unchecked ...
    QSet<QString> m_parameterOn;       // ... and which of them are on
    bool m_running = false;
    QElapsedTimer m_clock;
    QList<qint64> m_valueEndsMs; // when each size's last point came in (ms since the start)
};

} // namespace loopscope
