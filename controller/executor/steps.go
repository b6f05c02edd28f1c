package executor

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/jobsync/jobsync/jobsync"
)

// claims sends every claim's patch, as upstream's ControllerRefManager
// does: releases ignore a pod gone (404) or a refused patch (422, the pod
// was replaced or holds no reference any more), adoptions a pod gone.
// Upstream tries every claim and then fails the sync if one failed; so
// does this step.
func (r *run) claims(ctx context.Context) error {
	var errs []error
	for _, c := range r.plan.Releases {
		err := r.patch(ctx, c.Pod, c.Patch)
		switch {
		case err == nil, apierrors.IsNotFound(err), apierrors.IsInvalid(err):
			r.res.Released++
		default:
			errs = append(errs, fmt.Errorf("releasing pod %s: %w", c.Pod.Name, err))
		}
	}
	if len(r.plan.Adoptions) > 0 {
		if err := r.canAdopt(ctx); err != nil {
			errs = append(errs, err)
		} else {
			for _, c := range r.plan.Adoptions {
				err := r.patch(ctx, c.Pod, c.Patch)
				switch {
				case err == nil, apierrors.IsNotFound(err):
					r.res.Adopted++
				default:
					errs = append(errs, fmt.Errorf("adopting pod %s: %w", c.Pod.Name, err))
				}
			}
		}
	}
	if len(errs) > 0 {
		step := StepAdopt
		if r.res.Released < len(r.plan.Releases) {
			step = StepRelease
		}
		return r.fail(step, errs...)
	}
	return nil
}

// canAdopt reads the Job from the API server, not the cache, before any
// adoption: a Job being deleted (or deleted and created again) must not
// adopt pods, which would then be left behind.
func (r *run) canAdopt(ctx context.Context) error {
	fresh, err := r.x.statusWriter().Get(ctx, r.job.Namespace, r.job.Name)
	if err != nil {
		return fmt.Errorf("rereading the Job before adopting pods: %w", err)
	}
	if fresh.UID != r.job.UID {
		return fmt.Errorf("the Job %s/%s was replaced (UID %s, want %s): no pods are adopted", r.job.Namespace, r.job.Name, fresh.UID, r.job.UID)
	}
	if fresh.DeletionTimestamp != nil {
		return fmt.Errorf("the Job %s/%s is being deleted since %v: no pods are adopted", r.job.Namespace, r.job.Name, fresh.DeletionTimestamp)
	}
	return nil
}

func (r *run) patch(ctx context.Context, pod jobsync.PodRef, body []byte) error {
	patched, err := r.x.Client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, jobsync.ClaimPatchType, body, metav1.PatchOptions{})
	if err == nil {
		r.wrotePod(patched)
	}
	return err
}

// wrotePod tells OnPodWrite of a pod a write returned.
func (r *run) wrotePod(pod *corev1.Pod) {
	if r.x.OnPodWrite != nil && pod != nil {
		r.x.OnPodWrite(pod)
	}
}

// removeFinalizerPatch is the strategic merge patch that takes the tracking
// finalizer off a pod, the same body as upstream's.
func (r *run) removeFinalizerPatch() []byte {
	body, _ := json.Marshal(map[string]any{
		"metadata": map[string]any{"$deleteFromPrimitiveList/finalizers": []string{r.x.TrackingFinalizer}},
	})
	return body
}

// deletions deletes the planned pods in parallel, each after its finalizer
// patch where RemoveFinalizer. A pod already gone counts as deleted. Each
// deletion that failed or found its pod gone goes into the progress, for
// the library to decide the rest of the plan and the memory.
func (r *run) deletions(ctx context.Context) error {
	if len(r.plan.Deletions) == 0 {
		return nil
	}
	unfinalize := r.removeFinalizerPatch()
	var errs []error
	r.parallel(len(r.plan.Deletions), func(i int) {
		d := r.plan.Deletions[i]
		f, err := r.deleteOne(ctx, d, unfinalize)
		r.mu.Lock()
		defer r.mu.Unlock()
		if f != nil {
			r.progress.Pods.Deletions = append(r.progress.Pods.Deletions, *f)
		}
		if err != nil {
			errs = append(errs, err)
			return
		}
		r.res.Deleted++
	})
	// The order of the parallel calls is not the plan's: put the failures
	// back in the plan's order, so that the progress reads the same
	// whichever call answered first.
	order := make(map[types.UID]int, len(r.plan.Deletions))
	for i, d := range r.plan.Deletions {
		order[d.Pod.UID] = i
	}
	slices.SortFunc(r.progress.Pods.Deletions, func(a, b jobsync.DeletionFailure) int { return order[a.Pod] - order[b.Pod] })
	if len(errs) > 0 {
		return r.fail(StepDelete, errs...)
	}
	return nil
}

