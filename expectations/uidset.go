package expectations

import (
	"encoding/json"
	"fmt"
	"iter"
	"math/bits"
	"slices"

	"k8s.io/apimachinery/pkg/types"
)

// UIDSet is an immutable set of pod UIDs. Adding or removing returns a new
// set that shares most of its memory with the old one, which stays as it
// was: a caller may keep any number of versions, and read them from any
// number of goroutines. Has, Add and Remove take O(log n) time, and at most
// a few hundred bytes of new memory each, whatever the size of the set.
//
// The zero value is the empty set. Two sets holding the same UIDs are equal
// under Equal, go-cmp and reflect.DeepEqual alike: the shape of the set
// depends only on what it holds, not on the order it was built in. In JSON
// a set is the sorted list of its UIDs.
//
// Inside, it is a hash trie (a compressed hash-array mapped prefix tree):
// each level consumes five bits of the UID's FNV-1a hash and holds, per
// 5-bit slot, either one UID or a child node. Changing a set copies only the
// nodes on the path to the UID.
type UIDSet struct {
	root *uidNode
	n    int
}

// uidNode is one node of the trie. At depth d, a UID's slot is bits
// 5d..5d+4 of its hash. A slot set in dataMap holds a UID (in uids, in slot
// order); a slot set in nodeMap holds a child (in kids, in slot order). A
// node below the last level (collisionDepth) has neither map: it holds UIDs
// whose 64-bit hashes are all equal, sorted.
//
// Canonical form: no child holds a single UID (it sits in its parent's slot
// instead), and no node but the root is empty.
type uidNode struct {
	dataMap, nodeMap uint32
	uids             []types.UID
	kids             []*uidNode
}

const (
	slotBits       = 5
	collisionDepth = (64 + slotBits - 1) / slotBits // 13: below it the hash is used up
)

// hashUID is FNV-1a, 64 bits: fixed, so that a set's shape is the same in
// every process (no per-process seed).
func hashUID(u types.UID) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(u); i++ {
		h ^= uint64(u[i])
		h *= 1099511628211
	}
	return h
}

func slotBit(h uint64, depth int) uint32 { return 1 << ((h >> (slotBits * depth)) & 31) }

// rank is the position, among the slots set in m, of the slot bit.
func rank(m, bit uint32) int { return bits.OnesCount32(m & (bit - 1)) }

// NewUIDSet returns the set of uids (duplicates are held once).
func NewUIDSet(uids ...types.UID) UIDSet { return UIDSet{}.Add(uids...) }

// Len is the number of UIDs in the set.
func (s UIDSet) Len() int { return s.n }

// IsZero reports whether the set is empty (for JSON's omitzero).
func (s UIDSet) IsZero() bool { return s.n == 0 }

// Has reports whether uid is in the set.
func (s UIDSet) Has(uid types.UID) bool {
	if s.root == nil {
		return false
	}
	h := hashUID(uid)
	n := s.root
	for depth := 0; ; depth++ {
		if depth >= collisionDepth {
			_, found := slices.BinarySearch(n.uids, uid)
			return found
		}
		bit := slotBit(h, depth)
		switch {
		case n.dataMap&bit != 0:
			return n.uids[rank(n.dataMap, bit)] == uid
		case n.nodeMap&bit != 0:
			n = n.kids[rank(n.nodeMap, bit)]
		default:
			return false
		}
	}
}

// Add returns the set with uids added; s is left as it was. Adding k UIDs
// at once copies each node on their paths once, not once per UID.
func (s UIDSet) Add(uids ...types.UID) UIDSet {
	switch len(uids) {
	case 0:
		return s
	case 1:
		if s.root == nil {
			s.root = &uidNode{}
		}
		if root, added := s.root.with(uids[0], hashUID(uids[0]), 0, hashUID); added {
			s.root, s.n = root, s.n+1
		}
		return s
	}
	batch := make([]hashedUID, len(uids))
	for i, u := range uids {
		batch[i] = hashedUID{u, hashUID(u)}
	}
	if s.root == nil {
		s.root = &uidNode{}
	}
	root, added := s.root.withMany(batch, 0, hashUID)
	s.root, s.n = root, s.n+added
	return s
}

// hashedUID is a UID with its hash, for adding many at once.
type hashedUID struct {
	u types.UID
	h uint64
}

