"""Chapter 7 — devices: the task table. 7.1–7.6 are the device layer (is there a GPU, whose
array is it, the one place data crosses, the copy as an operation, two devices meeting, the
scatter-add on a device); 7.7–7.8 are the two everyday operations whose gradients teach
something new (gather's is a scatter-add, cat's is a split)."""

from . import Task

TASKS = [
    Task(
        "7.1",
        "cuda.is_available: a silent, cached probe",
        15,
        "§3",
        "_probe: inside warnings.catch_warnings() (ignore) and stdout/stderr redirected, try: "
        "import cupy (importlib), count = cupy.cuda.runtime.getDeviceCount(), 0 → (False, "
        "0); run a tiny kernel on device 0 and read it back; (True, count). Any Exception → "
        "(False, 0). is_available: call _probe only when _answer has no 'probe' yet.",
        idea="Asking whether a GPU is usable must never fail and never speak: CuPy may be "
        "missing, may import and then fail at its first call, may count devices it cannot "
        "run, or may launch a kernel whose error shows only when its result is read back. "
        "Any of these means no GPU. Whatever CuPy prints or warns while it is asked stays "
        "inside the question, and the program's own output and warnings afterwards are as "
        "before. The answer is worked out once, at the first question (never at import), "
        "and kept.",
        see="sp.cuda.is_available() twice, then print sp.cuda._answer (the kept answer); "
        "with a print inside _probe you see how often it runs",
    ),
    Task(
        "7.2",
        "array_module and device_of: whose array?",
        10,
        "§4",
        "backend_of: the first backend in BACKENDS whose owns(array) is True, else a "
        "TypeError naming type(array). array_module: its namespace(). device_of: the CPU "
        "for a NumPy array, else device(backend.type, backend.index_of(array)).",
        idea="An array belongs to exactly one registered backend: the first in the "
        "registry that owns it, built-in or added later with register_backend. Its "
        "namespace, its device and its index all follow from that backend; the host's "
        "arrays have no index. An object that no backend owns is not an array of any "
        "device, and saying so (naming its type) beats guessing.",
        see="for a in (np.ones(2), sp.ones(2, device='sim').data): print(backend_of(a).type, "
        "array_module(a).__name__, device_of(a))",
    ),
    Task(
        "7.3",
        "move_array: the one place data crosses",
        15,
        "§5",
        "target = resolve(target); already there: the same array (no copy). From a device: "
        "to_host first. To a device: check backend.is_available() (RuntimeError in one "
        "sentence naming the device and what to use instead) and the index < "
        "device_count(), then backend.to_device(array, index).",
        idea="A move is the one place data crosses between memories: nothing when the "
        "array is already where it is asked to be (the same object back), otherwise "
        "exactly one copy each way it must travel, through the host, with values, dtype "
        "and shape kept and the given array untouched. A device that is not there (no "
        "usable GPU, an index past the device count) is refused in one plain sentence "
        "that names it and says what to use instead.",
        see="with sp.simulated.counting() as c: move_array(a, 'sim'); then print(c.to_device, "
        "c.to_host) — the transfer counter shows every copy",
    ),
    Task(
        "7.4",
        "ToDevice: Tensor.to(device) and its gradient",
        15,
        "§5",
        "forward: remember a.device in ctx, return move_array(a.data, target). backward: "
        "the gradient moved back with ToDevice.apply(grad_output, ctx.source), recorded, "
        "so it is differentiable again.",
        idea="Moving a tensor is an operation like any other, so it is recorded: the "
        "copy's gradient is the incoming gradient moved back to where the input was. "
        "That way back is itself an operation (a second derivative crosses devices as "
        "the first does). Ask: where does the gradient arrive, and where must it "
        "leave?",
        see="x on cpu with requires_grad, y = x.to('sim'), (y * y).sum().backward(): print "
        "y.grad_fn, x.grad.device, and the transfer counter around backward()",
    ),
    Task(
        "7.5",
        "check_same_device: two devices, one op",
        10,
        "§5",
        "Compare every tensor's .device with the first's; at the first that differs, "
        "RuntimeError('Expected all tensors to be on the same device, but found at least "
        "two devices, A and B! (in OP)').",
        idea="Every tensor of one operation must live on one device; the first tensor "
        "sets the device and each of the others is compared with it, device for device "
        "(type and index). At the first that differs, the operation stops before it "
        "runs, with PyTorch's sentence naming both devices, in order, and the operation.",
        see="check_same_device('Op', [a, b, c]) with tensors on cpu, cpu, sim (and sim, "
        "cpu): print the error's message",
    ),
    Task(
        "7.6",
        "scatter_add on a device",
        10,
        "§5",
        "Find target's backend; copy NumPy index arrays (each array of a tuple index: _on "
        "does it) and values to its device (xp.asarray) first; then "
        "backend.scatter_add(target, index, values) — never NumPy's add.at on a device "
        "array.",
        idea="A scatter-add adds each value into its place, and a place named twice "
        "gets both values. On a device it runs where the target lives, in place: every "
        "host array it is given (an index, each array of a tuple index, NumPy values) "
        "must reach that device once, while device arrays and plain numbers are used as "
        "they are, and nothing comes back.",
        see="t = sp.zeros(3, device='sim').data; with sp.simulated.counting() as c: "
        "scatter_add(t, np.array([0, 0]), 1.0); then print(t.get(), c.to_device, c.to_host)",
    ),
    Task(
        "7.7",
        "gather, and its gradient: a scatter-add",
        15,
        "§7",
        "forward: xp.take_along_axis(a, index, axis=dim). backward: zeros of a's shape with "
        "the gradient added where each element came from — index along dim, "
        "positions (aranges) on the other axes; repeats add up, so scatter-add.",
        idea="gather picks, along dim only, the element the index names; on every other "
        "axis an element stays where it is. Its gradient sends each incoming gradient "
        "back to the place its value was picked from, and a place picked twice receives "
        "the sum of both: the backward of a pick is a scatter-add, itself differentiable.",
        see="a small x of shape (2, 3), an index with a repeat, sp.gather(x, 1, index).sum()"
        ".backward(): print x.grad and count the picks of each element by hand",
    ),
    Task(
        "7.8",
        "cat and stack: the gradient is a split",
        10,
        "§7",
        "cat forward: xp.concatenate along dim (every input on one device and dtype); "
        "backward: split the gradient at the running sum of the inputs' sizes along dim, "
        "one piece per input. stack is unsqueeze(dim) of each, then cat.",
        idea="cat joins tensors along an existing axis, stack along a new one; every "
        "output element is one input element, so the gradient of a join is a split: "
        "each input gets back the slice of the gradient its own values went to, starting "
        "where the inputs before it end. The split is made of recorded operations, so it "
        "can be differentiated again.",
        see="x0, x1 of shapes (2, 3) and (2, 1), out = sp.cat([x0, x1], 1), out.backward("
        "sp.arange(8.).reshape(2, 4)): print x0.grad, x1.grad",
    ),
]
