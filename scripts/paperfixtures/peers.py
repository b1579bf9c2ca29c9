"""Run the papers' own scorers on response variants and write narlab's paper-mode fixtures.

    python3 peers.py dsr   --repo PATH/TO/DSR-Bench --cases dsr_cases.jsonl   --out DIR
    python3 peers.py erdos --repo PATH/TO/G1        --cases erdos_cases.jsonl --out DIR

writes DIR/<dsr|erdos>_instances.jsonl (the cases, DSR ones with the truth
string each reference script holds) and DIR/<dsr|erdos>_responses.jsonl
(one line per response: instance id, shape, response, expected verdict).

The cases come from `go run ./scripts/paperfixtures` (narlab's instances: the
published DSR-Bench instances, synthetic Erdős graphs). For each case this
script builds response variants (correct, wrong, reformatted, malformed),
runs the peer's scorer, unchanged, from the given checkout, and prints one
JSON line per response with the scorer's verdict, or the exception it
raised. Nothing of the peers' code is copied: their modules are imported
from the checkout, with the model call (`predict`) and the result writer
(`log`) of DSR-Bench's evaluation scripts replaced by this harness, and
their API client libraries replaced by empty stand-ins (the scoring code
never calls them).

Needs: python3 >= 3.10 with pydantic 2 (DSR-Bench's schemas), networkx and
pulp (G1's validators). scripts/paper_fixtures.sh sets them up.
"""
import argparse
import copy
import importlib
import importlib.abc
import importlib.machinery
import io
import json
import math
import os
import sys
import types
import contextlib
import itertools
import random

# ---------------------------------------------------------------- stand-ins

STUBBED = ("openai", "anthropic", "instructor", "tiktoken", "tenacity", "llama_index", "vertexai", "google", "ollama")


class _Anything:
    """A stand-in for any attribute of an API client library."""

    def __init__(self, *a, **k):
        pass

    def __call__(self, *a, **k):
        if len(a) == 1 and callable(a[0]) and not k:
            return a[0]  # used as a decorator
        return _Anything()

    def __getattr__(self, name):
        return _Anything()

    def __mro_entries__(self, bases):
        return (object,)


class _StubModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Anything()


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path, target=None):
        if fullname.split(".")[0] in STUBBED:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        m = _StubModule(spec.name)
        m.__path__ = []
        return m

    def exec_module(self, module):
        pass


sys.meta_path.insert(0, _StubFinder())


def exc_name(e):
    return f"{type(e).__name__}: {e}"[:200]


# ---------------------------------------------------------------- DSR-Bench

DSR_SCRIPTS = {
    "array/access": "evaluation.array.access",
    "array/delete": "evaluation.array.delete",
    "array/insert": "evaluation.array.insert",
    "array/reverse": "evaluation.array.reverse",
    "array/search": "evaluation.array.search",
    "stack/compound": "evaluation.stack.compound",
    "queue/compound": "evaluation.queue.compound",
    "lru_cache/cache": "evaluation.lru_cache.cache",
    "priority_queue/compound": "evaluation.priority_queue.compound",
    "hashmap/compound": "evaluation.hashmap.compound",
    "trie/compound": "evaluation.trie.compound",
    "suffix_tree/construct": "evaluation.suffix_tree.construct",
    "skip_list/compound": "evaluation.skip_list.compound",
    "bst/preorder": "evaluation.binary_tree.preorder",
    "bst/inorder": "evaluation.binary_tree.inorder",
    "bst/postorder": "evaluation.binary_tree.postorder",
    "bst/depth": "evaluation.binary_tree.depth",
    "bst/insert": "evaluation.binary_tree.insert",
    "bst/remove": "evaluation.binary_tree.remove",
    "bst/compound": "evaluation.binary_tree.compound",
    "heap/compound": "evaluation.heap.compound",
    "heap/heapify": "evaluation.heap.heapify",
    "rb_tree/construct": "evaluation.rb_tree.construct",
    "rb_tree/compound": "evaluation.rb_tree.compound",
    "rb_tree/construct_compound": "evaluation.rb_tree.construct_compound",
    "b_plus_tree/compound": "evaluation.b_plus_tree.compound",
    "kd_tree/construct": "evaluation.kd_tree.construct",
    "kd_heap/compound": "evaluation.kd_heap.compound",
    "graph/bfs": "evaluation.graph.bfs",
    "graph/dfs": "evaluation.graph.dfs",
    "dsu/compound": "evaluation.dsu.compound",
    "geom_graph/construct": "evaluation.geom_graph.construct",
    "bloom_filter/compound": "evaluation.bloom_filter.compound",
    "dawg/compound": "evaluation.dawg.compound",
    "queue/realistic": "natural.queue.evaluation",
    "bst/realistic": "natural.bst.evaluation",
    "graph/realistic": "natural.graph.evaluation",
}

