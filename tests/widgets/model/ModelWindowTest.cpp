// The model view in the real window with the real worker: a sample model opens with its graph
// (one frame per task) and its task table; Run Model checks and times it and ranks the tasks by
// weight x ms; "Open as Script" writes the task's script beside the model, names it in the
// project file and opens it in the main window; tuning that script in the Tune panel makes its
// log the task's schedule, and the next run says so; "Use Variant" picks a variant of the
// script, marked stale until it is timed against the others; a file that is not a model is an error
// in the view, not a crash.
#include "model/ModelWindow.h"
#include "model/ModelGraphView.h"
#include "model/TaskTableModel.h"
#include "shell/MainWindow.h"
#include "tune/TunePanel.h"
#include "tune/TuneService.h"
#include "worker/WorkerClient.h"

#include "support/QtTestMain.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace loopscope;

namespace {

bool copyFolder(const QString& from, const QString& to)
{
    QDir().mkpath(to);
    for (const QFileInfo& fi :
         QDir(from).entryInfoList(QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot)) {
        const QString target = to + QLatin1Char('/') + fi.fileName();
        if (fi.isDir() ? !copyFolder(fi.absoluteFilePath(), target)
                       : !QFile::copy(fi.absoluteFilePath(), target))
            return false;
    }
    return true;
}

QJsonObject readJson(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

int taskIndex(const ModelWindow& m, const QString& name)
{
    for (std::size_t i = 0; i < m.result().tasks.size(); ++i)
        if (QString::fromStdString(m.result().tasks[i].name) == name) return int(i);
    return -1;
}

} // namespace

class ModelWindowTest : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        qputenv("LOOPSCOPE_WORKER", LOOPSCOPE_WORKER);
        QVERIFY(m_dir.isValid());
        QVERIFY(copyFolder(QStringLiteral(LOOPSCOPE_SOURCE_DIR "/samples/models/mlp"),
                           m_dir.filePath(QStringLiteral("mlp"))));
        QVERIFY(copyFolder(QStringLiteral(LOOPSCOPE_SOURCE_DIR "/samples/models/resnet_tiny"),
                           m_dir.filePath(QStringLiteral("resnet"))));
    }

    // A quantized model's tasks say what they compute in, briefly in the column and in full in
    // its tooltip; a float model's table hides the column.
    void aQuantizedModelShowsItsArithmetic()
    {
        QCOMPARE(TaskTableModel::compactArithmetic(
                     QStringLiteral("uint8 x int8 -> int32 sums; float32 requantization to uint8")),
                 QStringLiteral("u8 × s8 → i32; f32 → u8"));
        MainWindow w;
        ModelWindow* m = w.openModel(
            QStringLiteral(LOOPSCOPE_SOURCE_DIR "/samples/models/resnet_tiny_int8/model.onnx"));
        QSignalSpy loaded(m, &ModelWindow::modelLoaded);
        QVERIFY(loaded.wait(60000));
        QVERIFY(!m->taskTable()->isColumnHidden(TaskTableModel::Arithmetic));
        int integer = 0;
        for (int row = 0; row < m->taskTable()->model()->rowCount(); ++row) {
            const QModelIndex at = m->taskTable()->model()->index(row, TaskTableModel::Arithmetic);
            integer += at.data().toString().startsWith(QStringLiteral("u8 × s8 → i32")) &&
                       at.data(Qt::ToolTipRole).toString().contains(QStringLiteral("int32 sums"));
        }
        QCOMPARE(integer, 21);
    }

    void opensRunsAndRanksTheTasks()
    {
        MainWindow w;
        ModelWindow* m = w.openModel(m_dir.filePath(QStringLiteral("resnet/model.onnx")));
        QSignalSpy loaded(m, &ModelWindow::modelLoaded);
        QVERIFY(loaded.wait(60000));
        QVERIFY(m->taskTable()->isColumnHidden(TaskTableModel::Arithmetic)); // float32 only
        const auto& r = m->result();
        QCOMPARE(r.tasks.size(), std::size_t{23});
        QCOMPARE(std::size_t(m->graphView()->taskFrames().size()), r.tasks.size());
        QCOMPARE(std::size_t(m->graphView()->nodeCount()), r.nodes.size());
        QVERIFY(!r.ran);
        // One row per workload.
        QCOMPARE(m->taskTable()->model()->rowCount(), 18);
        // Frames of tasks do not overlap one another.
        const auto frames = m->graphView()->taskFrames();
        for (auto a = frames.begin(); a != frames.end(); ++a)
            for (auto b = std::next(a); b != frames.end(); ++b)
                QVERIFY2(
                    !a.value().adjusted(2, 2, -2, -2).intersects(b.value().adjusted(2, 2, -2, -2)),
                    qPrintable(
                        QStringLiteral("tasks %1 and %2 overlap").arg(a.key()).arg(b.key())));

        QSignalSpy ran(m, &ModelWindow::modelRan);
        m->runModel();
        QVERIFY(ran.wait(120000));
        QVERIFY(m->result().ran);
        QVERIFY(m->result().checked);
        QVERIFY2(m->result().checkPassed, qPrintable(m->statusText()));
        QVERIFY(m->statusText().contains(QStringLiteral("every task matches")));
        // Ranked by weight x ms, the largest first.
        double last = 1e18;
        for (int row = 0; row < m->taskTable()->model()->rowCount(); ++row) {
            const double v = m->taskTable()
                                 ->model()
                                 ->index(row, TaskTableModel::WeightMs)
                                 .data(Qt::UserRole + 1)
                                 .toDouble();
            QVERIFY(v <= last);
            last = v;
        }
        // A click on a frame selects its task's row.
        m->selectTask(3);
        QCOMPARE(m->graphView()->selectedTask(), 3);
        QCOMPARE(m->result().tasks[std::size_t(m->selectedTask())].workload,
                 m->result().tasks[3].workload);
    }

    void aTaskOpensAsAScriptAndTuningItRecordsTheLog()
    {
        MainWindow w;
        w.tuneService()->worker()->setWorkerPath(QStringLiteral(LOOPSCOPE_WORKER));
        const QString model = m_dir.filePath(QStringLiteral("mlp/model.onnx"));
        ModelWindow* m = w.openModel(model);
        QSignalSpy loaded(m, &ModelWindow::modelLoaded);
        QVERIFY(loaded.wait(60000));
        const int t = taskIndex(*m, QStringLiteral("gemm_relu_0"));
        QVERIFY(t >= 0);

        QSignalSpy analysed(&w, &MainWindow::analysisApplied);
        QSignalSpy recorded(m, &ModelWindow::choiceRecorded);
        m->openTaskAsScript(t);
        const QString script = m_dir.filePath(QStringLiteral("mlp/model.tasks/gemm_relu_0.py"));
        QVERIFY(QFileInfo::exists(script));
        QCOMPARE(QFileInfo(w.documentPath()).absoluteFilePath(),
                 QFileInfo(script).absoluteFilePath());
        QVERIFY(recorded.wait(20000));
        QJsonObject project = readJson(m_dir.filePath(QStringLiteral("mlp/model.loopscope.json")));
        QCOMPARE(project.value(QStringLiteral("tasks")).toArray().size(), 1);
        QCOMPARE(project[QStringLiteral("tasks")][0][QStringLiteral("script")].toString(),
                 QStringLiteral("model.tasks/gemm_relu_0.py"));

        // Tune it from its naive loops in the Tune panel: the log goes beside the script and
        // becomes the task's schedule.
        if (analysed.isEmpty()) QVERIFY(analysed.wait(20000));
        w.selectVariant(QStringLiteral("naive"));
        QTRY_COMPARE(w.tunePanel()->variant(), QStringLiteral("naive"));
        w.tunePanel()->setTrials(4);
        QSignalSpy tuned(&w, &MainWindow::tuneFinished);
        QSignalSpy recordedAgain(m, &ModelWindow::choiceRecorded);
        w.tunePanel()->startButton()->click();
        QVERIFY(tuned.wait(240000));
        QVERIFY(
            QFileInfo::exists(m_dir.filePath(QStringLiteral("mlp/model.tasks/gemm_relu_0.jsonl"))));
        QVERIFY(recordedAgain.wait(20000));
        project = readJson(m_dir.filePath(QStringLiteral("mlp/model.loopscope.json")));
        QCOMPARE(project[QStringLiteral("tasks")][0][QStringLiteral("log")].toString(),
                 QStringLiteral("model.tasks/gemm_relu_0.jsonl"));
        QSignalSpy reloaded(m, &ModelWindow::modelLoaded);
        auto source = [&] {
            return QString::fromStdString(m->result().tasks[std::size_t(t)].source);
        };
        QVERIFY(reloaded.wait(60000) || source().startsWith(QStringLiteral("tuned")));
        QVERIFY2(source().startsWith(QStringLiteral("tuned")), qPrintable(source()));

        // Use Variant: the naive loops run, the log set aside.
        QSignalSpy again(m, &ModelWindow::modelLoaded);
        m->useVariant(t, QStringLiteral("naive"));
        QVERIFY(again.wait(60000));
        QCOMPARE(source(), QStringLiteral("script gemm_relu_0.py, variant naive"));
        // A choice never timed against the default schedule is marked stale, with what to do.
        const QString stale = QString::fromStdString(m->result().tasks[std::size_t(t)].stale);
        QVERIFY2(stale.contains(QStringLiteral("--trials 0")), qPrintable(stale));
        bool marked = false;
        for (int row = 0; row < m->taskTable()->model()->rowCount(); ++row)
            if (m->taskTable()->model()->index(row, 0).data().toString() ==
                QStringLiteral("gemm_relu_0"))
                marked = m->taskTable()
                             ->model()
                             ->index(row, TaskTableModel::ScheduleSource)
                             .data()
                             .toString()
                             .startsWith(QStringLiteral("⚠"));
        QVERIFY(marked);
        QVERIFY(m->statusText().contains(QStringLiteral("may no longer be its fastest")));
        QSignalSpy ran(m, &ModelWindow::modelRan);
        m->runModel();
        QVERIFY(ran.wait(120000));
        QVERIFY2(m->result().checkPassed, qPrintable(m->statusText()));
    }

    void aFileThatIsNotAModelIsAnErrorInTheView()
    {
        const QString junk = m_dir.filePath(QStringLiteral("junk.onnx"));
        QFile f(junk);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("not a model");
        f.close();
        MainWindow w;
        ModelWindow* m = w.openModel(junk);
        QSignalSpy failed(m, &ModelWindow::failed);
        QVERIFY(failed.wait(30000));
        QVERIFY(m->statusText().contains(QStringLiteral("junk.onnx")));
        QVERIFY(m->isVisible());
    }

private:
    QTemporaryDir m_dir;
};

LOOPSCOPE_QTEST_MAIN(ModelWindowTest)
#include "ModelWindowTest.moc"
