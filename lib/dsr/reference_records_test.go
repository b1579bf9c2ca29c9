package dsr

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestRecordFormats reads small hand-written files of several layouts
// through the one record parser: what each instance holds, where its
// source line points, and the errors for malformed records.
func TestRecordFormats(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, rel, text string
		check           func(t *testing.T, insts []Instance)
		err             string
	}{
		{
			name: "header, operations, keyed final state",
			rel:  "generation/lru_cache/cache/lru_easy.txt",
			text: "LRU Cache Simulation 0, Cache Size: 2 \naccess 4\n\naccess 3\nFinal Cache: [4, 3]\nLRU Cache Simulation 1, Cache Size: 1\naccess 7\nFinal Cache: [7]\n",
			check: func(t *testing.T, insts []Instance) {
				if len(insts) != 2 {
					t.Fatalf("%d instances, want 2", len(insts))
				}
				in := insts[0].Input
				want := []Op{{Name: "access", Args: []int{4}}, {Name: "access", Args: []int{3}}}
				if in.Capacity != 2 || !reflect.DeepEqual(in.Ops, want) {
					t.Errorf("first: capacity %d, ops %+v", in.Capacity, in.Ops)
				}
				if insts[1].Input.Capacity != 1 || insts[1].Source != "generation/lru_cache/cache/lru_easy.txt:6" || insts[1].ID != "lru_cache/cache/short/1" {
					t.Errorf("second: capacity %d, source %s, id %s", insts[1].Input.Capacity, insts[1].Source, insts[1].ID)
				}
			},
		},
		{
			name: "bad header",
			rel:  "generation/lru_cache/cache/lru_easy.txt",
			text: "LRU Cache Simulation zero\naccess 1\nFinal Cache: [1]\n",
			err:  `line 1: bad header "LRU Cache Simulation zero"`,
		},
		{
			name: "operation before any header",
			rel:  "generation/heap/compound/compound_medium.txt",
			text: "insert 3\nHeap 0\n[3]\n",
			err:  `line 1: line "insert 3" before any instance header`,
		},
		{
			name: "header inside a record",
			rel:  "generation/heap/compound/compound_medium.txt",
			text: "Heap 0\ninsert 3\nHeap 1\n[3]\n",
			err:  "line 3: new instance before the final state of the one at line 1",
		},
		{
			name: "no header, operations, list final state",
			rel:  "generation/binary_tree/compound/compound_hard.txt",
			text: "Insert: 5\nInsert: 2\nDelete: 5\n[2]\n",
			check: func(t *testing.T, insts []Instance) {
				want := []Op{{Name: "insert", Args: []int{5}}, {Name: "insert", Args: []int{2}}, {Name: "delete", Args: []int{5}}}
				if len(insts) != 1 || !reflect.DeepEqual(insts[0].Input.Ops, want) || insts[0].Level != Long {
					t.Fatalf("got %+v", insts)
				}
			},
		},
		{
			name: "skipped instance numbers",
			rel:  "generation/array/access/access_easy.txt",
			text: "0\n[5, 6, 7]\nIndex: 2\nAnswer: 7\n1\n[1]\nIndex: 0\nAnswer: 1\n",
			check: func(t *testing.T, insts []Instance) {
				if len(insts) != 2 || *insts[0].Input.Index != 2 || !reflect.DeepEqual(insts[0].Input.Array, []int{5, 6, 7}) ||
					insts[0].Source != "generation/array/access/access_easy.txt:2" {
					t.Fatalf("got %+v", insts)
				}
			},
		},
		{
			name: "block: header then unkeyed fields",
			rel:  "generation/heap/heapify/heapify_easy.txt",
			text: "Heap 0\n[3, 1, 2]\n[1, 3, 2]\nHeap 1\n[4]\n[4]\n",
			check: func(t *testing.T, insts []Instance) {
				if len(insts) != 2 || !reflect.DeepEqual(insts[0].Input.Array, []int{3, 1, 2}) || insts[1].Source != "generation/heap/heapify/heapify_easy.txt:4" {
					t.Fatalf("got %+v", insts)
				}
			},
		},
		{
			name: "block cut short",
			rel:  "generation/heap/heapify/heapify_easy.txt",
			text: "Heap 0\n[3, 1, 2]\n",
			err:  `line 2: expected a "" line, found the end of the file`,
		},
		{
			name: "block without a header, keyed fields",
			rel:  "natural/graph/natural-easy.txt",
			text: "nodes: ['a', 'b']\nedges: [('a', 'b')]\nsource: a\ntraversal: ['a', 'b']\n",
			check: func(t *testing.T, insts []Instance) {
				in := insts[0].Input
				if len(insts) != 1 || in.SourceName != "a" || !reflect.DeepEqual(in.Names, []string{"a", "b"}) ||
					!reflect.DeepEqual(in.NameEdges, [][2]string{{"a", "b"}}) {
					t.Fatalf("got %+v", insts)
				}
			},
		},
		{
			name: "block with a field out of order",
			rel:  "natural/graph/natural-easy.txt",
			text: "nodes: ['a', 'b']\nsource: a\nedges: [('a', 'b')]\ntraversal: ['a', 'b']\n",
			err:  `line 2: expected a "edges:" line, found "source: a"`,
		},
		{
			name: "converted truth",
			rel:  "generation/rb_tree/construct/construct_easy.txt",
			text: "Tree 0\nValues: [2, 1]\nPre-order: [[2, 'b'], [1, 'x']]\n",
			err:  "color x",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			path := filepath.Join(root, filepath.FromSlash(tc.rel))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			insts, err := LoadReferenceFile(path, "", "")
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, insts)
		})
	}
}
