package jobsynctest

// SabotageWriteAhead makes c carry out each plan's finalizer removals
// before its interim status: the wrong write-ahead order, which the checks
// must catch. Tests only.
func SabotageWriteAhead(c *Cluster) { c.finalizersFirst = true }
