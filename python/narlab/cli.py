"""The narlab command from Python: the binary, and the calls that run it.

The wheel of ``make wheel`` carries the narlab binary (Go, with the XLA
backend linked) as ``narlab/bin/narlab``; its ``narlab`` command is
:func:`main`, which runs that binary with this environment's settings:

* ``NARLAB_XLA_PLUGIN``: the XLA CPU plugin of this environment
  (``pip install "narlab[train]"`` installs it, the lammps-jax-pjrt-cpu
  wheel), or the CUDA plugin (jax-cuda12/13-pjrt) where an NVIDIA card is
  present, unless set or ``GOMLX_BACKEND`` chooses;
* ``NARLAB_PYTHON``: this interpreter, so that the local MLflow server narlab
  starts (and the models it logs) use this environment's MLflow;
* ``NARLAB_DATA``: outside a narlab checkout, ``$XDG_DATA_HOME/narlab``
  (``~/.local/share/narlab``) for training runs and the local MLflow server.

In a checkout (an editable install), the binary is the checkout's
``bin/narlab`` (``make setup`` builds it); ``NARLAB_BIN`` names another.

:func:`generate`, :func:`sample`, :func:`train`, :func:`evaluate` and
:func:`predict` run the binary and return what it wrote, read back.
"""

import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

__all__ = ['binary', 'environment', 'run', 'main', 'generate', 'sample', 'train', 'evaluate', 'predict', 'NarlabError']


class NarlabError(RuntimeError):
    """The narlab binary failed; the message is its own."""


_HERE = os.path.dirname(os.path.abspath(__file__))


def _is_executable_elf(path):
    try:
        with open(path, 'rb') as f:
            return f.read(4) == b'\x7fELF' and os.access(path, os.X_OK)
    except OSError:
        return False


def binary():
    """The path of the narlab binary this package runs.

    ``$NARLAB_BIN``, else the wheel's ``narlab/bin/narlab``, else the
    checkout's ``bin/narlab`` when the package is the checkout's
    ``python/narlab`` (an editable install).
    """
    env = os.environ.get('NARLAB_BIN')
    if env:
        if not _is_executable_elf(env):
            raise NarlabError(f'NARLAB_BIN={env} is not an executable narlab binary')
        return env
    packaged = os.path.join(_HERE, 'bin', 'narlab')
    if _is_executable_elf(packaged):
        return packaged
    checkout = os.path.normpath(os.path.join(_HERE, '..', '..', 'bin', 'narlab'))
    if _is_executable_elf(checkout):
        return checkout
    raise NarlabError(
        'no narlab binary: install the wheel that carries it (make wheel in a narlab checkout writes '
        'dist/narlab-VERSION-py3-none-PLATFORM.whl; pip install it), or build the checkout\'s bin/narlab '
        '(make setup), or set NARLAB_BIN to one'
    )


def _in_checkout(directory):
    d = os.path.abspath(directory)
    while True:
        try:
            with open(os.path.join(d, 'go.mod')) as f:
                for line in f:
                    if line.startswith('module '):
                        return line.split()[1] == 'github.com/narlab/narlab'
        except OSError:
            pass
        parent = os.path.dirname(d)
        if parent == d:
            return False
        d = parent


def _plugins():
    """(cpu, cuda): the XLA PJRT plugins installed in this environment, or None."""
    cpu = cuda = None
    spec = importlib.util.find_spec('lammps_jax_pjrt_cpu')
    if spec is not None and spec.submodule_search_locations:
        for d in spec.submodule_search_locations:
            p = os.path.join(d, 'pjrt_c_api_cpu_plugin.so')
            if os.path.isfile(p):
                cpu = p
    try:
        spec = importlib.util.find_spec('jax_plugins')
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.submodule_search_locations:
        for d in spec.submodule_search_locations:
            for sub in sorted(os.listdir(d)) if os.path.isdir(d) else []:
                p = os.path.join(d, sub, 'xla_cuda_plugin.so')
                if sub.startswith('xla_cuda1') and os.path.isfile(p):
                    cuda = p
    return cpu, cuda


