"""narlab datasets as dm-clrs ``Feedback`` batches.

dm-clrs (PyPI ``dm-clrs``, 2.0.3) is imported when these functions run, not
when :mod:`narlab` is. The result is what dm-clrs's own samplers return:
``clrs.Feedback(features=clrs.Features(inputs, hints, lengths), outputs)``
with one ``clrs.DataPoint(name, location, type_, data)`` per probe, in the
spec's order, holding the file's arrays (inputs and outputs ``[B, ...]``,
hints ``[T, B, ...]``, lengths float64 ``[B]``). Use them where dm-clrs
uses its sampler's ``next()`` or its TFDS dataset: ``BaselineModel.init``,
``.feedback``, ``.predict``, ``clrs.evaluate``, and the training transforms
``clrs.process_permutations``, ``clrs.process_pred_as_input``,
``clrs.process_random_pos``.
"""

import narlab


def _clrs():
    try:
        import clrs  # pylint: disable=import-outside-toplevel
    except ImportError as e:
        raise ImportError(
            'narlab.dmclrs needs dm-clrs: pip install dm-clrs==2.0.3 (what the extra of narlab\'s wheel, '
            'pip install "narlab-VERSION-….whl[dmclrs]", or of a checkout, pip install "./python[dmclrs]", installs; '
            'its download sizes are in docs/python.md)'
        ) from e
    return clrs


def to_feedback(dataset):
    """The samples of a :class:`narlab.Dataset` (or of one of its batches) as one ``clrs.Feedback``."""
    clrs = _clrs()

    def points(stage):
        return [
            clrs.DataPoint(name=p.name, location=p.location, type_=p.type, data=a)
            for p, a in dataset.probes(stage)
        ]

    return clrs.Feedback(
        features=clrs.Features(inputs=points('input'), hints=points('hint'), lengths=dataset.lengths),
        outputs=points('output'),
    )


def feedback_batches(dataset, batch_size, *, shuffle=False, seed=None, repeat=True, drop_last=False):
    """Yields ``clrs.Feedback`` batches of ``batch_size`` samples.

    By default consecutive samples, forever (as dm-clrs's ``create_dataset``,
    which batches a repeated TFDS dataset); ``shuffle``/``seed`` draw a new
    order for each pass; ``repeat=False`` stops after one pass. Every batch
    keeps the file's ``T`` hint steps, so a jitted model compiles once.
    """
    _clrs()  # fail here, not at the first next()
    batches = dataset.batches(batch_size, shuffle=shuffle, seed=seed, repeat=repeat, drop_last=drop_last)
    return (to_feedback(b) for b in batches)


def load_feedback(path, algorithm=None):
    """``narlab.load(path, algorithm).feedback()``: a whole file as one ``clrs.Feedback``."""
    return to_feedback(narlab.load(path, algorithm))
