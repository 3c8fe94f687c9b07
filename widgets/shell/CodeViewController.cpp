#include "shell/CodeViewController.h"

#include "editor/EditorPane.h"
#include "ir/GpuTarget.h"
#include "shell/MainWindow.h"
#include "shell/RunController.h"
#include "views/CodeView.h"
#include "views/LoopNestView.h"

#include <QComboBox>
#include <QDockWidget>

namespace loopscope {

CodeViewController::CodeViewController(MainWindow* window, RunController* runs,
                                       LoopNestView* loopNest)
    : QObject(window), m_window(window), m_runs(runs)
{
    m_llvmView = new CodeView(window);
    m_asmView = new CodeView(window);
    m_llvmView->setPlaceholder(tr("Select a step to see its LLVM IR."));
    m_asmView->setPlaceholder(tr("Select a step to see its assembly."));

    m_targetBox = new QComboBox(window);
    m_targetBox->setObjectName(QStringLiteral("targetCombo"));
    m_targetBox->addItem(tr("As the script builds"), QString());
    m_targetBox->addItem(tr("Host CPU"), QStringLiteral("llvm"));
    for (int sm : {50, 60, 70, 75, 80, 86, 89, 90})
        m_targetBox->addItem(tr("CUDA sm_%1").arg(sm), QStringLiteral("cuda -arch=sm_%1").arg(sm));
    m_targetBox->setToolTip(
        tr("The code the LLVM IR and Assembly views show: the variant's tvm.build target, this "
           "machine's CPU, or an NVIDIA architecture (the views then show the kernels' CUDA C "
           "and PTX). GPU variants run on this machine's NVIDIA GPU through loopscope-runner "
           "where there is one; without one they are checked on this CPU and not timed."));
    connect(m_targetBox, &QComboBox::activated, this, [this](int) { request(); });

    connect(runs, &RunController::codeReady, this, &CodeViewController::show);
    // TIR and assembly, linked both ways.
    connect(loopNest, &LoopNestView::tirLineSelected, m_asmView, &CodeView::setLinkedTirLine);
    connect(m_asmView, &CodeView::tirLineSelected, loopNest, [loopNest](int line) {
        loopNest->setLinkedLines(line > 0 ? QList<int>{line} : QList<int>{});
    });
}

void CodeViewController::request()
{
    const VariantView* v = m_window->shownVariant();
    // The code shown stays the last good state's while the script has an error.
    if (!v || !m_window->scriptError().isEmpty()) return;
    auto* llvmDock = m_window->findChild<QDockWidget*>(QStringLiteral("LlvmDock"));
    auto* asmDock = m_window->findChild<QDockWidget*>(QStringLiteral("AsmDock"));
    QString format;
    if (asmDock && asmDock->isVisible() && !asmDock->visibleRegion().isEmpty())
        format = QStringLiteral("asm");
    else if (llvmDock && llvmDock->isVisible() && !llvmDock->visibleRegion().isEmpty())
        format = QStringLiteral("llvm");
    if (format.isEmpty()) return;
    if (format == QStringLiteral("asm") && m_profiled && m_profiled()) return; // the profile's
    // A GPU target's kernels: CUDA C where the CPU's LLVM IR is, PTX where its assembly is.
    if (isGpuTarget(target().toStdString()))
        format = format == QStringLiteral("asm") ? QStringLiteral("ptx") : QStringLiteral("cuda");
    m_runs->requestCode(m_window->editor()->text(), m_window->currentVariant(),
                        m_window->currentStep(), format, m_targetBox->currentData().toString());
}

QString CodeViewController::target() const
{
    const QString chosen = m_targetBox->currentData().toString();
    if (!chosen.isEmpty()) return chosen;
    const VariantView* v = m_window->shownVariant();
    return v ? QString::fromStdString(v->target) : QString();
}

void CodeViewController::show(const QString& format, const QString& text)
{
    if (format == QStringLiteral("ptx")) {
        m_asmView->setCaption(tr("PTX of the kernels for %1 · compiled through LLVM's NVPTX; the "
                                 "driver compiles it for the GPU it runs on")
                                  .arg(target()));
        m_asmView->setText(text, CodeView::Language::Assembly);
        return;
    }
    if (format == QStringLiteral("cuda")) {
        m_llvmView->setText(text, CodeView::Language::Plain);
        return;
    }
    const bool asmFormat = format == QStringLiteral("asm");
    // A profiled step's assembly is the profiled kernel's, with its samples.
    if (asmFormat && m_profiled && m_profiled()) return;
    if (asmFormat)
        m_asmView->setCaption(tr("Assembly · the gutter gives each instruction's TIR line"));
    (asmFormat ? m_asmView : m_llvmView)
        ->setText(text, asmFormat ? CodeView::Language::Assembly : CodeView::Language::LlvmIr);
}

} // namespace loopscope
