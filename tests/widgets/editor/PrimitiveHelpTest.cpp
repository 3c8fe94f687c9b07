// Help ▸ Primitives: a page for every primitive of core's catalogue, with its signature, help,
// example and the loop nest before and after the example, as Loopscope lowers it.
#include "editor/PrimitiveHelp.h"
#include "schedule/Primitives.h"

#include "support/QtTestMain.h"

#include <QListWidget>
#include <QTest>

using namespace loopscope;
using namespace Qt::StringLiterals;

class PrimitiveHelpTest : public QObject {
    Q_OBJECT

private slots:
    void everyPrimitiveHasAPageWithBeforeAndAfter()
    {
        for (const PrimitiveSpec& p : primitiveCatalogue()) {
            const QString name = QString::fromStdString(p.name);
            QString page = primitiveHelpPage(name);
            QVERIFY2(page.contains(QString::fromStdString(p.signature()).toHtmlEscaped()),
                     qPrintable(name));
            QVERIFY2(page.contains(QString::fromStdString(p.help).toHtmlEscaped()),
                     qPrintable(name));
            QVERIFY2(page.contains(u"<h3>Before</h3>"_s) && page.contains(u"<h3>After</h3>"_s),
                     qPrintable(name + u": "_s + page));
            QVERIFY2(!page.contains(u"does not run"_s), qPrintable(page));
        }
        QVERIFY(primitiveHelpPage(u"no_such_primitive"_s).isEmpty());
        // tensorize's page shows the GEMV becoming the intrinsic's call.
        const QString tensorize = primitiveHelpPage(u"tensorize"_s);
        QVERIFY(tensorize.mid(tensorize.indexOf(u"<h3>After</h3>"_s)).contains(u"gemv_update"_s));
    }

    void theLoopNestChangesAsTheExampleSays()
    {
        QString page = primitiveHelpPage(u"split"_s);
        int after = page.indexOf(u"<h3>After</h3>"_s);
        QVERIFY(after > 0);
        QVERIFY(!page.left(after).contains(u"i_outer"_s));
        QVERIFY(page.mid(after).contains(u"i_outer"_s));
        page = primitiveHelpPage(u"parallel"_s);
        after = page.indexOf(u"<h3>After</h3>"_s);
        QVERIFY(!page.left(after).contains(u"T.parallel"_s));
        QVERIFY(page.mid(after).contains(u"T.parallel"_s));
    }

    void theDialogListsTheCatalogue()
    {
        PrimitiveHelpDialog dialog;
        auto* list = dialog.findChild<QListWidget*>(u"primitiveList"_s);
        QVERIFY(list);
        QCOMPARE(list->count(), static_cast<int>(primitiveCatalogue().size()));
        QVERIFY(dialog.showPrimitive(u"compute_at"_s));
        QCOMPARE(dialog.shownPrimitive(), u"compute_at"_s);
        QVERIFY(dialog.pageText().contains(u"compute_at(parent, scope)"_s));
        QVERIFY(!dialog.showPrimitive(u"nonsense"_s));
    }
};

LOOPSCOPE_QTEST_MAIN(PrimitiveHelpTest)
#include "PrimitiveHelpTest.moc"
