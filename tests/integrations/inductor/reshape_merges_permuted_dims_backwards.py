"""A bug planted in Inductor for npufuzz's tests, loaded by the torch adapter
when NPUFUZZ_INDUCTOR_PATCH names this file (never otherwise).

Inductor turns a reshape of a value that is not contiguous (a permuted,
sliced or expanded tensor not yet in memory) into index arithmetic
(View.dynamic_reshape_indexer: FloorDiv and ModularIndexing). Planted here:
when the reshape merges the source's last two dims [.., A, B] into one of
A*B elements, their order is swapped, so merged index v reads element
(v % A, v // A) in place of (v // B, v % B). Every index stays in bounds;
the values come out permuted. A reshape of a tensor in memory never gets
here (it reinterprets the buffer); one of a value not yet in memory does:
a view of a transpose, slice or expand (heads merged after a transpose, a
permuted tensor flattened), or an elementwise result reshaped before it is
stored.
"""
from torch._inductor import ir

_correct = ir.View.dynamic_reshape_indexer.__func__


def _merges_last_two(old_size, new_size):
    return (len(old_size) >= 2 and len(new_size) >= 1 and old_size[-1] != 1
            and old_size[-2] != 1 and new_size[-1] == old_size[-2] * old_size[-1])


def _planted(cls, old_size, new_size, dense_dim=None):
    if dense_dim is not None or not _merges_last_two(old_size, new_size):
        return _correct(cls, old_size, new_size, dense_dim)
    # Index as if the source were [.., B, A], then hand each expression to
    # the other dim: the merge's order backwards.
    backwards = _correct(cls, list(old_size[:-2]) + [old_size[-1], old_size[-2]], new_size)

    def reindex(index):
        exprs = list(backwards(index))
        exprs[-1], exprs[-2] = exprs[-2], exprs[-1]
        return exprs

    return reindex


ir.View.dynamic_reshape_indexer = classmethod(_planted)
