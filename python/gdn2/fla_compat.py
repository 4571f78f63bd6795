"""FLA's `chunk_gdn2` calling convention over gdn2's forward (a drop-in for inference).

    from gdn2.fla_compat import chunk_gdn2        # instead of: from fla.ops.gdn2 import chunk_gdn2
    o, ht = chunk_gdn2(q, k, v, g, b, w, initial_state=h0, output_final_state=True,
                       use_qk_l2norm_in_kernel=True, cu_seqlens=cu_seqlens)

The signature and the layouts are those of `fla.ops.gdn2.chunk_gdn2` in flash-linear-attention
0.6.0:
  * q, k, g, b are [B, T, H, K] and v, w are [B, T, H, V]. With `cu_seqlens`, B must be 1 and the
    sequences are packed along T. Without it, the batch holds B sequences of T tokens each.
  * The state is [N, H, K, V], or [N, H, V, K] with `state_v_first=True`. gdn2's own layout is
    [N, H, V, K], so only state_v_first=True passes the states without a copy.
  * The result is `(o, final_state)`: o is [B, T, H, V], and final_state is None unless
    `output_final_state` is set.

What differs from FLA:
  * Forward only (prefill). A call on tensors that require grad, under grad mode, is refused.
  * GVA: v and w may have more heads than q (a multiple of them); FLA needs them equal.
  * No host synchronisation: `cu_seqlens_cpu` is not needed. When it is given, it only provides
    the longest sequence's length as `"auto"`'s hint. CUDA-graph capture works; a graph captured
    with `cu_seqlens_cpu` keeps the capture's hint, and so the path it picked: replays with longer
    sequences stay correct but may be slower. Leave it out where replays change the lengths (the
    device then chooses per replay).
  * `use_qk_l2norm_in_kernel` and `use_gate_in_kernel` are computed here, with torch ops, before
    gdn2's kernels run; they are not fused into them. The formulas are FLA's:
    - q and k are divided by sqrt(sum x^2 + 1e-6) in fp32, then rounded to their own dtype;
    - g becomes -exp(A_log) * softplus(g + dt_bias), or, with `lower_bound`,
      lower_bound * sigmoid(exp(A_log) * (g + dt_bias)).
    In eager mode these are 7 torch ops per normalised tensor and 5 for the gate, each a kernel
    launch on the GPU with its host time. The counts are aten ops dispatched on CPU tensors,
    views excluded. Under torch.compile, Inductor fuses them.
  * A g that is not fp32 is converted to fp32; gdn2 reads fp32 decays. An initial_state in fp32 or
    bf16 (a bf16 state cache, say) is read as it is, one of another float dtype is converted to
    fp32; the final state is fp32, as FLA's. The other inputs must be bf16, as gdn2's contract
    requires.
  * Under torch.compile, `cu_seqlens_cpu` is not read (its maximum would be a data-dependent
    value); `"auto"` then chooses on the device.
  * `safe_gate`, `disable_recompute` and `chunk_size` have no effect: gdn2 is exact for every
    finite g <= 0 and recomputes nothing. So FLA's refusals tied to them (`chunk_size` other than
    64; `safe_gate` with the gate in kernel but no `lower_bound`, or a `lower_bound` outside
    [-5, 0)) are not made here. `return_intermediate_states` and `cp_context` are not supported.
  * An unknown keyword argument is a TypeError here; FLA ignores it.
"""

import warnings

import torch

from .ops import chunk_gdn2 as _gdn2_forward

_L2NORM_EPS = 1e-6  # FLA's l2norm_fwd default


def _l2norm(x):
    x32 = x.float()
    return (x32 * torch.rsqrt((x32 * x32).sum(-1, keepdim=True) + _L2NORM_EPS)).to(x.dtype)


def _gate(g, A_log, dt_bias, lower_bound):
    heads = g.shape[-2]
    g = g.float()
    if dt_bias is not None:
        g = g + dt_bias.float().view(heads, -1)
    if lower_bound is not None:
        if A_log is not None:
            g = A_log.float().view(heads, 1).exp() * g
        return lower_bound * torch.sigmoid(g)
    if A_log is None:
        raise ValueError("A_log: required when use_gate_in_kernel=True and lower_bound is not set")
    return -A_log.float().view(heads, 1).exp() * torch.nn.functional.softplus(g)


def _packed(name, x, batch):
    if x.dim() != 4:
        raise ValueError(f"{name}: expected a 4-D tensor [B, T, H, D] (FLA's layout), got "
                         f"{x.dim()}-D shape {tuple(x.shape)}")
    if x.shape[0] != batch:
        raise ValueError(f"{name}: expected batch size {batch} (as q), got {x.shape[0]}")
    # FLA makes its inputs contiguous; so does this (no copy when they already are), since gdn2
    # reads contiguous tensors only (q, k, v from one fused projection's split are not).
    return x.reshape(x.shape[0] * x.shape[1], x.shape[2], x.shape[3]).contiguous()


