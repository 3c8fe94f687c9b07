// The main of a folder's Qt Test executable: `loopscope_widgets_editor_tests StatementWriterTest
// [Qt Test's arguments]`, as QTEST_MAIN would start the class in an executable of its own (an
// application of the kind the folder needs, 96 DPI fonts). Without a class, the classes are listed.
#include "support/QtTestMain.h"

#include <QTest>

#ifdef LOOPSCOPE_QTEST_WIDGETS
#include <QApplication>
using TestApplication = QApplication;
#else
#include <QCoreApplication>
using TestApplication = QCoreApplication;
#endif

#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>

namespace loopscope::testing {

namespace {

std::map<std::string, std::function<QObject*()>>& registry()
{
    static std::map<std::string, std::function<QObject*()>> classes;
    return classes;
}

} // namespace

QtTestRegistration::QtTestRegistration(const char* name, std::function<QObject*()> make)
{
    registry()[name] = std::move(make);
}

} // namespace loopscope::testing

int main(int argc, char** argv)
{
    const auto& classes = loopscope::testing::registry();
    auto found = argc >= 2 ? classes.find(argv[1]) : classes.end();
    if (found == classes.end()) {
        std::fprintf(stderr, "usage: %s CLASS [Qt Test's arguments]\nclasses:\n", argv[0]);
        for (const auto& [name, make] : classes)
            std::fprintf(stderr, "  %s\n", name.c_str());
        return argc >= 2 && std::strcmp(argv[1], "--help") != 0 ? 2 : 0;
    }
    // Qt Test sees the class's arguments after the program's name, as its own executable would.
    argv[1] = argv[0];
    int testArgc = argc - 1; // the application keeps a reference to it
    TestApplication app(testArgc, argv + 1);
#ifdef LOOPSCOPE_QTEST_WIDGETS
    app.setAttribute(Qt::AA_Use96Dpi, true);
#endif
    std::unique_ptr<QObject> test(found->second());
    return QTest::qExec(test.get(), testArgc, argv + 1);
}
