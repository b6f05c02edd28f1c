package jobsync

import (
	"encoding/json"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// ClaimPatchType is the patch type of PodClaim.Patch: a strategic merge
// patch, under which owner references merge by UID and finalizers by value.
const ClaimPatchType = types.StrategicMergePatchType

// adoption is the claim that makes an orphan the Job's, under the owner
// kind of opts (defaulted by the caller). Its patch merges the
// Job's controller reference into the pod's owner references (replacing a
// non-controller reference with the same UID, since the merge key is the
// UID) and adds the tracking finalizer. The pod's UID in the patch is a
// precondition: a pod recreated under the same name is left alone.
func adoption(job *batchv1.Job, p *corev1.Pod, opts Options) PodClaim {
	finalizer := opts.TrackingFinalizer
	ref := OwnerReference(job, opts)
	body := struct {
		Metadata struct {
			OwnerReferences []metav1.OwnerReference `json:"ownerReferences"`
			UID             types.UID               `json:"uid"`
			Finalizers      []string                `json:"finalizers,omitempty"`
		} `json:"metadata"`
	}{}
	body.Metadata.OwnerReferences = []metav1.OwnerReference{ref}
	body.Metadata.UID = p.UID
	body.Metadata.Finalizers = []string{finalizer}
	return PodClaim{
		Pod:            refOf(p),
		OwnerReference: ref,
		Finalizer:      finalizer,
		Patch:          mustJSON(body),
		Reason:         "orphan pod matching the Job's selector",
	}
}

// release is the claim that gives up a pod the Job controls but whose labels
// no longer match its selector. Its patch deletes every owner reference
// carrying the Job's UID and the tracking finalizer, so that the released
// pod does not stay blocked by a finalizer nobody will remove.
func release(job *batchv1.Job, p *corev1.Pod, finalizer string) PodClaim {
	body := struct {
		Metadata struct {
			UID             types.UID           `json:"uid"`
			OwnerReferences []map[string]string `json:"ownerReferences"`
			DeleteFinal     []string            `json:"$deleteFromPrimitiveList/finalizers,omitempty"`
		} `json:"metadata"`
	}{}
	body.Metadata.UID = p.UID
	body.Metadata.OwnerReferences = []map[string]string{{"$patch": "delete", "uid": string(job.UID)}}
	body.Metadata.DeleteFinal = []string{finalizer}
	ref := metav1.OwnerReference{UID: job.UID}
	if c := controllerOf(p); c != nil {
		ref = *c.DeepCopy()
	}
	return PodClaim{
		Pod:            refOf(p),
		OwnerReference: ref,
		Finalizer:      finalizer,
		Patch:          mustJSON(body),
		Reason:         "the pod no longer matches the Job's selector",
	}
}

// mustJSON marshals values built of strings, UIDs, bools and owner
// references only, which cannot fail.
func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic("jobsync: marshalling a claim patch: " + err.Error())
	}
	return b
}
