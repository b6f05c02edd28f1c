// Package jobtest runs, against any API server, what a cluster's control
// plane and nodes would do to Jobs: the Job controller, acting as the
// built-in one (jobcontroller with ActAsBuiltIn), and kubelets that run
// their pods (kubeletplayer). It is for test API servers that run no
// kube-controller-manager and no nodes, controller-runtime's envtest first:
// there a Job never gets a pod and never finishes, so code that creates
// Jobs and waits for them cannot be tested.
//
//	env, err := jobtest.Start(ctx, cfg, jobtest.Options{})
//	...
//	defer env.Stop()
//
// With the zero Options every pod runs for DefaultPodRunTime and succeeds;
// Options.Script or Options.ScriptFor give pods other behaviours (failures,
// exit codes, disruptions, slow starts) as jobsynctest scripts. Jobs take
// upstream's default pod-failure backoff (10s, doubling) unless
// Options.Sync lowers it.
//
// It needs only client-go: nothing of k8s.io/kubernetes is linked in, and
// no *testing.T is needed, so it works from plain go test and from Ginkgo
// suites alike. Never start it against a cluster that runs
// kube-controller-manager: both would run the same Jobs.
package jobtest
