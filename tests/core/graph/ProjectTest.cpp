// The project file: written and read back; a hand script with its variant and a tuning log's best
// record become the schedules a model compiles with, on every task of the workload; what cannot
// be honoured is a note and the default schedule; a file that is not a project is an error.
#include "graph/Project.h"
#include "graph/FuseOps.h"
#include "graph/Interpreter.h"
#include "graph/ModelMaker.h"
#include "graph/OnnxImport.h"
#include "graph/Passes.h"
#include "graph/Task.h"
#include "te/Program.h"
#include "tune/TuneLog.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace loopscope;
namespace fs = std::filesystem;

namespace {

class ProjectTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        dir = fs::temp_directory_path() / ("loopscope-project-" + std::to_string(getpid()));
        fs::create_directories(dir / "m.tasks");
        ImportResult r = importOnnxBytes(makeModelBytes("resnet18", 2), "");
        ASSERT_TRUE(r.ok) << r.error;
        optimizeGraph(r.graph);
        graph = r.graph;
        tasks = fuseOps(graph);
    }
    void TearDown() override { fs::remove_all(dir); }

    // A task that occurs more than once, so that one script serves several tasks.
    const Task& repeated() const
    {
        for (auto& t : tasks)
            if (t.weight > 1) return t;
        return tasks.front();
    }

    void write(const fs::path& p, const std::string& text) const
    {
        std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
    }

    fs::path dir;
    Graph graph;
    std::vector<Task> tasks;
};

TEST_F(ProjectTest, WrittenAndReadBack)
{
    ModelProject p;
    p.path = (dir / "m.loopscope.json").string();
    p.model = "m.onnx";
    p.choice("w1", "conv_0").script = "m.tasks/conv_0.py";
    p.choice("w1", "conv_0").variant = "blocked";
    p.choice("w2", "gemm_0").log = "m.tasks/gemm_0.jsonl";
    std::string why;
    ASSERT_TRUE(writeProject(p, &why)) << why;
    ModelProject back;
    ASSERT_TRUE(readProject(p.path, &back, &why)) << why;
    EXPECT_EQ(back.model, "m.onnx");
    ASSERT_EQ(back.tasks.size(), 2u);
    EXPECT_EQ(back.tasks[0].script, "m.tasks/conv_0.py");
    EXPECT_EQ(back.tasks[0].variant, "blocked");
    EXPECT_EQ(back.tasks[1].log, "m.tasks/gemm_0.jsonl");
    // No file yet: an empty project.
    EXPECT_TRUE(readProject((dir / "none.loopscope.json").string(), &back, &why));
    EXPECT_TRUE(back.tasks.empty());
    EXPECT_EQ(projectPathFor("/a/b/resnet.onnx"), "/a/b/resnet.loopscope.json");
    EXPECT_EQ(taskFolderFor("/a/b/resnet.onnx"), "/a/b/resnet.tasks");
}

TEST_F(ProjectTest, AFileThatIsNotAProjectIsAnError)
{
    std::string why;
    ModelProject p;
    write(dir / "bad.json", "{\"version\": 1, \"tasks\": [{\"name\": \"x\"}]");
    EXPECT_FALSE(readProject((dir / "bad.json").string(), &p, &why));
    EXPECT_FALSE(why.empty());
    write(dir / "bad.json", "{\"version\": 7}");
    EXPECT_FALSE(readProject((dir / "bad.json").string(), &p, &why));
    EXPECT_NE(why.find("version"), std::string::npos) << why;
    write(dir / "bad.json", "{\"version\": 1, \"tasks\": [{\"name\": \"x\"}]}");
    EXPECT_FALSE(readProject((dir / "bad.json").string(), &p, &why));
    EXPECT_NE(why.find("workload"), std::string::npos) << why;
}

