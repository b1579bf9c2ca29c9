package dsr

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// RealisticTemplates are the realistic probe's published scenario
// templates, read at run time from a DSR-Bench checkout (natural/<task>/
// template/*.txt, one template a line, with placeholders such as {name}).
// narlab ships none of this prose; without templates the realistic tasks
// are worded formally by narlab's own text.
type RealisticTemplates struct {
	// Lines maps "queue/description", "queue/enqueue", "queue/dequeue",
	// "bst/description", "bst/insert", "bst/delete", "graph/description",
	// "graph/node" and "graph/edge" to their template lines.
	Lines map[string][]string
}

// LoadRealisticTemplates reads the templates under dir, a DSR-Bench
// checkout or its natural/ folder's parent.
func LoadRealisticTemplates(dir string) (*RealisticTemplates, error) {
	t := &RealisticTemplates{Lines: map[string][]string{}}
	for _, task := range []string{"queue", "bst", "graph"} {
		files, err := filepath.Glob(filepath.Join(dir, "natural", task, "template", "*.txt"))
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("dsr: no realistic templates under %s (expected natural/%s/template/*.txt)", dir, task)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				return nil, fmt.Errorf("dsr: %w", err)
			}
			var lines []string
			for _, l := range strings.Split(string(b), "\n") {
				if l = strings.TrimSpace(l); l != "" {
					lines = append(lines, l)
				}
			}
			key := task + "/" + strings.TrimSuffix(filepath.Base(f), ".txt")
			t.Lines[key] = lines
		}
	}
	return t, nil
}

// Words of narlab's own for the graph scenario's placeholders.
var amenities = []string{"a fuel depot", "a repair dock", "a trading post", "an observatory", "a medical bay", "a water refinery", "a hangar", "a library archive"}

func (rt *RealisticTemplates) pick(r *rng, key string) (string, error) {
	ls := rt.Lines[key]
	if len(ls) == 0 {
		return "", fmt.Errorf("dsr: realistic templates have no %s lines", key)
	}
	return pick(r, ls), nil
}

// fill replaces the placeholders of a template.
func fill(tmpl string, vals map[string]string) string {
	for k, v := range vals {
		tmpl = strings.ReplaceAll(tmpl, "{"+k+"}", v)
	}
	return tmpl
}

func (rt *RealisticTemplates) render(t *Task, in *Input, inst *Instance) (taskText, error) {
	key := "realistic/" + t.Name()
	idx := 0
	if inst != nil {
		key += "/" + inst.ID
		idx = inst.Index
	}
	r := newRNG(exemplarSeed, key, idx)
	kind := t.Structure
	desc, err := rt.pick(r, kind+"/description")
	if err != nil {
		return taskText{}, err
	}
	var sents []string
	// Confounders: made-up people who take no part in the events.
	used := map[string]bool{}
	for _, op := range in.Ops {
		used[op.Word] = true
	}
	stranger := func() string {
		for {
			if n := madeUpName(r); !used[n] {
				return n
			}
		}
	}
	switch kind {
	case "queue":
		prevName := ""
		for _, op := range in.Ops {
			s, err := rt.pick(r, "queue/"+op.Name)
			if err != nil {
				return taskText{}, err
			}
			if prevName == "" {
				prevName = stranger()
			}
			sents = append(sents, fill(s, map[string]string{"name": op.Word, "extra_name": stranger(), "name_prev": prevName}))
			if op.Name == "enqueue" {
				prevName = op.Word
			}
		}
		return taskText{Describe: desc, Given: strings.Join(sents, " "),
			Question: "Who is still waiting in the line after these events? List the names from the front of the line to the back."}, nil
	case "bst":
		prevName := ""
		for _, op := range in.Ops {
			s, err := rt.pick(r, "bst/"+op.Name)
			if err != nil {
				return taskText{}, err
			}
			if prevName == "" {
				prevName = stranger()
			}
			vals := map[string]string{"name": op.Word, "time": op.Time, "extra_name": stranger(), "name_prev": prevName,
				"time_prev": shiftTime(op.Time, -r.between(5, 40)), "time_after": shiftTime(op.Time, r.between(5, 40))}
			sents = append(sents, fill(s, vals))
			if op.Name == "insert" {
				prevName = op.Word
			}
		}
		return taskText{Describe: desc,
			Rules: "The appointments are kept in a binary search tree ordered by time, and by name when two times are equal; a cancellation removes the appointment " +
				"(a node with two children takes the place of its in-order successor).",
			Given:    strings.Join(sents, " "),
			Question: "List the booked appointments as [name, time] pairs in the pre-order of that tree."}, nil
	case "graph":
		for _, n := range in.Names {
			s, err := rt.pick(r, "graph/node")
			if err != nil {
				return taskText{}, err
			}
			sents = append(sents, fill(s, map[string]string{"planet": n, "other_planet": pick(r, in.Names),
				"amenity_list": pick(r, amenities) + " and " + pick(r, amenities), "non_amenity_list": pick(r, amenities)}))
		}
		for _, e := range in.NameEdges {
			s, err := rt.pick(r, "graph/edge")
			if err != nil {
				return taskText{}, err
			}
			sents = append(sents, fill(s, map[string]string{"planet1": e[0], "planet2": e[1], "other_planet": pick(r, in.Names)}))
		}
		return taskText{Describe: desc, Given: strings.Join(sents, " "),
			Question: fmt.Sprintf("Starting from %s, list the planets in the order the depth-first journey visits them, taking neighbors in alphabetical order.", in.SourceName)}, nil
	}
	return taskText{}, fmt.Errorf("dsr: no realistic scenario for %s", t.Name())
}

// promptRealistic is narlab's formal wording of the realistic tasks, used
// when no published templates are loaded.
func promptRealistic(kind string) func(in *Input, o Options) taskText {
	return func(in *Input, o Options) taskText {
		switch kind {
		case "queue":
			t := promptQueue(in, o)
			t.Given = "Events, in order (a dequeue serves the person at the front):\n" + opsList(in.Ops)
			t.Question = "Who is left in the queue? List the names from the front to the back."
			return t
		case "bst":
			return taskText{
				Describe: "Appointments are kept in a binary search tree ordered by time (HH:MM), and by name when two times are equal.",
				Rules:    "(insert, name, time) books an appointment; (delete, name) cancels that person's appointment. " + bstRemoveRule(o),
				Given:    "Events, in order:\n" + opsList(in.Ops),
				Question: "List the booked appointments as [name, time] pairs in the pre-order of the tree.",
			}
		default:
			var es []string
			for _, e := range in.NameEdges {
				es = append(es, "("+e[0]+", "+e[1]+")")
			}
			return taskText{
				Describe: "An undirected graph connects named places by two-way links.",
				Rules:    "A depth-first search visits a place and then, for each neighbor in alphabetical order that is still unvisited, explores everything reachable from it before going on.",
				Given:    fmt.Sprintf("The places are %s and the links are %s.", shapeStrings.Repr(stringsValue(in.Names)), strings.Join(es, ", ")),
				Question: fmt.Sprintf("In which order does a depth-first search from %s visit the places? List only the places it reaches.", in.SourceName),
			}
		}
	}
}

// shiftTime moves an "HH:MM" time by the given minutes, within the day.
func shiftTime(hhmm string, minutes int) string {
	var h, m int
	if _, err := fmt.Sscanf(hhmm, "%d:%d", &h, &m); err != nil {
		return hhmm
	}
	t := min(max(h*60+m+minutes, 0), 23*60+59)
	return fmt.Sprintf("%02d:%02d", t/60, t%60)
}
