package jobcontroller

import "errors"

// Started reports whether Run has started. Under leader election, a
// replica standing by for the Lease has not.
func (c *Controller) Started() bool { return c.running.Load() }

// Ready reports whether the controller is ready: Run has started and its
// Job and Pod informers have synced.
func (c *Controller) Ready() error {
	if !c.running.Load() {
		return errors.New("the controller has not started")
	}
	if !c.jobsSynced() || !c.podsSynced() {
		return errors.New("the Job and Pod informers have not synced yet")
	}
	return nil
}
