package jobsync

// appendExtrapolated is append for a list the scan builds of the pods that
// pass some test, after seen of the snapshot's total pods (this one
// included). A short full list doubles, as appendDoubling's. Once it holds
// enough pods for their share of those seen to say something, it grows to
// what that share gives over all the pods, a quarter more (at least a
// quarter more than it holds, never beyond the pods left): an informer
// lists pods in no particular order, so the share seen early is close to
// the final one. The list then grows about once past its first few
// hundred, and the garbage collector sees little more than the final size
// instead of two to four times it: in a long Job, the records of the
// finished pods are most of what a sync allocates.
func appendExtrapolated[T any](s []T, v T, seen, total int) []T {
	if len(s) < cap(s) {
		return append(s, v)
	}
	return grownAppend(s, v, seen, total)
}

// grownAppend is appendExtrapolated for a full list, kept out of line so
// that the scan's loop stays as small as with appendDoubling for the
// active pods, which never reach it. Inlined, Steady (Indexed, 10,000
// pods) measured 1.55 ms a sync against 1.34 ms with appendDoubling; out
// of line 1.13 against 1.21, within the noise (2026-11-25, load 1.1-1.7).
//
//go:noinline
func grownAppend[T any](s []T, v T, seen, total int) []T {
	n := len(s) + 1
	c := max(16, 2*cap(s))
	if len(s) >= 128 {
		est := n * total / seen
		c = min(max(est+est/4, n+n/4), n+total-seen)
	}
	grown := make([]T, len(s), c)
	copy(grown, s)
	return append(grown, v)
}
