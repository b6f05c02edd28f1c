// Package crjob runs Jobs with jobsync inside a controller-runtime
// Manager: SetupWithManager registers a reconcile.Reconciler for the Jobs
// whose spec.managedBy is a given name, on the manager's shared cache (a
// field index on the pod's controller UID finds a Job's pods), carrying
// each plan out with an executor.Executor and the parts of package kit:
// the memory lowered by pod events, the stale-write guard, the release of
// orphan pods' finalizers and InputError handling.
//
//	mgr, err := ctrl.NewManager(cfg, ctrl.Options{})
//	...
//	if err := crjob.SetupWithManager(mgr, crjob.Options{ControllerName: "example.com/mine"}); err != nil {
//		...
//	}
//	return mgr.Start(ctx)
//
// It is a module of its own so that the controller module's users do not
// get controller-runtime in their build.
package crjob