TEST_F(ProjectTest, AHandScriptRunsOnEveryTaskOfItsWorkload)
{
    const Task& t = repeated();
    ASSERT_GT(t.weight, 1);
    // The naive loops as a variant of its own name, for this task's workload.
    std::string script = taskScript(graph, t);
    script += "\n# variant: mine\ns = te.create_schedule(" +
              script.substr(script.find("# variant: naive\ns = te.create_schedule(") + 40,
                            script.find(".op)", script.find("# variant: naive")) -
                                script.find("# variant: naive") - 40) +
              ".op)\n";
    write(dir / "m.tasks/mine.py", script);
    ModelProject p;
    p.path = (dir / "m.loopscope.json").string();
    TaskChoice& c = p.choice(t.workload, t.name);
    c.script = "m.tasks/mine.py";
    c.variant = "mine";
    std::vector<std::string> notes;
    ModelOptions o = resolveProject(p, graph, tasks, &notes);
    EXPECT_TRUE(notes.empty()) << (notes.empty() ? "" : notes.front());
    EXPECT_EQ(o.variants.at(t.workload), "mine");
    EXPECT_NE(o.sources.at(t.workload).find("mine.py"), std::string::npos);
    std::string why;
    auto model = CompiledModel::compile(graph, o, &why);
    ASSERT_NE(model, nullptr) << why;
    int ran = 0;
    for (auto& ct : model->tasks())
        if (ct.task.workload == t.workload) {
            EXPECT_EQ(ct.variant, "mine");
            ++ran;
        }
    EXPECT_EQ(ran, t.weight);
}

TEST_F(ProjectTest, ATuningLogsBestRecordBecomesTheSchedule)
{
    const Task& t = repeated();
    const std::string script = taskScript(graph, t);
    EvalResult eval = evaluateScript(script);
    ASSERT_TRUE(eval.ok);
    const Variant* naive = eval.program.findVariant(kNaiveTaskVariant);
    ASSERT_NE(naive, nullptr);
    // Two records as the tuner writes them: the faster one is the schedule. Its statements are
    // the default schedule's (a real, valid schedule for the task).
    const std::string decl = script.substr(0, script.find("# variant: default"));
    const std::string outVar =
        script.substr(script.find("s = te.create_schedule(") + 23,
                      script.find(".op)") - script.find("s = te.create_schedule(") - 23);
    TuneRecord slow, fast;
    for (TuneRecord* r : {&slow, &fast}) {
        r->workload = workloadKey(*naive);
        r->variant = kNaiveTaskVariant;
        r->status = "ok";
        r->checked = true;
        r->cpu = "znver4";
    }
    slow.msMedian = 2;
    slow.statements = {};
    fast.msMedian = 1;
    fast.gflops = 123.4;
    fast.statements = defaultSchedule(decl, outVar);
    ASSERT_FALSE(fast.statements.empty());
    fast.steps.push_back({"split", "x", {"i"}, 2, false, "", "", {}}); // told apart from `slow`
    std::string why;
    const std::string log = (dir / "m.tasks/t.jsonl").string();
    ASSERT_TRUE(appendRecord(log, slow, &why)) << why;
    ASSERT_TRUE(appendRecord(log, fast, &why)) << why;

    ModelProject p;
    p.path = (dir / "m.loopscope.json").string();
    p.choice(t.workload, t.name).log = "m.tasks/t.jsonl";
    std::vector<std::string> notes;
    ModelOptions o = resolveProject(p, graph, tasks, &notes);
    EXPECT_TRUE(notes.empty()) << (notes.empty() ? "" : notes.front());
    EXPECT_EQ(o.variants.at(t.workload), "tuned");
    EXPECT_NE(o.sources.at(t.workload).find("123.4 GFLOPS"), std::string::npos)
        << o.sources.at(t.workload);
    EXPECT_NE(o.scripts.at(t.workload).find(fast.statements.back()), std::string::npos);
    auto model = CompiledModel::compile(graph, o, &why);
    ASSERT_NE(model, nullptr) << why;
}

TEST_F(ProjectTest, WhatCannotBeHonouredIsANoteAndTheDefault)
{
    const Task& t = repeated();
    ModelProject p;
    p.path = (dir / "m.loopscope.json").string();
    p.choice(t.workload, t.name).script = "m.tasks/absent.py";
    p.choice("not-a-workload-of-this-model", "ghost").log = "x.jsonl";
    p.choice(tasks.back().workload, tasks.back().name).log = "m.tasks/absent.jsonl";
    std::vector<std::string> notes;
    ModelOptions o = resolveProject(p, graph, tasks, &notes);
    EXPECT_EQ(notes.size(), 3u);
    EXPECT_TRUE(o.scripts.empty());
    std::string why;
    EXPECT_NE(CompiledModel::compile(graph, o, &why), nullptr) << why;
}

} // namespace
