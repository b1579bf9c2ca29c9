"""MLflow's python_function flavor of narlab's logged models.

A model that ``narlab train`` logs to MLflow carries, beside narlab's
checkpoint (``checkpoint/``) and the same weights as a dm-clrs checkpoint
(``reference/model.pkl``), an MLmodel entry ``python_function`` whose
``loader_module`` is this module. So in an environment with this package
(the wheel, which carries the narlab binary) and MLflow::

    import mlflow, narlab
    model = mlflow.pyfunc.load_model("models:/bfs-mpnn/1")
    ds = narlab.sample("bfs", length=16, seed=7, count=8)
    predictions = model.predict(ds.features())   # {'output/pi': array [8, 16]}

``predict`` takes a batch's features, what dm-clrs's
``BaselineModel.predict`` takes: a dict of NumPy arrays named as in a
dataset file (``input/NAME`` ``[B, ...]``, ``hint/NAME`` ``[T, B, ...]``,
``lengths`` ``[B]``; :meth:`narlab.Dataset.features` gives them; the model
reads the inputs, the hints' first step and the lengths). It returns
``{'output/NAME': array}`` per output of the model (float64: node indices
for pointers and permutations, probabilities for masks, class scores for
``mask_one`` and categorical outputs, values for scalars), exactly what
``narlab eval --data FILE --predictions OUT`` writes for the same
features: the model runs in the packaged narlab binary (GoMLX on XLA, or
its pure-Go backend), called once per ``predict``.
"""

import json
import os

__all__ = ['NarlabModel', '_load_pyfunc']


class NarlabModel:
    """A narlab checkpoint as MLflow's pyfunc loads it (see the module)."""

    def __init__(self, checkpoint):
        self.checkpoint = os.fspath(checkpoint)
        cfg = os.path.join(self.checkpoint, 'nn_config.json')
        try:
            with open(cfg) as f:
                self.config = json.load(f)
        except OSError as e:
            raise ValueError(f'{self.checkpoint} is not a narlab checkpoint (no nn_config.json): {e}') from e
        self.algorithm = self.config.get('algorithm')

    def __repr__(self):
        return f'NarlabModel({self.algorithm!r}, {self.config.get("processor")!r}, {self.checkpoint!r})'

    def predict(self, model_input, params=None):  # pylint: disable=unused-argument
        """Predictions on a batch's features (a dict of arrays, or a
        :class:`narlab.Dataset`): ``{'output/NAME': array [B, ...]}``."""
        from narlab import cli  # pylint: disable=import-outside-toplevel

        return cli.predict(self.checkpoint, model_input)


def _load_pyfunc(path, model_config=None):  # pylint: disable=unused-argument
    """MLflow's loader entry point: ``path`` is the model's ``checkpoint/``."""
    return NarlabModel(path)
