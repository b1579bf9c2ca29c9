"""Stand-in for TensorFlow Datasets: only the names dm-clrs 2.0.3 uses at import time (see ../README.md)."""

import dataclasses


class core:  # pylint: disable=invalid-name

    @dataclasses.dataclass
    class BuilderConfig:
        name: str = ''
        version: object = None
        release_notes: object = None
        supported_versions: object = ()
        description: object = None

    class GeneratorBasedBuilder:

        def __init__(self, *args, **kwargs):
            raise NotImplementedError(
                'narlab\'s TFDS stand-in (python/tests/standins) cannot build TFDS datasets: '
                'load narlab\'s .npz files instead, or install tensorflow-datasets'
            )

    class Version(str):
        pass

    class DatasetInfo:
        pass


class download:  # pylint: disable=invalid-name
    class DownloadManager:
        pass


def __getattr__(name):
    raise AttributeError(
        f'tfds.{name}: this is narlab\'s TensorFlow Datasets stand-in for tests (python/tests/standins); '
        'install tensorflow-datasets to use it'
    )
