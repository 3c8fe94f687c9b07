// The desktop binary killed with SIGKILL a hundred times while it types into its editor and runs
// the ladder (`--test-typing`), restarted each time on the same script with the same settings and
// data folders. After every kill the autosaved text the next start recovers must hold every line
// typed more than the autosave interval (plus a margin for a busy machine) before the kill, in
// order and whole; every start must come up, whatever the kill left behind, and caches and
// settings damaged between two starts must be set aside with a message.
#include "support/SourceFiles.h"
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <poll.h>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

namespace {

constexpr int kKills = 100;
constexpr int kAutosaveMs = 100;
// Beyond the interval: the event loop may be busy (a key, an analysis landing) or the machine
// loaded when the autosave is due.
constexpr int kMarginMs = 300;

std::string readAll(const fs::path& file)
{
    return loopscope::readText(file);
}

void writeAll(const fs::path& file, const std::string& bytes)
{
    fs::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
}

// The app, started with its stdout on a pipe and its stderr in a file.
struct App {
    pid_t pid = -1;
    int out = -1; // read end of its stdout
    std::string pending;
    std::map<int, Clock::time_point> typed; // line number -> when its "typed N" was read

    // Reads what the app printed until `until`; false when it exited (end of its output).
    bool read(Clock::time_point until)
    {
        for (;;) {
            const auto left =
                std::chrono::duration_cast<milliseconds>(until - Clock::now()).count();
            pollfd p{out, POLLIN, 0};
            const int ready = ::poll(&p, 1, static_cast<int>(std::max<long long>(0, left)));
            if (ready < 0 && errno == EINTR) continue;
            if (ready <= 0) return true;
            char buf[4096];
            const ssize_t n = ::read(out, buf, sizeof buf);
            if (n <= 0) return false;
            const auto now = Clock::now();
            pending.append(buf, static_cast<std::size_t>(n));
            for (std::size_t nl; (nl = pending.find('\n')) != std::string::npos;) {
                const std::string line = pending.substr(0, nl);
                pending.erase(0, nl + 1);
                if (line.rfind("typed ", 0) == 0) typed.emplace(std::stoi(line.substr(6)), now);
            }
        }
    }
};

App start(const fs::path& home, const fs::path& script, int seed, const fs::path& errors)
{
    int pipeFds[2];
    if (::pipe(pipeFds) != 0) return {};
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::dup2(pipeFds[1], STDOUT_FILENO);
        const int err = ::open(errors.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (err >= 0) ::dup2(err, STDERR_FILENO);
        ::close(pipeFds[0]);
        ::setenv("QT_QPA_PLATFORM", "offscreen", 1);
        ::setenv("XDG_CONFIG_HOME", (home / "config").c_str(), 1);
        ::setenv("XDG_DATA_HOME", (home / "data").c_str(), 1);
        ::setenv("XDG_RUNTIME_DIR", (home / "runtime").c_str(), 1);
        const std::string seedText = std::to_string(seed);
        const std::string interval = std::to_string(kAutosaveMs);
        ::execl(LOOPSCOPE_APP, LOOPSCOPE_APP, script.c_str(), "--test-typing", seedText.c_str(),
                "--autosave-interval", interval.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    ::close(pipeFds[1]);
    App app;
    app.pid = pid;
    app.out = pipeFds[0];
    return app;
}

// The last line number in the recovered text, whose numbered lines must be 0, 1, 2, ... in order
// and whole; nothing (and why) when they are not.
std::optional<int> lastLineIn(const std::string& text, std::string& why)
{
    static const std::regex numbered("# edit (\\d+)");
    int expected = 0;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        std::smatch m;
        if (std::regex_match(line, m, numbered)) {
            if (std::stoi(m[1]) != expected) {
                why = "line " + m[1].str() + " where " + std::to_string(expected) + " belongs";
                return std::nullopt;
            }
            ++expected;
        } else if (line.rfind("# edit", 0) == 0 ||
                   (!line.empty() && std::string("# edit").rfind(line, 0) == 0)) {
            why = "a cut line '" + line + "' after line " + std::to_string(expected - 1);
            return std::nullopt;
        }
    }
    return expected - 1;
}

class DesktopKill : public testing::Test {
protected:
    void SetUp() override
    {
        home = fs::temp_directory_path() / ("loopscope-kill-" + std::to_string(::getpid()));
        fs::remove_all(home);
        fs::create_directories(home / "runtime");
        fs::permissions(home / "runtime", fs::perms::owner_all);
        // The smallest sample at a size whose runs take milliseconds.
        std::string text = readAll(fs::path(LOOPSCOPE_SOURCE_DIR) / "samples/add_relu.py");
        text = std::regex_replace(text, std::regex("N = 1048576[^\n]*"), "N = 4096");
        writeAll(home / "add_relu.py", text);
    }
    void TearDown() override
    {
        if (!HasFailure()) fs::remove_all(home);
    }
    fs::path home;
};

} // namespace

TEST_F(DesktopKill, AHundredKillsLoseNoMoreThanTheAutosaveInterval)
{
    const fs::path data = home / "data/Loopscope/Loopscope";
    const fs::path settings = home / "config/Loopscope/Loopscope.conf";
    std::mt19937 random(20240522);
    int lastRecovered = -1;
    int checked = 0;      // typed lines old enough at a kill to have to be in the autosave
    long long oldest = 0; // the most time between the last autosaved line and its kill
    int kills = 0;
    for (int kill = 0; kill < kKills; ++kill, ++kills) {
        SCOPED_TRACE("kill " + std::to_string(kill));
        // Now and then the start is killed before it types; now and then the caches and the
        // settings are damaged before a start, as a disk or another program could leave them.
        const bool duringStart = kill % 10 == 9;
        const bool damage = kill % 10 == 4;
        if (damage) {
            writeAll(data / "ladder-results.json", R"({"version":1,"scripts":{")" +
                                                       (home / "add_relu.py").string() +
                                                       R"(":{"step":{"median_ms":1.5,"gfl)");
            writeAll(data / "sweep-points.json", std::string("\x00\x01\xfe\xff\x7f garbage", 14));
            writeAll(settings, "[window\n\x01\xff\x02 not settings\n");
        }
        const fs::path errors = home / ("stderr-" + std::to_string(kill) + ".txt");
        App app = start(home, home / "add_relu.py", kill, errors);
        ASSERT_GT(app.pid, 0);
        // A check that gives up on this start does not leave the window typing.
        struct Reaper {
            pid_t pid;
            ~Reaper()
            {
                if (pid <= 0) return;
                ::kill(pid, SIGKILL);
                ::waitpid(pid, nullptr, 0);
            }
        } reaper{app.pid};
        const auto started = Clock::now();
        Clock::time_point killAt;
        if (duringStart) {
            killAt = started + milliseconds(std::uniform_int_distribution<int>(0, 400)(random));
        } else {
            // Typing has begun: the window is up.
            while (app.typed.empty() && Clock::now() < started + std::chrono::seconds(30))
                if (!app.read(Clock::now() + milliseconds(20))) break;
            ASSERT_FALSE(app.typed.empty()) << "the window did not start typing; its stderr:\n"
                                            << readAll(errors);
            killAt = app.typed.begin()->second +
                     milliseconds(std::uniform_int_distribution<int>(50, 700)(random));
        }
        const bool open = app.read(killAt);
        int status = 0;
        const pid_t ended = ::waitpid(app.pid, &status, WNOHANG);
        if (ended == app.pid) reaper.pid = -1; // gone already: nothing to reap
        ASSERT_EQ(ended, 0) << "the window ended before the kill (open pipe: " << open
                            << "); its stderr:\n"
                            << readAll(errors);
        const auto killed = Clock::now();
        ASSERT_EQ(::kill(app.pid, SIGKILL), 0);
        ASSERT_EQ(::waitpid(app.pid, &status, 0), app.pid);
        reaper.pid = -1;
        ::close(app.out);
        ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
            << "the window ended on its own; its stderr:\n"
            << readAll(errors);

        if (damage) {
            const std::string said = readAll(errors);
            for (const char* what :
                 {"Could not read the ladder's saved measurements",
                  "Could not read the measured sweep points", "Could not read the settings"})
                EXPECT_NE(said.find(what), std::string::npos) << what << "\nstderr:\n" << said;
            int setAside = 0;
            for (const fs::path& dir : {data, settings.parent_path()})
                for (const auto& e : fs::directory_iterator(dir))
                    if (e.path().filename().string().find(".corrupt-") != std::string::npos)
                        ++setAside;
            EXPECT_GE(setAside, 3);
        }

        // What the next start will recover.
        int recovered = -1;
        if (fs::exists(data / "recovery.json")) {
            const auto j = nlohmann::json::parse(readAll(data / "recovery.json"), nullptr, false);
            ASSERT_FALSE(j.is_discarded()) << "the autosave is not JSON";
            ASSERT_TRUE(j.contains("text") && j["text"].is_string());
            std::string why;
            const std::optional<int> last = lastLineIn(j["text"].get<std::string>(), why);
            ASSERT_TRUE(last.has_value()) << "the autosaved text is not as typed: " << why;
            recovered = *last;
        }
        EXPECT_GE(recovered, lastRecovered) << "the autosave went back";
        lastRecovered = std::max(lastRecovered, recovered);
        for (const auto& [line, when] : app.typed) {
            const long long before =
                std::chrono::duration_cast<milliseconds>(killed - when).count();
            if (line == recovered) oldest = std::max(oldest, before);
            if (before <= kAutosaveMs + kMarginMs) continue;
            ++checked;
            EXPECT_LE(line, recovered) << "line " << line << ", typed " << before
                                       << " ms before the kill, is not in the autosave";
        }
        if (HasFailure()) {
            ++kills;
            break;
        }
    }
    // The check had something to check: many lines were typed well before a kill.
    EXPECT_GE(checked, 100);
    EXPECT_GT(lastRecovered, 200);
    std::printf("%d kills; %d typed lines checked; the last recovered line is %d; the oldest "
                "autosave at a kill was of a line typed %lld ms before it\n",
                kills, checked, lastRecovered, oldest);
}
