#include "model/ModelGraphView.h"

#include "worker/WorkerReply.h"

#include <QGraphicsPathItem>
#include <QGraphicsRectItem>
#include <QGraphicsSimpleTextItem>
#include <QMouseEvent>
#include <QPainterPath>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace loopscope {

namespace {

constexpr double kNodeWidth = 150, kNodeHeight = 38;
constexpr double kColumn = 176, kRow = 70;
constexpr int kTaskRole = 0; // QGraphicsItem::data key: the task index

QString shortShape(const QString& shape)
{
    return shape.size() > 22 ? shape.left(20) + QStringLiteral("…") : shape;
}

} // namespace

ModelGraphView::ModelGraphView(QWidget* parent) : QGraphicsView(parent)
{
    setScene(new QGraphicsScene(this));
    setDragMode(QGraphicsView::ScrollHandDrag);
    setRenderHint(QPainter::Antialiasing);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setMinimumSize(240, 200);
    setAccessibleName(tr("Model graph"));
}

QColor ModelGraphView::heat(double share)
{
    if (share < 0) return QColor(0x9e, 0xa4, 0xad);
    // From a pale blue (a small share) through yellow to red (the task that takes the most).
    const double s = std::clamp(std::sqrt(share), 0.0, 1.0);
    const QColor cold(0x7f, 0xb3, 0xd5), warm(0xf4, 0xd0, 0x3f), hot(0xe0, 0x4a, 0x3b);
    auto mix = [](const QColor& a, const QColor& b, double t) {
        return QColor::fromRgbF(static_cast<float>(a.redF() + (b.redF() - a.redF()) * t),
                                static_cast<float>(a.greenF() + (b.greenF() - a.greenF()) * t),
                                static_cast<float>(a.blueF() + (b.blueF() - a.blueF()) * t));
    };
    return s < 0.5 ? mix(cold, warm, s * 2) : mix(warm, hot, (s - 0.5) * 2);
}

