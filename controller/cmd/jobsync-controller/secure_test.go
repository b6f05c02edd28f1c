package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	certutil "k8s.io/client-go/util/cert"
)

// fakeAuth stands for the API server: its TokenReviews know two tokens,
// its SubjectAccessReviews allow reader, and only reader, to get /metrics.
// (The delegation itself is tested on a real API server, in the rbac
// integration package: its clients bypass a fake clientset's reactors.)
func fakeAuth(next http.Handler) http.Handler {
	authn := authenticator.RequestFunc(func(r *http.Request) (*authenticator.Response, bool, error) {
		switch r.Header.Get("Authorization") {
		case "Bearer reader-token":
			return &authenticator.Response{User: &user.DefaultInfo{Name: "reader"}}, true, nil
		case "Bearer other-token":
			return &authenticator.Response{User: &user.DefaultInfo{Name: "other"}}, true, nil
		case "Bearer broken-token":
			return nil, false, errors.New("the review failed")
		}
		return nil, false, nil
	})
	authz := authorizer.AuthorizerFunc(func(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
		if a.GetUser().GetName() == "reader" && !a.IsResourceRequest() && a.GetPath() == "/metrics" && a.GetVerb() == "get" {
			return authorizer.DecisionAllow, "", nil
		}
		return authorizer.DecisionNoOpinion, "no rule", nil
	})
	return withAuth(authn, authz, next)
}

// TestSecureMetrics serves the metrics over HTTPS with a self-signed
// certificate: no token or an unknown one is 401, a token the authorizer
// refuses is 403, the reader's token gets the metrics.
func TestSecureMetrics(t *testing.T) {
	cfg, err := secureMetrics{}.tlsConfig()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := listenTLS("metrics", "127.0.0.1:0", fakeAuth(metricsHandler()), cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go srv.serve(ctx)
	url := "https://" + srv.Addr() + "/metrics"
	insecure := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}

	for _, tc := range []struct {
		token string
		want  int
	}{
		{"", http.StatusUnauthorized},
		{"unknown-token", http.StatusUnauthorized},
		{"broken-token", http.StatusUnauthorized},
		{"other-token", http.StatusForbidden},
		{"reader-token", http.StatusOK},
	} {
		code, body := getWithToken(t, insecure, url, tc.token)
		if code != tc.want {
			t.Errorf("token %q: %d %q, want %d", tc.token, code, body, tc.want)
		}
		if code == http.StatusOK && !strings.Contains(body, "# TYPE go_goroutines gauge") {
			t.Errorf("token %q: the body is not the metrics:\n%s", tc.token, body)
		}
	}
	// Plain HTTP gets no metrics.
	if resp, err := http.Get("http://" + srv.Addr() + "/metrics"); err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Errorf("plain HTTP got the metrics")
		}
	}
}

// TestSecureMetricsCertificateFiles serves the given certificate, and the
// new one once the files are rotated.
func TestSecureMetricsCertificateFiles(t *testing.T) {
	dir := t.TempDir()
	writePair := func(host string) {
		certPEM, keyPEM, err := certutil.GenerateSelfSignedCertKey(host, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "tls.crt"), certPEM, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "tls.key"), keyPEM, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	writePair("first.example")
	cfg, err := secureMetrics{certDir: dir, certName: "tls.crt", keyName: "tls.key"}.tlsConfig()
	if err != nil {
		t.Fatal(err)
	}
	if got := servedName(t, cfg); !strings.HasPrefix(got, "first.example@") {
		t.Errorf("served %q, want first.example", got)
	}
	// Modification times can be coarse: make the rotation visible.
	writePair("second.example")
	later := time.Now().Add(time.Minute)
	for _, f := range []string{"tls.crt", "tls.key"} {
		if err := os.Chtimes(filepath.Join(dir, f), later, later); err != nil {
			t.Fatal(err)
		}
	}
	if got := servedName(t, cfg); !strings.HasPrefix(got, "second.example@") {
		t.Errorf("served %q after the rotation, want second.example", got)
	}

	// Mid-rotation, the files gone: the last good pair is still served.
	for _, f := range []string{"tls.crt", "tls.key"} {
		if err := os.Remove(filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	if got := servedName(t, cfg); !strings.HasPrefix(got, "second.example@") {
		t.Errorf("served %q with the files gone, want second.example still", got)
	}

	if _, err := (secureMetrics{certDir: t.TempDir(), certName: "tls.crt", keyName: "tls.key"}).tlsConfig(); err == nil {
		t.Errorf("a directory without the pair: no error")
	}
}

// servedName is the common name of the leaf certificate cfg serves.
func servedName(t *testing.T, cfg *tls.Config) string {
	t.Helper()
	cert, err := cfg.GetCertificate(&tls.ClientHelloInfo{})
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(cert.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	return leaf.Subject.CommonName
}

func getWithToken(t *testing.T, client *http.Client, url, token string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}
