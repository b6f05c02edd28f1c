package jobsynctest

// SabotageWriteAhead makes c carry out each plan's finalizer removals
// before its interim status: the wrong write-ahead order, which the checks
// must catch. Tests only.
func SabotageWriteAhead(c *Cluster) { c.finalizersFirst = true }

// PodsListed is the number of pods c handed to Reconcile so far, summed
// over its syncs: what the syncs of a lifecycle had to read at the least.
func PodsListed(c *Cluster) int64 { return c.listed }
