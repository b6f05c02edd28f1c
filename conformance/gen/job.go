package gen

import (
	"fmt"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/jobsync/jobsync/conformance/apival"
)

// shape is a Job as its author writes it: nil means "left to the API
// server's defaults".
type shape struct {
	completions, parallelism *int32
	backoffLimit             *int32
	indexed                  bool
	backoffLimitPerIndex     *int32
	maxFailedIndexes         *int32
	restartPolicy            corev1.RestartPolicy
	podFailurePolicy         *batchv1.PodFailurePolicy
	successPolicy            *batchv1.SuccessPolicy
	replacementPolicy        *batchv1.PodReplacementPolicy
	activeDeadlineSeconds    *int64
	suspend                  *bool
	managedBy                *string
	manualSelector           bool
	initContainer, sidecar   bool
	secondContainer          bool
	longName                 bool
}

var nameWords = []string{"pi", "etl", "report", "resize", "train", "backup", "render", "index", "sweep", "import"}

// newJob makes the Job of s and passes it through the API server's create
// path, so it is defaulted and validated as a stored Job is. The Job is
// created between 2 minutes and 3 hours before now.
func (g *G) newJob(s shape) {
	if err := g.tryNewJob(s); err != nil {
		panic(fmt.Sprintf("generator made an invalid Job: %v", err))
	}
}

// tryNewJob is newJob that reports an invalid Job instead of panicking.
func (g *G) tryNewJob(s shape) error {
	name := pick(g, nameWords...) + "-" + g.suffix(5)
	if s.longName {
		// Long names exercise the generateName truncation of Indexed pods.
		name = strings.Repeat("long-", g.between(9, 11)) + name
		limit := 63
		if s.indexed && s.completions != nil {
			// The hostname "<name>-<index>" of every pod must be a DNS label.
			limit -= len(fmt.Sprint(max(*s.completions-1, 0))) + 1
		}
		name = name[len(name)-min(len(name), limit):]
		name = strings.TrimLeft(name, "-")
	}
	created := g.now.Add(-g.secs(120, 3*3600))
	tmpl := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{}},
		Spec: corev1.PodSpec{
			RestartPolicy: s.restartPolicy,
			Containers: []corev1.Container{{
				Name:    "main",
				Image:   "registry.example/batch/" + pick(g, "worker:1.4", "pi:2", "etl:2026.02"),
				Command: []string{"/bin/run", "--task", name},
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU:    resource.MustParse(pick(g, "100m", "500m", "1")),
					corev1.ResourceMemory: resource.MustParse(pick(g, "64Mi", "256Mi", "1Gi")),
				}},
			}},
		},
	}
	if s.restartPolicy == "" {
		tmpl.Spec.RestartPolicy = corev1.RestartPolicyNever
	}
	if g.chance(0.4) {
		tmpl.Labels["app"] = name
	}
	if g.chance(0.2) {
		tmpl.Annotations = map[string]string{"example.com/owner": pick(g, "data", "ml", "ops")}
	}
	if s.secondContainer {
		tmpl.Spec.Containers = append(tmpl.Spec.Containers, corev1.Container{Name: "helper", Image: "registry.example/batch/helper:1"})
	}
	if s.initContainer {
		tmpl.Spec.InitContainers = append(tmpl.Spec.InitContainers, corev1.Container{Name: "setup", Image: "registry.example/batch/setup:1"})
	}
	if s.sidecar {
		tmpl.Spec.InitContainers = append(tmpl.Spec.InitContainers, corev1.Container{
			Name: "proxy", Image: "registry.example/mesh/proxy:1", RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways),
		})
	}
	job := &batchv1.Job{
		TypeMeta: metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{
			Name:              name,
			Namespace:         pick(g, "default", "default", "team-a", "batch-jobs"),
			UID:               types.UID(g.uid()),
			CreationTimestamp: metav1.NewTime(created),
			ResourceVersion:   fmt.Sprint(g.between(1000, 900000)),
		},
		Spec: batchv1.JobSpec{
			Parallelism:           s.parallelism,
			Completions:           s.completions,
			BackoffLimit:          s.backoffLimit,
			BackoffLimitPerIndex:  s.backoffLimitPerIndex,
			MaxFailedIndexes:      s.maxFailedIndexes,
			ActiveDeadlineSeconds: s.activeDeadlineSeconds,
			PodFailurePolicy:      s.podFailurePolicy,
			SuccessPolicy:         s.successPolicy,
			PodReplacementPolicy:  s.replacementPolicy,
			Suspend:               s.suspend,
			ManagedBy:             s.managedBy,
			Template:              tmpl,
		},
	}
	if s.indexed {
		job.Spec.CompletionMode = ptr.To(batchv1.IndexedCompletion)
	} else if g.chance(0.3) {
		job.Spec.CompletionMode = ptr.To(batchv1.NonIndexedCompletion)
	}
	if s.manualSelector {
		sel := map[string]string{"example.com/batch": name, "tier": "batch"}
		job.Spec.ManualSelector = ptr.To(true)
		job.Spec.Selector = &metav1.LabelSelector{MatchLabels: sel}
		for k, v := range sel {
			job.Spec.Template.Labels[k] = v
		}
	}
	stored, err := apival.CreateJob(job)
	if err != nil {
		return err
	}
	// Fields the API server sets that the create path above does not.
	stored.UID = job.UID
	stored.CreationTimestamp = job.CreationTimestamp
	stored.ResourceVersion = job.ResourceVersion
	stored.Generation = 1
	stored.TypeMeta = metav1.TypeMeta{}
	g.job = stored
	return nil
}

// --- status helpers used by the families ---

func (g *G) condition(t batchv1.JobConditionType, status corev1.ConditionStatus, reason, message string, at time.Time) {
	g.job.Status.Conditions = append(g.job.Status.Conditions, batchv1.JobCondition{
		Type: t, Status: status, Reason: reason, Message: message,
		LastProbeTime: metav1.NewTime(at), LastTransitionTime: metav1.NewTime(at),
	})
}

func (g *G) setStartTime(t time.Time) {
	mt := metav1.NewTime(t)
	g.job.Status.StartTime = &mt
}

func (g *G) suspended() bool { return ptr.Deref(g.job.Spec.Suspend, false) }

// cyclicIndex returns the completion index to give the i-th pod of a kind:
// i modulo completions for an Indexed Job, -1 (no index) otherwise.
func (g *G) cyclicIndex() func(i int) int {
	if !g.indexed() {
		return func(int) int { return -1 }
	}
	c := max(int(ptr.Deref(g.job.Spec.Completions, 1)), 1)
	return func(i int) int { return i % c }
}

func (g *G) indexed() bool {
	return ptr.Deref(g.job.Spec.CompletionMode, batchv1.NonIndexedCompletion) == batchv1.IndexedCompletion
}
