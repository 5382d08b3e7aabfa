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
    # a tree older than the course (a versioned report) and the course map (``make progress``)
    "new in v{version}": "v{version} 新增",
    "passes v{v}, fails a v{newest} check": "按 v{v} 通过，但没通过一项 v{newest} 的检查",
    "{done} of {count} tasks of your version (v{v}) passed · {points} / {max} points": (
        "你的版本（v{v}）的 {count} 个任务中通过 {done} 个 · {points} / {max} 分"
    ),
    "{id} in v{version}": "{id} 新增于 v{version}",
    "New since v{v}: {done} of {count} tasks passed · {points} / {max} points ({since})": (
        "v{v} 之后新增：{count} 个任务中通过 {done} 个 · {points} / {max} 分（{since}）"
    ),
    "this check is of v{newest}, newer than your v{v}: your points at v{v} stay, and an "
    "instructor grading v{newest} counts it": (
        "这项检查属于 v{newest}，比你的 v{v} 新：你在 v{v} 的得分不变，"
        "按 v{newest} 评分的老师会把它计入"
    ),
    "Chapter {number} is complete at your version, v{v}.": (
        "第 {number} 章在你的版本 v{v} 上已全部完成。"
    ),
    "New in v{version}: task {id} — {title}, {section} of the notebook.": (
        "v{version} 新增：任务 {id} — {title}，笔记本的 {section}。"
    ),
    "Sparrow — the course map (checking {source})": "Sparrow — 课程地图（检查的是 {source}）",
    "not checked": "未检查",
    "coming": "即将推出",
    "{done}/{count} tasks · {points}/{max} points": "{done}/{count} 个任务 · {points}/{max} 分",
    " · new: {done}/{count} done": " · 新增：完成 {done}/{count}",
    " · new: done": " · 新增：已完成",
    "Next: task {id} — {title}, {section} of the notebook; `make chapter-{number}` shows the "
    "details.": (
        "下一步：任务 {id} — {title}，笔记本的 {section}；`make chapter-{number}` 显示详情。"
    ),
    "Every chapter checked is complete at your version, v{v}.": (
        "检查过的每一章在你的版本 v{v} 上都已完成。"
    ),
    "New in v{version}: task {id} — {title}, {section} of the notebook; `make chapter-{number}` "
    "shows the details.": (
        "v{version} 新增：任务 {id} — {title}，笔记本的 {section}；"
        "`make chapter-{number}` 显示详情。"
    ),
    "Every chapter written so far is complete.": "目前已写好的每一章都已完成。",
}
