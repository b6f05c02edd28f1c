package traps

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/jobsync/jobsync/controller/integration/apiservertest"
	"github.com/jobsync/jobsync/controller/jobcontroller"
)

// writeKubeconfig writes a kubeconfig reaching the server of cfg, as a user
// of jobsync-controller has one.
func writeKubeconfig(t *testing.T, cfg *rest.Config) string {
	t.Helper()
	kc := clientcmdapi.NewConfig()
	kc.Clusters["test"] = &clientcmdapi.Cluster{
		Server:                   cfg.Host,
		CertificateAuthorityData: cfg.TLSClientConfig.CAData,
		TLSServerName:            cfg.TLSClientConfig.ServerName,
		InsecureSkipTLSVerify:    cfg.TLSClientConfig.Insecure,
	}
	kc.AuthInfos["admin"] = &clientcmdapi.AuthInfo{
		Token:                 cfg.BearerToken,
		ClientCertificateData: cfg.TLSClientConfig.CertData,
		ClientKeyData:         cfg.TLSClientConfig.KeyData,
	}
	kc.Contexts["test"] = &clientcmdapi.Context{Cluster: "test", AuthInfo: "admin"}
	kc.CurrentContext = "test"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCommandRunsJobsAndStopsOnSIGTERM builds jobsync-controller and runs
// it as README says, against a real API server with leader election: it
// runs a Job to completion, and on SIGTERM stops gracefully, exits 0 and
// releases its Lease.
func TestCommandRunsJobsAndStopsOnSIGTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	bin := filepath.Join(t.TempDir(), "jobsync-controller")
	build := exec.Command("go", "build", "-o", bin, "github.com/jobsync/jobsync/controller/cmd/jobsync-controller")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	ctx := context.Background()
	srv := apiservertest.Start(t)
	var logs bytes.Buffer
	cmd := exec.Command(bin, "--kubeconfig", writeKubeconfig(t, srv.Config), "--controller-name", controllerName,
		"--workers", "2", "--leader-elect", "--leader-elect-lease-duration", "4s", "--leader-elect-renew-deadline", "3s",
		"--leader-elect-retry-period", "500ms", "-v", "2",
		"--metrics-bind-address", "127.0.0.1:0", "--health-probe-bind-address", "127.0.0.1:0") // free ports on a shared machine
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("jobsync-controller's output:\n%s", logs.String())
		}
	}()

	job, err := srv.Client.BatchV1().Jobs("default").Create(ctx, newJob("pi", 2, 2), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range waitPods(t, ctx, srv.Client, job, 2) {
		finishPod(t, ctx, srv.Client, p, 0)
	}
	eventually(t, 30*time.Second, "the Job completes", func() (bool, error) {
		j, err := srv.Client.BatchV1().Jobs("default").Get(ctx, "pi", metav1.GetOptions{})
		return err == nil && hasCondition(j, batchv1.JobComplete), err
	})
	eventually(t, 10*time.Second, "a Completed event from the controller", func() (bool, error) {
		evs, err := srv.Client.CoreV1().Events("default").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, e := range evs.Items {
			if e.Reason == "Completed" && e.InvolvedObject.Name == "pi" && e.Source.Component == controllerName {
				return true, nil
			}
		}
		return false, nil
	})

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("jobsync-controller exited with %v after SIGTERM, want 0", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("jobsync-controller did not exit within 30s of SIGTERM")
	}
	lease, err := srv.Client.CoordinationV1().Leases("default").Get(ctx, jobcontroller.LeaseNameFor(controllerName), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if h := lease.Spec.HolderIdentity; h != nil && *h != "" {
		t.Errorf("the Lease is still held by %q after a graceful shutdown", *h)
	}
	if out := logs.String(); !strings.Contains(out, "jobsync controller stopped") {
		t.Errorf("no graceful shutdown in the logs")
	}
}
