package engine

import (
	"fmt"
	"sync"

	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/gomlx/ml/model"
)

// Unrolled keeps the compilations of a model's unrolled training program:
// which batch shapes are compiled or compiling, one background compilation
// at a time, and counts of the training steps run each way.
type Unrolled struct {
	mu       sync.Mutex
	compiles map[string]*unrollCompile
	busy     bool // a background compilation is running
	wg       sync.WaitGroup
	looped   int64
	unrolled int64
	programs int64
}

type unrollCompile struct {
	done chan struct{}
	err  error
}

// Compile compiles exec for a batch's input shapes, in the background or
// waiting for it (steps names the batch's length in an error); one
// background compilation runs at a time, and none is started while one
// runs.
func (u *Unrolled) Compile(exec *model.Exec, ss []shapes.Shape, steps int, background bool) error {
	key := fmt.Sprint(ss)
	u.mu.Lock()
	c, ok := u.compiles[key]
	if !ok {
		if background && u.busy {
			u.mu.Unlock()
			return nil
		}
		if u.compiles == nil {
			u.compiles = map[string]*unrollCompile{}
		}
		c = &unrollCompile{done: make(chan struct{})}
		u.compiles[key] = c
		if background {
			u.busy = true
		}
		u.wg.Add(1)
		go func() {
			defer u.wg.Done()
			_, err := exec.Compile(ss...)
			u.mu.Lock()
			c.err = err
			if background {
				u.busy = false
			}
			u.mu.Unlock()
			close(c.done)
		}()
	}
	u.mu.Unlock()
	if background {
		return nil
	}
	<-c.done
	if c.err != nil {
		return fmt.Errorf("engine: compiling the unrolled training step (%d steps): %w", steps, c.err)
	}
	return nil
}

// Compilations is the number of shapes compiled or compiling.
func (u *Unrolled) Compilations() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.compiles)
}

// Wait waits for the background compilations.
func (u *Unrolled) Wait() { u.wg.Wait() }

// Count counts a training step run unrolled or in the loop.
func (u *Unrolled) Count(unrolled bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if unrolled {
		u.unrolled++
	} else {
		u.looped++
	}
}

// CountProgram counts a training step run as one program.
func (u *Unrolled) CountProgram() {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.programs++
}

// ProgramCount returns the training steps counted as one program.
func (u *Unrolled) ProgramCount() int64 {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.programs
}

// Counts returns the training steps counted in the loop and unrolled.
func (u *Unrolled) Counts() (looped, unrolled int64) {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.looped, u.unrolled
}
