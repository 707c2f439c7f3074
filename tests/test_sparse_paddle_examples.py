"""Every example of Paddle 3.3.1's paddle.sparse docstrings (paddle.sparse, paddle.sparse.nn and
paddle.sparse.nn.functional, apart from attention and SyncBatchNorm, which are GPU-only, and pca_lowrank, whose
example runs on a GPU only), harvested from the installed paddle 3.3.1 and run as doctests against paddle_fn with
the float tolerance of tests/test_docs.py.

Changes to the harvested text, each because the example cannot run as written anywhere but on Paddle's machine:
`import paddle` and `paddle.device.set_device(...)` lines are dropped, ``>>> else:`` continues its ``if`` as
``... else:`` (Paddle runs its examples with xdoctest, which reads both), (`paddle` is paddle_fn here) and
``Place(gpu:0)`` reads ``Place(cpu)``; where an example draws its input from Paddle's random generator, the draw
is a literal below, taken from paddle 3.3.1 on the CPU with the example's seed (paddle_fn's generator is not
Paddle's), so the output is still Paddle's (the convolution and pooling examples draw without a seed and print
only the result's shape, which the draw does not change, so they keep their draws); `mv` and `masked_matmul` draw on
a GPU, whose numbers are neither printed nor reproducible on the CPU, so they take fixed inputs and their expected
values are numpy's float32 products; the `ReLU6`/`LeakyReLU`
examples print their result, with the values paddle 3.3.1 gives on the CPU; `transpose`'s example is left out:
Paddle marks it `+SKIP('indices overflow')`, and running it crashes paddle 3.3.1 (a glibc malloc assertion).
"""
import doctest

import numpy as np
import pytest

import paddle_fn
from test_docs import FloatTolerantChecker, FLAGS

# paddle 3.3.1 on the CPU: paddle.seed(2024); paddle.rand([3, 4]) and paddle.seed(2024); paddle.rand([3, 3])
MASK_AS_DRAW_3X4 = [[0.9383115768432617, 0.23659813404083252, 0.10174139589071274, 0.0846780315041542],
                    [0.9743544459342957, 0.4034021496772766, 0.6415262818336487, 0.10300945490598679],
                    [0.6659660935401917, 0.9039448499679565, 0.6574326157569885, 0.5359112620353699]]
MASK_AS_DRAW_3X3 = [[0.9383115768432617, 0.23659813404083252, 0.10174139589071274],
                    [0.0846780315041542, 0.9743544459342957, 0.4034021496772766],
                    [0.6415262818336487, 0.10300945490598679, 0.6659660935401917]]
# the masked draws the two softmax examples print (paddle.seed(2022) and paddle.seed(100))
SOFTMAX_DRAW_2022 = [[0.88156885, 0.14463395, 0.17831714, 0.43818203],
                     [0.07617740, 0.75576496, 0.0, 0.61921930],
                     [0.0, 0.0, 0.42460245, 0.03001321]]
SOFTMAX_DRAW_100 = [[0.0, 0.95717543, 0.43864486, 0.0],
                    [0.84765935, 0.45680618, 0.39412445, 0.0],
                    [0.59444654, 0.0, 0.78364515, 0.0]]

# the input that the convolution examples build (the same lines in each of Paddle's docstrings)
POINTS_2D = """
>>> indices = [[0, 0, 0, 0], [0, 0, 1, 2], [1, 3, 2, 3]]
>>> values = [[1], [2], [3], [4]]
>>> indices = paddle.to_tensor(indices, dtype='int32')
>>> values = paddle.to_tensor(values, dtype='float32')
>>> dense_shape = [1, 3, 4, 1]
>>> sparse_x = paddle.sparse.sparse_coo_tensor(indices, values, dense_shape, stop_gradient=True)
"""
POINTS_3D = """
>>> indices = [
...     [0, 0, 0, 0],
...     [0, 0, 0, 0],
...     [0, 0, 1, 2],
...     [1, 3, 2, 3],
... ]
>>> values = [[1], [2], [3], [4]]
>>> indices = paddle.to_tensor(indices, dtype='int32')
>>> values = paddle.to_tensor(values, dtype='float32')
>>> dense_shape = [1, 1, 3, 4, 1]
>>> sparse_x = paddle.sparse.sparse_coo_tensor(indices, values, dense_shape, stop_gradient=True)
"""

