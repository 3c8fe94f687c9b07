// The Tune panel: the budget (trials or a time limit), the primitives the tuner must not write,
// start, cancel, resume and "best from log"; progress with trials done, the best speed and the
// time left; the convergence chart; the best candidate's loop nest with what it changed against
// the starting variant, its statements, and "Add as Variant". Running the tuner is the window's
// (through TuneService); the panel only shows and asks.
#pragma once

#include "protocol/Messages.h"

#include <QStringList>
#include <QWidget>

class QCheckBox;
class QLabel;
class QMenu;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTabWidget;
class QToolButton;

namespace loopscope {

class TirEditor;
class TuneChart;

class TunePanel : public QWidget {
    Q_OBJECT

public:
    explicit TunePanel(QWidget* parent = nullptr);

    // The variant a run starts from (the one the editor shows); empty: none can start.
    void setVariant(const QString& name);
    QString variant() const { return m_variant; }
    // Why nothing can be tuned now (the script has an error); empty when it can.
    void setBlocked(const QString& why);
    void setPeak(double gflops);
    double peak() const { return m_peak; }

    // The choices.
    int trials() const;     // 0 with a time limit alone
    double seconds() const; // 0: no time limit
    QStringList forbidden() const;
    void setTrials(int trials);

    // A run started (the panel shows it running), went on, ended.
    void begin(const QString& variant, int planned);
    void showProgress(const protocol::TuneUpdate& progress);
    void showResult(const protocol::TuneReply& result);
    void showFailure(const QString& message);
    void showCancelled();

    bool running() const { return m_running; }
    QString statusText() const;
    QString bestText() const;
    QStringList bestStatements() const { return m_statements; }
    QString bestName() const { return m_name; }
    TuneChart* chart() const { return m_chart; }
    TirEditor* loopNest() const { return m_loopNest; }
    QPushButton* addButton() const { return m_add; }
    QPushButton* startButton() const { return m_start; }

signals:
    // Tune from the variant: a fresh run, one that resumes the script's tuning log, or only the
    // log's best (no trials).
    void startRequested(bool resume, bool logOnly);
    void cancelRequested();
    // The best candidate, to be written into the script after its starting variant.
    void addVariantRequested(const QString& start, const QString& name,
                             const QStringList& statements);

private:
    void setRunning(bool running);
    void updateButtons();
    void showBest();

    QString m_variant;
    QString m_blocked;
    QString m_startVariant; // the variant the shown run started from
    QString m_name;         // the new variant's name
    QStringList m_statements;
    QString m_startTir, m_bestTir;
    QString m_referenceName;
    double m_referenceGflops = 0;
    QString m_handName; // the fastest of the script's own variants
    double m_handGflops = 0, m_handMs = 0;
    double m_bestGflops = 0, m_bestMs = 0;
    int m_bestTrial = 0;
    bool m_running = false;
    bool m_gflops = true;
    double m_peak = 0;

    QLabel* m_variantLabel = nullptr;
    QSpinBox* m_trials = nullptr;
    QCheckBox* m_useTime = nullptr;
    QSpinBox* m_seconds = nullptr;
    QToolButton* m_forbid = nullptr;
    QMenu* m_forbidMenu = nullptr;
    QPushButton* m_start = nullptr;
    QPushButton* m_resume = nullptr;
    QPushButton* m_fromLog = nullptr;
    QPushButton* m_cancel = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_status = nullptr;
    TuneChart* m_chart = nullptr;
    QLabel* m_best = nullptr;
    QPushButton* m_add = nullptr;
    QTabWidget* m_tabs = nullptr;
    TirEditor* m_loopNest = nullptr;
    QPlainTextEdit* m_statementsView = nullptr;
};

} // namespace loopscope
