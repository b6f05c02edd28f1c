package jobsync

// Reconcile decides one sync of s.Job. See Plan for what the result holds.
func Reconcile(s Snapshot, opts Options) (Plan, error) {
	panic("not yet")
}