EXAMPLES = {
    "sparse.sparse_coo_tensor": """
>>> indices = [[0, 1, 2], [1, 2, 0]]
>>> values = [1.0, 2.0, 3.0]
>>> dense_shape = [3, 3]
>>> coo = paddle.sparse.sparse_coo_tensor(indices, values, dense_shape)
>>> print(coo)
Tensor(shape=[3, 3], dtype=paddle.float32, place=Place(cpu), stop_gradient=True,
indices=[[0, 1, 2],
[1, 2, 0]],
values=[1., 2., 3.])
""",
    "sparse.sparse_csr_tensor": """
>>> crows = [0, 2, 3, 5]
>>> cols = [1, 3, 2, 0, 1]
>>> values = [1, 2, 3, 4, 5]
>>> dense_shape = [3, 4]
>>> csr = paddle.sparse.sparse_csr_tensor(crows, cols, values, dense_shape)
>>> print(csr)
Tensor(shape=[3, 4], dtype=paddle.int64, place=Place(cpu), stop_gradient=True,
crows=[0, 2, 3, 5],
cols=[1, 3, 2, 0, 1],
values=[1, 2, 3, 4, 5])
""",
    "sparse.sin": """
>>> dense_x = paddle.to_tensor([-2., 0., 1.])
>>> sparse_x = dense_x.to_sparse_coo(1)
>>> out = paddle.sparse.sin(sparse_x)
>>> out
Tensor(shape=[3], dtype=paddle.float32, place=Place(cpu), stop_gradient=True,
indices=[[0, 2]],
values=[-0.90929741,  0.84147102])
""",
    "sparse.tan": """
>>> dense_x = paddle.to_tensor([-2., 0., 1.])
>>> sparse_x = dense_x.to_sparse_coo(1)
>>> out = paddle.sparse.tan(sparse_x)
>>> out
Tensor(shape=[3], dtype=paddle.float32, place=Place(cpu), stop_gradient=True,
indices=[[0, 2]],
values=[2.18503976, 1.55740774])
""",
    "sparse.asin": """
>>> dense_x = paddle.to_tensor([-2., 0., 1.])
>>> sparse_x = dense_x.to_sparse_coo(1)
>>> out = paddle.sparse.asin(sparse_x)
>>> out
Tensor(shape=[3], dtype=paddle.float32, place=Place(cpu), stop_gradient=True,
indices=[[0, 2]],
values=[nan       , 1.57079625])
""",
    "sparse.atan": """
>>> dense_x = paddle.to_tensor([-2., 0., 1.])
>>> sparse_x = dense_x.to_sparse_coo(1)
>>> out = paddle.sparse.atan(sparse_x)
>>> out
Tensor(shape=[3], dtype=paddle.float32, place=Place(cpu), stop_gradient=True,
indices=[[0, 2]],
values=[-1.10714877,  0.78539819])
""",
    "sparse.sinh": """
>>> dense_x = paddle.to_tensor([-2., 0., 1.])
>>> sparse_x = dense_x.to_sparse_coo(1)
>>> out = paddle.sparse.sinh(sparse_x)
>>> out
Tensor(shape=[3], dtype=paddle.float32, place=Place(cpu), stop_gradient=True,
indices=[[0, 2]],
values=[-3.62686038,  1.17520118])
""",
    "sparse.tanh": """
>>> dense_x = paddle.to_tensor([-2., 0., 1.])
>>> sparse_x = dense_x.to_sparse_coo(1)
>>> out = paddle.sparse.tanh(sparse_x)
>>> out
Tensor(shape=[3], dtype=paddle.float32, place=Place(cpu), stop_gradient=True,
indices=[[0, 2]],
values=[-0.96402758,  0.76159418])
""",
    "sparse.asinh": """
>>> dense_x = paddle.to_tensor([-2., 0., 1.])
>>> sparse_x = dense_x.to_sparse_coo(1)
>>> out = paddle.sparse.asinh(sparse_x)
>>> out
Tensor(shape=[3], dtype=paddle.float32, place=Place(cpu), stop_gradient=True,
indices=[[0, 2]],
values=[-1.44363546,  0.88137358])
""",
    "sparse.atanh": """
>>> dense_x = paddle.to_tensor([-2., 0., 1.])
>>> sparse_x = dense_x.to_sparse_coo(1)
>>> out = paddle.sparse.atanh(sparse_x)
>>> out
Tensor(shape=[3], dtype=paddle.float32, place=Place(cpu), stop_gradient=True,
indices=[[0, 2]],
values=[nan , inf.])
""",
    "sparse.sqrt": """
>>> dense_x = paddle.to_tensor([-2., 0., 1.])
>>> sparse_x = dense_x.to_sparse_coo(1)
>>> out = paddle.sparse.sqrt(sparse_x)
>>> out
Tensor(shape=[3], dtype=paddle.float32, place=Place(cpu), stop_gradient=True,
indices=[[0, 2]],
values=[nan, 1. ])
""",
    "sparse.square": """
>>> dense_x = paddle.to_tensor([-2., 0., 1.])
>>> sparse_x = dense_x.to_sparse_coo(1)
>>> out = paddle.sparse.square(sparse_x)
>>> out
Tensor(shape=[3], dtype=paddle.float32, place=Place(cpu), stop_gradient=True,
indices=[[0, 2]],
values=[4., 1.])
""",
    "sparse.log1p": """
>>> dense_x = paddle.to_tensor([-2, 0, 1], dtype='float32')
>>> sparse_x = dense_x.to_sparse_coo(1)
>>> out = paddle.sparse.log1p(sparse_x)
>>> out
Tensor(shape=[3], dtype=paddle.float32, place=Place(cpu), stop_gradient=True,
indices=[[0, 2]],
values=[nan       , 0.69314718])
""",
    "sparse.abs": """
>>> dense_x = paddle.to_tensor([-2, 0, 3], dtype='float32')
>>> sparse_x = dense_x.to_sparse_coo(1)
>>> out = paddle.sparse.abs(sparse_x)
>>> out
Tensor(shape=[3], dtype=paddle.float32, place=Place(cpu), stop_gradient=True,
indices=[[0, 2]],
values=[2., 3.])
""",
    "sparse.pow": """
>>> dense_x = paddle.to_tensor([-2, 0, 3], dtype='float32')
>>> sparse_x = dense_x.to_sparse_coo(1)
>>> out = paddle.sparse.pow(sparse_x, 2)
>>> out
Tensor(shape=[3], dtype=paddle.float32, place=Place(cpu), stop_gradient=True,
indices=[[0, 2]],
values=[4., 9.])
""",
    "sparse.cast": """
>>> dense_x = paddle.to_tensor([-2, 0, 1])
>>> sparse_x = dense_x.to_sparse_coo(1)
>>> out = paddle.sparse.cast(sparse_x, 'int32', 'float64')
>>> out
Tensor(shape=[3], dtype=paddle.float64, place=Place(cpu), stop_gradient=True,
indices=[[0, 2]],
values=[-2.,  1.])
""",
    "sparse.neg": """
>>> dense_x = paddle.to_tensor([-2, 0, 3], dtype='float32')
>>> sparse_x = dense_x.to_sparse_coo(1)
>>> out = paddle.sparse.neg(sparse_x)
>>> out
Tensor(shape=[3], dtype=paddle.float32, place=Place(cpu), stop_gradient=True,
indices=[[0, 2]],
values=[ 2., -3.])
""",
    "sparse.deg2rad": """
>>> dense_x = paddle.to_tensor([-180, 0, 180])
>>> sparse_x = dense_x.to_sparse_coo(1)
>>> out = paddle.sparse.deg2rad(sparse_x)
>>> out
Tensor(shape=[3], dtype=paddle.float32, place=Place(cpu), stop_gradient=True,
indices=[[0, 2]],
values=[-3.14159274,  3.14159274])
""",
    "sparse.rad2deg": """
>>> dense_x = paddle.to_tensor([3.142, 0., -3.142])
>>> sparse_x = dense_x.to_sparse_coo(1)
>>> out = paddle.sparse.rad2deg(sparse_x)
>>> out
Tensor(shape=[3], dtype=paddle.float32, place=Place(cpu), stop_gradient=True,
indices=[[0, 2]],
values=[ 180.02334595, -180.02334595])
""",
    "sparse.expm1": """
>>> dense_x = paddle.to_tensor([-2., 0., 1.])
>>> sparse_x = dense_x.to_sparse_coo(1)
>>> out = paddle.sparse.expm1(sparse_x)
>>> out
Tensor(shape=[3], dtype=paddle.float32, place=Place(cpu), stop_gradient=True,
indices=[[0, 2]],
values=[-0.86466473,  1.71828187])
""",
    "sparse.mv": """
>>> paddle.seed(100)

>>> # csr @ dense -> dense
>>> crows = [0, 2, 3, 5]
>>> cols = [1, 3, 2, 0, 1]
>>> values = [1., 2., 3., 4., 5.]
>>> dense_shape = [3, 4]
>>> csr = paddle.sparse.sparse_csr_tensor(crows, cols, values, dense_shape)
>>> print(csr)
Tensor(shape=[3, 4], dtype=paddle.float32, place=Place(cpu), stop_gradient=True,
crows=[0, 2, 3, 5],
cols=[1, 3, 2, 0, 1],
values=[1., 2., 3., 4., 5.])
>>> vec = paddle.to_tensor([0.5, -1.0, 2.0, 0.25])

>>> out = paddle.sparse.mv(csr, vec)
>>> print(out)
Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
[-0.50000000,  6.        , -3.        ])
""",
    "sparse.matmul": """
>>> # csr @ dense -> dense
>>> crows = [0, 1, 2, 3]
>>> cols = [1, 2, 0]
>>> values = [1., 2., 3.]
>>> csr = paddle.sparse.sparse_csr_tensor(crows, cols, values, [3, 3])
>>> print(csr)
Tensor(shape=[3, 3], dtype=paddle.float32, place=Place(cpu), stop_gradient=True,
crows=[0, 1, 2, 3],
cols=[1, 2, 0],
values=[1., 2., 3.])

>>> dense = paddle.ones([3, 2])
>>> out = paddle.sparse.matmul(csr, dense)
>>> print(out)
Tensor(shape=[3, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
[[1., 1.],
[2., 2.],
[3., 3.]])

>>> # coo @ dense -> dense
>>> indices = [[0, 1, 2], [1, 2, 0]]
>>> values = [1., 2., 3.]
>>> coo = paddle.sparse.sparse_coo_tensor(indices, values, [3, 3])
>>> print(coo)
Tensor(shape=[3, 3], dtype=paddle.float32, place=Place(cpu), stop_gradient=True,
indices=[[0, 1, 2],
[1, 2, 0]],
values=[1., 2., 3.])

>>> dense = paddle.ones([3, 2])
>>> out = paddle.sparse.matmul(coo, dense)
>>> print(out)
Tensor(shape=[3, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
[[1., 1.],
[2., 2.],
[3., 3.]])
""",
    "sparse.mask_as": """
>>> # csr sparse tensor
>>> crows = [0, 2, 3, 5]
>>> cols = [1, 3, 2, 0, 1]
>>> values = [1., 2., 3., 4., 5.]
>>> dense_shape = [3, 4]
>>> csr = paddle.sparse.sparse_csr_tensor(crows, cols, values, dense_shape)
>>> x = paddle.to_tensor(MASK_AS_DRAW_3X4).astype(csr.dtype)
>>> out = paddle.sparse.mask_as(x, csr)
>>> print(out)
Tensor(shape=[3, 4], dtype=paddle.float32, place=Place(cpu), stop_gradient=True,
crows=[0, 2, 3, 5],
cols=[1, 3, 2, 0, 1],
values=[0.23659813, 0.08467803, 0.64152628, 0.66596609, 0.90394485])

>>> # coo sparse tensor
>>> indices = [[0, 1, 2], [1, 2, 0]]
>>> values = [1.0, 2.0, 3.0]
>>> dense_shape = [3, 3]
>>> coo = paddle.sparse.sparse_coo_tensor(indices, values, dense_shape)
>>> x = paddle.to_tensor(MASK_AS_DRAW_3X3).astype(coo.dtype)
>>> out = paddle.sparse.mask_as(x, coo)
>>> print(out)
Tensor(shape=[3, 3], dtype=paddle.float32, place=Place(cpu), stop_gradient=True,
indices=[[0, 1, 2],
[1, 2, 0]],
values=[0.23659813, 0.40340215, 0.64152628])
""",
    "sparse.masked_matmul": """
>>> paddle.seed(100)

>>> # dense @ dense * csr_mask -> csr
>>> crows = [0, 2, 3, 5]
>>> cols = [1, 3, 2, 0, 1]
>>> values = [1., 2., 3., 4., 5.]
>>> dense_shape = [3, 4]
>>> mask = paddle.sparse.sparse_csr_tensor(crows, cols, values, dense_shape)
>>> print(mask)
Tensor(shape=[3, 4], dtype=paddle.float32, place=Place(cpu), stop_gradient=True,
crows=[0, 2, 3, 5],
cols=[1, 3, 2, 0, 1],
values=[1., 2., 3., 4., 5.])

>>> x = paddle.arange(15, dtype='float32').reshape([3, 5]) / 10
>>> y = paddle.arange(20, dtype='float32').reshape([5, 4]) / 10

>>> out = paddle.sparse.masked_matmul(x, y, mask)
>>> print(out)
Tensor(shape=[3, 4], dtype=paddle.float32, place=Place(cpu), stop_gradient=True,
crows=[0, 2, 3, 5],
cols=[1, 3, 2, 0, 1],
values=[1.30000007, 1.50000000, 3.89999986, 5.19999981, 5.79999971])
""",
    "sparse.addmm": """
>>> # dense + csr @ dense -> dense
>>> input = paddle.rand([3, 2])
>>> crows = [0, 1, 2, 3]
>>> cols = [1, 2, 0]
>>> values = [1., 2., 3.]
>>> x = paddle.sparse.sparse_csr_tensor(crows, cols, values, [3, 3])
>>> y = paddle.rand([3, 2])
>>> out = paddle.sparse.addmm(input, x, y, 3.0, 2.0)

>>> # dense + coo @ dense -> dense
>>> input = paddle.rand([3, 2])
>>> indices = [[0, 1, 2], [1, 2, 0]]
>>> values = [1., 2., 3.]
>>> x = paddle.sparse.sparse_coo_tensor(indices, values, [3, 3])
>>> y = paddle.rand([3, 2])
>>> out = paddle.sparse.addmm(input, x, y, 3.0, 2.0)
""",
    "sparse.add": """
>>> x = paddle.to_tensor([[0, -1, 0, 2], [0, 0, -3, 0], [4, 5, 0, 0]], 'float32')
>>> y = paddle.to_tensor([[0, 0, 0, -2], [0, 2, -3, 0], [2, 3, 4, 8]], 'float32')
>>> sparse_x = x.to_sparse_csr()
>>> sparse_y = y.to_sparse_csr()
>>> sparse_z = paddle.sparse.add(sparse_x, sparse_y)
>>> print(sparse_z.to_dense())
Tensor(shape=[3, 4], dtype=float32, place=Place(cpu), stop_gradient=True,
[[ 0., -1.,  0.,  0.],
[ 0.,  2., -6.,  0.],
[ 6.,  8.,  4.,  8.]])
""",
    "sparse.subtract": """
>>> x = paddle.to_tensor([[0, -1, 0, 2], [0, 0, -3, 0], [4, 5, 0, 0]], 'float32')
>>> y = paddle.to_tensor([[0, 0, 0, -2], [0, 2, -3, 0], [2, 3, 4, 8]], 'float32')
>>> sparse_x = x.to_sparse_csr()
>>> sparse_y = y.to_sparse_csr()
>>> sparse_z = paddle.sparse.subtract(sparse_x, sparse_y)
>>> print(sparse_z.to_dense())
Tensor(shape=[3, 4], dtype=float32, place=Place(cpu), stop_gradient=True,
[[ 0., -1.,  0.,  4.],
[ 0., -2.,  0.,  0.],
[ 2.,  2., -4., -8.]])
""",
    "sparse.sum": """
>>> dense_x = paddle.to_tensor([[-2., 0.], [1., 2.]])
>>> sparse_x = dense_x.to_sparse_coo(1)
>>> out1 = paddle.sparse.sum(sparse_x)
>>> out1
Tensor(shape=[1], dtype=paddle.float32, place=Place(cpu), stop_gradient=True,
indices=[0],
values=1.)
>>> out2 = paddle.sparse.sum(sparse_x, axis=0)
>>> out2
Tensor(shape=[1, 2], dtype=paddle.float32, place=Place(cpu), stop_gradient=True,
indices=[[0]],
values=[[-1.,  2.]])
>>> out3 = paddle.sparse.sum(sparse_x, axis=-1)
>>> out3
Tensor(shape=[2], dtype=paddle.float32, place=Place(cpu), stop_gradient=True,
indices=[[0, 1]],
values=[-2.,  3.])
>>> out4 = paddle.sparse.sum(sparse_x, axis=1, keepdim=True)
>>> out4
Tensor(shape=[2, 1], dtype=paddle.float32, place=Place(cpu), stop_gradient=True,
indices=[[0, 1]],
values=[[-2.],
[ 3.]])
""",
    "sparse.multiply": """
>>> x = paddle.to_tensor([[0, -1, 0, 2], [0, 0, -3, 0], [4, 5, 0, 0]], 'float32')
>>> y = paddle.to_tensor([[0, 0, 0, -2], [0, 2, -3, 0], [2, 3, 4, 8]], 'float32')
>>> sparse_x = x.to_sparse_csr()
>>> sparse_y = y.to_sparse_csr()
>>> sparse_z = paddle.sparse.multiply(sparse_x, sparse_y)
>>> print(sparse_z.to_dense())
Tensor(shape=[3, 4], dtype=float32, place=Place(cpu), stop_gradient=True,
[[ 0., -0.,  0., -4.],
[ 0.,  0.,  9.,  0.],
[ 8., 15.,  0.,  0.]])
""",
    "sparse.divide": """
>>> x = paddle.to_tensor([[0, -1, 0, 2], [0, 0, -3, 0], [4, 5, 0, 0]], 'float32')
>>> y = paddle.to_tensor([[0, 0, 0, -2], [0, 2, -3, 0], [2, 3, 4, 8]], 'float32')
>>> sparse_x = x.to_sparse_csr()
>>> sparse_y = y.to_sparse_csr()
>>> sparse_z = paddle.sparse.divide(sparse_x, sparse_y)
>>> print(sparse_z.to_dense())
Tensor(shape=[3, 4], dtype=float32, place=Place(cpu), stop_gradient=True,
[[ nan      , -inf.     ,  nan      , -1.       ],
[ nan      ,  0.       ,  1.       ,  nan      ],
[ 2.       , 1.66666663,  0.       ,  0.       ]])
""",
    "sparse.coalesce": """
>>> indices = [[0, 0, 1], [1, 1, 2]]
>>> values = [1.0, 2.0, 3.0]
>>> sp_x = paddle.sparse.sparse_coo_tensor(indices, values)
>>> sp_x = paddle.sparse.coalesce(sp_x)
>>> print(sp_x.indices())
Tensor(shape=[2, 2], dtype=int64, place=Place(cpu), stop_gradient=True,
[[0, 1],
[1, 2]])
>>> print(sp_x.values())
Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
[3., 3.])
""",
    "sparse.is_same_shape": """
>>> x = paddle.rand([2, 3, 8])
>>> y = paddle.rand([2, 3, 8])
>>> y = y.to_sparse_csr()
>>> z = paddle.rand([2, 5])

>>> paddle.sparse.is_same_shape(x, y)
True
>>> paddle.sparse.is_same_shape(x, z)
False
""",
    "sparse.reshape": """
>>> x_shape = [6, 2, 3]
>>> new_shape = [1, 0, 2, -1, 3]
>>> format = "coo"

>>> dense_x = paddle.randint(-100, 100, x_shape) * paddle.randint(0, 2, x_shape)

>>> if format == "coo":
...     sp_x = dense_x.to_sparse_coo(len(x_shape))
... else:
...     sp_x = dense_x.to_sparse_csr()
>>> sp_out = paddle.sparse.reshape(sp_x, new_shape)

>>> print(sp_out.shape)
paddle.Size([1, 2, 2, 3, 3])
""",
    "sparse.isnan": """
>>> import numpy as np

>>> format = "coo"
>>> np_x = np.asarray([[[0., 0], [1., 2.]], [[0., 0], [3., float('nan')]]])
>>> dense_x = paddle.to_tensor(np_x)

>>> if format == "coo":
...     sparse_x = dense_x.to_sparse_coo(len(np_x.shape))
... else:
...     sparse_x = dense_x.to_sparse_csr()
...
>>> sparse_out = paddle.sparse.isnan(sparse_x)
>>> print(sparse_out)
Tensor(shape=[2, 2, 2], dtype=paddle.bool, place=Place(cpu), stop_gradient=True,
indices=[[0, 0, 1, 1],
[1, 1, 1, 1],
[0, 1, 0, 1]],
values=[False, False, False, True ])
""",
    "sparse.slice": """
>>> import numpy as np

>>> format = 'coo'
>>> np_x = np.asarray([[4, 0, 7, 0], [0, 0, 5, 0], [-4, 2, 0, 0]])
>>> dense_x = paddle.to_tensor(np_x)
>>> if format == 'coo':
...     sp_x = dense_x.to_sparse_coo(len(np_x.shape))
... else:
...     sp_x = dense_x.to_sparse_csr()
...
>>> axes = [0, 1]
>>> starts = [1, 0]
>>> ends = [3, -2]
>>> sp_out = paddle.sparse.slice(sp_x, axes, starts, ends)
>>> # sp_out is x[1:3, 0:-2]

>>> print(sp_out)
Tensor(shape=[2, 2], dtype=paddle.int64, place=Place(cpu), stop_gradient=True,
indices=[[1, 1],
[0, 1]],
values=[-4,  2])
""",
    "sparse.nn.ReLU": """
>>> dense_x = paddle.to_tensor([-2., 0., 1.])
>>> sparse_x = dense_x.to_sparse_coo(1)
>>> relu = paddle.sparse.nn.ReLU()
>>> out = relu(sparse_x)
>>> print(out)
Tensor(shape=[3], dtype=paddle.float32, place=Place(cpu), stop_gradient=True,
indices=[[0, 2]],
values=[0., 1.])
""",
    "sparse.nn.ReLU6": """
>>> dense_x = paddle.to_tensor([-2., 0., 8.])
>>> sparse_x = dense_x.to_sparse_coo(1)
>>> relu6 = paddle.sparse.nn.ReLU6()
>>> out = relu6(sparse_x)
>>> print(out)
Tensor(shape=[3], dtype=paddle.float32, place=Place(cpu), stop_gradient=True,
indices=[[0, 2]],
values=[0., 6.])
""",
    "sparse.nn.LeakyReLU": """
>>> dense_x = paddle.to_tensor([-2., 0., 5.])
>>> sparse_x = dense_x.to_sparse_coo(1)
>>> leaky_relu = paddle.sparse.nn.LeakyReLU(0.5)
>>> out = leaky_relu(sparse_x)
>>> print(out)
Tensor(shape=[3], dtype=paddle.float32, place=Place(cpu), stop_gradient=True,
indices=[[0, 2]],
values=[-1.,  5.])
""",
    "sparse.nn.Softmax": """
>>> x = paddle.to_tensor(SOFTMAX_DRAW_2022)
>>> print(x)
Tensor(shape=[3, 4], dtype=float32, place=Place(cpu), stop_gradient=True,
[[0.88156885, 0.14463395, 0.17831714, 0.43818203],
[0.07617740, 0.75576496, 0.        , 0.61921930],
[0.        , 0.        , 0.42460245, 0.03001321]])

>>> csr = x.to_sparse_csr()
>>> print(csr)
Tensor(shape=[3, 4], dtype=paddle.float32, place=Place(cpu), stop_gradient=True,
crows=[0, 4, 7, 9],
cols=[0, 1, 2, 3, 0, 1, 3, 2, 3],
values=[0.88156885, 0.14463395, 0.17831714, 0.43818203, 0.07617740,
0.75576496, 0.61921930, 0.42460245, 0.03001321])

>>> softmax = paddle.sparse.nn.Softmax()
>>> out = softmax(csr)
>>> print(out)
Tensor(shape=[3, 4], dtype=paddle.float32, place=Place(cpu), stop_gradient=True,
crows=[0, 4, 7, 9],
cols=[0, 1, 2, 3, 0, 1, 3, 2, 3],
values=[0.38234913, 0.18298410, 0.18925257, 0.24541418, 0.21302439,
0.42031071, 0.36666498, 0.59738696, 0.40261301])

>>> coo = x.to_sparse_coo(sparse_dim=2)
>>> print(coo)
Tensor(shape=[3, 4], dtype=paddle.float32, place=Place(cpu), stop_gradient=True,
indices=[[0, 0, 0, 0, 1, 1, 1, 2, 2],
[0, 1, 2, 3, 0, 1, 3, 2, 3]],
values=[0.88156885, 0.14463395, 0.17831714, 0.43818203, 0.07617740,
0.75576496, 0.61921930, 0.42460245, 0.03001321])

>>> out = softmax(coo)
>>> print(out)
Tensor(shape=[3, 4], dtype=paddle.float32, place=Place(cpu), stop_gradient=True,
indices=[[0, 0, 0, 0, 1, 1, 1, 2, 2],
[0, 1, 2, 3, 0, 1, 3, 2, 3]],
values=[0.38234913, 0.18298411, 0.18925257, 0.24541420, 0.21302438,
0.42031071, 0.36666498, 0.59738696, 0.40261301])
""",
    "sparse.nn.BatchNorm": """
>>> paddle.seed(123)
>>> channels = 3
>>> x_data = paddle.randn((1, 6, 6, 6, channels)).astype('float32')
>>> dense_x = paddle.to_tensor(x_data)
>>> sparse_x = dense_x.to_sparse_coo(4)
>>> batch_norm = paddle.sparse.nn.BatchNorm(channels)
>>> batch_norm_out = batch_norm(sparse_x)
>>> print(batch_norm_out.shape)
paddle.Size([1, 6, 6, 6, 3])
""",
    "sparse.nn.functional.relu": """
>>> dense_x = paddle.to_tensor([-2., 0., 1.])
>>> sparse_x = dense_x.to_sparse_coo(1)
>>> out = paddle.sparse.nn.functional.relu(sparse_x)
>>> print(out)
Tensor(shape=[3], dtype=paddle.float32, place=Place(cpu), stop_gradient=True,
indices=[[0, 2]],
values=[0., 1.])
""",
    "sparse.nn.functional.relu6": """
>>> dense_x = paddle.to_tensor([-2., 0., 8.])
>>> sparse_x = dense_x.to_sparse_coo(1)
>>> out = paddle.sparse.nn.functional.relu6(sparse_x)
>>> print(out)
Tensor(shape=[3], dtype=paddle.float32, place=Place(cpu), stop_gradient=True,
indices=[[0, 2]],
values=[0., 6.])
""",
    "sparse.nn.functional.leaky_relu": """
>>> dense_x = paddle.to_tensor([-2., 0., 5.])
>>> sparse_x = dense_x.to_sparse_coo(1)
>>> out = paddle.sparse.nn.functional.leaky_relu(sparse_x, 0.5)
>>> print(out)
Tensor(shape=[3], dtype=paddle.float32, place=Place(cpu), stop_gradient=True,
indices=[[0, 2]],
values=[-1.,  5.])
""",
    "sparse.nn.functional.softmax": """
>>> x = paddle.to_tensor(SOFTMAX_DRAW_100)
>>> print(x)
Tensor(shape=[3, 4], dtype=float32, place=Place(cpu), stop_gradient=True,
[[0.        , 0.95717543, 0.43864486, 0.        ],
[0.84765935, 0.45680618, 0.39412445, 0.        ],
[0.59444654, 0.        , 0.78364515, 0.        ]])

>>> csr = x.to_sparse_csr()
>>> print(csr)
Tensor(shape=[3, 4], dtype=paddle.float32, place=Place(cpu), stop_gradient=True,
crows=[0, 2, 5, 7],
cols=[1, 2, 0, 1, 2, 0, 2],
values=[0.95717543, 0.43864486, 0.84765935, 0.45680618, 0.39412445,
0.59444654, 0.78364515])

>>> out = paddle.sparse.nn.functional.softmax(csr)
>>> print(out)
Tensor(shape=[3, 4], dtype=paddle.float32, place=Place(cpu), stop_gradient=True,
crows=[0, 2, 5, 7],
cols=[1, 2, 0, 1, 2, 0, 2],
values=[0.62680405, 0.37319586, 0.43255258, 0.29261294, 0.27483448,
0.45284089, 0.54715902])

>>> coo = x.to_sparse_coo(sparse_dim=2)
>>> print(coo)
Tensor(shape=[3, 4], dtype=paddle.float32, place=Place(cpu), stop_gradient=True,
indices=[[0, 0, 1, 1, 1, 2, 2],
[1, 2, 0, 1, 2, 0, 2]],
values=[0.95717543, 0.43864486, 0.84765935, 0.45680618, 0.39412445,
0.59444654, 0.78364515])

>>> out = paddle.sparse.nn.functional.softmax(coo)
>>> print(out)
Tensor(shape=[3, 4], dtype=paddle.float32, place=Place(cpu), stop_gradient=True,
indices=[[0, 0, 1, 1, 1, 2, 2],
[1, 2, 0, 1, 2, 0, 2]],
values=[0.62680405, 0.37319589, 0.43255258, 0.29261294, 0.27483445,
0.45284092, 0.54715902])
""",
    "sparse.nn.Conv2D": POINTS_2D + """>>> conv = paddle.sparse.nn.Conv2D(1, 1, (3, 3))
>>> y = conv(sparse_x)
>>> print(y.shape)
paddle.Size([1, 1, 2, 1])
""",
    "sparse.nn.Conv3D": POINTS_3D + """>>> conv = paddle.sparse.nn.Conv3D(1, 1, (1, 3, 3))
>>> y = conv(sparse_x)
>>> print(y.shape)
paddle.Size([1, 1, 1, 2, 1])
""",
    "sparse.nn.MaxPool3D": """
>>> dense_x = paddle.randn((2, 3, 6, 6, 3))
>>> sparse_x = dense_x.to_sparse_coo(4)
>>> max_pool3d = paddle.sparse.nn.MaxPool3D(kernel_size=3, data_format='NDHWC')
>>> out = max_pool3d(sparse_x)
>>> print(out.shape)
paddle.Size([2, 1, 2, 2, 3])
""",
    "sparse.nn.SubmConv2D": """
>>> indices = [[0, 0, 0, 0], [0, 0, 1, 2], [1, 3, 2, 3]]
>>> values = [[1], [2], [3], [4]]
>>> dense_shape = [1, 3, 4, 1]
>>> indices = paddle.to_tensor(indices, dtype='int32')
>>> values = paddle.to_tensor(values, dtype='float32')
>>> sparse_x = paddle.sparse.sparse_coo_tensor(indices, values, dense_shape, stop_gradient=True)
>>> subm_conv = paddle.sparse.nn.SubmConv2D(1, 1, (3, 3))
>>> y = subm_conv(sparse_x)
>>> print(y.shape)
paddle.Size([1, 3, 4, 1])
""",
    "sparse.nn.SubmConv3D": """
>>> indices = [
...     [0, 0, 0, 0],
...     [0, 0, 0, 0],
...     [0, 0, 1, 2],
...     [1, 3, 2, 3],
... ]
>>> values = [[1], [2], [3], [4]]
>>> dense_shape = [1, 1, 3, 4, 1]
>>> indices = paddle.to_tensor(indices, dtype='int32')
>>> values = paddle.to_tensor(values, dtype='float32')
>>> sparse_x = paddle.sparse.sparse_coo_tensor(indices, values, dense_shape, stop_gradient=True)
>>> subm_conv = paddle.sparse.nn.SubmConv3D(1, 1, (1, 3, 3))
>>> y = subm_conv(sparse_x)
>>> print(y.shape)
paddle.Size([1, 1, 3, 4, 1])
""",
    "sparse.nn.functional.conv2d": POINTS_2D + """>>> weight = paddle.randn((3, 3, 1, 1), dtype='float32')
>>> y = paddle.sparse.nn.functional.conv2d(sparse_x, weight)
>>> print(y.shape)
paddle.Size([1, 1, 2, 1])
""",
    "sparse.nn.functional.conv3d": POINTS_3D + """>>> weight = paddle.randn((1, 3, 3, 1, 1), dtype='float32')
>>> y = paddle.sparse.nn.functional.conv3d(sparse_x, weight)
>>> print(y.shape)
paddle.Size([1, 1, 1, 2, 1])
""",
    "sparse.nn.functional.max_pool3d": """
>>> dense_x = paddle.randn((1, 4, 4, 4, 3))
>>> sparse_x = dense_x.to_sparse_coo(4)
>>> kernel_sizes = [3, 3, 3]
>>> paddings = [0, 0, 0]
>>> strides = [1, 1, 1]
>>> out = paddle.sparse.nn.functional.max_pool3d(sparse_x, kernel_sizes, stride=strides, padding=paddings)
>>> print(out.shape)
paddle.Size([1, 2, 2, 2, 3])
""",
    "sparse.nn.functional.subm_conv2d": POINTS_2D + """>>> weight = paddle.randn((3, 3, 1, 1), dtype='float32')
>>> y = paddle.sparse.nn.functional.subm_conv2d(sparse_x, weight)
>>> print(y.shape)
paddle.Size([1, 3, 4, 1])
""",
    "sparse.nn.functional.subm_conv3d": POINTS_3D + """>>> weight = paddle.randn((1, 3, 3, 1, 1), dtype='float32')
>>> y = paddle.sparse.nn.functional.subm_conv3d(sparse_x, weight)
>>> print(y.shape)
paddle.Size([1, 1, 3, 4, 1])
""",
}
# Paddle's docstrings of the implicit-GEMM names repeat the examples of subm_conv2d / subm_conv3d word for word
for _name in ("subm_conv2d", "subm_conv3d"):
    EXAMPLES[f"sparse.nn.functional.{_name}_igemm"] = EXAMPLES[f"sparse.nn.functional.{_name}"]


@pytest.fixture(autouse=True)
def _default_dtype():
    paddle_fn.set_default_dtype("float32")
    yield


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_paddle_example(name):
    globs = {"paddle": paddle_fn, "np": np, "MASK_AS_DRAW_3X4": MASK_AS_DRAW_3X4, "MASK_AS_DRAW_3X3": MASK_AS_DRAW_3X3,
             "SOFTMAX_DRAW_2022": SOFTMAX_DRAW_2022, "SOFTMAX_DRAW_100": SOFTMAX_DRAW_100}
    test = doctest.DocTestParser().get_doctest(EXAMPLES[name], globs, name, None, 0)
    report = []
    runner = doctest.DocTestRunner(checker=FloatTolerantChecker(), optionflags=FLAGS)
    runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)


def test_every_paddle_example_is_here():
    """The 56 examples of paddle 3.3.1 that paddle_fn covers (sparse_coo_tensor ... nn.functional.max_pool3d)."""
    assert len(EXAMPLES) == 56