FILLER = "not a JSON answer"  # every other position: json.loads fails, the scripts score it 0


class _Captured(Exception):
    pass


def run_dsr(repo, task, mode, dim, idx, response):
    """Runs the task's evaluation script with `response` at position idx.

    Returns (binary, partial, truths) or raises what the script raised."""
    mod = importlib.import_module(DSR_SCRIPTS[task])
    out = {}

    def fake_predict(Q, args, response_format=None):
        answers = [FILLER] * len(Q)
        answers[idx] = response
        return answers

    def fake_log(Q_list, res, partial_res, answers, args):
        caller = sys._getframe(1).f_locals
        truths = {}
        for k, v in caller.items():
            if k.endswith("truths") and isinstance(v, list) and len(v) > idx:
                truths[k] = repr(v[idx])
        out.update(res=res[idx], partial=partial_res[idx], truths=truths, n=len(Q_list))
        raise _Captured()

    mod.predict = fake_predict
    mod.log = fake_log
    argv = ["eval", "--model", "gpt-4o-mini", "--mode", mode, "--prompt", "stepwise"]
    if dim:
        argv += ["--dim", str(dim)]
    old = sys.argv
    sys.argv = argv
    random.seed(0)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            mod.main()
    except _Captured:
        pass
    finally:
        sys.argv = old
    if "res" not in out:
        raise RuntimeError("the script ended without logging")
    return out["res"], out["partial"], out["truths"]


def leaves_changed(v):
    """Returns a copy of v with its first number (or string) changed."""
    done = [False]

    def walk(x):
        if done[0]:
            return x
        if isinstance(x, bool):
            return x
        if isinstance(x, int):
            done[0] = True
            return x + 1 if x < 100 else x - 1
        if isinstance(x, float):
            done[0] = True
            return round(x + 1.5, 2)
        if isinstance(x, str):
            if x in ("T", "F"):
                done[0] = True
                return "F" if x == "T" else "T"
            if x:
                done[0] = True
                return x[:-1] + ("b" if x[-1] != "b" else "c")
            return x
        if isinstance(x, list):
            return [walk(y) for y in x]
        if isinstance(x, dict):
            return {k: walk(y) for k, y in x.items()}
        return x

    return walk(copy.deepcopy(v))


def to_floats(v):
    if isinstance(v, bool):
        return v
    if isinstance(v, int):
        return float(v)
    if isinstance(v, list):
        return [to_floats(x) for x in v]
    if isinstance(v, dict):
        return {k: to_floats(x) for k, x in v.items()}
    return v


def whole_floats_as_ints(v):
    if isinstance(v, float) and v == int(v):
        return int(v)
    if isinstance(v, list):
        return [whole_floats_as_ints(x) for x in v]
    return v


def misspell_one(v):
    """Changes one letter of the first name in a list of names (or pairs)."""
    v = copy.deepcopy(v)
    for i, x in enumerate(v):
        if isinstance(x, str) and len(x) > 2:
            v[i] = x[:1] + ("a" if x[1] != "a" else "e") + x[2:]
            return v
        if isinstance(x, list) and x and isinstance(x[0], str) and len(x[0]) > 2:
            x[0] = x[0][:1] + ("a" if x[0][1] != "a" else "e") + x[0][2:]
            return v
    return None