void ModelGraphView::setModel(const protocol::ModelReply& model)
{
    const auto q = [](const std::string& s) { return QString::fromStdString(s); };
    if (q(model.model) == m_modelPath && std::size_t(m_nodeCount) == model.nodes.size() &&
        !m_frames.isEmpty()) {
        recolour(model);
        return;
    }
    m_modelPath = q(model.model);
    m_nodeCount = static_cast<int>(model.nodes.size());
    m_frames.clear();
    m_selected = -1;
    QGraphicsScene* s = scene();
    s->clear();

    // Sources: the graph's inputs, then the nodes (every node after those it reads).
    const int inputs = static_cast<int>(model.inputs.size());
    const int n = inputs + m_nodeCount;
    QHash<QString, int> producer;
    for (int i = 0; i < inputs; ++i)
        producer.insert(q(model.inputs[std::size_t(i)].name), i);
    for (int i = 0; i < m_nodeCount; ++i)
        for (const protocol::NamedShape& o : model.nodes[std::size_t(i)].outputs)
            producer.insert(q(o.name), inputs + i);
    std::vector<std::vector<int>> preds(static_cast<std::size_t>(n));
    std::vector<int> layer(static_cast<std::size_t>(n), 0);
    for (int i = 0; i < m_nodeCount; ++i) {
        const int k = inputs + i;
        for (const std::string& in : model.nodes[std::size_t(i)].inputs) {
            auto it = producer.find(q(in));
            if (it == producer.end() || it.value() == k) continue;
            preds[static_cast<std::size_t>(k)].push_back(it.value());
            layer[static_cast<std::size_t>(k)] =
                std::max(layer[static_cast<std::size_t>(k)],
                         layer[static_cast<std::size_t>(it.value())] + 1);
        }
    }
    // Columns: each layer's items in the order of their predecessors' mean column, kept near it.
    std::vector<double> x(static_cast<std::size_t>(n), 0);
    const int layers = n ? *std::max_element(layer.begin(), layer.end()) + 1 : 0;
    for (int l = 0; l < layers; ++l) {
        std::vector<std::pair<double, int>> row;
        for (int k = 0; k < n; ++k) {
            if (layer[static_cast<std::size_t>(k)] != l) continue;
            double want = static_cast<double>(row.size());
            const auto& p = preds[static_cast<std::size_t>(k)];
            if (!p.empty()) {
                want = 0;
                for (int q : p)
                    want += x[static_cast<std::size_t>(q)];
                want /= static_cast<double>(p.size());
            }
            row.emplace_back(want, k);
        }
        std::stable_sort(row.begin(), row.end());
        double last = -1e9;
        for (auto& [want, k] : row) {
            const double at = std::max(want, last + 1);
            x[static_cast<std::size_t>(k)] = at;
            last = at;
        }
    }
    auto rectOf = [&](int k) {
        return QRectF(x[static_cast<std::size_t>(k)] * kColumn,
                      layer[static_cast<std::size_t>(k)] * kRow, kNodeWidth, kNodeHeight);
    };

    const QPalette pal = palette();
    const QColor text = pal.color(QPalette::Text);
    QPen edgePen(pal.color(QPalette::Mid), 1.4);
    for (int k = inputs; k < n; ++k)
        for (int q : preds[static_cast<std::size_t>(k)]) {
            const QRectF a = rectOf(q), b = rectOf(k);
            QPainterPath path(QPointF(a.center().x(), a.bottom()));
            const double mid = (a.bottom() + b.top()) / 2;
            path.cubicTo(QPointF(a.center().x(), mid), QPointF(b.center().x(), mid),
                         QPointF(b.center().x(), b.top()));
            s->addPath(path, edgePen)->setZValue(-2);
        }
    // Task frames behind their nodes.
    QHash<int, QRectF> frames;
    for (int i = 0; i < m_nodeCount; ++i) {
        const int t = model.nodes[std::size_t(i)].task;
        if (t < 0) continue;
        const QRectF r = rectOf(inputs + i).adjusted(-8, -16, 8, 8);
        frames[t] = frames.contains(t) ? frames[t].united(r) : r;
    }
    for (auto it = frames.begin(); it != frames.end(); ++it) {
        QPainterPath path;
        path.addRoundedRect(it.value(), 10, 10);
        auto* frame = s->addPath(path, QPen(pal.color(QPalette::Dark), 1.2));
        frame->setZValue(-1);
        frame->setData(kTaskRole, it.key());
        if (std::size_t(it.key()) < model.tasks.size()) {
            const auto& task = model.tasks[std::size_t(it.key())];
            frame->setToolTip(tr("%1 (weight %2): %3")
                                  .arg(q(task.name))
                                  .arg(task.weight)
                                  .arg(worker::qsList(task.nodes).join(QStringLiteral(" → "))));
            auto* label = s->addSimpleText(q(task.name));
            QFont f = font();
            f.setPointSizeF(f.pointSizeF() * 0.8);
            label->setFont(f);
            label->setBrush(text);
            label->setPos(it.value().left() + 6, it.value().top() + 1);
            label->setData(kTaskRole, it.key());
        }
        m_frames.insert(it.key(), frame);
    }
    for (int k = 0; k < n; ++k) {
        const QRectF r = rectOf(k);
        const bool isInput = k < inputs;
        const protocol::ModelNode* node = isInput ? nullptr : &model.nodes[std::size_t(k - inputs)];
        QPainterPath box;
        box.addRoundedRect(r, isInput ? kNodeHeight / 2 : 5, isInput ? kNodeHeight / 2 : 5);
        QPen pen(text, 1);
        if (node && node->task < 0) pen.setStyle(Qt::DashLine);
        auto* item = s->addPath(box, pen, pal.color(QPalette::Base));
        item->setData(kTaskRole, node ? node->task : -1);
        const QString title = isInput ? q(model.inputs[std::size_t(k)].name) : q(node->op);
        const QString shape = isInput                 ? q(model.inputs[std::size_t(k)].shape)
                              : node->outputs.empty() ? QString()
                                                      : q(node->outputs.front().shape);
        item->setToolTip(
            isInput
                ? tr("input %1: %2").arg(title, shape)
                : tr("%1 (%2) → %3%4")
                      .arg(q(node->name), q(node->op), shape,
                           node->task < 0 ? tr("\nnot computed: a view of its input") : QString()));
        auto* t1 = s->addSimpleText(title);
        QFont bold = font();
        bold.setBold(true);
        t1->setFont(bold);
        t1->setBrush(text);
        t1->setPos(r.center().x() - t1->boundingRect().width() / 2, r.top() + 2);
        t1->setData(kTaskRole, node ? node->task : -1);
        auto* t2 = s->addSimpleText(shortShape(shape));
        QFont small = font();
        small.setPointSizeF(small.pointSizeF() * 0.8);
        t2->setFont(small);
        t2->setBrush(pal.color(QPalette::PlaceholderText));
        t2->setPos(r.center().x() - t2->boundingRect().width() / 2, r.top() + 19);
        t2->setData(kTaskRole, node ? node->task : -1);
    }
    s->setSceneRect(s->itemsBoundingRect().adjusted(-20, -20, 20, 20));
    recolour(model);
}

