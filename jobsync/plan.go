package jobsync

import (
	"encoding/json"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/backoff"
	"github.com/jobsync/jobsync/expectations"
)

// Snapshot is everything one sync reads.
type Snapshot struct {
	// Job is the Job as the caller's informer sees it. Fields that the API
	// server defaults must be set (see jobspec.Default).
	Job *batchv1.Job
	// Pods are the pods the caller has for the Job: those controlled by it
	// and, to be considered for adoption, orphans matching its selector.
	Pods []*corev1.Pod
	// SettledPods is the number of the Job's pods left out of Pods because
	// a SettledFilter of the Job and the same Options reports them settled.
	// Reconcile reads nothing of them but that they exist, and decides as
	// it would with them in Pods. Zero when Pods holds every pod.
	SettledPods int
	// Active, when not nil, holds active pods of the Job kept out of Pods
	// (see ActivePods): Reconcile decides as it would with them in Pods. A
	// pod must be in Pods or in Active, not in both: a pod of Pods whose UID
	// Active holds is an *InputError.
	Active *ActivePods
	// Succeeded, when not nil, holds succeeded pods of a NonIndexed Job
	// still carrying the tracking finalizer, kept out of Pods (see
	// SucceededPods): Reconcile decides as it would with them in Pods. A
	// pod must be in one place only: a pod of Pods whose UID Succeeded holds
	// is an *InputError. (A pod held in both sets is not detected.)
	Succeeded *SucceededPods
	// Now is the clock reading of this sync.
	Now time.Time
	// Expectations is the memory of creations, deletions and finalizer
	// removals not yet observed, as returned by the previous plan and lowered
	// by the caller's observations since.
	//
	// Read it before listing Pods, as upstream checks its expectations before
	// it lists: an observation that lands between the two reads then shows
	// in Pods while the memory still waits for it, and the sync holds back.
	// Read the other way round, a pod whose finalizer removal was just
	// observed can still show the finalizer in Pods while the memory no
	// longer expects the removal, and it is removed and counted a second
	// time (as controller/jobcontroller's 10,000-pod run showed).
	Expectations expectations.Expectations
	// Backoff is the pod-failure backoff record returned by the previous plan.
	Backoff backoff.Record
}

// Plan is what one sync decided, in the order the caller must carry it out.
// Deletions and Creations never both appear in one plan.
type Plan struct {
	// Skipped, when not empty, says why the sync did nothing at all (the Job
	// is managed by another controller, is already finished, or has an
	// unknown completion mode). Such a plan may still carry Events and a
	// cleared Backoff.
	Skipped string `json:"skipped,omitempty"`

	// Releases are pods controlled by the Job that no longer match its
	// selector: each loses every owner reference carrying the Job's UID and
	// its tracking finalizer, in one patch (PodClaim.Patch). They take no
	// further part in the sync.
	Releases []PodClaim `json:"releases,omitempty"`
	// Adoptions are orphan pods that match the Job's selector: each gains the
	// Job's controller owner reference and the tracking finalizer, in one
	// patch (PodClaim.Patch), first of all. The rest of the plan treats them
	// as the Job's. An orphan that already carries a non-controller owner
	// reference with the Job's UID is adopted too, but this sync does not
	// assume the finalizer on it (upstream takes any reference with its UID
	// as a sign that the pod is not newly adopted): without one, it is not
	// tracked until the next sync sees the patched pod.
	Adoptions []PodClaim `json:"adoptions,omitempty"`
	// Deletions are the pods to delete, after the claims.
	Deletions []PodDeletion `json:"deletions,omitempty"`
	// Creations are the pods to create, after the deletions.
	Creations []PodCreation `json:"creations,omitempty"`
	// InterimStatus, when not nil, is the status to write before any
	// finalizer is removed: it records every pod about to lose its tracking
	// finalizer in status.uncountedTerminatedPods (write-ahead), and carries
	// interim conditions such as FailureTarget and SuccessCriteriaMet.
	InterimStatus *batchv1.JobStatus `json:"interimStatus,omitempty"`
	// FinalizerRemovals are the pods whose tracking finalizer to remove once
	// InterimStatus is written.
	FinalizerRemovals []FinalizerRemoval `json:"finalizerRemovals,omitempty"`
	// Status, when not nil, is the status to write after the finalizer
	// removals: the released pods moved from uncountedTerminatedPods into the
	// counters, and terminal conditions. It assumes every removal succeeded;
	// after a failed one, reconcile again instead.
	Status *batchv1.JobStatus `json:"status,omitempty"`
	// RequeueAfter, when positive, is how long from Now until time alone may
	// change the decision (active deadline, pod-failure backoff).
	RequeueAfter time.Duration `json:"requeueAfter,omitempty"`
	// Events are the events upstream records for this sync, in order; Steps
	// says after which step each is recorded. Pod creation and deletion
	// events (SuccessfulCreate, SuccessfulDelete) are left to whoever
	// carries out those steps.
	Events []Event `json:"events,omitempty"`
	// Expectations is the memory to keep for the next sync, assuming every
	// step succeeds; Advance says what to keep of a plan carried out in
	// part.
	Expectations expectations.Expectations `json:"expectations"`
	// Backoff is the pod-failure backoff record to keep for the next sync.
	Backoff backoff.Record `json:"backoff"`
	// Notes explain, for people, decisions that lead to no action, such as
	// "no pods are created: pod-failure backoff, 40s left".
	Notes []string `json:"notes,omitempty"`
}