def chunk_gdn2(q, k, v, g, b, w, scale=None, initial_state=None, output_final_state=False,
               use_qk_l2norm_in_kernel=False, use_gate_in_kernel=False, cu_seqlens=None,
               cu_seqlens_cpu=None, safe_gate=False, lower_bound=None, disable_recompute=False,
               return_intermediate_states=False, state_v_first=False, cp_context=None, **kwargs):
    """FLA 0.6.0's `chunk_gdn2(q, k, v, g, b, w, ...)` on gdn2's kernels (module docstring)."""
    if "transpose_state_layout" in kwargs:  # FLA's deprecated name of state_v_first
        if state_v_first:
            raise ValueError("Cannot pass both `state_v_first` and the deprecated `transpose_state_layout`.")
        warnings.warn("`transpose_state_layout` is deprecated and renamed to `state_v_first`.",
                      DeprecationWarning, stacklevel=2)
        state_v_first = bool(kwargs.pop("transpose_state_layout"))
    A_log, dt_bias = kwargs.pop("A_log", None), kwargs.pop("dt_bias", None)
    kwargs.pop("chunk_size", None)
    if kwargs:
        raise TypeError(f"chunk_gdn2: unexpected keyword arguments {sorted(kwargs)}")
    if return_intermediate_states:
        raise NotImplementedError("return_intermediate_states: gdn2 keeps no per-chunk states")
    if cp_context is not None:
        raise NotImplementedError("cp_context: context parallelism is not supported by gdn2")
    if torch.is_grad_enabled():
        for name, t in (("q", q), ("k", k), ("v", v), ("g", g), ("b", b), ("w", w),
                        ("initial_state", initial_state), ("A_log", A_log), ("dt_bias", dt_bias)):
            if isinstance(t, torch.Tensor) and t.requires_grad:
                raise RuntimeError(f"{name} requires grad, but gdn2 is forward-only (prefill): call it "
                                   "under torch.no_grad() or torch.inference_mode(), or use FLA's "
                                   "chunk_gdn2 for training")

    if q.dim() != 4:
        raise ValueError(f"q: expected a 4-D tensor [B, T, H, K] (FLA's layout), got {q.dim()}-D "
                         f"shape {tuple(q.shape)}")
    batch, tokens = q.shape[0], q.shape[1]
    if batch < 1 or tokens < 1:
        raise ValueError(f"q: expected B >= 1 and T >= 1, got shape {tuple(q.shape)}")
    if cu_seqlens is not None:
        if batch != 1:
            raise ValueError(f"The batch size is expected to be 1 rather than {batch} when using "
                             "`cu_seqlens`. Please flatten variable-length inputs before processing.")
        max_seqlen = None
        # The hint from the host copy, outside torch.compile only: there the int would be a
        # data-dependent value (a graph break), and without it the device chooses anyway.
        if cu_seqlens_cpu is not None and cu_seqlens_cpu.numel() > 1 and not torch.compiler.is_compiling():
            max_seqlen = int((cu_seqlens_cpu[1:] - cu_seqlens_cpu[:-1]).max())
    else:  # B sequences of T tokens each
        cu_seqlens = torch.arange(0, (batch + 1) * tokens, tokens, dtype=torch.int32,
                                  device=q.device)
        max_seqlen = tokens

    if use_qk_l2norm_in_kernel:
        q, k = _l2norm(q), _l2norm(k)
    if use_gate_in_kernel:
        g = _gate(g, A_log, dt_bias, lower_bound)
    elif g.dtype != torch.float32:
        g = g.float()
    q, k, g, b = (_packed(n, x, batch) for n, x in (("q", q), ("k", k), ("g", g), ("b", b)))
    v, w = _packed("v", v, batch), _packed("w", w, batch)

    h0 = initial_state
    if h0 is not None:  # [N, H, K, V] -> gdn2's [N, H, V, K], fp32 or bf16 (FLA reads any float dtype)
        h0 = h0 if state_v_first else h0.transpose(-1, -2)
        if h0.dtype not in (torch.float32, torch.bfloat16) and h0.is_floating_point():  # one copy: layout and dtype
            h0 = torch.empty(h0.shape, dtype=torch.float32, device=h0.device).copy_(h0)
        else:  # (other dtypes reach gdn2's contract, which names the argument)
            h0 = h0.contiguous()
    result = _gdn2_forward(q, k, v, g, b, w, cu_seqlens=cu_seqlens, initial_state=h0,
                           output_final_state=output_final_state, scale=scale,
                           max_seqlen=max_seqlen)
    o, ht = result if output_final_state else (result, None)
    o = o.view(batch, tokens, o.shape[1], o.shape[2])
    if ht is not None and not state_v_first:
        ht = ht.transpose(-1, -2).contiguous()
    return o, ht
