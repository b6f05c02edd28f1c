// Package rbac runs jobsync-controller on a kube-apiserver that enforces
// RBAC, with nothing but the token of the ServiceAccount the shipped
// manifests (controller/deploy/base) bind, and the arguments of the
// shipped Deployment.
package rbac

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/jobsync/jobsync/controller/integration/apiservertest"
	"github.com/jobsync/jobsync/controller/jobcontroller"
	"github.com/jobsync/jobsync/controller/kubeletplayer"
	"github.com/jobsync/jobsync/jobsync/jobsynctest"
)

func TestMain(m *testing.M) { apiservertest.Main(m) }

const (
	base           = "../../deploy/base"
	namespace      = "jobsync-system"
	serviceAccount = "jobsync-controller"
	controllerName = "example.com/jobsync" // the shipped Deployment's --controller-name
	workNamespace  = "work"
)

// TestShippedRBAC: with the shipped rights only, the controller takes its
// Lease, runs a Job to completion (pods created, counted, their finalizers
// removed, events recorded) and releases the pods of a deleted Job, and
// no call of it is forbidden.
func TestShippedRBAC(t *testing.T) {
	// OwnerReferencesPermissionEnforcement makes the jobs/finalizers rule count:
	// a pod whose owner reference blocks its Job's deletion needs it.
	srv := apiservertest.StartWith(t, "--authorization-mode=Node,RBAC", "--enable-admission-plugins=OwnerReferencesPermissionEnforcement")
	ctx := t.Context()
	apply(t, srv.Client, decodeFiles(t, "namespace.yaml", "serviceaccount.yaml", "rbac.yaml"))
	kubeconfig := serviceAccountKubeconfig(t, srv)

	// The token alone is no administrator's.
	saClient := clientFor(t, kubeconfig)
	if _, err := saClient.CoreV1().Secrets(namespace).List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Fatalf("listing Secrets with the ServiceAccount's token: %v, want forbidden (is RBAC on?)", err)
	}

	args := append(deploymentArgs(t), "--kubeconfig="+kubeconfig,
		"--metrics-bind-address=127.0.0.1:0", "--health-probe-bind-address=127.0.0.1:0")
	logs := startController(t, buildController(t), args)

	if _, err := srv.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: workNamespace}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	player := kubeletplayer.New(srv.Client, kubeletplayer.Options{Namespace: workNamespace})
	go func() { _ = player.Run(ctx) }()

	done := createJob(t, srv.Client, "done", 3, 2)
	player.Play(done, jobsynctest.Script{Default: &jobsynctest.Behavior{RunTime: 300 * time.Millisecond}})
	forever := createJob(t, srv.Client, "forever", 1, 1)
	player.Play(forever, jobsynctest.RunForever())

	finalizer := jobcontroller.TrackingFinalizerFor(controllerName)
	poll(t, logs, "the Job done completes", func() (bool, error) {
		job, err := srv.Client.BatchV1().Jobs(workNamespace).Get(ctx, "done", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, c := range job.Status.Conditions {
			if c.Type == batchv1.JobComplete && c.Status == corev1.ConditionTrue {
				return job.Status.Succeeded == 3, nil
			}
		}
		return false, nil
	})
	if pods := podsOf(t, srv.Client, "done"); len(pods) < 3 || anyHas(pods, finalizer) {
		t.Errorf("the pods of the completed Job: %d, with the finalizer %v", len(pods), anyHas(pods, finalizer))
	}
	poll(t, logs, "the Job done has its Completed event", func() (bool, error) {
		evs, err := srv.Client.CoreV1().Events(workNamespace).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=done"})
		if err != nil {
			return false, err
		}
		for _, e := range evs.Items {
			if e.Reason == "Completed" {
				return true, nil
			}
		}
		return false, nil
	})

	// The running pod of a Job deleted without its pods is an orphan: the
	// controller takes its finalizer off.
	poll(t, logs, "the pod of the Job forever carries the finalizer", func() (bool, error) {
		return anyHas(podsOf(t, srv.Client, "forever"), finalizer), nil
	})
	background := metav1.DeletePropagationBackground
	if err := srv.Client.BatchV1().Jobs(workNamespace).Delete(ctx, "forever", metav1.DeleteOptions{PropagationPolicy: &background}); err != nil {
		t.Fatal(err)
	}
	poll(t, logs, "the orphan pod loses the finalizer", func() (bool, error) {
		pods := podsOf(t, srv.Client, "forever")
		return len(pods) > 0 && !anyHas(pods, finalizer), nil
	})

	lease, err := srv.Client.CoordinationV1().Leases(namespace).Get(ctx, "jobsync-controller", metav1.GetOptions{})
	if err != nil || lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == "" {
		t.Errorf("the Lease: %v, %v; want one held", lease, err)
	}
	if lines := logs.matching("forbidden"); len(lines) > 0 {
		t.Errorf("calls of the controller were forbidden:\n%s", strings.Join(lines, "\n"))
	}
}

