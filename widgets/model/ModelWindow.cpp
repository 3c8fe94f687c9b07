#include "model/ModelWindow.h"

#include "model/ModelGraphView.h"
#include "model/TaskTableModel.h"
#include "te/Program.h"
#include "worker/WorkerClient.h"

#include <QAction>
#include <QCheckBox>
#include <QDir>
#include <QFileInfo>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QProgressBar>
#include <QSaveFile>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QTableView>
#include <QTimer>
#include <QToolBar>

#include <set>

namespace loopscope {

using worker::qs;

namespace {

QString readText(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QString::fromUtf8(f.readAll());
}

} // namespace

ModelWindow::ModelWindow(QWidget* parent) : QMainWindow(parent), m_worker(new WorkerClient(this))
{
    setWindowFlag(Qt::Window);
    setAttribute(Qt::WA_DeleteOnClose, false);
    m_worker->setTimeLimitMs(30 * 60 * 1000); // a large model's reference check takes minutes
    resize(1100, 760);

    QToolBar* bar = addToolBar(tr("Model"));
    bar->setObjectName(QStringLiteral("modelToolBar"));
    m_runAction = bar->addAction(tr("Run Model"), this, &ModelWindow::runModel);
    m_runAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    m_runAction->setToolTip(tr("Compile every task with its schedule, run the model end to end, "
                               "check it against the reference and time it (Ctrl+R)"));
    m_check = new QCheckBox(tr("Check"), this);
    m_check->setChecked(true);
    m_check->setToolTip(tr("Compare every task's output with the reference interpreter (float64), "
                           "each on the reference's inputs, and the outputs end to end"));
    bar->addWidget(m_check);
    bar->addWidget(new QLabel(tr("  Threads "), this));
    m_threads = new QSpinBox(this);
    m_threads->setRange(0, 256);
    m_threads->setSpecialValueText(tr("all"));
    m_threads->setAccessibleName(tr("Threads"));
    bar->addWidget(m_threads);
    bar->addSeparator();
    m_openAction =
        bar->addAction(tr("Open as Script"), this, [this] { openTaskAsScript(selectedTask()); });
    m_openAction->setToolTip(tr("Open the selected task as a TE script in the main window, to "
                                "schedule it by hand or tune it"));
    m_variantAction = bar->addAction(tr("Use Variant…"), this, [this] {
        const int t = selectedTask();
        if (t < 0) return;
        const QString text = readText(taskScriptPath(t));
        EvalResult e = evaluateScript(text.isEmpty() ? m_result.tasks[std::size_t(t)].script
                                                     : text.toStdString());
        QStringList names;
        if (e.ok)
            for (auto& v : e.program.variants)
                names << QString::fromStdString(v.name);
        if (names.isEmpty()) return;
        bool ok = false;
        const QString v = QInputDialog::getItem(
            this, tr("Use Variant"),
            tr("Variant of %1 the model runs:").arg(qs(m_result.tasks[std::size_t(t)].name)), names,
            0, false, &ok);
        if (ok) useVariant(t, v);
    });
    bar->addAction(tr("Fit"), this, [this] { m_graph->fit(); });

    auto* split = new QSplitter(Qt::Vertical, this);
    m_graph = new ModelGraphView(split);
    m_tasks = new TaskTableModel(this);
    m_sorted = new QSortFilterProxyModel(this);
    m_sorted->setSourceModel(m_tasks);
    m_sorted->setSortRole(TaskTableModel::SortRole);
    m_table = new QTableView(split);
    m_table->setModel(m_sorted);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(TaskTableModel::Operators,
                                                      QHeaderView::Stretch);
    m_table->setAccessibleName(tr("Tasks"));
    split->addWidget(m_graph);
    split->addWidget(m_table);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setSizes({460, 300});
    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);
    setCentralWidget(split);

    m_status = new QLabel(this);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_progress = new QProgressBar(this);
    m_progress->setMaximumWidth(160);
    m_progress->setRange(0, 0);
    m_progress->hide();
    statusBar()->addWidget(m_status, 1);
    statusBar()->addPermanentWidget(m_progress);

    connect(m_graph, &ModelGraphView::taskClicked, this, &ModelWindow::selectTask);
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        m_graph->selectTask(selectedTask());
        const bool any = selectedTask() >= 0;
        m_openAction->setEnabled(any);
        m_variantAction->setEnabled(any);
    });
    connect(m_table, &QTableView::doubleClicked, this,
            [this](const QModelIndex&) { openTaskAsScript(selectedTask()); });
    connect(m_worker, &WorkerClient::progress, this,
            [this](int, const QString& phase, double) { m_progress->setFormat(phase); });
    m_openAction->setEnabled(false);
    m_variantAction->setEnabled(false);
    m_runAction->setEnabled(false);
}

