"""Where the GPU kernels keep the games' module-level tables: small ones in constant memory, large ones
in global memory, each table once per kernel.

A kernel reads a module-level numpy array (a card table, greedy's dice chances) as a constant that
numba-cuda embeds in the compiled module. numba-cuda puts every such array in the constant bank,
whose size is fixed at 64 KiB per module, and embeds it anew at every place a device function reads
it, so a kernel that inlines a game's rules and its greedy search asks for several copies of the same
tables: the learner-seat ``play`` kernels of Monster Arena (203 KB of constants) and Monster Factory
(72 KB) did not load on any GPU. :func:`place_tables` changes numba-cuda's lowering of such arrays
for the kernels compiled after it: one read-only module variable per distinct table (its bytes,
alignment and memory space name it, so copies merge when the modules are linked), in global memory
above :data:`CONSTANT_TABLE_BYTES` (served by the read-only data cache, no size limit, and indices
that differ across a warp do not serialise as constant-bank reads do) and in the constant bank up to
that size (one broadcast per warp when its games read the same entry). The values are the same
bytes, so the GPU computes exactly what the CPU does. The CPU targets are untouched.
"""

import hashlib

import numpy as np

CONSTANT_TABLE_BYTES = 2048  # larger tables go to global memory; smaller ones stay in the constant bank


def table_space(nbytes: int) -> int:
    """NVVM's address space for a table of ``nbytes``: constant up to :data:`CONSTANT_TABLE_BYTES`,
    global above."""
    from numba.cuda.cudadrv import nvvm

    return nvvm.ADDRSPACE_GLOBAL if nbytes > CONSTANT_TABLE_BYTES else nvvm.ADDRSPACE_CONSTANT


def _lower_table(context, builder, aryty, arr):
    """The array ``arr`` (a module-level numpy array a kernel reads) as an array value whose data is
    the one module variable holding its bytes (created on first use, in :func:`table_space`)."""
    from llvmlite import ir
    from numba.core import types

    if any(s < 0 for s in arr.strides) or not (arr.flags.c_contiguous or arr.flags.f_contiguous):
        arr = np.ascontiguousarray(arr)  # the bytes must match the strides given below
    data = arr.tobytes(order="A")
    item = context.get_abi_sizeof(context.get_data_type(aryty.dtype))
    align = 2 ** (item - 1).bit_length()
    space = table_space(len(data))
    name = f"_monster_zoo_table_{space}_{align}_{hashlib.sha256(data).hexdigest()[:32]}"
    module = builder.module
    try:
        table = module.get_global(name)
    except KeyError:
        table = ir.GlobalVariable(module, ir.ArrayType(ir.IntType(8), len(data)), name, addrspace=space)
        table.linkage = "linkonce_odr"  # the same name and bytes in another module: one copy after linking
        table.global_constant = True
        table.initializer = ir.Constant(table.value_type, bytearray(data))
        table.align = align
    generic = builder.addrspacecast(table, ir.PointerType(ir.IntType(8)), "generic")
    array = context.make_array(aryty)(context, builder)
    context.populate_array(
        array,
        data=builder.bitcast(generic, array.data.type),
        shape=[context.get_constant(types.intp, s) for s in arr.shape],
        strides=[context.get_constant(types.intp, s) for s in arr.strides],
        itemsize=array.itemsize,
        parent=array.parent,
        meminfo=None,
    )
    return array._getvalue()


def place_tables() -> None:
    """Make numba-cuda lower module-level arrays with :func:`_lower_table` from now on (idempotent; a
    no-op under numba-cuda's simulator, which runs the kernels as Python)."""
    from numba import config

    if config.ENABLE_CUDASIM:
        return
    from numba.cuda.target import CUDATargetContext

    if getattr(CUDATargetContext.make_constant_array, "places_tables", False):
        return

    def make_constant_array(self, builder, aryty, arr):
        return _lower_table(self, builder, aryty, arr)

    make_constant_array.places_tables = True
    make_constant_array.__doc__ = _lower_table.__doc__
    CUDATargetContext.make_constant_array = make_constant_array