// decodeFiles reads the named manifests of the base, every document.
func decodeFiles(t *testing.T, names ...string) []runtime.Object {
	t.Helper()
	var out []runtime.Object
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join(base, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range bytes.Split(data, []byte("\n---\n")) {
			if len(bytes.TrimSpace(doc)) == 0 {
				continue
			}
			obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(doc, nil, nil)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			out = append(out, obj)
		}
	}
	return out
}

// apply creates the shipped objects as an administrator would.
func apply(t *testing.T, client kubernetes.Interface, objs []runtime.Object) {
	t.Helper()
	ctx, opts := t.Context(), metav1.CreateOptions{}
	for _, obj := range objs {
		var err error
		switch o := obj.(type) {
		case *corev1.Namespace:
			_, err = client.CoreV1().Namespaces().Create(ctx, o, opts)
		case *corev1.ServiceAccount:
			_, err = client.CoreV1().ServiceAccounts(o.Namespace).Create(ctx, o, opts)
		case *rbacv1.ClusterRole:
			_, err = client.RbacV1().ClusterRoles().Create(ctx, o, opts)
		case *rbacv1.ClusterRoleBinding:
			_, err = client.RbacV1().ClusterRoleBindings().Create(ctx, o, opts)
		case *rbacv1.Role:
			_, err = client.RbacV1().Roles(o.Namespace).Create(ctx, o, opts)
		case *rbacv1.RoleBinding:
			_, err = client.RbacV1().RoleBindings(o.Namespace).Create(ctx, o, opts)
		default:
			t.Fatalf("no way to apply a %T", obj)
		}
		if err != nil {
			t.Fatalf("applying %T: %v", obj, err)
		}
	}
}

