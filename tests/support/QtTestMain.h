// Qt Test classes in one executable per folder of tests: each class registers itself by name
// (LOOPSCOPE_QTEST_MAIN, where a single-class file would write QTEST_MAIN), and the shared main
// (QtTestMain.cpp) runs the class its first argument names, passing the rest to Qt Test as a
// class's own executable would take them (function names, -o, ...). CTest runs one class a
// process, so classes share no process state.
#pragma once

#include <QObject>

#include <functional>

namespace loopscope::testing {

struct QtTestRegistration {
    QtTestRegistration(const char* name, std::function<QObject*()> make);
};

} // namespace loopscope::testing

#define LOOPSCOPE_QTEST_MAIN(TestClass)                                                            \
    static const loopscope::testing::QtTestRegistration loopscopeQtTest##TestClass(                \
        #TestClass, [] { return static_cast<QObject*>(new TestClass); });
