package apiservertest_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/jobsync/jobsync/controller/integration/apiservertest"
)

// TestGinkgo runs a Ginkgo suite whose specs start their servers with
// GinkgoT(), as a Ginkgo user of apiservertest would.
func TestGinkgo(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "apiservertest from Ginkgo")
}

var _ = Describe("apiservertest.Start(GinkgoT())", func() {
	It("starts a real API server for the spec", func(ctx SpecContext) {
		srv := apiservertest.Start(GinkgoT())
		job := &batchv1.Job{
			ObjectMeta: metav1.ObjectMeta{Name: "pi", Namespace: "default"},
			Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers:    []corev1.Container{{Name: "pi", Image: "perl"}},
			}}},
		}
		got, err := srv.Client.BatchV1().Jobs("default").Create(ctx, job, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		// Defaulted by the server, as only a real one does.
		Expect(got.Spec.BackoffLimit).To(HaveValue(BeEquivalentTo(6)))
		Expect(got.Spec.Selector).NotTo(BeNil())
	})
})
