package jobsync

import "k8s.io/apimachinery/pkg/types"

// uidFilter is the scan's first check that no two pods to count share a
// UID, made while each pod is at hand: a set of 64-bit hashes of their
// UIDs, in an open-addressing table of integers that grows without reading
// a UID again. Two UIDs with one hash make it say maybe, and only then does
// repeatedUID compare the UIDs themselves, so a hash collision costs time,
// never a wrong answer. In a long Job tens of thousands of finished pods
// are checked on every sync; a map of their UIDs cost a second walk over
// the pods and a string hash table several times the size of this one.
type uidFilter struct {
	slots []uint64 // the hashes with their lowest bit set; 0 is empty
	n     int
	maybe bool // two UIDs hashed alike: a repeat is possible
}

// add puts uid's hash in the set, or notes that it is already there. The
// pod is the seen-th of total: a full table grows to what the share of
// pods added so far gives over all of them (see appendExtrapolated).
func (f *uidFilter) add(uid types.UID, seen, total int) {
	if f.maybe {
		return // the exact check runs anyway
	}
	if 4*(f.n+1) > 3*len(f.slots) {
		f.grow(seen, total)
	}
	if !f.insert(hashUID(uid) | 1) {
		f.maybe = true
	}
}

// insert adds h unless present, and reports whether it was absent.
func (f *uidFilter) insert(h uint64) bool {
	mask := uint64(len(f.slots) - 1)
	for i := (h >> 32) & mask; ; i = (i + 1) & mask {
		switch f.slots[i] {
		case 0:
			f.slots[i] = h
			f.n++
			return true
		case h:
			return false
		}
	}
}

func (f *uidFilter) grow(seen, total int) {
	old := f.slots
	size := max(64, 2*len(old))
	if f.n >= 128 {
		// Room for the extrapolated count at three quarters full.
		n := f.n + 1
		est := min(max(n*total/seen+n*total/seen/4, n+n/4), n+total-seen)
		for 3*size < 4*est {
			size *= 2
		}
	}
	f.slots = make([]uint64, size)
	f.n = 0
	for _, h := range old {
		if h != 0 {
			f.insert(h)
		}
	}
}

// hashUID mixes a UID eight bytes at a time into 64 bits (a fixed
// function: the same in every process).
func hashUID(u types.UID) uint64 {
	s := string(u)
	h := uint64(len(s)) * 0x9e3779b97f4a7c15
	for ; len(s) >= 8; s = s[8:] {
		w := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
		h = (h ^ w) * 0xbf58476d1ce4e5b9
		h ^= h >> 31
	}
	var w uint64
	for i := 0; i < len(s); i++ {
		w |= uint64(s[i]) << (8 * i)
	}
	h = (h ^ w) * 0x94d049bb133111eb
	h ^= h >> 29
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 32
	return h
}
