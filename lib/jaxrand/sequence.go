package jaxrand

// Sequence is haiku's PRNGSequence: the keys hk.next_rng_key() returns
// inside a function transformed with hk.transform and applied with a key.
//
// It holds a key and a queue of reserved subkeys. Reserve(n) splits the
// key into n+1 keys, keeps the first as the new key and queues the other
// n; Next pops the queue's head, reserving one more key first when the
// queue is empty (haiku's rng_reserve_size, 1 by default). With that
// default the stream is a chain: (k₁, s₁) = Split2(k₀), (k₂, s₂) =
// Split2(k₁), …, and Next returns s₁, s₂, … in order. hk.scan and
// hk.fori_loop carry the sequence through their iterations and top the
// queue up to one key after each (reserve_up_to_full), which takes the
// same keys in the same order, so the n-th next_rng_key of an apply is
// the n-th key of this stream however the calls are spread over loop
// iterations. (hk.scan during init, which unrolls the first iteration,
// is no exception.)
//
// A Sequence is not safe for concurrent use.
type Sequence struct {
	key     Key
	subkeys []Key
}

// NewSequence starts haiku's key stream for an apply called with key k
// (hk.PRNGSequence(k)).
func NewSequence(k Key) *Sequence { return &Sequence{key: k} }

// NewSequenceFromSeed is hk.PRNGSequence(seed): the stream of
// PRNGKey(seed).
func NewSequenceFromSeed(seed int64) *Sequence { return NewSequence(PRNGKey(seed)) }

// Reserve splits n more keys off the sequence's key and queues them
// (hk.reserve_rng_keys(n)); n ≤ 0 does nothing.
func (s *Sequence) Reserve(n int) {
	if n <= 0 {
		return
	}
	ks := Split(s.key, n+1)
	s.key = ks[0]
	s.subkeys = append(s.subkeys, ks[1:]...)
}

// Next returns the next key (hk.next_rng_key()).
func (s *Sequence) Next() Key {
	if len(s.subkeys) == 0 {
		s.Reserve(1)
	}
	k := s.subkeys[0]
	s.subkeys = s.subkeys[1:]
	return k
}

// Take returns the next n keys (hk.next_rng_keys(n)): it first reserves
// the keys the queue lacks, in one split.
func (s *Sequence) Take(n int) []Key {
	s.Reserve(n - len(s.subkeys))
	out := make([]Key, n)
	for i := range out {
		out[i] = s.Next()
	}
	return out
}
