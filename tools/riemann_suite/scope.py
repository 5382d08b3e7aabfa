"""Which of Riemann's tests measure this course, and why the others do not.

The rule (issue 27): a test is in scope unless its subject belongs to a later chapter or to
no course of this kind (complex dtypes, linear algebra beyond matmul, ``einsum``); a test
whose table of cases mixes complex dtypes in is out with them. Since issue 31 (chapter 9,
the last) no file's subject waits for a later chapter. Two more reasons follow from what is
measured, PyTorch's API as the framework offers it: a test that needs a name or argument
PyTorch does not have, or expects Riemann's behaviour where PyTorch's differs (checked by
running PyTorch), measures Riemann rather than PyTorch; a test of ``torchvision`` (a
separate package, whose datasets the course replaces with its own) measures another
package. A test is never excluded because it fails; in-place operations, ``scatter``,
``sort``, ``diagonal``, ``vhp``/``hvp`` and user-defined ``autograd.Function`` are in scope,
and count (the in-place files, whose subject the issue "In-place, as PyTorch defines it"
built, are also counted apart: ``INPLACE``).

Convolution and attention (issue 31) are in scope whole, with what the course chose not to
build counted as failures, not excluded: 1-D and 3-D convolution and pooling, adaptive
pooling, ``ceil_mode=True``, ``BatchNorm3d``, ``dropout2d``/``dropout3d``, ``Tensor.unfold``,
and ``MultiheadAttention``'s ``kdim``/``vdim``, ``add_bias_kv`` and ``add_zero_attn`` are
PyTorch's API in a subject the course teaches; a test that fails for lacking them measures
exactly that. So is the encoder–decoder Transformer (``nn.Transformer``,
``TransformerDecoder``, ``TransformerDecoderLayer``): chapter 9's tasks build a decoder-only
GPT from encoder layers and a causal mask, and the decoder is given code
(``ch09_attention/decoder.py``) made of the same pieces (self- and cross-attention, the
feed-forward block, the norms). It counts like the rest, and the report also gives the
figure without it (``ENCODER_DECODER``), the part of the measure that no task built.

How the single tests were found: the complex-dtype ones by reading every in-scope test's
source; the Riemann-behaviour ones by running PyTorch on what a failing test expected. A
passing test was not audited that way, so one may check a behaviour PyTorch lacks that the
framework happens to share: the figure leans, if anything, high.

``AREAS`` names each file's area and, for a file out of scope as a whole, the reason;
``TESTS`` excludes single tests of an in-scope file, each with its reason; ``CASES`` names,
for a test out of scope by some of its cases only, which ones: it runs all the same, and the
report says how its other cases fared.
"""

from __future__ import annotations

LINALG = "no course of this kind: linear algebra beyond matmul"
EINSUM = "no course of this kind: einsum"
COMPLEX = "no course of this kind: complex dtypes"
RIEMANN_ONLY = "not PyTorch's API: a Riemann function PyTorch does not have"
VISION = "not torch's API: torchvision's datasets and transforms (the course ships its own)"
PERF = "a benchmark, not a test: it times Riemann against PyTorch and asserts nothing"

