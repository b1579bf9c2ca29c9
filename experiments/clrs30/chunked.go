package clrs30

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/gob"
	"fmt"
	"os"

	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/nn"
	"github.com/narlab/narlab/lib/nprand"
)

// Chunked training (Config.Chunked, run.py --chunked_training): each
// algorithm's training batches pass through a clrs.Chunker per training
// length (one for the fixed data), cycled one length a step as run.py's
// multi-sampler cycles them, and the model trains on chunks
// (nn.Model.TrainChunk). A length's first chunk gives its start state
// (nn.InitialChunkState, the reference's init_mp_state) and is its first
// training chunk. By default every chunk starts from that state, as the
// reference does; ChunkCarry carries each chunk's end state to the next
// chunk of its stream instead (saved with last/, so a resumed run carries
// on exactly).
//
// The batches a chunker draws are a function of the seed, the algorithm,
// the length and how many it has drawn, so a resumed run replays the
// streams to where they were.

// chunkStatesFile holds a carrying run's states in last/.
const chunkStatesFile = "chunk_states.gob"

// chunkData is one algorithm's chunked training data.
type chunkData struct {
	*trainData                  // the data's settings, the fixed sampler, the description
	chunkers   []*clrs.Chunker  // per training length (one for fixed data)
	first      []*clrs.Chunk    // each stream's first chunk, until trained on
	start      []*nn.ChunkState // each stream's start state
	mc         nn.Config
}

func newChunkData(cfg Config, algo string, index int) (*chunkData, error) {
	td, err := newTrainData(cfg, algo, index)
	if err != nil {
		return nil, err
	}
	d := &chunkData{trainData: td, mc: cfg.modelConfigOf(algo)}
	streams := 1
	if td.fixed == nil {
		streams = len(td.lengths)
	}
	for j := range streams {
		pulls := 0
		src := func() (*clrs.Feedback, error) {
			pulls++
			fb, err := d.pull(j, pulls)
			if err != nil {
				return nil, err
			}
			return d.mc.Transform(fb)
		}
		c, err := clrs.NewChunker(cfg.ChunkLength, src)
		if err != nil {
			return nil, err
		}
		ch, err := c.Next()
		if err != nil {
			return nil, err
		}
		st, err := nn.InitialChunkState(ch)
		if err != nil {
			return nil, err
		}
		d.chunkers, d.first, d.start = append(d.chunkers, c), append(d.first, ch), append(d.start, st)
	}
	return d, nil
}

// chunkSeed derives a seed in [0, 2³¹) for a stream's pull-th batch.
func chunkSeed(seed int64, stream, length, pull, what int) int64 {
	h := sha256.Sum256(fmt.Appendf(nil, "narlab/chunks/%d/%d/%d/%d/%d", seed, stream, length, pull, what))
	return int64(binary.LittleEndian.Uint32(h[:4]) & 0x7fffffff)
}

// pull draws the pull-th batch of stream j: of the fixed data's stream,
// or fresh samples of the stream's length.
func (d *chunkData) pull(j, pull int) (*clrs.Feedback, error) {
	var fb *clrs.Feedback
	var err error
	if d.fixed != nil {
		fb, err = d.fixed.Next(d.cfg.Batch)
	} else {
		l := d.lengths[j]
		var s *clrs.Sampler
		s, err = clrs.NewSampler(d.algo, append([]clrs.Option{clrs.Length(l), clrs.Seed(chunkSeed(d.cfg.Seed, d.stream, j, pull, 0)),
			clrs.TrackMaxSteps(false)}, d.kw...)...)
		if err == nil {
			trajs := make([]*clrs.Trajectory, d.cfg.Batch)
			for i := range trajs {
				if trajs[i], err = s.Sample(); err != nil {
					return nil, err
				}
			}
			fb, err = clrs.Batch(trajs, 0)
		}
	}
	if err != nil || d.cfg.FixedPos {
		return fb, err
	}
	return clrs.RandomPos(fb, nprand.New(chunkSeed(d.posSeed, d.stream, j, pull, 1)))
}

// chunk returns step's chunk and its stream (steps are asked for in
// order, from 1).
func (d *chunkData) chunk(step int) (*clrs.Chunk, int, error) {
	j := (step - 1) % len(d.chunkers)
	if ch := d.first[j]; ch != nil {
		d.first[j] = nil
		return ch, j, nil
	}
	ch, err := d.chunkers[j].Next()
	return ch, j, err
}

// skipChunks replays the streams past the chunks of steps 1..n (a resumed
// run).
func (d *chunkData) skipChunks(n int) error {
	for step := 1; step <= n; step++ {
		if _, _, err := d.chunk(step); err != nil {
			return err
		}
	}
	return nil
}

// trainChunk trains the model on step's chunk from its stream's start
// state, and with carry makes the chunk's end state the stream's next
// start.
func (d *chunkData) trainChunk(m *nn.Model, step int, carry bool) (float64, error) {
	ch, j, err := d.chunk(step)
	if err != nil {
		return 0, err
	}
	loss, end, err := m.TrainChunk(ch, d.start[j])
	if err == nil && carry {
		d.start[j] = end
	}
	return loss, err
}

// chunkStates encodes each algorithm's streams' start states (a carrying
// run's, for last/).
func chunkStates(chunks []*chunkData) ([]byte, error) {
	var all [][][]byte
	for _, d := range chunks {
		var per [][]byte
		for _, st := range d.start {
			b, err := st.MarshalBinary()
			if err != nil {
				return nil, err
			}
			per = append(per, b)
		}
		all = append(all, per)
	}
	var b bytes.Buffer
	err := gob.NewEncoder(&b).Encode(all)
	return b.Bytes(), err
}

// loadChunkStates sets the streams' start states to those saved in path.
func loadChunkStates(path string, chunks []*chunkData) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("the carried chunk states: %w", err)
	}
	var all [][][]byte
	if err := gob.NewDecoder(bytes.NewReader(raw)).Decode(&all); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if len(all) != len(chunks) {
		return fmt.Errorf("%s holds the states of %d algorithms, the run has %d", path, len(all), len(chunks))
	}
	for i, d := range chunks {
		if len(all[i]) != len(d.start) {
			return fmt.Errorf("%s holds %d streams of %s, the run has %d", path, len(all[i]), d.algo, len(d.start))
		}
		for j, b := range all[i] {
			st := &nn.ChunkState{}
			if err := st.UnmarshalBinary(b); err != nil {
				return err
			}
			d.start[j] = st
		}
	}
	return nil
}
