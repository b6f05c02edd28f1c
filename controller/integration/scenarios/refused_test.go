package scenarios

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/jobsync/jobsynctest"
)

// Refused pod creations: admission (a ResourceQuota, PodSecurity, a
// validating admission policy) refuses some or all of a Job's pods. Upstream
// still writes the status after a failed creation (startTime set, the pods
// not made not counted active), so an activeDeadlineSeconds fails the Job
// and a backoffLimit counts the pods that did run; ours must end the same.

// refusedScenarios are the refused-creation cases, each run side by side.
func refusedScenarios() []scenario {
	const deadline = 5
	failing := &jobsynctest.Behavior{RunTime: 500 * time.Millisecond, ExitCode: 1}
	return []scenario{
		{
			name:   "quota-all-deadline",
			job:    all(sizes(2, 2), withDeadline(deadline)),
			script: jobsynctest.Script{Default: run(time.Second)},
			before: quotaPerController(0),
			want:   expect{finished: batchv1.JobFailed, reason: "DeadlineExceeded"},
		},
		{
			// One pod of two is admitted and runs until the deadline.
			name:   "quota-partial-deadline",
			job:    all(sizes(2, 2), withDeadline(deadline)),
			script: jobsynctest.Script{Default: &jobsynctest.Behavior{Forever: true}},
			before: quotaPerController(1),
			want:   expect{finished: batchv1.JobFailed, reason: "DeadlineExceeded", failed: 1},
		},
		{
			// Three pods are admitted, all fail: the first two are
			// replaced by one pod, the other replacement is refused, and
			// the third failure passes backoffLimit 2.
			name:   "quota-partial-backofflimit",
			job:    all(sizes(4, 2), func(j *batchv1.Job) { j.Spec.BackoffLimit = ptr(int32(2)) }),
			script: jobsynctest.Script{Default: failing},
			before: quotaPerController(3),
			want:   expect{finished: batchv1.JobFailed, reason: "BackoffLimitExceeded", failed: 3},
		},
		{
			name:   "podsecurity-deadline",
			job:    all(sizes(2, 2), withDeadline(deadline)),
			script: jobsynctest.Script{Default: run(time.Second)},
			before: restrictedNamespace,
			want:   expect{finished: batchv1.JobFailed, reason: "DeadlineExceeded"},
		},
		{
			// The odd indexes are refused; the even ones succeed.
			name:   "policy-odd-indexes-deadline",
			job:    all(indexed, sizes(4, 4), withDeadline(2*deadline)),
			script: jobsynctest.Script{Default: run(time.Second)},
			before: refuseOddIndexes,
			want:   expect{finished: batchv1.JobFailed, reason: "DeadlineExceeded", succeeded: 2, completedIndexes: "0,2"},
		},
		{
			// The even indexes fail past backoffLimit 1.
			name:   "policy-odd-indexes-backofflimit",
			job:    all(indexed, sizes(4, 4), func(j *batchv1.Job) { j.Spec.BackoffLimit = ptr(int32(1)) }),
			script: jobsynctest.Script{Default: failing},
			before: refuseOddIndexes,
			want:   expect{finished: batchv1.JobFailed, reason: "BackoffLimitExceeded", failed: 2},
		},
	}
}

func withDeadline(seconds int64) func(j *batchv1.Job) {
	return func(j *batchv1.Job) { j.Spec.ActiveDeadlineSeconds = ptr(seconds) }
}

// TestRefusedCreations runs each refused-creation case with upstream's
// controller and ours side by side, and checks that both end as the case
// wants and alike (final status; the number of calls and events depends on
// when each controller's rate-limited retries fall, and is not compared).
func TestRefusedCreations(t *testing.T) {
	devs := loadSideBySideDeviations(t)
	var mu sync.Mutex
	var rows []sbsRow
	for _, sc := range refusedScenarios() {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			up := startController(t, e.srv.Config, controllerSpec{kind: "upstream", qps: -1})
			ours := startController(t, e.srv.Config, controllerSpec{kind: "ours", qps: -1})
			recs := e.runJobs(sc, up, ours)
			if recs == nil {
				return
			}
			for _, rec := range recs {
				if rec.Outcome.StartTime == nil {
					t.Errorf("%s: no startTime written", rec.Job)
				}
				if rec.Events["FailedCreate"] == 0 {
					t.Errorf("%s: no FailedCreate event: the case refused nothing (events %v)", rec.Job, rec.Events)
				}
			}
			row := compareRun(t, devs, sc, recs[0], recs[1], false, timeTolerance)
			mu.Lock()
			rows = append(rows, row)
			mu.Unlock()
		})
	}
	t.Cleanup(func() { writeSideBySideReport(t, "refused pod creations", rows) })
}

