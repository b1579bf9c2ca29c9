"""Shared fixtures: the files the suites read are made by the Go test that
runs them (python/bridge_test.go): NARLAB_TEST_DATA holds `narlab clrs
generate` outputs (val/: the val split of all 30 algorithms; clrs30/: every
split of bfs and insertion_sort), NARLAB_TEST_REF the same splits written
by dm-clrs's own samplers. Run the suites with `go test ./python`."""

import os

import pytest


def pytest_addoption(parser):
    parser.addoption(
        '--doc-tags',
        default=None,
        help='comma-separated tags of the docs/python.md snippets to run (numpy, dmclrs, pyg)',
    )


def _env_dir(name):
    d = os.environ.get(name)
    if not d or not os.path.isdir(d):
        raise RuntimeError(
            f'{name} is not set to a directory: run these tests with `go test ./python`, '
            'which writes the files they read'
        )
    return d


@pytest.fixture(scope='session')
def data_dir():
    """narlab clrs generate outputs: val/ (all 30 algorithms), clrs30/ (bfs, insertion_sort, every split)."""
    return _env_dir('NARLAB_TEST_DATA')


@pytest.fixture(scope='session')
def ref_dir():
    """The same splits from dm-clrs's samplers (numpy.savez_compressed of each sampler's arrays)."""
    return _env_dir('NARLAB_TEST_REF')
