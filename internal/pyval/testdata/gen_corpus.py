"""Expected values for pyval's tests, computed by CPython (3.11).

    python3 gen_corpus.py > corpus.jsonl

Each line: {"op", "in", "out"} where out is repr() of the result, or
{"raised": ExceptionType}. Sets of strings are left out (their order
changes from run to run).
"""
import ast
import json
import sys

LIT = [
    "1", "-1", "+1", "--1", "-(1)", "0", "00", "01", "0_0", "1_000", "1__0", "1_", "0x1f", "0X_1F", "0o17", "0b101", "0b2",
    "1.5", "1.", ".5", "1e5", "1E-5", "1.e5", "09.5", "09", "09j", "1j", "1.5J", "1+2j", "-1-2j", "1+-2j", "2j+1", "1+2", "1*2",
    "True", "False", "None", "...", "Ellipsis", "-True", "x", "set()", "set([1])", "()", "(1)", "(1,)", "1,", "1, 2", "[]", "[1, 2,]",
    "[,]", "{}", "{1: 2}", "{1: 2, 1: 3}", "{1: 2, 1.0: 3}", "{True: 1, 1: 2}", "{1, 2}", "{1, 1.0, True}", "{[1]: 2}", "{(1, [2])}",
    "{1:2, 3}", "'a'", '"a"', "'a' 'b'", "b'a' 'b'", "b'ab'", "r'a\\n'", "'a\\n'", "'\\x41'", "'\\x4'", "'\\u00e9'", "'\\q'",
    "'''a\nb'''", "'a\nb'", "u'x'", "f'x'", "'é'", "b'é'", "[1, 2] # c", "[1,\n 2]", "1\n", "\n1", "\n 1", "1\n2", "  [1]",
    "\t[1]", "[1] [2]", "[1][0]", "[1]+[2]", "[(1, 2), (3, 4)]", "[[1, 2], [3, 4]]", "((1, 2), (3, 4))", "{(1, 2), (3, 4)}",
    "[1 2]", "[1, 2", "1 2", "", " ", "[1, 'a', None, True, 2.5]", "{'a': [1, {'b': (2,)}]}", "[-1, +2, -3.5]", "- 1",
    "1.5e400", "-1e400", "1e-400", "0x" + "f" * 20, "9" * 30, "[node1, node2]", "1/2", "frac{1}{2}", "[1, 2]x", "1abc",
    "{1, 2, 3, 8, 9, 16, 17, 33, 40}", "{40, 33, 17, 16, 9, 8, 3, 2, 1}", "{(1, 2), (2, 3), (10, 11), (33, 4)}", "{-1, -2, 5}",
    "{1.5, 2.5, 0.25}", "{10, 20, 30, 40, 50, 60}", "{" + ", ".join(str(i) for i in range(35, 0, -1)) + "}", "[1,2,3]",
    "(1,2)", "((1,2),(3,4))", "[(1,2),(3,4),]", "(1 ,)", "1 , 2", "\\\n1", "[1, \\\n 2]", "{1, 2}.pop()", "not 1", "~1",
    "[1, 2] if 1 else 3", "lambda: 1", "[x for x in y]", "'a' b'b'", "'\\N{DASH}'", "1_000.5", "1e1_0", "0.0", "-0.0", "-0",
]
JS = [
    '{"final_answer": [1, 2]}', '{"final_answer": [1,2]}', '{"a": 1, "a": 2}', '{"a": 1, "b": 2, "a": 3}', '[1, 2', '', ' ', '{}',
    '{"final_answer": NaN}', '{"x": Infinity, "y": -Infinity}', '{"x": -0}', '{"x": -0.0}', '{"x": 1.0}', '{"x": 1e5}', '{"x": 1E400}',
    '{"x": 01}', '{"x": 1.}', '{"x": .5}', '{"x": -}', '{"x": "a\\u00e9"}', '{"x": "\\ud800"}', '{"x": "\\ud83d\\ude00"}',
    '{"x": "a\nb"}', '{"x": "tab\there"}', "{'x': 1}", '{"x": 1,}', '[1,]', '{"x": 1} x', '{"x": 1}\n', '\n{"x": 1}', '\ufeff{"x": 1}',
    '{"x": "it\'s"}', '{"x": "say \\"hi\\""}', '{"x": "both \' and \\""}', '{"x": [true, false, null]}', '{"x": "\\u0007"}',
    '{"x": "\\x41"}', '{"x": "\\/"}', '{"x": 12345678901234567890}', '{"x": 1.5e-7}', '{"x": 1e16}', '{"x": 1e15}', '{"x": 123456789.123}',
    '{"x": 0.1}', '{"x": 100.0}', '{"x": 1e-5}', '{"x": 0.0001}', '{"x": "Zo\u00eb"}', '{"x": "\u200b"}', '{"x": "\u00a0"}', 'true', '"s"',
    '{"x": {"y": {"z": []}}}', '[[[]]]', '{"x": [1, 2, 3], "y": {"a": "b"}}', '{"x":1}{"y":2}', 'nul', 'NaN', '-Infinity', '-NaN',
]
FL = ["1", " 1.5 ", "1_0", "1__0", "_1", "1_", "1e5", "1e", "e5", ".", ".5", "5.", "inf", "-Infinity", "nan", "+nan", "1e400",
      "0x10", "١٢", "1,5", "1.5.2", "", " ", "1 2", "frac{1}{2}", "½", "1e1_0", "1_000.000_1", "\u00a01\u00a0", "1\x1c"]
INTS = ["1", " 12 ", "+5", "-0", "007", "1_000", "1__0", "١٢", "1.0", "", "x", "1e3", "0x10", "  -3  ", "9" * 25]


def show(f):
    try:
        return {"out": repr(f())}
    except Exception as e:
        return {"raised": type(e).__name__}


for s in LIT:
    print(json.dumps({"op": "literal_eval", "in": s, **show(lambda: ast.literal_eval(s))}, ensure_ascii=False))
for s in JS:
    r = show(lambda: json.loads(s))
    if "out" in r:
        r["str"] = str(json.loads(s))
    print(json.dumps({"op": "json_loads", "in": s, **r}, ensure_ascii=False))
for s in FL:
    print(json.dumps({"op": "float", "in": s, **show(lambda: float(s))}, ensure_ascii=False))
for s in INTS:
    print(json.dumps({"op": "int", "in": s, **show(lambda: int(s))}, ensure_ascii=False))
for x in [0.1, 1e16, 1e15, 123456789012345678.0, 1e-5, 1e-4, 2.5e-10, 5e-324, 1.7976931348623157e308, -0.0, 100.0, 33.0, 0.3333333333333333, 1/7, 12345.678, 1e22, 9.999999999999999e15]:
    print(json.dumps({"op": "float_repr", "in": repr(x), "out": repr(x)}))
print(f"{len(LIT)} literals, {len(JS)} JSON texts", file=sys.stderr)