# file -> (area, reason the whole file is out of scope, or "")
AREAS: dict[str, tuple[str, str]] = {
    "test_000_tensor_creation.py": ("tensor creation", ""),
    "test_001_operator.py": ("operators", ""),
    "test_002_backward.py": ("backward", ""),
    "test_003_stat_funcs.py": ("reductions and statistics", ""),
    "test_004_random.py": ("random", ""),
    "test_005_shape_operations.py": ("shape operations", ""),
    "test_006_getitem_grad.py": ("indexing with gradients", ""),
    "test_007_inplace_oper.py": ("in-place operations", ""),
    "test_007_inplace_setitem.py": ("item assignment", ""),
    "test_008_scatter_functions.py": ("scatter", ""),
    "test_009_matmul.py": ("matmul", ""),
    "test_010_grad.py": ("autograd.grad", ""),
    "test_011_jacobian.py": ("jacobian", ""),
    "test_012_hessian.py": ("hessian", ""),
    "test_013_jvp_vjp.py": ("jvp / vjp", ""),
    "test_014_vhp_hvp.py": ("vhp / hvp", ""),
    "test_015_multi_function_grad.py": ("gradients through several functions", ""),
    "test_016_grad_context.py": ("grad modes", ""),
    "test_017_perf.py": ("performance", PERF),
    "test_018_gather.py": ("gather", ""),
    "test_019_where.py": ("where", ""),
    "test_020_clamp.py": ("clamp", ""),
    "test_021_activation.py": ("activations", ""),
    "test_022_onehot.py": ("one_hot", ""),
    "test_023_loss_funcs.py": ("losses", ""),
    "test_024_basic_funcs.py": ("pointwise functions", ""),
    "test_025_stack_split.py": ("stack / split", ""),
    "test_026_chk_tensor_val_funcs.py": ("value checks (isnan, allclose, …)", ""),
    "test_027_diagonal.py": ("diagonal, diag, tril/triu", ""),
    "test_028_sort.py": ("sort / argsort / topk", ""),
    "test_029_serialization.py": ("serialization", ""),
    "test_030_conv_funcs.py": ("convolution", ""),
    "test_031_define_gradfunc.py": ("user-defined autograd.Function", ""),
    "test_032_cuda.py": ("cuda devices", ""),
    "test_033_einsum.py": ("einsum", EINSUM),
    "test_048_nn_hooks.py": ("nn hooks", ""),
    "test_049_nn_container.py": ("nn containers", ""),
    "test_050_nn_module.py": ("nn.Module", ""),
    "test_051_nn_batchnorm.py": ("batch norm", ""),
    "test_052_vision.py": ("vision datasets and transforms", VISION),
    "test_053_nn_cnn.py": ("convolutional networks", ""),
    "test_054_embedding.py": ("embedding", ""),
    "test_055_dropout.py": ("dropout", ""),
    "test_060_optimizers.py": ("optimizers", ""),
    "test_061_optim.py": ("optimizers and schedulers", ""),
    "test_070_dataloader.py": ("DataLoader", ""),
    "test_080_linalg_norm.py": ("linalg.norm", LINALG),
    "test_081_linalg_cond.py": ("linalg.cond", LINALG),
    "test_082_linalg_svd.py": ("linalg.svd", LINALG),
    "test_083_linalg_eig.py": ("linalg.eig", LINALG),
    "test_084_linalg_lu.py": ("linalg.lu", LINALG),
    "test_085_linalg_solve.py": ("linalg.solve", LINALG),
    "test_086_linalg_qr.py": ("linalg.qr", LINALG),
    "test_087_linalg_inv.py": ("linalg.inv", LINALG),
    "test_088_linalg_lstsq.py": ("linalg.lstsq", LINALG),
    "test_089_linalg_cholesky.py": ("linalg.cholesky", LINALG),
    "test_100_transformer_mha.py": ("multi-head attention", ""),
    "test_101_transformer_coderlayer.py": ("transformer layers", ""),
    "test_102_transformer_en_decoder.py": ("transformer encoder/decoder", ""),
    "test_103_transformer.py": ("transformer", ""),
}

COMPLEX_CASES = (
    "no course of this kind: complex dtypes, which its table of cases mixes in (it cannot "
    "pass without them)"
)
RIEMANN_ARG = "not PyTorch's API: a Riemann argument name"
RIEMANN_BEHAVIOUR = (
    "not PyTorch's API: it expects Riemann's behaviour where PyTorch behaves otherwise "
    "(checked against PyTorch 2.x)"
)
COMPLEX_CASE = r"complex|复数|\dj\b"  # how a complex-dtype case names itself

