// The project file: written and read back; a hand script with its variant and a tuning log's best
// record become the schedules a model compiles with, on every task of the workload; what cannot
// be honoured is a note and the default schedule; a file that is not a project is an error.
#include "graph/Project.h"
#include "codegen/Codegen.h"
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

    // The task's script with its naive loops as a variant of its own, "mine".
    std::string mineScript(const Task& t) const
    {
        std::string script = taskScript(graph, t);
        const std::size_t naive = script.find("# variant: naive");
        return script + "\n# variant: mine\ns = te.create_schedule(" +
               script.substr(naive + 40, script.find(".op)", naive) - naive - 40) + ".op)\n";
    }

    // m.tasks/FILE with two records as the tuner writes them for the task: the faster one
    // (`fast`) is its best. Its statements are the default schedule's (a real, valid schedule).
    void writeTuningLog(const Task& t, const std::string& file, TuneRecord* fast) const
    {
        const std::string script = taskScript(graph, t);
        EvalResult eval = evaluateScript(script);
        ASSERT_TRUE(eval.ok);
        const Variant* naive = eval.program.findVariant(kNaiveTaskVariant);
        ASSERT_NE(naive, nullptr);
        const std::string decl = script.substr(0, script.find("# variant: default"));
        const std::string outVar =
            script.substr(script.find("s = te.create_schedule(") + 23,
                          script.find(".op)") - script.find("s = te.create_schedule(") - 23);
        TuneRecord slow;
        for (TuneRecord* r : {&slow, fast}) {
            r->workload = workloadKey(*naive);
            r->variant = kNaiveTaskVariant;
            r->status = "ok";
            r->checked = true;
            r->machine.cpu = "znver4";
        }
        slow.msMedian = 2;
        slow.statements = {};
        fast->msMedian = 1;
        fast->gflops = 123.4;
        fast->statements = defaultSchedule(decl, outVar);
        ASSERT_FALSE(fast->statements.empty());
        fast->steps.push_back(
            NamedStep("split", "x").loops("parent", {"i"}).number("factor", 2)); // told apart
        std::string why;
        const std::string log = (dir / "m.tasks" / file).string();
        ASSERT_TRUE(appendRecord(log, slow, &why)) << why;
        ASSERT_TRUE(appendRecord(log, *fast, &why)) << why;
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
    const std::string script = mineScript(t);
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
    TuneRecord fast;
    writeTuningLog(t, "t.jsonl", &fast);
    if (HasFatalFailure()) return;
    std::string why;
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

// A task's contenders (default, its script's variant, its log's best) and the choice among them:
// "use" says which runs; a choice never timed against the default is stale, and so is one whose
// contenders compile to other code than when they were (another CPU, another code generator, an
// edited script) until they are compared again.
TEST_F(ProjectTest, TheChoiceAmongContendersAndWhenItIsStale)
{
    const Task& t = repeated();
    const std::string folder = (dir / "m.tasks").string();
    ModelProject p;
    p.path = (dir / "m.loopscope.json").string();
    std::vector<std::string> notes;
    // The choice's task is the one it names, though its workload has several (their scripts'
    // names differ, and so would their code); else the first.
    const Task* second = nullptr;
    for (auto& other : tasks)
        if (other.workload == t.workload && other.name != t.name) second = &other;
    ASSERT_NE(second, nullptr);
    EXPECT_EQ(choiceTask(p, tasks, t.workload), &t);
    p.choice(t.workload, second->name);
    EXPECT_EQ(choiceTask(p, tasks, t.workload), second);
    p.tasks.clear();
    // Nothing chosen, nothing tuned: the default (by Winograd's method: the task is a 3x3
    // convolution at 56 x 56) and the direct convolution, never stale.
    ASSERT_EQ(winogradTileOf(graph, t), 4);
    auto contenders = scheduleContenders(p, graph, t, folder, &notes);
    ASSERT_EQ(contenders.size(), 2u);
    EXPECT_EQ(contenders[0].kind, "default");
    EXPECT_EQ(contenders[1].kind, "direct");
    EXPECT_EQ(contenders[1].variant, "direct");
    EXPECT_EQ(staleReason(p, graph, t, folder), "");

    TuneRecord fast;
    writeTuningLog(t, t.name + ".jsonl", &fast);
    if (HasFatalFailure()) return;
    write(dir / "m.tasks/mine.py", mineScript(t));
    TaskChoice& c = p.choice(t.workload, t.name);
    c.script = "m.tasks/mine.py";
    c.variant = "mine";
    // The log is found where `model tune` writes it, though the project does not name it.
    contenders = scheduleContenders(p, graph, t, folder, &notes);
    EXPECT_TRUE(notes.empty()) << (notes.empty() ? "" : notes.front());
    ASSERT_EQ(contenders.size(), 4u);
    EXPECT_EQ(contenders[2].kind, "script");
    EXPECT_EQ(contenders[2].variant, "mine");
    EXPECT_EQ(contenders[3].kind, "tuned");
    EXPECT_EQ(contenders[3].log, "m.tasks/" + t.name + ".jsonl");
    EXPECT_NE(staleReason(p, graph, t, folder).find("never timed"), std::string::npos);

    std::string why;
    const std::string code = codeFingerprint(contenders, t.name, &why);
    ASSERT_FALSE(code.empty()) << why;
    EXPECT_EQ(codeFingerprint(contenders, t.name, &why), code); // the same code, the same print
    c.log = contenders[3].log;
    c.use = "script";
    c.compared = {"2026-11-28T06:00:00Z",
                  hostTarget().cpu,
                  code,
                  {{"default", 1.5}, {"direct", 2.5}, {"script", 1.0}, {"tuned", 1.2}}};
    EXPECT_EQ(staleReason(p, graph, t, folder), "");
    // "use" picks among them, the log notwithstanding.
    ModelOptions o = resolveProject(p, graph, tasks, &notes);
    EXPECT_EQ(o.variants.at(t.workload), "mine");
    c.use = "default";
    o = resolveProject(p, graph, tasks, &notes);
    EXPECT_EQ(o.scripts.count(t.workload), 0u);
    c.use = "direct";
    o = resolveProject(p, graph, tasks, &notes);
    EXPECT_EQ(o.variants.at(t.workload), "direct");
    EXPECT_EQ(o.sources.at(t.workload), "default, direct convolution");
    c.use = "tuned";
    o = resolveProject(p, graph, tasks, &notes);
    EXPECT_EQ(o.variants.at(t.workload), "tuned");
    // Written and read back whole.
    ASSERT_TRUE(writeProject(p, &why)) << why;
    ModelProject back;
    ASSERT_TRUE(readProject(p.path, &back, &why)) << why;
    ASSERT_EQ(back.tasks.size(), 1u);
    EXPECT_EQ(back.tasks[0].use, "tuned");
    EXPECT_EQ(back.tasks[0].compared, c.compared);

    // Measured on another CPU.
    c.compared.cpu = "a-cpu-elsewhere";
    c.compared.code = "0123456789abcdef";
    EXPECT_NE(staleReason(p, graph, t, folder).find("this is " + hostTarget().cpu),
              std::string::npos);
    // The hand script edited: its code is not what was compared.
    c.compared.cpu = hostTarget().cpu;
    c.compared.code = code;
    std::string edited = mineScript(t);
    const std::size_t open = edited.rfind("te.create_schedule(") + 19;
    const std::string out = edited.substr(open, edited.rfind(".op)") - open);
    edited += "s[" + out + "].parallel(" + out + ".op.axis[1])\n";
    write(dir / "m.tasks/mine.py", edited);
    EXPECT_NE(staleReason(p, graph, t, folder).find("has changed"), std::string::npos)
        << staleReason(p, graph, t, folder);

    write(dir / "bad.json", "{\"version\": 1, \"tasks\": [{\"workload\": \"w\", \"use\": \"x\"}]}");
    EXPECT_FALSE(readProject((dir / "bad.json").string(), &back, &why));
    EXPECT_NE(why.find("\"use\""), std::string::npos) << why;
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
