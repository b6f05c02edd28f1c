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
	"regexp"
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

// TestShippedRBAC: with the shipped rights only, two replicas of the
// controller share its Lease; the leader is killed in the middle of a Job
// and the other takes over and runs the Job to the end upstream's
// controller gives it (pods created, each counted once, their finalizers
// removed, events recorded), then releases the pods of a deleted Job. Its
// secure metrics answer only the callers the API server allows. No call
// of the controllers is forbidden.
func TestShippedRBAC(t *testing.T) {
	// OwnerReferencesPermissionEnforcement makes the jobs/finalizers rule count:
	// a pod whose owner reference blocks its Job's deletion needs it.
	srv := apiservertest.StartWith(t, "--authorization-mode=Node,RBAC", "--enable-admission-plugins=OwnerReferencesPermissionEnforcement")
	ctx := t.Context()
	apply(t, srv.Client, decodeFiles(t, shippedRBAC...))
	kubeconfig := serviceAccountKubeconfig(t, srv)

	// The token alone is no administrator's.
	saClient := clientFor(t, kubeconfig)
	if _, err := saClient.CoreV1().Secrets(namespace).List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Fatalf("listing Secrets with the ServiceAccount's token: %v, want forbidden (is RBAC on?)", err)
	}

	args := append(deploymentArgs(t), "--kubeconfig="+kubeconfig,
		"--metrics-bind-address=127.0.0.1:0", "--health-probe-bind-address=127.0.0.1:0")
	bin := buildController(t)
	logs := &logLines{}
	first := startController(t, bin, args, logs, "first")
	poll(t, logs, "the first replica holds the Lease", func() (bool, error) {
		holder, err := leaseHolder(t, srv.Client)
		return holder != "", err
	})
	leader, err := leaseHolder(t, srv.Client)
	if err != nil {
		t.Fatal(err)
	}
	startController(t, bin, args, logs, "second")

	if _, err := srv.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: workNamespace}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	player := kubeletplayer.New(srv.Client, kubeletplayer.Options{Namespace: workNamespace})
	go func() { _ = player.Run(ctx) }()

	// Six completions two at a time, two seconds each: the leader dies
	// with pods running and pods to create.
	const completions = 6
	done := createJob(t, srv.Client, "done", completions, 2)
	player.Play(done, jobsynctest.Script{Default: &jobsynctest.Behavior{RunTime: 2 * time.Second}})
	forever := createJob(t, srv.Client, "forever", 1, 1)
	player.Play(forever, jobsynctest.RunForever())

	poll(t, logs, "the Job done counts a succeeded pod", func() (bool, error) {
		job, err := srv.Client.BatchV1().Jobs(workNamespace).Get(ctx, "done", metav1.GetOptions{})
		return err == nil && job.Status.Succeeded > 0, err
	})
	first.kill(t)
	if job, err := srv.Client.BatchV1().Jobs(workNamespace).Get(ctx, "done", metav1.GetOptions{}); err != nil || job.Status.Succeeded >= completions {
		t.Fatalf("the Job done when the leader was killed: %v, %v; want it mid-way", job.Status, err)
	}
	poll(t, logs, "the second replica takes the Lease over", func() (bool, error) {
		holder, err := leaseHolder(t, srv.Client)
		return holder != "" && holder != leader, err
	})

	finalizer := jobcontroller.TrackingFinalizerFor(controllerName)
	poll(t, logs, "the Job done completes", func() (bool, error) {
		job, err := srv.Client.BatchV1().Jobs(workNamespace).Get(ctx, "done", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, c := range job.Status.Conditions {
			if c.Type == batchv1.JobComplete && c.Status == corev1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
	// As upstream's controller ends it: every completion counted once,
	// nothing failed or left uncounted, no pod still tracked.
	job, err := srv.Client.BatchV1().Jobs(workNamespace).Get(ctx, "done", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st := job.Status
	if st.Succeeded != completions || st.Failed != 0 || st.Active != 0 || st.UncountedTerminatedPods != nil && len(st.UncountedTerminatedPods.Succeeded)+len(st.UncountedTerminatedPods.Failed) > 0 {
		t.Errorf("the Job done ended with succeeded=%d failed=%d active=%d uncounted=%v; want %d, 0, 0, none",
			st.Succeeded, st.Failed, st.Active, st.UncountedTerminatedPods, completions)
	}
	pods := podsOf(t, srv.Client, "done")
	if succeeded := countPhase(pods, corev1.PodSucceeded); succeeded != completions || anyHas(pods, finalizer) {
		t.Errorf("the pods of the completed Job: %d succeeded of %d, with the finalizer %v; want %d succeeded, none tracked",
			succeeded, len(pods), anyHas(pods, finalizer), completions)
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
	// new leader takes its finalizer off.
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

	checkSecureMetrics(t, srv, logs.metricsAddr(t, "second"))
	if lines := logs.matching("forbidden"); len(lines) > 0 {
		t.Errorf("calls of the controller were forbidden:\n%s", strings.Join(lines, "\n"))
	}
}

// shippedRBAC are the base's files an administrator applies before the
// Deployment.
var shippedRBAC = []string{"namespace.yaml", "serviceaccount.yaml", "rbac.yaml", "metrics_auth.yaml"}

func leaseHolder(t *testing.T, client kubernetes.Interface) (string, error) {
	t.Helper()
	lease, err := client.CoordinationV1().Leases(namespace).Get(t.Context(), "jobsync-controller", metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return "", nil
	}
	if err != nil || lease.Spec.HolderIdentity == nil {
		return "", err
	}
	return *lease.Spec.HolderIdentity, nil
}

func countPhase(pods []corev1.Pod, phase corev1.PodPhase) int {
	n := 0
	for _, p := range pods {
		if p.Status.Phase == phase {
			n++
		}
	}
	return n
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

// logLines keeps what the controllers write to stderr, each line after
// the name of the replica that wrote it.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) add(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, line)
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

var servingMetrics = regexp.MustCompile(`"Serving" .*server="metrics" address="([^"]+)"`)

// metricsAddr is the address replica serves its metrics on, from its log.
func (l *logLines) metricsAddr(t *testing.T, replica string) string {
	t.Helper()
	for _, line := range l.matching(replica + ": ") {
		if m := servingMetrics.FindStringSubmatch(line); m != nil && strings.HasPrefix(line, replica+": ") {
			return m[1]
		}
	}
	t.Fatalf("replica %s logged no metrics address", replica)
	return ""
}

// replica is one running jobsync-controller process.
type replica struct {
	cmd    *exec.Cmd
	killed bool
}

// kill ends the process at once, as a node that dies does: it does not
// release its Lease.
func (r *replica) kill(t *testing.T) {
	t.Helper()
	r.killed = true
	if err := r.cmd.Process.Kill(); err != nil {
		t.Fatalf("killing the leader: %v", err)
	}
}

// startController runs the command until the test ends (or kill), then
// stops it as the kubelet would (SIGTERM) and waits for it.
func startController(t *testing.T, bin string, args []string, logs *logLines, name string) *replica {
	t.Helper()
	cmd := exec.Command(bin, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &replica{cmd: cmd}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			logs.add(name + ": " + sc.Text())
		}
	}()
	t.Cleanup(func() {
		if !r.killed {
			_ = cmd.Process.Signal(syscall.SIGTERM)
		}
		stopped := make(chan error, 1)
		go func() { <-copied; stopped <- cmd.Wait() }()
		select {
		case err := <-stopped:
			if err != nil && !r.killed {
				t.Errorf("jobsync-controller %s ended with %v", name, err)
			}
		case <-time.After(time.Minute):
			_ = cmd.Process.Kill()
			t.Errorf("jobsync-controller %s did not stop within a minute of SIGTERM", name)
		}
		if t.Failed() && name == "first" { // once, for both replicas
			logs.mu.Lock()
			t.Logf("jobsync-controller's log:\n%s", strings.Join(logs.lines, "\n"))
			logs.mu.Unlock()
		}
	})
	return r
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
