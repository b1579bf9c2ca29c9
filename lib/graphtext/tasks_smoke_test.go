package graphtext

import "testing"

func TestMakeInstancesAllTasks(t *testing.T) {
	for _, task := range Tasks() {
		gs, err := MakeInstances(task, 7, 20, GenOptions{})
		if err != nil {
			t.Fatalf("%s: %v", task.Name, err)
		}
		yes := 0
		for _, g := range gs {
			if !Synthetic(g) {
				t.Fatalf("%s: instance not marked synthetic", task.Name)
			}
			a, err := task.Truth(g)
			if err != nil {
				t.Fatalf("%s: %v", task.Name, err)
			}
			if err := task.Validate(g, a); err != nil {
				t.Fatalf("%s: ground truth %s rejected: %v", task.Name, a, err)
			}
			if a.Kind == KindBool && a.Bool {
				yes++
			}
		}
		if task.Kind == KindBool && (yes == 0 || yes == len(gs)) {
			t.Errorf("%s: %d of %d instances are Yes; want a mix", task.Name, yes, len(gs))
		}
	}
}