def environment(base=None):
    """The environment the binary runs in: ``base`` (default ``os.environ``)
    with the settings this module's docstring lists, where they are unset."""
    env = dict(os.environ if base is None else base)
    if not env.get('NARLAB_XLA_PLUGIN') and not env.get('GOMLX_BACKEND'):
        cpu, cuda = _plugins()
        if cuda and os.path.exists('/dev/nvidia0'):
            env['NARLAB_XLA_PLUGIN'] = cuda
        elif cpu:
            env['NARLAB_XLA_PLUGIN'] = cpu
    env.setdefault('NARLAB_PYTHON', sys.executable)
    if not env.get('NARLAB_DATA') and not env.get('NARLAB_ROOT') and not _in_checkout(os.getcwd()):
        base_dir = env.get('XDG_DATA_HOME') or os.path.join(os.path.expanduser('~'), '.local', 'share')
        env['NARLAB_DATA'] = os.path.join(base_dir, 'narlab')
    return env


def main():
    """The ``narlab`` command of the package: the binary, in :func:`environment`."""
    try:
        exe = binary()
    except NarlabError as e:
        sys.stderr.write(f'narlab: {e}\n')
        sys.exit(1)
    os.execve(exe, [exe] + sys.argv[1:], environment())


def run(*args, check=True):
    """Runs ``narlab ARGS`` and returns its standard output (a str); standard
    error passes through. A failure raises :class:`NarlabError` with the
    command's message."""
    cmd = [binary()] + [str(a) for a in args]
    r = subprocess.run(cmd, env=environment(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if check and r.returncode != 0:
        msg = r.stderr.strip() or r.stdout.strip()
        raise NarlabError(f'narlab {" ".join(cmd[1:])} failed (exit {r.returncode}):\n{msg}')
    return r.stdout


def _flags(options):
    out = []
    for k, v in options.items():
        if v is None:
            continue
        flag = '--' + k.replace('_', '-')
        if isinstance(v, bool):
            out.append(f'{flag}={"true" if v else "false"}')
        elif isinstance(v, (list, tuple)):
            out += [flag, ','.join(str(x) for x in v)]
        elif isinstance(v, dict):
            out += [flag, json.dumps(v)]
        else:
            out += [flag, str(v)]
    return out


def generate(out, algorithms=None, *, split=None, lengths=None, seeds=None, count=None, kwargs=None, name=None, **options):
    """Writes datasets with ``narlab clrs generate`` into ``out`` and returns
    its manifest (a dict; :func:`narlab.load_split` and :func:`narlab.load`
    read the files).

    Without ``lengths``, ``seeds``, ``count``, ``kwargs`` or ``name``: the
    official CLRS-30 splits (``split``: train, val, test or all, the
    default). With them: one file per algorithm, length and seed, of
    ``count`` samples (default 1000) drawn as dm-clrs's
    ``build_sampler(algorithm, num_samples=count, length=…, seed=…,
    **kwargs)`` draws them, named ``ALGO_nLENGTH_sSEED.npz`` (or
    ``ALGO_NAME.npz``). ``algorithms``: a list or comma-separated names
    (default: the 30 of CLRS-30). Other options are the command's flags
    (``workers=2``, ``compress=False``).
    """
    if isinstance(algorithms, (list, tuple)):
        algorithms = ','.join(algorithms)
    if isinstance(lengths, int):
        lengths = [lengths]
    if isinstance(seeds, int):
        seeds = [seeds]
    flags = _flags(dict(algos=algorithms, split=split, lengths=lengths, seeds=seeds, count=count,
                        kwargs=kwargs, name=name, **options))
    run('clrs', 'generate', '--quiet', '--out', out, *flags)
    from narlab import read_manifest  # pylint: disable=import-outside-toplevel

    return read_manifest(out)


def sample(algorithm, length=16, seed=0, count=1, kwargs=None):
    """``count`` samples of ``algorithm`` drawn as dm-clrs's
    ``build_sampler(algorithm, num_samples=count, length=length, seed=seed,
    **kwargs)`` draws them, as a :class:`narlab.Dataset` (its arrays equal
    the sampler's dataset, bit for bit)."""
    from narlab import load  # pylint: disable=import-outside-toplevel

    with tempfile.TemporaryDirectory(prefix='narlab-sample-') as d:
        path = os.path.join(d, f'{algorithm}_sample.npz')
        flags = _flags(dict(algo=algorithm, length=length, seed=seed, count=count, kwargs=kwargs))
        run('clrs', 'sample', '--format', 'npz', '--out', path, *flags)
        ds = load(path, algorithm)
        # Read whole into memory: the file goes with the directory.
        ds.path, ds.split = None, None
        return ds


def train(algorithm, **options):
    """Trains a CLRS baseline with ``narlab train --algo ALGORITHM`` and
    returns its ``result.json`` (a dict: scores, ``checkpoint``, and with
    MLflow ``run_id``, ``model_uri``, ``registered_model``,
    ``model_version``).

    Options are the command's flags, ``_`` for ``-``: ``steps=20``,
    ``processor='mpnn'``, ``hidden=16``, ``train_lengths=[8]``,
    ``register='bfs-mpnn'``, ``tracking=URI``, ``no_mlflow=True``, …
    (``narlab train -h`` lists them).
    """
    out = run('train', '--algo', algorithm, *_flags(options))
    m = re.search(r'^checkpoint: (.+)$', out, flags=re.M)
    if not m:
        raise NarlabError(f'narlab train printed no checkpoint:\n{out}')
    with open(os.path.join(os.path.dirname(m.group(1).strip()), 'result.json')) as f:
        return json.load(f)


def _features(model_input, algorithm=None):
    """The features of a batch as a dict of arrays named as in a dataset
    file (input/NAME, hint/NAME, lengths)."""
    from narlab import Dataset  # pylint: disable=import-outside-toplevel

    if isinstance(model_input, Dataset):
        return model_input.features()
    if isinstance(model_input, dict):
        return {k: np.asarray(v) for k, v in model_input.items() if not k.startswith('output/')}
    raise TypeError(f'want a narlab.Dataset or a dict of arrays named input/NAME, hint/NAME and lengths, got {type(model_input).__name__}')


def evaluate(checkpoint, data=None, *, split='test', count=None, **options):
    """Scores a checkpoint with ``narlab eval``: on a CLRS-30 ``split`` (the
    first ``count`` samples), or on ``data`` (a dataset file's path, or a
    :class:`narlab.Dataset`), and returns the scores (a dict: per output and
    ``score``). Other options are the command's flags (``no_mlflow=True``,
    ``tracking=URI``, ``backend='go'``)."""
    from narlab import Dataset  # pylint: disable=import-outside-toplevel

    with tempfile.TemporaryDirectory(prefix='narlab-eval-') as d:
        flags = _flags(options)
        if data is not None:
            if isinstance(data, Dataset):
                path = os.path.join(d, 'data.npz')
                data.save(path)
                data = path
            out = run('eval', '--checkpoint', checkpoint, '--data', data, *flags)
        else:
            out = run('eval', '--checkpoint', checkpoint, '--split', split, *_flags(dict(count=count)), *flags)
    scores = {}
    for line in out.splitlines():
        m = re.match(r'^  (\S+)\s+(-?[0-9.]+|NaN)$', line)
        if m:
            scores[m.group(1)] = float(m.group(2))
    if 'score' not in scores:
        raise NarlabError(f'narlab eval printed no scores:\n{out}')
    return scores


def predict(checkpoint, model_input):
    """A checkpoint's predictions on a batch with ``narlab eval --data
    --predictions``: ``model_input`` is a :class:`narlab.Dataset` or its
    features (a dict of arrays named input/NAME, hint/NAME, lengths, as
    :meth:`narlab.Dataset.features` gives them); the result is a dict
    ``{'output/NAME': array [B, ...]}`` (float64: node indices for pointers,
    probabilities for masks, class scores for categorical outputs, values
    for scalars)."""
    arrays = _features(model_input)
    with tempfile.TemporaryDirectory(prefix='narlab-predict-') as d:
        src, dst = os.path.join(d, 'features.npz'), os.path.join(d, 'predictions.npz')
        np.savez(src, **arrays)
        run('eval', '--checkpoint', checkpoint, '--data', src, '--predictions', dst, '--no-mlflow')
        with np.load(dst, allow_pickle=False) as z:
            return {k: z[k] for k in z.files}
