// The model's graph: one box per operator node, laid out in layers from the inputs down, each
// fused task drawn as a rounded frame around its nodes, coloured by its share of the model's time
// once the model has run (cool to hot), grey before. Views (Reshape, Flatten) no task computes
// are dashed. The wheel zooms at the cursor, a drag pans, a click on a node selects its task.
#pragma once

#include "protocol/Messages.h"

#include <QGraphicsView>
#include <QHash>

class QGraphicsRectItem;
class QGraphicsPathItem;

namespace loopscope {

class ModelGraphView : public QGraphicsView {
    Q_OBJECT

public:
    explicit ModelGraphView(QWidget* parent = nullptr);

    // Draws the graph anew (a model's first answer); later answers of the same model recolour.
    void setModel(const protocol::ModelReply& model);
    // Highlights a task's frame and brings it into view (-1: none).
    void selectTask(int task);
    int selectedTask() const { return m_selected; }
    // The whole graph in view.
    void fit();
    double zoom() const { return transform().m11(); }
    // Frames drawn, for tests: task index -> its rectangle in scene coordinates.
    QHash<int, QRectF> taskFrames() const;
    int nodeCount() const { return m_nodeCount; }

    // The colour of a task's frame for its share of the time (0..1); grey for a negative share.
    static QColor heat(double share);

signals:
    void taskClicked(int task);

protected:
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;

private:
    void recolour(const protocol::ModelReply& model);

    QHash<int, QGraphicsPathItem*> m_frames; // task -> frame
    QString m_modelPath;
    int m_nodeCount = 0;
    int m_selected = -1;
};

} // namespace loopscope
