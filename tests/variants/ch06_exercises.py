"""Chapter 6's exercises (course version 1.1): plausible student bugs in 6.11
``TrainingStats`` and 6.12 ``warmup_cosine``, each named in the report's first stage, and
unusual but correct rewrites (judged by tests/test_variants.py)."""

from __future__ import annotations

from functools import partial

from tests.trees import edits
from tests.variants import VariantSet

edits = partial(edits, "ch06_optim")
STATS, WARMUP = "optim/stats.py", "optim/warmup.py"

RATIO = "            self.ratios[name].append(float(np.log10(change.std() / before[name].std())))\n"
GRAD_AND_COPY = (
    "            self.grads[name].append(float(_host(p.grad).std()))\n"
    "            before[name] = _host(p)\n"
)
STEP = "        result = optimizer.step(*args, **kwargs)\n"
HOOKS = (
    "            self.handles.append(module.register_forward_hook(self._hook(name)))\n"
    "        ### END SOLUTION\n"
)
STD = '                    "std": float(a.std()),\n'
SATURATED = '                    "saturated": float((np.abs(a) > self.saturation).mean()),\n'
WARM = "            return start_factor + (1.0 - start_factor) * t / warmup\n"
CLAMP = "        if t >= total:\n            return min_factor\n"
ANGLE = "        angle = math.pi * (t - warmup) / (total - warmup)\n"
COSINE = "        return min_factor + (1.0 - min_factor) * (1.0 + math.cos(angle)) / 2\n"

READ_AT_FORWARD = """            self.handles.append(module.register_forward_hook(self._hook(name)))

        def read_grads(module, args, output):
            for name, p in self.params:
                if p.grad is not None:
                    self.grads[name].append(float(_host(p.grad).std()))

        self.handles.append(model.register_forward_hook(read_grads))
        ### END SOLUTION
"""

FACTOR_BY_COSINE_SQUARED = """
if t < warmup:
    return start_factor * (1 - t / warmup) + t / warmup
done = min(t - warmup, total - warmup) / (total - warmup)
return min_factor + (1.0 - min_factor) * math.cos(math.pi * done / 2) ** 2
"""

FACTOR_BY_PROGRESS = """
warm = 1.0 if t >= warmup else start_factor + (1.0 - start_factor) * (t / warmup)
progress = max(0.0, min(1.0, (t - warmup) / (total - warmup)))
decay = 0.5 * (1.0 + math.cos(math.pi * progress))
return warm if t < warmup else min_factor + decay * (1.0 - min_factor)
"""