// withMany returns n with the batch added and how many of them were new;
// n itself when none was. The batch is reordered.
func (n *uidNode) withMany(batch []hashedUID, depth int, hash func(types.UID) uint64) (*uidNode, int) {
	if len(batch) == 1 {
		c, added := n.with(batch[0].u, batch[0].h, depth, hash)
		if added {
			return c, 1
		}
		return c, 0
	}
	if depth >= collisionDepth {
		merged := slices.Clone(n.uids)
		for _, e := range batch {
			merged = append(merged, e.u)
		}
		slices.Sort(merged)
		merged = slices.Clip(slices.Compact(merged))
		if len(merged) == len(n.uids) {
			return n, 0
		}
		return &uidNode{uids: merged}, len(merged) - len(n.uids)
	}
	slot := func(e hashedUID) uint32 { return uint32(e.h>>(slotBits*depth)) & 31 }
	slices.SortFunc(batch, func(a, b hashedUID) int { return int(slot(a)) - int(slot(b)) })
	groups := 1
	for i := 1; i < len(batch); i++ {
		if slot(batch[i]) != slot(batch[i-1]) {
			groups++
		}
	}
	c := &uidNode{
		uids: make([]types.UID, 0, len(n.uids)+groups),
		kids: make([]*uidNode, 0, len(n.kids)+groups),
	}
	total := 0
	di, ki := 0, 0 // next of n's UIDs and children, in slot order
	for i := 0; i < len(batch); {
		sl := slot(batch[i])
		j := i + 1
		for j < len(batch) && slot(batch[j]) == sl {
			j++
		}
		group := batch[i:j]
		i = j
		bit := uint32(1) << sl
		// n's slots before this one stay as they are.
		c.keepBelow(n, bit, &di, &ki)
		switch {
		case n.nodeMap&bit != 0:
			kid, added := n.kids[ki].withMany(group, depth+1, hash)
			ki++
			total += added
			c.nodeMap |= bit
			c.kids = append(c.kids, kid)
		default:
			var held types.UID
			had := n.dataMap&bit != 0
			if had {
				held = n.uids[di]
				di++
				group = append(group[:len(group):len(group)], hashedUID{held, hash(held)})
			}
			if allSame(group) {
				c.dataMap |= bit
				c.uids = append(c.uids, group[0].u)
				if !had {
					total++
				}
				continue
			}
			kid, added := emptyNode.withMany(group, depth+1, hash)
			if had {
				added--
			}
			total += added
			c.nodeMap |= bit
			c.kids = append(c.kids, kid)
		}
	}
	c.keepBelow(n, 0, &di, &ki)
	if total == 0 {
		return n, 0
	}
	// Empty slices are nil, as everywhere else in the trie (canonical
	// form); the spare capacity is harmless, as with and without copy
	// before they insert.
	if len(c.uids) == 0 {
		c.uids = nil
	}
	if len(c.kids) == 0 {
		c.kids = nil
	}
	return c, total
}

// emptyNode is the empty node that new subtrees of a batch grow from. It is
// never written to: withMany returns new nodes.
var emptyNode = &uidNode{}

// keepBelow copies into c the UIDs and children of n in the slots below bit
// (all that are left when bit is 0), from positions *di and *ki on.
func (c *uidNode) keepBelow(n *uidNode, bit uint32, di, ki *int) {
	below := bit - 1 // every slot under bit; all slots when bit is 0
	for m := n.dataMap &^ c.dataMap & below; *di < len(n.uids) && m != 0; m &= m - 1 {
		b := m & -m
		if n.dataMap&b == 0 || (c.dataMap|c.nodeMap)&b != 0 {
			continue
		}
		c.dataMap |= b
		c.uids = append(c.uids, n.uids[*di])
		*di++
	}
	for m := n.nodeMap &^ c.nodeMap & below; *ki < len(n.kids) && m != 0; m &= m - 1 {
		b := m & -m
		c.nodeMap |= b
		c.kids = append(c.kids, n.kids[*ki])
		*ki++
	}
}

func allSame(g []hashedUID) bool {
	for _, e := range g[1:] {
		if e.u != g[0].u {
			return false
		}
	}
	return true
}

// Remove returns the set without uid; s is left as it was. Removing a UID
// the set does not hold returns s itself and allocates nothing.
func (s UIDSet) Remove(uid types.UID) UIDSet {
	if s.root == nil {
		return s
	}
	root, removed := s.root.without(uid, hashUID(uid), 0)
	if !removed {
		return s
	}
	s.n--
	if s.n == 0 {
		return UIDSet{}
	}
	s.root = root
	return s
}

// with returns a copy of n that holds u, or n itself (and false) when it
// already does. h is hash(u); hash is hashUID but for tests.
func (n *uidNode) with(u types.UID, h uint64, depth int, hash func(types.UID) uint64) (*uidNode, bool) {
	if depth >= collisionDepth {
		i, found := slices.BinarySearch(n.uids, u)
		if found {
			return n, false
		}
		return &uidNode{uids: slices.Insert(slices.Clip(n.uids), i, u)}, true
	}
	bit := slotBit(h, depth)
	switch {
	case n.dataMap&bit != 0:
		i := rank(n.dataMap, bit)
		old := n.uids[i]
		if old == u {
			return n, false
		}
		kid := pair(old, hash(old), u, h, depth+1)
		c := &uidNode{dataMap: n.dataMap &^ bit, nodeMap: n.nodeMap | bit}
		c.uids = remove(n.uids, i)
		c.kids = slices.Insert(slices.Clip(n.kids), rank(c.nodeMap, bit), kid)
		return c, true
	case n.nodeMap&bit != 0:
		i := rank(n.nodeMap, bit)
		kid, added := n.kids[i].with(u, h, depth+1, hash)
		if !added {
			return n, false
		}
		c := *n
		c.kids = slices.Clone(n.kids)
		c.kids[i] = kid
		return &c, true
	default:
		c := *n
		c.dataMap |= bit
		c.uids = slices.Insert(slices.Clip(n.uids), rank(c.dataMap, bit), u)
		return &c, true
	}
}