# (file, test) -> reason, for single tests of an in-scope file. The complex-dtype tests were
# found by reading every in-scope test's source for complex64/complex128/complex literals.
TESTS: dict[tuple[str, str], str] = {
    ("test_000_tensor_creation.py", "test_tensor"): COMPLEX_CASES,
    ("test_001_operator.py", "test_complex_arithmetic_operators"): COMPLEX,
    **{
        ("test_003_stat_funcs.py", f"test_{name}"): COMPLEX_CASES
        for name in ("sum", "mean", "prod", "var", "std", "cumsum")
    },
    **{
        ("test_024_basic_funcs.py", f"test_{name}"): COMPLEX_CASES
        for name in (
            "abs sqrt log exp log1p sin cos tan arcsin arccos arctan sinh cosh tanh arcsinh "
            "arccosh arctanh"
        ).split()
    },
    ("test_026_chk_tensor_val_funcs.py", "test_nonzero"): COMPLEX_CASES,
    ("test_029_serialization.py", "test_tensor_serialization"): COMPLEX_CASES,
    ("test_029_serialization.py", "test_basic_types"): COMPLEX_CASES,
    ("test_029_serialization.py", "test_numpy_arrays"): COMPLEX_CASES,
    ("test_029_serialization.py", "test_cupy_arrays"): COMPLEX_CASES,
    ("test_032_cuda.py", "test_tensor_to_functions"): COMPLEX_CASES,
    ("test_007_inplace_oper.py", "test_cuda_index_cases"): RIEMANN_ONLY
    + " (Tensor.merge_indices, Riemann's indexing internals)",
    ("test_007_inplace_oper.py", "test_index_merge_function"): RIEMANN_ONLY
    + " (Tensor.merge_indices, Riemann's indexing internals)",
    ("test_007_inplace_oper.py", "test_broadcast_complex"): RIEMANN_BEHAVIOUR
    + ": x[index] = ndarray and x[index] += ndarray (PyTorch: TypeError, can't assign a "
    "numpy.ndarray; the test itself gives PyTorch a tensor instead)",
    ("test_021_activation.py", "test_leaky_relu"): RIEMANN_ARG
    + " (leaky_relu(alpha=); PyTorch's is negative_slope)",
    ("test_050_nn_module.py", "test_parameters_management"): RIEMANN_ONLY
    + " (Module.set_parameter, has_parameter, delete_parameter)",
    ("test_050_nn_module.py", "test_buffers_management"): RIEMANN_ONLY
    + " (Module.set_buffer, has_buffer, delete_buffer)",
    ("test_050_nn_module.py", "test_submodules_management"): RIEMANN_ONLY
    + " (Module.has_submodule, delete_submodule)",
    ("test_050_nn_module.py", "test_gradient_management"): RIEMANN_ONLY
    + " (Tensor.copy; PyTorch's is clone)",
    ("test_050_nn_module.py", "test_module_copying"): RIEMANN_ONLY + " (Module.copy)",
    ("test_050_nn_module.py", "test_attribute_management"): RIEMANN_ONLY
    + " (Module.has_parameter, has_submodule)",
    ("test_051_nn_batchnorm.py", "test_layer_norm"): RIEMANN_ARG
    + " (LayerNorm(affine=); PyTorch's is elementwise_affine)",
    ("test_004_random.py", "test_randint"): RIEMANN_BEHAVIOUR
    + ": randint(10, 6) with an int size (PyTorch: TypeError, size must be a tuple)",
    ("test_005_shape_operations.py", "test_unsqueeze"): RIEMANN_BEHAVIOUR
    + ": unsqueeze with a tuple of dims (PyTorch: TypeError, dim must be an int)",
    ("test_011_jacobian.py", "test_error_non_tensor_input"): RIEMANN_BEHAVIOUR
    + ": RuntimeError for a float input (PyTorch: TypeError)",
    ("test_012_hessian.py", "test_error_non_tensor_input"): RIEMANN_BEHAVIOUR
    + ": RuntimeError for a float input (PyTorch: TypeError)",
    ("test_012_hessian.py", "test_error_non_scalar_output"): RIEMANN_BEHAVIOUR
    + ": Riemann's message ('scalar-valued') for a non-scalar output (PyTorch: a "
    "RuntimeError in its own words)",
    ("test_061_optim.py", "test_sgd_optimizer"): RIEMANN_BEHAVIOUR
    + ": SGD(dampening=-0.1) must raise (PyTorch accepts it)",
    ("test_049_nn_container.py", "test_module_list"): RIEMANN_BEHAVIOUR
    + ": ModuleList.pop() without an index (PyTorch: TypeError, key is required)",
    ("test_049_nn_container.py", "test_parameter_list"): RIEMANN_BEHAVIOUR
    + ": ParameterList refuses a plain tensor (PyTorch makes it a Parameter)",
    ("test_049_nn_container.py", "test_parameter_dict"): RIEMANN_BEHAVIOUR
    + ": ParameterDict refuses a plain tensor (PyTorch makes it a Parameter)",
    ("test_026_chk_tensor_val_funcs.py", "test_allclose"): RIEMANN_BEHAVIOUR
    + ": allclose of shapes that do not broadcast is False (PyTorch: RuntimeError)",
    ("test_026_chk_tensor_val_funcs.py", "test_not_equal"): RIEMANN_BEHAVIOUR
    + ": not_equal gives one bool, the negation of equal (PyTorch's not_equal is the "
    "elementwise ne)",
    ("test_026_chk_tensor_val_funcs.py", "test_unique"): RIEMANN_ARG
    + " (unique(return_indices=); PyTorch has return_inverse and return_counts)",
    ("test_021_activation.py", "test_prelu"): RIEMANN_ARG
    + " (F.prelu(input, alpha=); PyTorch's is weight)",
    ("test_028_sort.py", "test_argsort_with_out_parameter"): RIEMANN_BEHAVIOUR
    + ": argsort(x, out=) without stable= (PyTorch: TypeError; its out= form needs stable=)",
    ("test_008_scatter_functions.py", "test_scatter_add_scalar_src"): RIEMANN_BEHAVIOUR
    + ": scatter_add with a float src (PyTorch: TypeError, src must be a Tensor)",
    ("test_061_optim.py", "test_lbfgs_optimizer"): RIEMANN_BEHAVIOUR
    + ": LBFGS must refuse max_iter=0, max_eval=0, negative tolerances and history_size=0 "
    "(PyTorch accepts them)",
    ("test_002_backward.py", "test_backward_check_grad_graph_properties"): RIEMANN_ONLY
    + " (Tensor.gradfuncs, Riemann's name for the graph; PyTorch's is grad_fn)",
    ("test_048_nn_hooks.py", "test_complex_scenarios"): RIEMANN_ONLY
    + " (Module._backward_hook_cache, Riemann's internals)",
    ("test_003_stat_funcs.py", "test_sumall"): RIEMANN_ONLY + " (sumall)",
    ("test_009_matmul.py", "test_complex_vector_matrix_multiplication"): COMPLEX,
    ("test_009_matmul.py", "test_complex_vector_vector_multiplication"): COMPLEX,
    ("test_009_matmul.py", "test_complex_matrix_matrix_multiplication"): COMPLEX,
    ("test_024_basic_funcs.py", "test_cot"): RIEMANN_ONLY + " (cot)",
    ("test_024_basic_funcs.py", "test_sec"): RIEMANN_ONLY + " (sec)",
    ("test_024_basic_funcs.py", "test_csc"): RIEMANN_ONLY + " (csc)",
    ("test_027_diagonal.py", "test_fill_diagonal"): RIEMANN_ONLY
    + " (an out-of-place fill_diagonal with offset and dims; PyTorch has the in-place "
    "Tensor.fill_diagonal_)",
    ("test_027_diagonal.py", "test_fill_diagonal_grad"): RIEMANN_ONLY + " (fill_diagonal)",
    ("test_027_diagonal.py", "test_batch_diag_grad"): RIEMANN_ONLY + " (batch_diag)",
    ("test_031_define_gradfunc.py", "test_track_grad_decorator"): RIEMANN_ONLY
    + " (the track_grad decorator)",
    ("test_060_optimizers.py", "test_optimizer_gd"): RIEMANN_ONLY + " (optim.GD)",
    ("test_070_dataloader.py", "test_dataloader_mnist"): VISION + " (riemann.vision's MNIST)",
    ("test_100_transformer_mha.py", "test_causal_mask_effect"): RIEMANN_BEHAVIOUR
    + ": MultiheadAttention(is_causal=True) without an attn_mask builds the causal mask "
    "(PyTorch: RuntimeError, Need attn_mask if specifying the is_causal hint)",
    ("test_100_transformer_mha.py", "test_all_masks_combined"): RIEMANN_BEHAVIOUR
    + ": is_causal=True with an attn_mask adds a causal mask to it (PyTorch: is_causal is a "
    "hint that attn_mask is causal; with need_weights=True it applies attn_mask alone)",
    **{
        (file, test): RIEMANN_BEHAVIOUR
        + f": {what} without a mask builds the causal mask (PyTorch: RuntimeError, Need "
        "attn_mask if specifying the is_causal hint)"
        for file, test, what in (
            (
                "test_101_transformer_coderlayer.py",
                "test_encoder_is_causal",
                "TransformerEncoderLayer(src, is_causal=True)",
            ),
            (
                "test_101_transformer_coderlayer.py",
                "test_decoder_is_causal",
                "TransformerDecoderLayer(tgt, memory, tgt_is_causal=True)",
            ),
            (
                "test_102_transformer_en_decoder.py",
                "test_encoder_is_causal",
                "TransformerEncoder(src, is_causal=True)",
            ),
            (
                "test_102_transformer_en_decoder.py",
                "test_decoder_is_causal",
                "TransformerDecoder(tgt, memory, tgt_is_causal=True)",
            ),
        )
    },
}