BROKEN = [
    # -- 6.11 -------------------------------------------------------------------------------
    (
        "the ratio of means",
        STATS,
        (
            RATIO,
            "            self.ratios[name].append(\n"
            "                float(np.log10(abs(change.mean()) / abs(before[name].mean())))\n"
            "            )\n",
        ),
        "6.11",
    ),
    (
        "the ratio without the log",
        STATS,
        (RATIO, "            self.ratios[name].append(float(change.std() / before[name].std()))\n"),
        "6.11",
    ),
    (
        "the ratio with the natural log",
        STATS,
        (
            RATIO,
            RATIO.replace("np.log10(", "np.log("),
        ),
        "6.11",
    ),
    (
        "the ratio against the values after the step",
        STATS,
        (
            RATIO,
            RATIO.replace("before[name].std()", "_host(p).std()"),
        ),
        "6.11",
    ),
    (
        "the copy taken after the step",
        STATS,
        edits(
            STATS,
            (STEP, ""),
            (
                "        before = {}\n",
                "        result = optimizer.step(*args, **kwargs)\n        before = {}\n",
            ),
        ),
        "6.11",
    ),
    (
        "the parameter's own array kept, no copy",
        STATS,
        (GRAD_AND_COPY, GRAD_AND_COPY.replace("before[name] = _host(p)", "before[name] = p.data")),
        "6.11",
    ),
    (
        "gradients read at the forward, before backward",
        STATS,
        edits(
            STATS,
            (HOOKS, READ_AT_FORWARD),
            (GRAD_AND_COPY, "            before[name] = _host(p)\n"),
        ),
        "6.11",
    ),
    (
        "the hook measures the module's input",
        STATS,
        ("            a = _host(output)\n", "            a = _host(args[0])\n"),
        "6.11",
    ),
    (
        "the sample standard deviation",
        STATS,
        (STD, '                    "std": float(a.std(ddof=1)),\n'),
        "6.11",
    ),
    (
        "remove forgets the handles without removing them",
        STATS,
        (
            "        for handle in self.handles:\n            handle.remove()\n"
            "        self.handles = []\n",
            "        self.handles = []\n",
        ),
        "6.11",
    ),
    # -- 6.12 -------------------------------------------------------------------------------
    (
        "the warm-up one step ahead",
        WARMUP,
        (WARM, WARM.replace("* t / warmup", "* (t + 1) / warmup")),
        "6.12",
    ),
    (
        "the warm-up from zero",
        WARMUP,
        (WARM, "            return t / warmup\n"),
        "6.12",
    ),
    (
        "the cosine counted from t = 0",
        WARMUP,
        (ANGLE, "        angle = math.pi * t / total\n"),
        "6.12",
    ),
    (
        "the cosine down to zero",
        WARMUP,
        (COSINE, "        return (1.0 + math.cos(angle)) / 2\n"),
        "6.12",
    ),
    (
        "min_factor added to the whole cosine",
        WARMUP,
        (COSINE, "        return min_factor + (1.0 + math.cos(angle)) / 2\n"),
        "6.12",
    ),
    ("no clamp after total", WARMUP, (CLAMP, ""), "6.12"),
    (
        "a linear decay",
        WARMUP,
        (COSINE, "        return min_factor + (1.0 - min_factor) * (1 - angle / math.pi)\n"),
        "6.12",
    ),
]

CORRECT = [
    (
        "stats by hand: the std as the root of the mean square",
        STATS,
        edits(
            STATS,
            (STD, '                    "std": float(np.sqrt(np.mean((a - a.mean()) ** 2))),\n'),
            (
                SATURATED,
                '                    "saturated": np.count_nonzero(np.abs(a) > self.saturation)\n'
                "                    / a.size,\n",
            ),
        ),
        "6.11",
    ),
    (
        "the ratio as a difference of logs, the copies by np.array",
        STATS,
        edits(
            STATS,
            (
                RATIO,
                "            spread = np.log10(np.std(change)) - np.log10(np.std(before[name]))\n"
                "            self.ratios[name].append(float(spread))\n",
            ),
            (GRAD_AND_COPY, GRAD_AND_COPY.replace("_host(p)\n", "np.array(_host(p), copy=True)\n")),
        ),
        "6.11",
    ),
    ("warmup_cosine by a cosine squared", WARMUP, ("region", FACTOR_BY_COSINE_SQUARED), "6.12"),
    ("warmup_cosine by a clamped progress", WARMUP, ("region", FACTOR_BY_PROGRESS), "6.12"),
]

SET = VariantSet(
    6,
    "exercises",
    BROKEN,
    CORRECT,
    says=[
        ("the ratio of means", "this is a ratio of means"),
        ("the ratio without the log", "without the log₁₀"),
        ("the ratio with the natural log", "this is the natural log of the ratio"),
        ("the ratio against the values after the step", "divides by the spread of p after"),
        ("the copy taken after the step", "update-to-data ratio is −inf"),
        ("the parameter's own array kept, no copy", "update-to-data ratio is −inf"),
        ("gradients read at the forward, before backward", "gradient rows are one step late"),
        ("the hook measures the module's input", "your hook measured the module's input"),
        ("the sample standard deviation", "this is the sample standard deviation"),
        ("remove forgets the handles without removing them", "are still on the model's modules"),
        ("the warm-up one step ahead", "the warm-up runs one step ahead"),
        ("the warm-up from zero", "the warm-up starts from 0"),
        ("the cosine counted from t = 0", "the cosine counts its angle from t = 0"),
        ("the cosine down to zero", "the cosine falls to 0"),
        ("min_factor added to the whole cosine", "min_factor was added to the whole half cosine"),
        ("no clamp after total", "after total the factor rises again"),
        ("a linear decay", "this falls along a straight line"),
    ],
    least=(17, 4),
    tasks=["6.11", "6.12"],
)