// pair is the node at depth holding the two distinct UIDs a and b.
func pair(a types.UID, ha uint64, b types.UID, hb uint64, depth int) *uidNode {
	if depth >= collisionDepth {
		if b < a {
			a, b = b, a
		}
		return &uidNode{uids: []types.UID{a, b}}
	}
	ba, bb := slotBit(ha, depth), slotBit(hb, depth)
	if ba == bb {
		return &uidNode{nodeMap: ba, kids: []*uidNode{pair(a, ha, b, hb, depth+1)}}
	}
	if bb < ba {
		a, b = b, a
	}
	return &uidNode{dataMap: ba | bb, uids: []types.UID{a, b}}
}

// without returns a copy of n that does not hold u, or n itself (and
// false) when it does not.
func (n *uidNode) without(u types.UID, h uint64, depth int) (*uidNode, bool) {
	if depth >= collisionDepth {
		i, found := slices.BinarySearch(n.uids, u)
		if !found {
			return n, false
		}
		return &uidNode{uids: remove(n.uids, i)}, true
	}
	bit := slotBit(h, depth)
	switch {
	case n.dataMap&bit != 0:
		i := rank(n.dataMap, bit)
		if n.uids[i] != u {
			return n, false
		}
		c := *n
		c.dataMap &^= bit
		c.uids = remove(n.uids, i)
		return &c, true
	case n.nodeMap&bit != 0:
		i := rank(n.nodeMap, bit)
		kid, removed := n.kids[i].without(u, h, depth+1)
		if !removed {
			return n, false
		}
		c := *n
		if len(kid.uids) == 1 && len(kid.kids) == 0 {
			// A child left with one UID: the UID moves up into this slot.
			c.nodeMap &^= bit
			c.kids = remove(n.kids, i)
			c.dataMap |= bit
			c.uids = slices.Insert(slices.Clip(n.uids), rank(c.dataMap, bit), kid.uids[0])
			return &c, true
		}
		c.kids = slices.Clone(n.kids)
		c.kids[i] = kid
		return &c, true
	}
	return n, false
}

// remove returns a new slice holding s without its i-th element; nil when
// nothing is left, so that the shape stays canonical for reflect.DeepEqual.
func remove[T any](s []T, i int) []T {
	if len(s) == 1 {
		return nil
	}
	out := make([]T, 0, len(s)-1)
	return append(append(out, s[:i]...), s[i+1:]...)
}

// All yields the UIDs of the set in the trie's order: deterministic, but
// neither sorted nor the order they were added in.
func (s UIDSet) All() iter.Seq[types.UID] {
	return func(yield func(types.UID) bool) {
		if s.root != nil {
			s.root.each(yield)
		}
	}
}

func (n *uidNode) each(yield func(types.UID) bool) bool {
	for _, u := range n.uids {
		if !yield(u) {
			return false
		}
	}
	for _, k := range n.kids {
		if !k.each(yield) {
			return false
		}
	}
	return true
}

// Sorted returns the UIDs of the set in ascending order, in a new slice
// (nil for the empty set).
func (s UIDSet) Sorted() []types.UID {
	if s.n == 0 {
		return nil
	}
	out := make([]types.UID, 0, s.n)
	for u := range s.All() {
		out = append(out, u)
	}
	slices.Sort(out)
	return out
}

// Equal reports whether s and t hold the same UIDs. go-cmp uses it.
func (s UIDSet) Equal(t UIDSet) bool { return s.n == t.n && s.root.equal(t.root) }

// equal compares two canonical tries; shared nodes compare at once.
func (n *uidNode) equal(m *uidNode) bool {
	if n == m {
		return true
	}
	if n == nil || m == nil {
		return false
	}
	if n.dataMap != m.dataMap || n.nodeMap != m.nodeMap || !slices.Equal(n.uids, m.uids) || len(n.kids) != len(m.kids) {
		return false
	}
	for i := range n.kids {
		if !n.kids[i].equal(m.kids[i]) {
			return false
		}
	}
	return true
}

// String prints the sorted UIDs as a Go slice prints: [a b c].
func (s UIDSet) String() string { return fmt.Sprint(s.Sorted()) }

// MarshalJSON writes the sorted list of UIDs.
func (s UIDSet) MarshalJSON() ([]byte, error) {
	list := s.Sorted()
	if list == nil {
		list = []types.UID{}
	}
	return json.Marshal(list)
}

// UnmarshalJSON reads a list of UIDs in any order, duplicates allowed.
func (s *UIDSet) UnmarshalJSON(data []byte) error {
	var list []types.UID
	if err := json.Unmarshal(data, &list); err != nil {
		return err
	}
	*s = NewUIDSet(list...)
	return nil
}