void ModelWindow::openModel(const QString& path)
{
    m_path = QFileInfo(path).absoluteFilePath();
    m_result = {};
    setWindowTitle(tr("%1 — Loopscope model").arg(QFileInfo(path).fileName()));
    request(false);
}

void ModelWindow::runModel()
{
    if (!m_path.isEmpty()) request(true);
}

void ModelWindow::request(bool run)
{
    if (m_pending >= 0) m_worker->cancel(m_pending);
    protocol::ModelRequest r;
    r.model = m_path.toStdString();
    r.run = run;
    r.check = m_check->isChecked();
    r.threads = m_threads->value();
    setBusy(true, run ? tr("Compiling, checking and timing %1…").arg(QFileInfo(m_path).fileName())
                      : tr("Reading %1…").arg(QFileInfo(m_path).fileName()));
    m_pending =
        m_worker->submit(r, this, [this, run](const worker::Reply<protocol::ModelReply>& reply) {
            m_pending = -1;
            setBusy(false);
            if (reply.cancelled()) return;
            if (!reply.answered()) {
                const QString name = QFileInfo(m_path).fileName();
                m_status->setText(reply.message().startsWith(name)
                                      ? reply.message()
                                      : tr("%1: %2").arg(name, reply.message()));
                emit failed(reply.message());
                return;
            }
            showResult(reply.result);
            if (run)
                emit modelRan();
            else
                emit modelLoaded();
        });
}

void ModelWindow::setBusy(bool busy, const QString& what)
{
    m_progress->setVisible(busy);
    m_runAction->setEnabled(!busy && !m_path.isEmpty());
    if (busy) m_status->setText(what);
}

void ModelWindow::showResult(const protocol::ModelReply& r)
{
    const bool first = m_result.nodes.empty();
    const int selected = selectedTask();
    m_result = r;
    m_graph->setModel(r);
    if (first) QTimer::singleShot(0, m_graph, &ModelGraphView::fit); // once laid out
    fillTable();
    if (selected >= 0) selectTask(selected);
    std::set<std::string> workloads;
    for (auto& t : r.tasks)
        workloads.insert(t.workload);
    QString s = tr("%1: %2 nodes, %3 tasks (%4 workloads)")
                    .arg(QFileInfo(m_path).fileName())
                    .arg(r.nodes.size())
                    .arg(r.tasks.size())
                    .arg(workloads.size());
    if (r.ran) {
        s += tr("; end to end %1 ms median (%2–%3, %4 threads), compiled in %5 ms")
                 .arg(r.medianMs, 0, 'f', 2)
                 .arg(r.minMs, 0, 'f', 2)
                 .arg(r.maxMs, 0, 'f', 2)
                 .arg(r.threads)
                 .arg(r.compileMs, 0, 'f', 0);
        if (r.checked)
            s += r.checkPassed ? tr("; check: every task matches the reference")
                 : !r.firstWrongTask.empty()
                     ? tr("; check: task %1 computes wrong numbers").arg(qs(r.firstWrongTask))
                     : tr("; check: the outputs differ from the reference");
    } else {
        s += tr(" — Run Model (Ctrl+R) to time and check it");
    }
    if (!r.project.empty()) s += tr("; schedules from %1").arg(QFileInfo(qs(r.project)).fileName());
    std::set<std::string> stale;
    for (auto& t : r.tasks)
        if (!t.stale.empty()) stale.insert(t.workload);
    if (!stale.empty())
        s += (stale.size() == 1
                  ? tr("\n⚠ One task's schedule may no longer be its fastest (marked in "
                       "Schedule): ")
                  : tr("\n⚠ %1 tasks' schedules may no longer be their fastest (marked in "
                       "Schedule): ")
                        .arg(stale.size())) +
             tr("`loopscope-cli model tune %1 --trials 0` times them again")
                 .arg(QFileInfo(m_path).fileName());
    if (!r.notes.empty())
        s += QStringLiteral("\n") + worker::qsList(r.notes).join(QStringLiteral("\n"));
    m_status->setText(s);
}

void ModelWindow::fillTable()
{
    m_table->setSortingEnabled(false);
    m_tasks->setResult(m_result);
    if (m_result.ran) {
        // The costliest first.
        m_table->horizontalHeader()->setSortIndicatorShown(true);
        m_table->sortByColumn(TaskTableModel::WeightMs, Qt::DescendingOrder);
        m_table->setSortingEnabled(true);
    } else {
        // In the order the tasks run, until a header is clicked.
        m_sorted->sort(-1);
        m_table->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
        m_table->setSortingEnabled(true);
        m_table->horizontalHeader()->setSortIndicatorShown(false);
    }
    // What the tasks compute in, shown where a task is not all float32 (a quantized model).
    bool quantized = false;
    for (const protocol::ModelTask& t : m_result.tasks)
        quantized = quantized || (!t.arithmetic.empty() && t.arithmetic != "float32");
    m_table->setColumnHidden(TaskTableModel::Arithmetic, !quantized);
    m_table->resizeColumnsToContents();
    m_table->horizontalHeader()->setSectionResizeMode(TaskTableModel::Operators,
                                                      QHeaderView::Stretch);
}