def dsr_variants(task, truth):
    """(shape, response) pairs for one instance."""
    fa = lambda v, **kw: json.dumps({"final_answer": v}, **kw)
    steps = [{"explanation": "Apply the operations in order.", "output": "done"}]
    vs = [
        ("correct", fa(truth)),
        ("correct, with steps", json.dumps({"steps": steps, "final_answer": truth})),
        ("correct, no spaces", fa(truth, separators=(",", ":"))),
        ("correct, indented", fa(truth, indent=2)),
        ("correct, extra field", json.dumps({"final_answer": truth, "confidence": "high"})),
        ("correct, in a ```json fence", "```json\n" + fa(truth) + "\n```"),
        ("correct, after prose", "Here is the answer: " + fa(truth)),
        ("correct, trailing prose", fa(truth) + "\nI applied every operation."),
        ("correct, leading newline", "\n" + fa(truth) + "\n"),
        ("correct as a string", fa(str(truth))),
        ("correct as a JSON string", fa(json.dumps(truth))),
        ("wrong value", fa(leaves_changed(truth))),
        ("duplicate key, last correct", '{"final_answer": ' + json.dumps(leaves_changed(truth)) + ', "final_answer": ' + json.dumps(truth) + "}"),
        ("null", fa(None)),
        ("missing final_answer", json.dumps({"answer": truth})),
        ("top-level list", json.dumps([truth])),
        ("truncated JSON", fa(truth)[:-3]),
        ("empty response", ""),
        ("NaN", '{"final_answer": NaN}'),
        ("numbers as floats", fa(to_floats(truth))),
        ("integer", fa(7)),
        ("empty list", fa([])),
        ("empty object", fa({})),
    ]
    if isinstance(truth, list) and len(truth) > 1:
        vs += [
            ("reversed list", fa(list(reversed(truth)))),
            ("last item dropped", fa(truth[:-1])),
            ("first two swapped", fa([truth[1], truth[0]] + truth[2:])),
            ("one item added", fa(truth + [truth[0]])),
            ("list with spaces as string", fa(str(truth))),
            ("list without spaces as string", fa(str(truth).replace(" ", ""))),
        ]
        if all(isinstance(x, list) for x in truth):
            vs.append(("inner lists flattened", fa([y for x in truth for y in x])))
    if task in ("queue/realistic", "graph/realistic", "bst/realistic", "dawg/compound", "trie/compound", "suffix_tree/construct"):
        m = misspell_one(truth)
        if m is not None:
            vs.append(("one name misspelt", fa(m)))
        vs.append(("unicode name", fa(["Zoë"] + (truth[1:] if isinstance(truth, list) else []))))
    if task == "geom_graph/construct":
        vs.append(("whole-number coordinates as integers", fa(whole_floats_as_ints(truth))))
        vs.append(("coordinates as strings", fa([[str(c) for c in p] for p in truth])))
    if task == "lru_cache/cache" and isinstance(truth, list):
        vs.append(("same pages, other order", fa(sorted(truth, reverse=True))))
        vs.append(("a page repeated", fa(truth + truth[:1])))
        vs.append(("pages as a comma string", fa(", ".join(map(str, truth)))))
    if task == "hashmap/compound":
        vs.append(("buckets in reverse order", fa(list(reversed(truth)))))
        vs.append(("empty buckets left out", fa([b for b in truth if b["contents"]])))
        vs.append(("bucket as a list of pairs", fa([[[kv["key"], kv["value"]] for kv in b["contents"]] for b in truth])))
    if task in ("bst/insert", "bst/remove"):
        vs.append(("pre-order only", fa({"pre_order": truth["pre_order"]})))
        vs.append(("pre and post swapped", fa({"pre_order": truth["post_order"], "post_order": truth["pre_order"]})))
        vs.append(("post-order wrong", fa({"pre_order": truth["pre_order"], "post_order": list(reversed(truth["post_order"]))})))
        vs.append(("as a list", fa([truth["pre_order"], truth["post_order"]])))
    if task == "bst/depth":
        vs.append(("depth as a string", fa(str(truth))))
        vs.append(("depth as a float", fa(float(truth))))
        vs.append(("depth plus one", fa(truth + 1)))
    if task in ("array/access", "array/search"):
        vs.append(("as a float", fa(float(truth))))
        vs.append(("as a string", fa(str(truth))))
        vs.append(("as a word", fa("seven")))
        vs.append(("as a list", fa([truth])))
        vs.append(("as a boolean", fa(True)))
    return vs


