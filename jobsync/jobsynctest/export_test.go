package jobsynctest

// SabotageWriteAhead makes c carry out each plan's finalizer removals
// before its interim status: the wrong write-ahead order, which the checks
// must catch. Tests only.
func SabotageWriteAhead(c *Cluster) { c.finalizersFirst = true }

// PodsListed is the number of pods c handed to Reconcile in Snapshot.Pods
// so far, summed over its syncs: the pods a sync reads one by one (those it
// holds in sets it reads by their sums, and by the few it must look up).
func PodsListed(c *Cluster) int64 { return c.listed }
