"""Extract the paper's printed serializations (App. E, as transcribed in
/work/shared/specs/serialization.md §1.4-1.6) into golden_paper.json.

Run: python3 extract_golden.py /work/shared/specs/serialization.md
Strings that the paper prints only in part keep their "..." parts split into
prefix/suffix fragments.
"""
import json, re, sys

text = open(sys.argv[1], encoding="utf-8").read()
HDR19 = "Here is an undirected graph containing nodes from 1 to 19."

def block_after(marker):
    i = text.index(marker)
    j = text.index("```\n", i) + 4
    k = text.index("\n```", j)
    return text[j:k]

out = {}
for code, marker in [("E0", "**E0 — Erdős edge list"), ("E1", "**E1 — edge list sorted"),
                     ("E2", "**E2 — sorted (s,t), replicated**"), ("A1", "**A1 — adjacency list sorted")]:
    out[code] = block_after(marker).replace("HDR", HDR19, 1)
m = block_after("**M — adjacency matrix**").replace("HDR", HDR19, 1)
out["M_prefix"] = m.split("\n... (rows")[0]
out["PyG"] = block_after("**PyG**").replace("HDR", HDR19, 1)
js = block_after("**JSON**").replace("HDR", HDR19, 1)
out["JSON_prefix"], out["JSON_suffix"] = js.split(", ..., ")
nx = block_after("**NetworkX**").replace("HDR", HDR19, 1)
out["NetworkX_prefix"] = nx.split("G.add_nodes_from")[0]
out["NetworkX_fragments"] = ["G.add_nodes_from([1, 2, 3, ", "19])\nG.add_edges_from([(1, 7), (1, 12), (1, 6), ", "(9, 19)])"]
# One random relabeling printed in App. E: its first and last edges.
out["relabel_prefix"] = "(1, 6), (1, 10), (1, 16), (2, 7), (2, 18)"
out["relabel_suffix"] = "(18, 19)"

# 5-node fixture, §1.6.
five = block_after("### 1.6 Compact test fixture")
lines = five.split("\n")
HDR5 = "Here is an undirected graph containing nodes from 1 to 5."
out["five_E0"] = lines[0].split("Erdős/E1: ", 1)[1]
out["five_E2"] = HDR5 + lines[1].split("E2:  ...", 1)[1]
out["five_A1"] = HDR5 + lines[2].split("A1:  ...", 1)[1]
mi = [i for i, l in enumerate(lines) if l.startswith("M:")][0]
mlines = [lines[mi].split("M:   ...", 1)[1]] + lines[mi + 1:mi + 5]
out["five_M"] = HDR5 + "\n".join(mlines)
for key, pre in [("five_JSON", "JSON: ... "), ("five_NetworkX", "NetworkX: ... "), ("five_PyG", "PyG: ... ")]:
    l = [x for x in lines if x.startswith(pre)][0]
    out[key] = l[len(pre):].replace("\\n", "\n")
json.dump(out, open("golden_paper.json", "w", encoding="utf-8"), indent=1, ensure_ascii=False)
print("\n\n".join(f"{k}: {v!r}"[:300] for k, v in out.items()))