// serviceAccountKubeconfig writes a kubeconfig that reaches srv with the
// ServiceAccount's token and nothing else (the server's CA to verify it).
func serviceAccountKubeconfig(t *testing.T, srv *apiservertest.Server) string {
	t.Helper()
	tok, err := srv.Client.CoreV1().ServiceAccounts(namespace).CreateToken(t.Context(), serviceAccount,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: new(int64(3600))}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("a token for the ServiceAccount: %v", err)
	}
	ca := srv.Config.TLSClientConfig.CAData
	if len(ca) == 0 && srv.Config.TLSClientConfig.CAFile != "" {
		if ca, err = os.ReadFile(srv.Config.TLSClientConfig.CAFile); err != nil {
			t.Fatal(err)
		}
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["c"] = &clientcmdapi.Cluster{Server: srv.Config.Host, CertificateAuthorityData: ca, TLSServerName: srv.Config.TLSClientConfig.ServerName}
	cfg.AuthInfos["sa"] = &clientcmdapi.AuthInfo{Token: tok.Status.Token}
	cfg.Contexts["c"] = &clientcmdapi.Context{Cluster: "c", AuthInfo: "sa"}
	cfg.CurrentContext = "c"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

func clientFor(t *testing.T, kubeconfig string) kubernetes.Interface {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	return kubernetes.NewForConfigOrDie(rest.CopyConfig(cfg))
}

// deploymentArgs are the shipped Deployment's container arguments, with
// the environment the Deployment gives them.
func deploymentArgs(t *testing.T) []string {
	t.Helper()
	objs := decodeFiles(t, "deployment.yaml")
	d, ok := objs[0].(*appsv1.Deployment)
	if !ok || len(d.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("deployment.yaml: %T, want one Deployment with one container", objs[0])
	}
	var args []string
	for _, a := range d.Spec.Template.Spec.Containers[0].Args {
		args = append(args, strings.ReplaceAll(a, "$(POD_NAMESPACE)", d.Namespace))
	}
	return args
}

// buildController builds the jobsync-controller command.
func buildController(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "jobsync-controller")
	cmd := exec.CommandContext(t.Context(), "go", "build", "-o", bin, "github.com/jobsync/jobsync/controller/cmd/jobsync-controller")
	cmd.Env = append(os.Environ(), "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// logLines keeps what the controller writes to stderr.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) matching(s string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, line := range l.lines {
		if strings.Contains(line, s) {
			out = append(out, line)
		}
	}
	return out
}

// startController runs the command until the test ends, then stops it as
// the kubelet would (SIGTERM) and waits for it.
func startController(t *testing.T, bin string, args []string) *logLines {
	t.Helper()
	cmd := exec.Command(bin, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	logs := &logLines{}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			logs.mu.Lock()
			logs.lines = append(logs.lines, sc.Text())
			logs.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		stopped := make(chan error, 1)
		go func() { <-copied; stopped <- cmd.Wait() }()
		select {
		case err := <-stopped:
			if err != nil {
				t.Errorf("jobsync-controller ended with %v", err)
			}
		case <-time.After(time.Minute):
			_ = cmd.Process.Kill()
			t.Errorf("jobsync-controller did not stop within a minute of SIGTERM")
		}
		if t.Failed() {
			logs.mu.Lock()
			t.Logf("jobsync-controller's log:\n%s", strings.Join(logs.lines, "\n"))
			logs.mu.Unlock()
		}
	})
	return logs
}

func createJob(t *testing.T, client kubernetes.Interface, name string, completions, parallelism int32) *batchv1.Job {
	t.Helper()
	job, err := client.BatchV1().Jobs(workNamespace).Create(t.Context(), &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: batchv1.JobSpec{
			ManagedBy:   new(controllerName),
			Completions: new(completions), Parallelism: new(parallelism),
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers:    []corev1.Container{{Name: "main", Image: "busybox"}},
			}},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return job
}

func podsOf(t *testing.T, client kubernetes.Interface, job string) []corev1.Pod {
	t.Helper()
	pods, err := client.CoreV1().Pods(workNamespace).List(t.Context(), metav1.ListOptions{LabelSelector: batchv1.JobNameLabel + "=" + job})
	if err != nil {
		t.Fatal(err)
	}
	return pods.Items
}

func anyHas(pods []corev1.Pod, finalizer string) bool {
	for _, p := range pods {
		for _, f := range p.Finalizers {
			if f == finalizer {
				return true
			}
		}
	}
	return false
}

// poll waits, generously (the machine is shared), for cond, and stops at
// once when the controller logs a forbidden call: a rule is missing.
func poll(t *testing.T, logs *logLines, what string, cond func() (bool, error)) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, 3*time.Minute, true, func(context.Context) (bool, error) {
		if lines := logs.matching("forbidden"); len(lines) > 0 {
			return false, fmt.Errorf("a call of the controller was forbidden: %s", lines[0])
		}
		return cond()
	})
	if err != nil {
		t.Fatalf("waiting until %s: %v", what, err)
	}
}
