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
    ),
    Task(
        "7.2",
        "array_module and device_of: whose array?",
        10,
        "§4",
        "backend_of: the first backend in BACKENDS whose owns(array) is True, else a "
        "TypeError naming type(array). array_module: its namespace(). device_of: the CPU "
        "for a NumPy array, else device(backend.type, backend.index_of(array)).",
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
    ),
    Task(
        "7.4",
        "ToDevice: Tensor.to(device) and its gradient",
        15,
        "§5",
        "forward: remember a.device in ctx, return move_array(a.data, target). backward: "
        "the gradient moved back with ToDevice.apply(grad_output, ctx.source), recorded, "
        "so it is differentiable again.",
    ),
    Task(
        "7.5",
        "check_same_device: two devices, one op",
        10,
        "§5",
        "Compare every tensor's .device with the first's; at the first that differs, "
        "RuntimeError('Expected all tensors to be on the same device, but found at least "
        "two devices, A and B! (in OP)').",
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
    ),
    Task(
        "7.7",
        "gather, and its gradient: a scatter-add",
        15,
        "§7",
        "forward: xp.take_along_axis(a, index, axis=dim). backward: zeros of a's shape with "
        "the gradient added where each element came from — index along dim, "
        "positions (aranges) on the other axes; repeats add up, so scatter-add.",
    ),
    Task(
        "7.8",
        "cat and stack: the gradient is a split",
        10,
        "§7",
        "cat forward: xp.concatenate along dim (every input on one device and dtype); "
        "backward: split the gradient at the running sum of the inputs' sizes along dim, "
        "one piece per input. stack is unsqueeze(dim) of each, then cat.",
    ),
]
