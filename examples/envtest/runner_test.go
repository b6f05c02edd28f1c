package runner_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	runner "github.com/jobsync/jobsync/examples/envtest"
)

const timeout = time.Minute

func run(ctx context.Context, name string, data map[string]string) *corev1.ConfigMap {
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Labels: map[string]string{runner.RunLabel: "true"}},
		Data:       data,
	}
	Expect(k8sClient.Create(ctx, cm)).To(Succeed())
	return cm
}

func result(ctx context.Context, name string) func() string {
	return func() string {
		var cm corev1.ConfigMap
		if err := k8sClient.Get(ctx, client.ObjectKey{Namespace: "default", Name: name}, &cm); err != nil {
			return "error: " + err.Error()
		}
		return cm.Data["result"]
	}
}

func job(ctx context.Context, name string) func() (*batchv1.Job, error) {
	return func() (*batchv1.Job, error) {
		var j batchv1.Job
		err := k8sClient.Get(ctx, client.ObjectKey{Namespace: "default", Name: name}, &j)
		return &j, err
	}
}

func hasCondition(t batchv1.JobConditionType, reason string) OmegaMatcher {
	return HaveField("Status.Conditions", ContainElement(And(
		HaveField("Type", t), HaveField("Status", corev1.ConditionTrue), HaveField("Reason", reason))))
}

var _ = Describe("Runner", func() {
	It("records a Job that completes", func(ctx SpecContext) {
		run(ctx, "hello", map[string]string{"command": "echo hello"})
		Eventually(result(ctx, "hello")).WithTimeout(timeout).Should(Equal(runner.Succeeded))
		j, err := job(ctx, "hello")()
		Expect(err).NotTo(HaveOccurred())
		Expect(j.Status.Succeeded).To(BeEquivalentTo(1))
		Expect(j.Status.StartTime).NotTo(BeNil())
		Expect(j.Status.CompletionTime).NotTo(BeNil())
		Expect(j).To(hasCondition(batchv1.JobSuccessCriteriaMet, batchv1.JobReasonCompletionsReached))
	})

	It("records a Job that fails by its backoff limit", func(ctx SpecContext) {
		run(ctx, "broken", map[string]string{"command": "false", "backoffLimit": "2"})
		Eventually(result(ctx, "broken")).WithTimeout(timeout).Should(Equal(runner.Failed))
		j, err := job(ctx, "broken")()
		Expect(err).NotTo(HaveOccurred())
		Expect(j.Status.Failed).To(BeEquivalentTo(3))
		Expect(j).To(hasCondition(batchv1.JobFailed, batchv1.JobReasonBackoffLimitExceeded))
	})

	It("holds a suspended Job and records it once resumed", func(ctx SpecContext) {
		cm := run(ctx, "later", map[string]string{"command": "echo later", "suspend": "true"})
		Eventually(job(ctx, "later")).WithTimeout(timeout).Should(hasCondition(batchv1.JobSuspended, "JobSuspended"))
		Consistently(result(ctx, "later")).WithTimeout(2 * time.Second).Should(BeEmpty())
		var pods corev1.PodList
		Expect(k8sClient.List(ctx, &pods, client.InNamespace("default"), client.MatchingLabels{batchv1.JobNameLabel: "later"})).To(Succeed())
		Expect(pods.Items).To(BeEmpty())

		patch := client.MergeFrom(cm.DeepCopy())
		cm.Data["suspend"] = "false"
		Expect(k8sClient.Patch(ctx, cm, patch)).To(Succeed())
		Eventually(result(ctx, "later")).WithTimeout(timeout).Should(Equal(runner.Succeeded))
		Expect(job(ctx, "later")()).To(HaveField("Status.Conditions", ContainElement(And(
			HaveField("Type", batchv1.JobSuspended), HaveField("Status", corev1.ConditionFalse), HaveField("Reason", "JobResumed")))))
	})
})