void ModelGraphView::recolour(const protocol::ModelReply& model)
{
    for (auto it = m_frames.begin(); it != m_frames.end(); ++it) {
        const int t = it.key();
        const protocol::ModelTask* task =
            t >= 0 && std::size_t(t) < model.tasks.size() ? &model.tasks[std::size_t(t)] : nullptr;
        const bool measured = task && task->measured;
        QColor c = heat(measured ? task->share : -1);
        c.setAlpha(measured ? 170 : 70);
        it.value()->setBrush(c);
        QPen pen = it.value()->pen();
        const bool wrong = task && task->checked && !task->ok;
        pen.setColor(wrong ? QColor(0xc0, 0x1c, 0x28) : palette().color(QPalette::Dark));
        pen.setWidthF(t == m_selected ? 3.0 : (wrong ? 2.5 : 1.2));
        it.value()->setPen(pen);
        if (measured)
            it.value()->setToolTip(
                tr("%1 (weight %2): %3 ms, %4% of the model's time, %5 GFLOPS\n%6")
                    .arg(QString::fromStdString(task->name))
                    .arg(task->weight)
                    .arg(task->ms, 0, 'f', 3)
                    .arg(task->share * 100, 0, 'f', 1)
                    .arg(task->gflops, 0, 'f', 1)
                    .arg(QString::fromStdString(task->source)));
    }
}

void ModelGraphView::selectTask(int task)
{
    if (m_selected == task) return;
    auto restyle = [&](int t, double width) {
        if (auto* f = m_frames.value(t)) {
            QPen pen = f->pen();
            pen.setWidthF(width);
            f->setPen(pen);
        }
    };
    restyle(m_selected, 1.2);
    m_selected = task;
    restyle(task, 3.0);
    if (auto* f = m_frames.value(task)) ensureVisible(f, 40, 40);
}

void ModelGraphView::fit()
{
    if (!scene()) return;
    fitInView(scene()->sceneRect(), Qt::KeepAspectRatio);
    // Not smaller than legible for a long graph: the width fits, the height scrolls.
    const QRectF r = scene()->sceneRect();
    if (r.width() > 0 && transform().m11() < 0.35) {
        const double s = std::min(1.0, viewport()->width() / r.width());
        setTransform(QTransform::fromScale(std::max(s, 0.35), std::max(s, 0.35)));
        centerOn(r.center().x(), r.top());
    }
}

QHash<int, QRectF> ModelGraphView::taskFrames() const
{
    QHash<int, QRectF> out;
    for (auto it = m_frames.begin(); it != m_frames.end(); ++it)
        out.insert(it.key(), it.value()->boundingRect());
    return out;
}

void ModelGraphView::wheelEvent(QWheelEvent* event)
{
    const double steps = event->angleDelta().y() / 120.0;
    const double factor = std::pow(1.2, steps);
    const double next = transform().m11() * factor;
    if (next < 0.05 || next > 6) return;
    scale(factor, factor);
    event->accept();
}

void ModelGraphView::mousePressEvent(QMouseEvent* event)
{
    if (event->button() == Qt::LeftButton) {
        for (QGraphicsItem* item : items(event->position().toPoint())) {
            const QVariant t = item->data(kTaskRole);
            if (t.isValid() && t.toInt() >= 0) {
                emit taskClicked(t.toInt());
                break;
            }
        }
    }
    QGraphicsView::mousePressEvent(event);
}

} // namespace loopscope
