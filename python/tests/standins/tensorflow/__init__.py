"""Stand-in for TensorFlow: only the names dm-clrs 2.0.3 uses at import time (see ../README.md)."""


class Tensor:
    """probing.py checks isinstance(x, tf.Tensor); nothing here is one."""


class TensorSpec:

    def __init__(self, shape=None, dtype=None, name=None):
        self.shape, self.dtype, self.name = shape, dtype, name


string, int32, bool = 'string', 'int32', 'bool'  # pylint: disable=redefined-builtin


class data:  # pylint: disable=invalid-name
    class Dataset:
        pass


def __getattr__(name):
    raise AttributeError(
        f'tf.{name}: this is narlab\'s TensorFlow stand-in for tests (python/tests/standins), '
        'which dm-clrs\'s TFDS code would need; install tensorflow to use it'
    )
