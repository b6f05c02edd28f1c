package runner

import (
	"context"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
)

// RunLabel marks the ConfigMaps the Runner runs a Job for.
const RunLabel = "example.com/run"

// Result values the Runner writes to a ConfigMap's "result".
const (
	Succeeded = "Succeeded"
	Failed    = "Failed"
)

// Runner runs a Job per labelled ConfigMap and reports its outcome.
type Runner struct {
	Client client.Client
}

// SetupWithManager registers the Runner: it watches labelled ConfigMaps
// and the Jobs it owns.
func (r *Runner) SetupWithManager(mgr ctrl.Manager) error {
	labelled, err := predicate.LabelSelectorPredicate(metav1.LabelSelector{MatchLabels: map[string]string{RunLabel: "true"}})
	if err != nil {
		return err
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&corev1.ConfigMap{}, builder.WithPredicates(labelled)).
		Owns(&batchv1.Job{}).
		Complete(r)
}

// Reconcile creates the ConfigMap's Job, keeps its suspension in line
// with the ConfigMap, and records its outcome once it has one.
func (r *Runner) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var cm corev1.ConfigMap
	if err := r.Client.Get(ctx, req.NamespacedName, &cm); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if cm.Data["result"] != "" {
		return ctrl.Result{}, nil
	}
	var job batchv1.Job
	err := r.Client.Get(ctx, client.ObjectKey{Namespace: cm.Namespace, Name: cm.Name}, &job)
	if apierrors.IsNotFound(err) {
		return ctrl.Result{}, r.create(ctx, &cm)
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	if result := outcome(&job); result != "" {
		patch := client.MergeFrom(cm.DeepCopy())
		if cm.Data == nil {
			cm.Data = map[string]string{}
		}
		cm.Data["result"] = result
		return ctrl.Result{}, r.Client.Patch(ctx, &cm, patch)
	}
	if suspend := cm.Data["suspend"] == "true"; job.Spec.Suspend == nil || *job.Spec.Suspend != suspend {
		patch := client.MergeFrom(job.DeepCopy())
		job.Spec.Suspend = &suspend
		return ctrl.Result{}, r.Client.Patch(ctx, &job, patch)
	}
	return ctrl.Result{}, nil
}

func (r *Runner) create(ctx context.Context, cm *corev1.ConfigMap) error {
	backoffLimit := int32(6)
	if s := cm.Data["backoffLimit"]; s != "" {
		n, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			return nil // a ConfigMap to fix, not a reason to retry
		}
		backoffLimit = int32(n)
	}
	suspend := cm.Data["suspend"] == "true"
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: cm.Namespace, Name: cm.Name},
		Spec: batchv1.JobSpec{
			BackoffLimit: &backoffLimit,
			Suspend:      &suspend,
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers: []corev1.Container{{
					Name: "main", Image: "busybox",
					Command: strings.Fields(cm.Data["command"]),
				}},
			}},
		},
	}
	if err := controllerutil.SetControllerReference(cm, job, r.Client.Scheme()); err != nil {
		return err
	}
	return client.IgnoreAlreadyExists(r.Client.Create(ctx, job))
}

// outcome is the Job's result once it has finished, else "".
func outcome(job *batchv1.Job) string {
	for _, c := range job.Status.Conditions {
		if c.Status != corev1.ConditionTrue {
			continue
		}
		switch c.Type {
		case batchv1.JobComplete:
			return Succeeded
		case batchv1.JobFailed:
			return Failed
		}
	}
	return ""
}
