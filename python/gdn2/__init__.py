"""gdn2: Gated DeltaNet-2 forward prefill for NVIDIA Hopper (sm_90a), as torch custom ops.

    import gdn2
    o, ht = gdn2.chunk_gdn2(q, k, v, g, b, w, cu_seqlens=cu_seqlens, output_final_state=True)

The ops are torch.ops.gdn2.forward / forward_out (CUDA) and torch.ops.gdn2.reference_tokenwise
(CPU, fp64). See README.md for the contract.
"""

from .ops import chunk_gdn2, reference_tokenwise

__version__ = "0.1.0"

__all__ = ["chunk_gdn2", "reference_tokenwise", "__version__"]
