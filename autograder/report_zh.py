"""The report's own words in Chinese (``SPARROW_LANG=zh``): each English template of
``report.py`` mapped to its Chinese; numbers, code and identifiers are filled in unchanged.
A template missing here is shown in English (the course repository's tests render a
Chinese report of each chapter and find none of the English frame left)."""

from __future__ import annotations

TEMPLATES = {
    # the chapters' titles (``course.CHAPTERS``)
    "scalar autograd (Value)": "标量自动微分（Value）",
    "the Tensor wrapper": "Tensor 封装",
    "broadcasting-aware gradients": "能处理广播的梯度",
    "the stack-and-counter backward engine": "基于栈和计数器的反向传播引擎",
    "modules, layers and losses": "模块、层与损失",
    "optimizers": "优化器",
    "devices: CuPy and a simulated one": "设备：CuPy 与模拟设备",
    "convolution: im2col, pooling, a CNN": "卷积：im2col、池化与卷积神经网络",
    "attention and a character-level Transformer": "注意力与字符级 Transformer",
    # the task details' labels
    "start at:": "从这里开始：",
    "passing:": "已通过：",
    "to write:": "待写：",
    "continue:": "接着读：",
    "check:": "检查：",
    "case:": "用例：",
    "problem:": "问题：",
    "raised at:": "出错位置：",
    "printed:": "打印了：",
    "also:": "另外：",
    "blocked:": "受阻：",
    "yours:": "你的任务：",
    "see it:": "排查方法：",
    "more:": "更多：",
    "see more:": "详见：",
    "newer:": "较新：",
    # sentences
    "{section} of the notebook": "笔记本的 {section}",
    " (case {number} of {count})": "（用例 {number}/{count}）",
    "other checks of this task that fail, perhaps for the same reason: {names}": (
        "这个任务另有几项检查没通过，原因可能相同：{names}"
    ),
    '`make hint TASK={id}` (or hint("{id}") in the notebook) gives a hint, one more each '
    "time you ask; {section} of the notebook teaches it": (
        '`make hint TASK={id}`（或笔记本里的 hint("{id}")）给出一条提示，每问一次多给一条；'
        "笔记本的 {section} 讲解了它"
    ),
    "Task {id} — {title}: {label}": "任务 {id} — {title}：{label}",
    "Chapter {number} — {title}": "第 {number} 章 — {title}",
    "checked: {source}": "检查的是：{source}",
    "{done} of {count} tasks passed · {points} / {max} points": (
        "{count} 个任务中通过 {done} 个 · {points} / {max} 分"
    ),
    "Not started: {ids}.": "未开始：{ids}。",
    "Next up: task {id} — {title}, {section} of the notebook.": (
        "下一个：任务 {id} — {title}，笔记本的 {section}。"
    ),
    "Task {ids} passes. `make chapter-{number}` checks the whole chapter.": (
        "任务 {ids} 通过了。`make chapter-{number}` 检查整章。"
    ),
    "Chapter {number} is complete. Well done!": "第 {number} 章全部完成，干得好！",
    "Your chapter {number} code does not import, so no check could run": (
        "你第 {number} 章的代码无法导入，所以没有一项检查能运行"
    ),
    'python -c "import chapters.{package}" shows the whole traceback': (
        'python -c "import chapters.{package}" 显示完整的回溯信息'
    ),
    # why a check is blocked
    "the problem above is in chapter-{chapter} code this check runs: fix task {other} "
    "for the case above (`make chapter-{chapter}` may still pass: its own cases may not "
    "include this one), then check task {id} again": (
        "上面的问题出在这项检查会运行的第 {chapter} 章代码里：先让任务 {other} 通过上面这个用例"
        "（`make chapter-{chapter}` 可能仍然全部通过：它自己的用例里也许没有这一个），"
        "再检查任务 {id}"
    ),
    "this check ran task {other}'s code and met its stub: write task {other} first": (
        "这项检查运行了任务 {other} 的代码，遇到的还是桩代码：先写任务 {other}"
    ),
    "this check requires task {other}, which fails; fix task {other} first": (
        "这项检查依赖任务 {other}，而它没有通过：先修好任务 {other}"
    ),
    # a task's status
    "not started": "未开始",
    "passed": "通过",
    "failed": "未通过",
    "timed out": "超时",
    "crashed": "崩溃",
    "flooded": "输出过多",
    "forged": "伪造了输出",
    "import error": "导入错误",
    "blocked by task {id}": "被任务 {id} 阻塞",
    "started: {done} of {count} functions written": "已开始：写了 {count} 个函数中的 {done} 个",
    "started: {done} of {count} checks pass": "已开始：{count} 项检查中通过 {done} 项",
}
