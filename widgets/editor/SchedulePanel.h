// The schedule panel: the stages of the selected variant, the loop axes of the selected stage, and
// an action for every schedule primitive that writes the equivalent statement (never applies it
// itself: the script stays the single source of truth).
#pragma once

#include "editor/StatementWriter.h"
#include "explore/Explorer.h"

#include <QStringList>
#include <QWidget>

#include <memory>
#include <vector>

class QAction;

namespace loopscope {

class SchedulePanel : public QWidget {
    Q_OBJECT

public:
    explicit SchedulePanel(QWidget* parent = nullptr);
    ~SchedulePanel() override;

    // The stages after the selected step of the selected variant, and what the script calls
    // things there. Keeps the selected stage and axes where they still exist.
    void setStages(std::vector<StageInfo> stages, ScheduleContext context);
    void clear();

    bool selectStage(const QString& stage);
    // Selects a loop by AxisInfo::name ("i_outer") or AxisInfo::var ("i.outer").
    bool selectAxis(const QString& stage, const QString& axis);
    QString selectedStage() const;
    QStringList selectedAxes() const; // AxisInfo::var, outer to inner

    // The action of a primitive, by its script name ("split", "cache_read", ...), plus
    // "reorder_outer" / "reorder_inner" (move the selected loop one place out / in) and
    // "new_variant". Disabled actions carry the reason in their tool tip.
    QAction* primitiveAction(const QString& name) const;

    // While `reason` is not empty, every action is disabled and says why (the script has an
    // error: what the panel shows is the last good state).
    void setUnavailable(const QString& reason);
    QString unavailable() const;

signals:
    void statementRequested(const QString& statement);
    void newVariantRequested();
    void stageSelected(const QString& stage);
    void axisSelected(const QString& stage, const QString& axisVar);

private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace loopscope