def dsr_main(args):
    repo = os.path.abspath(args.repo)
    sys.path.insert(0, repo)
    os.chdir(repo)
    n = 0
    with open(os.path.join(args.out, "dsr_instances.jsonl"), "w") as fi, open(os.path.join(args.out, "dsr_responses.jsonl"), "w") as fr:
        for line in open(args.cases):
            c = json.loads(line)
            inst = c["instance"]
            truth = inst["truth"]
            c["ref_truths"] = None
            for shape, resp in dsr_variants(c["task"], truth):
                if args.shapes and shape not in args.shapes:
                    continue
                rec = {"id": inst["id"], "task": c["task"], "shape": shape, "response": resp}
                try:
                    b, p, truths = run_dsr(repo, c["task"], c["mode"], c.get("dim"), c["index"], resp)
                    rec["expect"] = {"binary": b, "partial": p}
                    c["ref_truths"] = c["ref_truths"] or truths
                except Exception as e:  # the reference's scoring raised: the whole run would stop
                    rec["expect"] = {"raised": exc_name(e)}
                fr.write(json.dumps(rec, ensure_ascii=False) + "\n")
                n += 1
            fi.write(json.dumps(c, ensure_ascii=False) + "\n")
    print(f"dsr: {n} responses", file=sys.stderr)


# ---------------------------------------------------------------- Erdős (G1)


def erdos_setup(repo):
    d = os.path.join(os.path.abspath(repo), "evaluation", "Erdos")
    sys.path.insert(0, d)
    import correctness_check
    import graph_utils
    return correctness_check, graph_utils


def py_list(v):
    return "[" + ", ".join(v) + "]"


def gold_value(c):
    import ast
    return ast.literal_eval(c["gold"]) if c["answer_type"] not in ("float", "integer", "bool") else c["gold"]


def alt_answers(c, G):
    """Other valid answers of validated tasks, from NetworkX."""
    import networkx as nx
    t = c["task"]
    out = []
    try:
        if t == "hamiltonian_path":
            nodes = list(G.nodes())
            # another Hamiltonian path, if any (small tournaments)
            gold = gold_value(c)
            for p in itertools.permutations(nodes):
                if list(p) != list(gold) and all(G.has_edge(p[i], p[i + 1]) for i in range(len(p) - 1)):
                    out.append(("another valid Hamiltonian path", list(p)))
                    break
        elif t == "bfs":
            s = int(c["samples"])
            out.append(("BFS edges, neighbours in reverse order", [list(e) for e in nx.bfs_edges(G, s, sort_neighbors=lambda ns: sorted(ns, reverse=True))]))
        elif t == "dfs":
            s = int(c["samples"])
            out.append(("DFS edges, neighbours in reverse order", [list(e) for e in nx.dfs_edges(G, s, sort_neighbors=lambda ns: sorted(ns, reverse=True))]))
        elif t == "topological_sort":
            out.append(("another topological order", list(nx.lexicographical_topological_sort(G, key=lambda v: -v))))
        elif t == "shortest_path":
            s, tt = eval(c["samples"])
            ps = list(nx.all_shortest_paths(G, s, tt))
            if len(ps) > 1:
                out.append(("another shortest path", ps[-1]))
        elif t == "minimum_spanning_tree" and nx.is_connected(G):
            T = nx.bfs_tree(G, 1).to_undirected()
            out.append(("a BFS spanning tree", sorted(tuple(sorted(e)) for e in T.edges())))
        elif t == "dominating_set":
            out.append(("every node", sorted(G.nodes())))
        elif t == "maximal_independent_set":
            out.append(("another maximal independent set", sorted(nx.maximal_independent_set(G, seed=7))))
    except Exception:
        pass
    return out


def fmt_edges(es, tuples=True, space=True):
    sep = ", " if space else ","
    if tuples:
        return "[" + sep.join(f"({u}{sep}{v})" for u, v in es) + "]"
    return "[" + sep.join(f"[{u}{sep}{v}]" for u, v in es) + "]"