int ModelWindow::selectedTask() const
{
    const auto rows = m_table->selectionModel()->selectedRows();
    if (rows.isEmpty()) return -1;
    return rows.first().data(TaskTableModel::TaskIndexRole).toInt();
}

void ModelWindow::selectTask(int task)
{
    if (task < 0 || task >= taskCount()) return;
    const int row = m_tasks->rowOfTask(task);
    if (row >= 0) {
        const QModelIndex shown =
            m_sorted->mapFromSource(m_tasks->index(row, TaskTableModel::Task));
        m_table->selectRow(shown.row());
        m_table->scrollTo(shown);
    }
    m_graph->selectTask(task);
}

QString ModelWindow::statusText() const
{
    return m_status->text();
}

QString ModelWindow::projectFolder() const
{
    return QFileInfo(m_path).absolutePath();
}

QString ModelWindow::taskFolder() const
{
    return projectFolder() + QLatin1Char('/') + QFileInfo(m_path).completeBaseName() +
           QStringLiteral(".tasks");
}

QString ModelWindow::taskScriptPath(int task) const
{
    if (task < 0 || task >= taskCount()) return {};
    const auto& t = m_result.tasks[std::size_t(task)];
    if (!t.scriptFile.empty()) return QDir(projectFolder()).absoluteFilePath(qs(t.scriptFile));
    // A task of the same workload may have its script already.
    for (auto& other : m_result.tasks)
        if (other.workload == t.workload && !other.scriptFile.empty())
            return QDir(projectFolder()).absoluteFilePath(qs(other.scriptFile));
    return taskFolder() + QLatin1Char('/') + qs(t.name) + QStringLiteral(".py");
}

void ModelWindow::openTaskAsScript(int task)
{
    if (task < 0 || task >= taskCount()) return;
    const auto& t = m_result.tasks[std::size_t(task)];
    const QString path = taskScriptPath(task);
    if (!QFileInfo::exists(path)) {
        QDir().mkpath(QFileInfo(path).absolutePath());
        QSaveFile f(path);
        if (!f.open(QIODevice::WriteOnly) || f.write(QByteArray::fromStdString(t.script)) < 0 ||
            !f.commit()) {
            m_status->setText(tr("Cannot write %1: %2").arg(path, f.errorString()));
            emit failed(m_status->text());
            return;
        }
    }
    protocol::ModelChoiceRequest r;
    r.model = m_path.toStdString();
    r.workload = t.workload;
    r.name = t.name;
    r.script = path.toStdString();
    writeChoice(r, true);
    emit openScriptRequested(path);
}

void ModelWindow::useVariant(int task, const QString& variant)
{
    if (task < 0 || task >= taskCount()) return;
    const QString path = taskScriptPath(task);
    if (!QFileInfo::exists(path)) openTaskAsScript(task);
    protocol::ModelChoiceRequest r;
    r.model = m_path.toStdString();
    r.workload = m_result.tasks[std::size_t(task)].workload;
    r.name = m_result.tasks[std::size_t(task)].name;
    r.script = path.toStdString();
    r.variant = variant.toStdString();
    r.log = std::string(); // a chosen variant is what runs, not the log's best
    writeChoice(r, true);
}

bool ModelWindow::recordTuning(const QString& scriptPath, const QString& logPath)
{
    const QString wanted = QFileInfo(scriptPath).absoluteFilePath();
    for (int i = 0; i < taskCount(); ++i) {
        if (QFileInfo(taskScriptPath(i)).absoluteFilePath() != wanted) continue;
        if (!QFileInfo::exists(logPath)) return false;
        protocol::ModelChoiceRequest r;
        r.model = m_path.toStdString();
        r.workload = m_result.tasks[std::size_t(i)].workload;
        r.name = m_result.tasks[std::size_t(i)].name;
        r.script = wanted.toStdString();
        r.log = logPath.toStdString();
        writeChoice(r, true);
        return true;
    }
    return false;
}

void ModelWindow::writeChoice(const protocol::ModelChoiceRequest& r, bool reload)
{
    m_worker->submit(
        r, this, [this, reload](const worker::Reply<protocol::ModelChoiceReply>& reply) {
            if (!reply.answered()) {
                m_status->setText(tr("The project file was not written: %1").arg(reply.message()));
                emit failed(m_status->text());
                return;
            }
            emit choiceRecorded();
            if (reload) request(m_result.ran);
        });
}

} // namespace loopscope