// quotaPerController gives each controller's Job a ResourceQuota of its
// own that admits n pods in all: the Job's pods get a PriorityClass named
// after the controller, and the quota is scoped to it. No quota controller
// runs, so the quota's status is written here and the used count, which
// admission raises with each pod admitted, never falls: exactly n pods are
// ever admitted.
func quotaPerController(n int64) func(e *env, r *jobRun) {
	return func(e *env, r *jobRun) {
		t, ctx, c := e.t, e.ctx, e.srv.Client
		class := "jobsync-" + r.ctl.kind
		_, err := c.SchedulingV1().PriorityClasses().Create(ctx, &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: class}, Value: 1000}, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatalf("PriorityClass: %v", err)
		}
		r.job.Spec.Template.Spec.PriorityClassName = class
		// The Priority admission plugin reads classes from its informer.
		waitAdmission(t, ctx, e, "the PriorityClass is known", probePod(r.job, nil), func(err error) bool {
			return err == nil || !strings.Contains(err.Error(), "PriorityClass")
		})

		quota := &corev1.ResourceQuota{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "quota-" + r.ctl.kind},
			Spec: corev1.ResourceQuotaSpec{
				Hard: corev1.ResourceList{corev1.ResourcePods: *resource.NewQuantity(n, resource.DecimalSI)},
				ScopeSelector: &corev1.ScopeSelector{MatchExpressions: []corev1.ScopedResourceSelectorRequirement{{
					ScopeName: corev1.ResourceQuotaScopePriorityClass, Operator: corev1.ScopeSelectorOpIn, Values: []string{class},
				}}},
			},
		}
		quota, err = c.CoreV1().ResourceQuotas(ns).Create(ctx, quota, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("ResourceQuota: %v", err)
		}
		// First a status that admits nothing, until admission is seen
		// refusing; then the status with n, so that no pod is admitted
		// before the quota counts it.
		zero := *resource.NewQuantity(0, resource.DecimalSI)
		quota.Status = corev1.ResourceQuotaStatus{Hard: corev1.ResourceList{corev1.ResourcePods: zero}, Used: corev1.ResourceList{corev1.ResourcePods: zero}}
		if quota, err = c.CoreV1().ResourceQuotas(ns).UpdateStatus(ctx, quota, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("ResourceQuota status: %v", err)
		}
		waitAdmission(t, ctx, e, "the quota refuses", probePod(r.job, nil), func(err error) bool {
			return err != nil && strings.Contains(err.Error(), "exceeded quota")
		})
		quota.Status.Hard = corev1.ResourceList{corev1.ResourcePods: *resource.NewQuantity(n, resource.DecimalSI)}
		if _, err := c.CoreV1().ResourceQuotas(ns).UpdateStatus(ctx, quota, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("ResourceQuota status: %v", err)
		}
	}
}

// restrictedNamespace enforces the restricted Pod Security Standard in the
// namespace: the scenarios' pods (no securityContext) are refused.
func restrictedNamespace(e *env, r *jobRun) {
	t, ctx := e.t, e.ctx
	body := `{"metadata":{"labels":{"pod-security.kubernetes.io/enforce":"restricted"}}}`
	if _, err := e.srv.Client.CoreV1().Namespaces().Patch(ctx, ns, types.MergePatchType, []byte(body), metav1.PatchOptions{}); err != nil {
		t.Fatalf("labelling the namespace: %v", err)
	}
	waitAdmission(t, ctx, e, "PodSecurity refuses", probePod(r.job, nil), func(err error) bool {
		return err != nil && strings.Contains(err.Error(), "violates PodSecurity")
	})
}

// refuseOddIndexes installs a ValidatingAdmissionPolicy (the in-process
// form of a validating webhook) that refuses pods whose completion index
// is odd.
func refuseOddIndexes(e *env, r *jobRun) {
	t, ctx, c := e.t, e.ctx, e.srv.Client
	const name = "refuse-odd-indexes"
	policy := &admissionv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr(admissionv1.Fail),
			MatchConstraints: &admissionv1.MatchResources{ResourceRules: []admissionv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionv1.RuleWithOperations{
					Operations: []admissionv1.OperationType{admissionv1.Create},
					Rule:       admissionv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
				},
			}}},
			Validations: []admissionv1.Validation{{
				Expression: fmt.Sprintf(`!has(object.metadata.annotations) || !(%q in object.metadata.annotations) || int(object.metadata.annotations[%q]) %% 2 == 0`,
					batchv1.JobCompletionIndexAnnotation, batchv1.JobCompletionIndexAnnotation),
				Message: "odd completion indexes are refused",
			}},
		},
	}
	if _, err := c.AdmissionregistrationV1().ValidatingAdmissionPolicies().Create(ctx, policy, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("ValidatingAdmissionPolicy: %v", err)
	}
	binding := &admissionv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       admissionv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: name, ValidationActions: []admissionv1.ValidationAction{admissionv1.Deny}},
	}
	if _, err := c.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("ValidatingAdmissionPolicyBinding: %v", err)
	}
	waitAdmission(t, ctx, e, "the policy refuses odd indexes", probePod(r.job, map[string]string{batchv1.JobCompletionIndexAnnotation: "1"}), func(err error) bool {
		return err != nil && strings.Contains(err.Error(), "odd completion indexes")
	})
}

// probePod is a pod like the Job's, to try admission with.
func probePod(job *batchv1.Job, annotations map[string]string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, GenerateName: "probe-", Annotations: annotations},
		Spec:       job.Spec.Template.Spec,
	}
}

// waitAdmission creates pod as a dry run until done accepts the answer:
// admission reads policies, classes and quotas from informers, which see a
// new object a moment after it is written.
func waitAdmission(t *testing.T, ctx context.Context, e *env, what string, pod *corev1.Pod, done func(error) bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := e.srv.Client.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if done(err) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting until %s: the last dry-run creation answered %v", what, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
