
import sys, runpy, numpy as np
sys.path.insert(0, '/work/main/lib/clrs/testdata')
import gen_reference as g
_cos, _sin = np.cos, np.sin
def cos(x, *a, **k):
    x = np.asarray(x, dtype=float)
    return np.vectorize(g.svml_cos, otypes=[float])(x) if x.ndim else g.svml_cos(float(x))
def sin(x, *a, **k):
    x = np.asarray(x, dtype=float)
    return np.vectorize(g.svml_sin, otypes=[float])(x) if x.ndim else g.svml_sin(float(x))
np.cos, np.sin = cos, sin
sys.argv = ['/work/clrs-ref/dump.py'] + sys.argv[1:]
runpy.run_path('/work/clrs-ref/dump.py', run_name='__main__')
