package expectations

import (
	"maps"
	"reflect"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"
)

// The trie is checked here under hashes chosen to be bad: few distinct
// values, so that UIDs share long prefixes, reach the last level and
// collide outright, paths that FNV-1a on real UIDs almost never takes.
var badHashes = map[string]func(types.UID) uint64{
	"fnv":      hashUID,
	"constant": func(types.UID) uint64 { return 0x5a5a5a5a5a5a5a5a },
	"two-values": func(u types.UID) uint64 {
		if len(u)%2 == 0 {
			return 0
		}
		return 1 << 63
	},
	"deep-prefix": func(u types.UID) uint64 { return hashUID(u) << 58 }, // only the top 6 bits differ
}

// set is a trie built with hash h instead of hashUID.
type testSet struct {
	root *uidNode
	h    func(types.UID) uint64
}

func (s testSet) add(u types.UID) (testSet, bool) {
	root := s.root
	if root == nil {
		root = &uidNode{}
	}
	r, ok := root.with(u, s.h(u), 0, s.h)
	if ok {
		s.root = r
	}
	return s, ok
}

func (s testSet) addMany(us []types.UID) (testSet, int) {
	root := s.root
	if root == nil {
		root = &uidNode{}
	}
	batch := make([]hashedUID, len(us))
	for i, u := range us {
		batch[i] = hashedUID{u, s.h(u)}
	}
	r, added := root.withMany(batch, 0, s.h)
	if added > 0 {
		s.root = r
	}
	return s, added
}

func (s testSet) remove(u types.UID) (testSet, bool) {
	if s.root == nil {
		return s, false
	}
	r, ok := s.root.without(u, s.h(u), 0)
	if ok {
		s.root = r
	}
	return s, ok
}

func (s testSet) list() []types.UID {
	var out []types.UID
	if s.root != nil {
		s.root.each(func(u types.UID) bool { out = append(out, u); return true })
	}
	slices.Sort(out)
	return out
}

// checkShape verifies the invariants of the canonical form below n.
func checkShape(t *rapid.T, n *uidNode, depth int, root bool) int {
	if depth >= collisionDepth {
		if n.dataMap != 0 || n.nodeMap != 0 || len(n.kids) != 0 || !slices.IsSorted(n.uids) {
			t.Fatalf("collision node at depth %d malformed: %+v", depth, n)
		}
		if !root && len(n.uids) < 2 {
			t.Fatalf("collision node with %d UIDs", len(n.uids))
		}
		return len(n.uids)
	}
	if n.dataMap&n.nodeMap != 0 {
		t.Fatalf("a slot holds both a UID and a child at depth %d", depth)
	}
	if len(n.uids) != popcount(n.dataMap) || len(n.kids) != popcount(n.nodeMap) {
		t.Fatalf("maps and slices disagree at depth %d: %+v", depth, n)
	}
	if !root && len(n.uids) < 2 && len(n.kids) == 0 {
		t.Fatalf("a non-root node holding %d UIDs and no child at depth %d", len(n.uids), depth)
	}
	total := len(n.uids)
	for _, k := range n.kids {
		total += checkShape(t, k, depth+1, false)
	}
	return total
}

func popcount(m uint32) int {
	c := 0
	for ; m != 0; m &= m - 1 {
		c++
	}
	return c
}

// TestTrieAgainstMap: random adds and removes, under every hash, agree with
// a map; the shape stays canonical (so that the same contents give a
// deep-equal trie); and every version kept along the way still holds what
// it held.
func TestTrieAgainstMap(t *testing.T) {
	for name, h := range badHashes {
		t.Run(name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				domain := rapid.SliceOfNDistinct(rapid.StringMatching(`[a-f0-9]{0,6}`), 1, 60, rapid.ID).Draw(t, "domain")
				s := testSet{h: h}
				model := map[types.UID]bool{}
				type version struct {
					s    testSet
					want []types.UID
				}
				var kept []version
				for range rapid.IntRange(0, 200).Draw(t, "steps") {
					u := types.UID(rapid.SampledFrom(domain).Draw(t, "uid"))
					var changed bool
					if rapid.IntRange(0, 5).Draw(t, "many") == 0 {
						us := rapid.SliceOf(rapid.SampledFrom(domain)).Draw(t, "batch")
						fresh := map[types.UID]bool{}
						for _, u := range us {
							if !model[types.UID(u)] {
								fresh[types.UID(u)] = true
							}
							model[types.UID(u)] = true
						}
						batch := make([]types.UID, len(us))
						for i, u := range us {
							batch[i] = types.UID(u)
						}
						var added int
						s, added = s.addMany(batch)
						if added != len(fresh) {
							t.Fatalf("added %d of %q, %d of them new", added, us, len(fresh))
						}
					} else if rapid.Bool().Draw(t, "add") {
						s, changed = s.add(u)
						if changed == model[u] {
							t.Fatalf("add(%q) changed=%v, but the model held it: %v", u, changed, model[u])
						}
						model[u] = true
					} else {
						s, changed = s.remove(u)
						if changed != model[u] {
							t.Fatalf("remove(%q) changed=%v, but the model held it: %v", u, changed, model[u])
						}
						delete(model, u)
					}
					want := slices.Sorted(maps.Keys(model))
					if got := s.list(); !slices.Equal(got, want) {
						t.Fatalf("holds %q, model %q", got, want)
					}
					if s.root != nil {
						if n := checkShape(t, s.root, 0, true); n != len(model) {
							t.Fatalf("counted %d UIDs, model %d", n, len(model))
						}
					}
					kept = append(kept, version{s, want})
				}
				// Canonical: rebuilding the final contents in another
				// order gives a deep-equal trie.
				fresh := testSet{h: h}
				final := slices.Sorted(maps.Keys(model))
				for _, i := range rapid.Permutation(final).Draw(t, "order") {
					fresh, _ = fresh.add(i)
				}
				if len(final) > 0 && !reflect.DeepEqual(fresh.root, s.root) {
					t.Fatalf("same contents, different shapes")
				}
				for i, v := range kept {
					if got := v.s.list(); !slices.Equal(got, v.want) {
						t.Fatalf("version %d changed: holds %q, held %q", i, got, v.want)
					}
				}
			})
		})
	}
}