// PodRef names a pod.
type PodRef struct {
	Namespace string    `json:"namespace"`
	Name      string    `json:"name"`
	UID       types.UID `json:"uid"`
}

// PodDeletion is one pod to delete.
type PodDeletion struct {
	Pod PodRef `json:"pod"`
	// RemoveFinalizer says the tracking finalizer must be removed (a patch)
	// before the delete call, as upstream does when it scales down or
	// suspends; when the Job is finishing, finalizers are kept and removed by
	// the tracking steps once the pods are counted.
	RemoveFinalizer bool `json:"removeFinalizer,omitempty"`
	// Ready says the pod was ready; the status counts it out of status.ready.
	Ready  bool   `json:"ready,omitempty"`
	Reason string `json:"reason"`
}

// PodCreation is one pod to create.
type PodCreation struct {
	// Pod is the complete object to create: the template's labels,
	// annotations and spec, the tracking finalizer, the controller owner
	// reference and generateName; for Indexed Jobs also the completion index
	// annotation and label, the hostname and the JOB_COMPLETION_INDEX
	// environment variable.
	Pod *corev1.Pod `json:"pod"`
	// CompletionIndex is the index of the pod in an Indexed Job.
	CompletionIndex *int   `json:"completionIndex,omitempty"`
	Reason          string `json:"reason"`
}

// PodClaim is one pod to adopt or release. Carry it out by sending Patch to
// the pod with patch type ClaimPatchType (strategic merge), as upstream's
// ControllerRefManager does; OwnerReference and Finalizer say the same in
// structured form, for callers that apply claims otherwise.
//
// An adoption's patch is
//
//	{"metadata":{"ownerReferences":[<OwnerReference>],"uid":"<pod UID>","finalizers":["<Finalizer>"]}}
//
// which merges the Job's controller reference (by UID, so a non-controller
// reference to the Job becomes the controller one) and adds the finalizer.
// A release's patch is
//
//	{"metadata":{"uid":"<pod UID>","ownerReferences":[{"$patch":"delete","uid":"<Job UID>"}],"$deleteFromPrimitiveList/finalizers":["<Finalizer>"]}}
//
// which deletes every owner reference with the Job's UID and the
// finalizer. In both, metadata.uid makes the API server refuse the patch
// for another pod of the same name. A pod gone (404) counts as done; for a
// release, so does an invalid-patch answer (422), which upstream ignores.
type PodClaim struct {
	Pod PodRef `json:"pod"`
	// OwnerReference is, for an adoption, the controller reference added;
	// for a release, the reference removed (the pod's controller reference
	// to the Job; every reference with its UID goes).
	OwnerReference metav1.OwnerReference `json:"ownerReference"`
	// Finalizer is the tracking finalizer the adoption adds or the release
	// removes (Options.TrackingFinalizer).
	Finalizer string `json:"finalizer"`
	// Patch is the strategic merge patch body that carries the claim out,
	// byte for byte what upstream sends.
	Patch  json.RawMessage `json:"patch"`
	Reason string          `json:"reason"`
}

// FinalizerRemoval is one pod whose tracking finalizer to remove.
type FinalizerRemoval struct {
	Pod    PodRef `json:"pod"`
	Reason string `json:"reason"`
}

// Event is a Kubernetes event recorded on the Job.
type Event struct {
	Type    string `json:"type"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}
