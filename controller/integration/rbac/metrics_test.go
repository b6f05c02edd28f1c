package rbac

import (
	"crypto/tls"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/jobsync/jobsync/controller/integration/apiservertest"
)

// checkSecureMetrics scrapes the controller's HTTPS metrics at addr as
// three callers: one without a token (401), a ServiceAccount without
// rights (403), and one bound to the shipped metrics-reader ClusterRole,
// which gets the Job controller's metrics. The controller asks the API
// server both questions with its own ServiceAccount's token, so the
// shipped metrics-auth rules are tested too.
func checkSecureMetrics(t *testing.T, srv *apiservertest.Server, addr string) {
	t.Helper()
	ctx := t.Context()
	for _, name := range []string{"nobody", "scraper"} {
		if _, err := srv.Client.CoreV1().ServiceAccounts(workNamespace).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := srv.Client.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "scraper-reads-metrics"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "jobsync-controller-metrics-reader"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "scraper", Namespace: workNamespace}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	token := func(sa string) string {
		tok, err := srv.Client.CoreV1().ServiceAccounts(workNamespace).CreateToken(ctx, sa,
			&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: new(int64(3600))}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("a token for %s: %v", sa, err)
		}
		return tok.Status.Token
	}
	// The certificate is the self-signed one the controller made at start.
	client := &http.Client{Timeout: time.Minute, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	scrape := func(token string) (int, string) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+addr+"/metrics", nil)
		if err != nil {
			t.Fatal(err)
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("scraping %s: %v", addr, err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, string(body)
	}

	if code, body := scrape(""); code != http.StatusUnauthorized {
		t.Errorf("a scrape without a token: %d %q, want 401", code, body)
	}
	if code, body := scrape("not-a-token"); code != http.StatusUnauthorized {
		t.Errorf("a scrape with a made-up token: %d %q, want 401", code, body)
	}
	if code, body := scrape(token("nobody")); code != http.StatusForbidden {
		t.Errorf("a scrape by a ServiceAccount without rights: %d %q, want 403", code, body)
	}
	code, body := scrape(token("scraper"))
	if code != http.StatusOK {
		t.Fatalf("a scrape by the metrics reader: %d %q, want 200", code, body)
	}
	for _, want := range []string{
		`job_controller_job_syncs_total{action=`,
		`job_controller_jobs_finished_total{completion_mode="NonIndexed",reason="CompletionsReached",result="succeeded"}`,
		`leader_election_master_status{name="jobsync-controller"} 1`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the metrics lack %s", want)
		}
	}
}