# Out of scope for some of their cases only (a regex on the case's name): they run all the
# same, and the report says how their other cases fared (information, never counted).
CASES: dict[tuple[str, str], str] = {
    **{key: COMPLEX_CASE for key, reason in TESTS.items() if reason == COMPLEX_CASES},
    # prod over a tuple of dims is Riemann's too (PyTorch: TypeError, dim is one int)
    ("test_003_stat_funcs.py", "test_prod"): COMPLEX_CASE + r"|沿多轴|takes one axis",
    ("test_004_random.py", "test_randint"): r"integer size",
    ("test_005_shape_operations.py", "test_unsqueeze"): r"元组维度",
    ("test_061_optim.py", "test_sgd_optimizer"): r"负抑制",
    ("test_049_nn_container.py", "test_module_list"): r"pop默认参数|ModuleList测试异常",
    ("test_049_nn_container.py", "test_parameter_list"): r"类型检查",
    ("test_049_nn_container.py", "test_parameter_dict"): r"类型检查",
    ("test_026_chk_tensor_val_funcs.py", "test_allclose"): r"不同形状的张量",
    ("test_048_nn_hooks.py", "test_complex_scenarios"): r"缓存|_backward_hook_cache",
    ("test_061_optim.py", "test_lbfgs_optimizer"): r"无效max_iter|无效max_eval|负tolerance|"
    r"无效history_size",
}

# in scope, and counted; the report also gives the figure without them
INPLACE = ("test_007_inplace_oper.py", "test_007_inplace_setitem.py")

# in scope, and counted; the report also gives the figure without them: file -> the prefix
# of its tests of the encoder-decoder Transformer (nn.Transformer, TransformerDecoder(Layer))
ENCODER_DECODER = {
    "test_101_transformer_coderlayer.py": "test_decoder",
    "test_102_transformer_en_decoder.py": "test_decoder",
    "test_103_transformer.py": "test",
}


def encoder_decoder(file: str, test: str) -> bool:
    """Whether a test is one of the encoder-decoder Transformer's (counted apart too)."""
    prefix = ENCODER_DECODER.get(file)
    return prefix is not None and test.split("::")[-1].startswith(prefix)


def area(file: str) -> str:
    return AREAS.get(file, (file.removesuffix(".py"), ""))[0]


def excluded(file: str, test: str) -> str:
    """Why this test is out of scope, or "" when it counts."""
    whole = AREAS.get(file, ("", ""))[1]
    return whole or TESTS.get((file, test), "")
