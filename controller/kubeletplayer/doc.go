// Package kubeletplayer plays the pods of Jobs on a real API server the way
// the scheduler, the kubelets and the pod garbage collector of a cluster
// would, following a jobsynctest.Script per Job. It lets integration tests
// (envtest, a kube-apiserver started in the test, a kind cluster without
// nodes) drive Jobs through their whole life the way jobsynctest drives
// them in memory, with every write going through the API server.
//
// A Player watches pods through an informer and acts in real time. For each
// pod of a Job it plays (matched by the Job's controller reference, or by
// the batch.kubernetes.io/controller-uid label for pods not yet adopted):
//
//   - StartDelay after the pod is first seen it binds it to a node (the
//     pods/binding subresource, as the scheduler does) and writes, through
//     the status subresource, phase Running, a Ready condition and running
//     container statuses, as the kubelet does;
//   - RunTime later the container named by the Behavior exits with its
//     ExitCode and the others with 0: the pod becomes Succeeded or Failed
//     with terminated container statuses. Under restartPolicy OnFailure a
//     failing container restarts instead (RestartCount grows, with the
//     kubelet's doubling crash-loop delay from Options.RestartDelay) and the
//     pod never fails by itself;
//   - a Disruption behaviour adds the DisruptionTarget condition and then
//     deletes the pod, as an eviction or a preemption does;
//   - a pod seen with a deletion timestamp stops Shutdown after it (capped by
//     its grace period): its containers exit 143 when it stopped within the
//     grace period and 137 when it was killed at its end, it becomes Failed,
//     and the player then deletes it with grace period 0, as the kubelet
//     does (podlife.KubeletDeletes), so that the API server removes it once
//     its finalizers are gone.
//     A pod deleted before it was bound never ran: the API server marks it
//     for deletion at once, and the player fails it with a DisruptionTarget
//     condition of reason DeletionByPodGC, as the pod garbage collector does.
//
// Times are real: a Behavior's durations are waited out with timers (or with
// Options.Clock), so scripts for tests should be short. Pods of Jobs that
// are not played are left alone, as if another kubelet ran them.
//
// The pods of a Job are numbered in the order the player first sees them
// (PodRule.Pod), which is their creation order; PodRule.Attempt counts the
// pods seen per completion index (or per Job when it is not Indexed). When a
// Job's controller creates pods in parallel their creation order, and so
// the numbering, may vary between runs: scripts that must give two runs the
// same pods should select by Index and Attempt, or give all pods one
// behaviour.
package kubeletplayer