def erdos_variants(c, G):
    t, at, gold = c["task"], c["answer_type"], c["gold"]
    box = lambda s: f"Let me work through it.\n\nTherefore, the final answer is: $\\boxed{{{s}}}$."
    vs = [
        ("boxed gold", box(gold)),
        ("boxed gold, bare", f"\\boxed{{{gold}}}"),
        ("boxed gold in \\text", box("\\text{" + gold + "}")),
        ("boxed gold with a unit", box(gold + " \\text{ nodes}")),
        ("boxed gold in $..$ inside the box", box("$" + gold + "$")),
        ("\\boxed with a space", f"Therefore, the final answer is: $\\boxed {gold}$."),
        ("\\fbox", f"Thus \\fbox{{{gold}}}"),
        ("two boxes, the last right", box("0") + "\nOn reflection: \\boxed{" + gold + "}"),
        ("two boxes, the last wrong", "First \\boxed{" + gold + "} then " + box("[]" if at.endswith("list") else "-1")),
        ("empty box", box("")),
        ("unclosed box", "Therefore, the final answer is: $\\boxed{" + gold),
        ("answer is, same line", f"The answer is {gold}"),
        ("answer is, then a newline and prose", f"The answer is {gold}\nI double-checked each step."),
        ("answer is: colon", f"The final answer is: {gold}"),
        ("answer is, next line", f"The answer is\n{gold}"),
        ("answer is, with a period", f"So the answer is {gold}."),
        ("answer is, in $..$", f"The answer is ${gold}$"),
        ("answer is, bold", f"The answer is **{gold}**"),
        ("no answer", "I cannot determine this from the graph."),
        ("empty response", ""),
        ("boxed with \\n escapes", box(gold).replace(" ", "\\n ", 1)),
        ("THE ANSWER IS in capitals", f"THE ANSWER IS {gold}"),
        ("two answer-is lines, the first wrong", f"The answer is 0\nActually, the final answer is {gold}"),
        ("answer is, then trailing words", f"The answer is {gold} because of the edges."),
        ("boxed gold with a newline inside", box(gold.replace(", ", ",\n"))),
        ("boxed gold in \\textbf", box("\\textbf{" + gold + "}")),
        ("boxed gold in \\mathrm", box("\\mathrm{" + gold + "}")),
        ("boxed \\dfrac{1}{2}", box("\\dfrac{1}{2}")),
        ("boxed huge integer", box("9" * 30)),
        ("answer is, Arabic-Indic digits", "The answer is \u0661\u0662"),
        ("boxed set()", box("set()")),
        ("boxed ()", box("()")),
        ("boxed None", box("None")),
    ]
    if at == "integer":
        g = int(gold)
        vs += [("boxed wrong", box(str(g + 1))), ("boxed as float", box(f"{g}.0")), ("boxed with trailing period", box(f"{g}.")),
               ("boxed negative", box(str(-g - 1))), ("boxed with x =", box(f"x = {g}")), ("boxed as words", box("seven")),
               ("boxed with thousands space", box(f"{g} ")), ("boxed as a list", box(f"[{g}]"))]
    elif at == "float":
        g = float(gold)
        vs += [("boxed rounded to 3", box(f"{g:.3f}")), ("boxed rounded to 2", box(f"{g:.2f}")), ("boxed rounded to 4", box(f"{g:.4f}")),
               ("boxed off by 0.01", box(f"{g + 0.01:.4f}")), ("boxed as a fraction", box("\\frac{1}{3}")), ("boxed a/b", box("2/7")),
               ("boxed percent", box(f"{g * 100:.1f}\\%")), ("boxed scientific", box(f"{g:.4e}")), ("answer is, rounded", f"The answer is {g:.4f}"),
               ("boxed huge", box("1e200")), ("boxed inf", box("inf")), ("boxed nan", box("nan")), ("boxed approx", box(f"\\approx {g:.4f}")),
               ("boxed frac at end", box("\\frac")), ("boxed sqrt at end", box("\\sqrt")), ("boxed 0.5", box("0.5")), ("boxed .5", box(".5")),
               ("boxed x = value", box(f"x = {g:.4f}"))]
    elif at == "bool":
        yes = gold.lower() == "yes"
        other = "No" if yes else "Yes"
        vs += [("boxed other", box(other)), ("boxed lower", box(gold.lower())), ("boxed upper", box(gold.upper())),
               ("boxed True/False", box("True" if yes else "False")), ("boxed with period", box(gold + ".")),
               ("boxed sentence", box(f"{gold}, it does")), ("answer is, lower", f"The answer is {gold.lower()}"),
               ("boxed in braces", box("{" + gold + "}"))]
    else:
        g = gold_value(c)
        is_edges = at.endswith("edge_list")
        items = list(g)
        if is_edges:
            es = [tuple(e) for e in items]
            vs += [
                ("boxed without spaces", box(fmt_edges(es, space=False))),
                ("boxed as lists of lists", box(fmt_edges(es, tuples=False))),
                ("boxed reversed list", box(fmt_edges(list(reversed(es))))),
                ("boxed edges flipped", box(fmt_edges([(v, u) for u, v in es]))),
                ("boxed last edge dropped", box(fmt_edges(es[:-1]))),
                ("boxed empty list", box("[]")),
                ("boxed edges without brackets", box(", ".join(f"({u}, {v})" for u, v in es))),
                ("boxed edges as a set", box("\\{" + ", ".join(f"({u}, {v})" for u, v in es) + "\\}")),
                ("boxed edges with dashes", box(", ".join(f"{u}-{v}" for u, v in es))),
                ("boxed one edge changed", box(fmt_edges([(es[0][0], es[0][1] + 1)] + es[1:]) if es else "[(1, 2)]")),
                ("answer is, edges", f"The answer is {fmt_edges(es)}"),
                ("answer is, edges then prose", f"The answer is {fmt_edges(es)}\nThese edges form the answer."),
                ("boxed edges of non-graph nodes", box(fmt_edges([(u + 100, v + 100) for u, v in es]) if es else "[(101, 102)]")),
                ("boxed strings", box("[" + ", ".join(f"('{u}', '{v}')" for u, v in es) + "]")),
            ]
        else:
            vs += [
                ("boxed without spaces", box(str(items).replace(" ", ""))),
                ("boxed reversed", box(str(list(reversed(items))))),
                ("boxed as a set", box("\\{" + ", ".join(map(str, items)) + "\\}")),
                ("boxed as a tuple", box("(" + ", ".join(map(str, items)) + ")")),
                ("boxed without brackets", box(", ".join(map(str, items)))),
                ("boxed last dropped", box(str(items[:-1]))),
                ("boxed one added", box(str(items + [items[0] if items else 1])))
                ,
                ("boxed empty list", box("[]")),
                ("boxed floats", box(str([float(x) for x in items]))),
                ("boxed strings", box(str([str(x) for x in items]))),
                ("boxed with node words", box(", ".join(f"node {x}" for x in items))),
                ("answer is, list", f"The answer is {items}"),
                ("answer is, list then prose", f"The answer is {items}\nThese are the nodes."),
                ("boxed single number", box(str(items[0]) if items else "1")),
                ("boxed non-graph node added", box(str(items + [999]))),
                ("boxed with booleans", box(str([True] + items[1:]) if items else "[True]")),
                ("boxed hex node ids", box("[" + ", ".join(hex(x) for x in items) + "]")),
                ("boxed duplicated first node", box(str(items[:1] + items))),
                ("boxed nested list", box(str([items])))
                ,
                ("boxed dict", box("{" + ", ".join(f"{x}: 1" for x in items) + "}")),
                ("boxed large set literal", box("\\{" + ", ".join(str(x) for x in sorted(set(items) | {8, 9, 16, 17, 33, 40})) + "\\}")),
            ]
        for shape, alt in alt_answers(c, G):
            if is_edges:
                vs.append((shape, box(fmt_edges([tuple(e) for e in alt]))))
            else:
                vs.append((shape, box(str(list(alt)))))
    return vs


