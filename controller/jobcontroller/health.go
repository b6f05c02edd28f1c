package jobcontroller

import "errors"

// Ready reports whether the controller is ready: its informers have
// synced since Run started. A controller whose Run has not started (a
// replica standing by for the leader election Lease) is ready too: it is
// ready to take over, and what it would run is not yet its to run.
func (c *Controller) Ready() error {
	if !c.running.Load() {
		return nil
	}
	if !c.jobsSynced() || !c.podsSynced() {
		return errors.New("the Job and Pod informers have not synced yet")
	}
	return nil
}
