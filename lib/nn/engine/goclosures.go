package engine

import (
	"github.com/gomlx/compute"
	"github.com/gomlx/compute/shapes"
)

// GoClosures wraps GoMLX's pure-Go backend (compute v0.1.2) so that the
// bodies of its loops compute what they say. That backend compiles a
// closure (a While's body or condition) when the closure is built, and
// then, when the whole program compiles, rewrites every function's nodes:
// its ImplicitBroadcastFusion pass feeds a broadcast's input straight to
// the elementwise operation that reads it and, where that changes the
// operation's shape, adds a broadcast after it and re-sorts every
// function's nodes. A closure's compiled schedule and use counts then no
// longer match its nodes: it fails ("input 0 for node Mul not computed
// yet") or frees a buffer still in use. Gradients taken inside a loop's
// body (Loop.TrainProgram) meet this at once.
//
// The wrapper puts an identity after every broadcast: the pass then finds
// no broadcast read by an elementwise operation, rewrites nothing and
// sorts nothing, and closures run as they were compiled. An identity
// costs nothing when its input has no other reader (it hands the buffer
// on) and a copy otherwise; the broadcasts the pass would have fused are
// made. Buffers and executables are wrapped too, so that tensors name the
// wrapper as their backend (GoMLX refuses a tensor of another backend
// instance). Other backends are returned unchanged.
func GoClosures(b compute.Backend) compute.Backend {
	if !isGoBackend(b) {
		return b
	}
	if _, ok := b.(*goBackend); ok {
		return b
	}
	return &goBackend{b}
}

// isGoBackend tells GoMLX's pure-Go backend (by its name: its type is
// internal to compute) from the others.
func isGoBackend(b compute.Backend) bool { return b != nil && b.Name() == "Go Backend" }

type goBackend struct{ compute.Backend }

func (b *goBackend) Builder(name string) compute.Builder {
	return goBuilder{b.Backend.Builder(name), b}
}

func (b *goBackend) BufferFromFlatData(device compute.DeviceNum, flat any, shape shapes.Shape) (compute.Buffer, error) {
	buf, err := b.Backend.BufferFromFlatData(device, flat, shape)
	return b.wrap(buf), err
}

func (b *goBackend) NewSharedBuffer(device compute.DeviceNum, shape shapes.Shape) (compute.Buffer, any, error) {
	buf, flat, err := b.Backend.NewSharedBuffer(device, shape)
	return b.wrap(buf), flat, err
}

func (b *goBackend) wrap(buf compute.Buffer) compute.Buffer {
	if buf == nil {
		return nil
	}
	return goBuffer{buf, b}
}

// goBuffer is a buffer of the wrapped backend, naming it as its backend.
type goBuffer struct {
	compute.Buffer
	b *goBackend
}

func (x goBuffer) Backend() compute.Backend { return x.b }

func (x goBuffer) CopyToDevice(device compute.DeviceNum) (compute.Buffer, error) {
	buf, err := x.Buffer.CopyToDevice(device)
	return x.b.wrap(buf), err
}

func unwrapBuffers(in []compute.Buffer) []compute.Buffer {
	out := make([]compute.Buffer, len(in))
	for i, x := range in {
		if w, ok := x.(goBuffer); ok {
			x = w.Buffer
		}
		out[i] = x
	}
	return out
}

type goBuilder struct {
	compute.Builder
	b *goBackend
}

func (b goBuilder) Main() compute.Function { return goFunction{b.Builder.Main()} }

func (b goBuilder) NewFunction(name string) (compute.Function, error) {
	f, err := b.Builder.NewFunction(name)
	if err != nil {
		return nil, err
	}
	return goFunction{f}, nil
}

func (b goBuilder) Compile() (compute.Executable, error) {
	e, err := b.Builder.Compile()
	if err != nil {
		return nil, err
	}
	return goExecutable{e, b.b}, nil
}

// goExecutable runs on the wrapped backend's buffers.
type goExecutable struct {
	compute.Executable
	b *goBackend
}

func (e goExecutable) Execute(in []compute.Buffer, donate []bool, device compute.DeviceNum) ([]compute.Buffer, error) {
	out, err := e.Executable.Execute(unwrapBuffers(in), donate, device)
	for i, buf := range out {
		out[i] = e.b.wrap(buf)
	}
	return out, err
}

// goFunction is a function of the wrapped backend: its closures are
// wrapped too, and functions handed back to the backend unwrapped.
type goFunction struct{ compute.Function }

func unwrapFunction(f compute.Function) compute.Function {
	if w, ok := f.(goFunction); ok {
		return w.Function
	}
	return f
}

func (f goFunction) Closure() (compute.Function, error) {
	c, err := f.Function.Closure()
	if err != nil {
		return nil, err
	}
	return goFunction{c}, nil
}

func (f goFunction) BroadcastInDim(x compute.Value, shape shapes.Shape, axes []int) (compute.Value, error) {
	v, err := f.Function.BroadcastInDim(x, shape, axes)
	if err != nil {
		return v, err
	}
	return f.Function.Identity(v)
}

func (f goFunction) While(cond, body compute.Function, state ...compute.Value) ([]compute.Value, error) {
	return f.Function.While(unwrapFunction(cond), unwrapFunction(body), state...)
}

func (f goFunction) If(pred compute.Value, onTrue, onFalse compute.Function) ([]compute.Value, error) {
	return f.Function.If(pred, unwrapFunction(onTrue), unwrapFunction(onFalse))
}

func (f goFunction) Sort(comparator compute.Function, axis int, stable bool, in ...compute.Value) ([]compute.Value, error) {
	return f.Function.Sort(unwrapFunction(comparator), axis, stable, in...)
}

func (f goFunction) Call(fn compute.Function, in ...compute.Value) ([]compute.Value, error) {
	return f.Function.Call(unwrapFunction(fn), in...)
}