def erdos_main(args):
    cc, gu = erdos_setup(args.repo)
    n = 0
    with open(os.path.join(args.out, "erdos_instances.jsonl"), "w") as fi, open(os.path.join(args.out, "erdos_responses.jsonl"), "w") as fr:
        for line in open(args.cases):
            c = json.loads(line)
            fi.write(line if line.endswith("\n") else line + "\n")
            graphs = gu.construct_graph(c["nodes"], c["edges"], c["direction"], c["task"])
            for shape, resp in erdos_variants(c, graphs[0]):
                rec = {"id": c["id"], "task": c["task"], "shape": shape, "response": resp}
                try:
                    with contextlib.redirect_stdout(io.StringIO()):
                        correct, gen = cc.verify_correctness(response=resp, ground_truth=c["gold"], graphs=graphs, samples=c["samples"],
                                                             answer_type=c["answer_type"], task_name=c["task"], model_name="narlab")
                    rec["expect"] = {"correct": bool(correct), "extracted": gen}
                except Exception as e:
                    rec["expect"] = {"raised": exc_name(e)}
                fr.write(json.dumps(rec, ensure_ascii=False) + "\n")
                n += 1
    print(f"erdos: {n} responses", file=sys.stderr)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("which", choices=["dsr", "erdos"])
    ap.add_argument("--repo", required=True)
    ap.add_argument("--cases", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--shapes", type=lambda s: s.split(","), default=None, help="only these response shapes (comma-separated)")
    a = ap.parse_args()
    a.cases = os.path.abspath(a.cases)
    a.out = os.path.abspath(a.out)
    (dsr_main if a.which == "dsr" else erdos_main)(a)