// deleteOne carries out one deletion. It returns the deletion's failure
// (nil when it went through) and the error to report (nil when it went
// through or found the pod gone).
func (r *run) deleteOne(ctx context.Context, d jobsync.PodDeletion, unfinalize []byte) (*jobsync.DeletionFailure, error) {
	logger := klog.LoggerWithValues(r.logger, "pod", klog.KRef(d.Pod.Namespace, d.Pod.Name))
	if d.RemoveFinalizer {
		if err := r.patch(ctx, d.Pod, unfinalize); err != nil {
			f := &jobsync.DeletionFailure{Pod: d.Pod.UID, Finalizer: true, Gone: apierrors.IsNotFound(err)}
			if f.Gone {
				return f, nil
			}
			logger.V(2).Info("Failed to remove the tracking finalizer before deleting the pod", "err", err)
			return f, fmt.Errorf("removing the tracking finalizer of pod %s: %w", d.Pod.Name, err)
		}
	}
	err := r.x.Client.CoreV1().Pods(d.Pod.Namespace).Delete(ctx, d.Pod.Name, metav1.DeleteOptions{})
	switch {
	case err == nil:
		logger.V(2).Info("Deleted pod", "reason", d.Reason)
		r.event(corev1.EventTypeNormal, "SuccessfulDelete", "Delete", "Deleted pod: %v", d.Pod.Name)
		return nil, nil
	case apierrors.IsNotFound(err):
		return &jobsync.DeletionFailure{Pod: d.Pod.UID, Gone: true}, nil
	default:
		r.event(corev1.EventTypeWarning, "FailedDelete", "Delete", "Error deleting: %v", err)
		return &jobsync.DeletionFailure{Pod: d.Pod.UID}, fmt.Errorf("deleting pod %s: %w", d.Pod.Name, err)
	}
}

// creations creates the planned pods in slow-start batches: 1, then 2, 4,
// ... at a time, stopping after the first batch in which a creation failed.
// Each failed creation and each creation never attempted goes into the
// progress. A quota that refuses the Job's pods thus costs one call, not
// hundreds.
func (r *run) creations(ctx context.Context) error {
	all := r.plan.Creations
	var errs []error
	for start, size := 0, 1; start < len(all); start, size = start+size, 2*size {
		batch := all[start:min(start+size, len(all))]
		r.parallel(len(batch), func(i int) {
			err := r.createOne(ctx, batch[i])
			r.mu.Lock()
			defer r.mu.Unlock()
			if err != nil {
				r.progress.Pods.Creations++
				errs = append(errs, err)
				return
			}
			r.res.Created++
		})
		if len(errs) > 0 {
			skipped := len(all) - start - len(batch)
			if skipped > 0 {
				r.logger.V(2).Info("Slow start: a creation failed, the rest are not attempted", "skipped", skipped)
			}
			r.progress.Pods.Creations += skipped
			return r.fail(StepCreate, errs...)
		}
	}
	return nil
}

func (r *run) createOne(ctx context.Context, c jobsync.PodCreation) error {
	pod, err := r.x.Client.CoreV1().Pods(r.job.Namespace).Create(ctx, c.Pod, metav1.CreateOptions{})
	if err != nil {
		if !apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
			r.event(corev1.EventTypeWarning, "FailedCreate", "Create", "Error creating: %v", err)
		}
		return fmt.Errorf("creating a pod (%s): %w", c.Reason, err)
	}
	r.wrotePod(pod)
	r.logger.V(4).Info("Created pod", "pod", klog.KObj(pod), "reason", c.Reason)
	r.event(corev1.EventTypeNormal, "SuccessfulCreate", "Create", "Created pod: %v", pod.Name)
	return nil
}

// removeFinalizers takes the tracking finalizer off the planned pods in
// parallel. A pod gone counts as done; every other failure goes into the
// progress.
func (r *run) removeFinalizers(ctx context.Context) error {
	if len(r.plan.FinalizerRemovals) == 0 {
		return nil
	}
	body := r.removeFinalizerPatch()
	var errs []error
	r.parallel(len(r.plan.FinalizerRemovals), func(i int) {
		rm := r.plan.FinalizerRemovals[i]
		err := r.patch(ctx, rm.Pod, body)
		r.mu.Lock()
		defer r.mu.Unlock()
		if err != nil && !apierrors.IsNotFound(err) {
			r.progress.FailedRemovals = append(r.progress.FailedRemovals, rm.Pod.UID)
			errs = append(errs, fmt.Errorf("removing the tracking finalizer of pod %s: %w", rm.Pod.Name, err))
			return
		}
		r.res.FinalizersRemoved++
	})
	slices.Sort(r.progress.FailedRemovals)
	if len(errs) > 0 {
		return r.fail(StepRemoveFinalizers, errs...)
	}
	return nil
}
