package main

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/apis/apiserver"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/authenticatorfactory"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	"k8s.io/client-go/kubernetes"
	certutil "k8s.io/client-go/util/cert"
	"k8s.io/klog/v2"
)

// secureMetrics is how the metrics are served over HTTPS: the serving
// certificate and the API server that authenticates and authorizes each
// scrape.
type secureMetrics struct {
	// certDir holds certName and keyName; empty means a self-signed
	// certificate made at start, as controller-runtime does.
	certDir, certName, keyName string
}

// The delegation's caches and retries are controller-runtime's: a scrape
// every few seconds costs the API server one review a minute per scraper.
const (
	authnCacheTTL   = time.Minute
	authzAllowTTL   = 5 * time.Minute
	authzDenyTTL    = 30 * time.Second
	reviewTimeout   = 10 * time.Second
	selfSignedHost  = "jobsync-controller"
	defaultCertName = "tls.crt"
	defaultKeyName  = "tls.key"
)

func reviewBackoff() *wait.Backoff {
	return &wait.Backoff{Duration: 500 * time.Millisecond, Factor: 1.5, Jitter: 0.2, Steps: 5}
}

// tlsConfig is the serving configuration: the certificate files, read
// again whenever they change (so a rotated Secret needs no restart), or a
// self-signed certificate. HTTP/2 is not offered, as controller-runtime
// does not by default, so that its stream-reset floods cannot reach the
// metrics server.
func (s secureMetrics) tlsConfig() (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, NextProtos: []string{"http/1.1"}}
	if s.certDir == "" {
		certPEM, keyPEM, err := certutil.GenerateSelfSignedCertKey(selfSignedHost, nil, []string{"localhost"})
		if err != nil {
			return nil, fmt.Errorf("a self-signed metrics certificate: %w", err)
		}
		cert, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			return nil, fmt.Errorf("a self-signed metrics certificate: %w", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
		return cfg, nil
	}
	files := &certFiles{cert: filepath.Join(s.certDir, s.certName), key: filepath.Join(s.certDir, s.keyName)}
	if _, err := files.get(nil); err != nil {
		return nil, err // a missing or bad pair fails the start, not the first scrape
	}
	cfg.GetCertificate = files.get
	return cfg, nil
}

// certFiles is a certificate and key on disk, loaded again when either
// file's modification time changes.
type certFiles struct {
	cert, key string

	mu              sync.Mutex
	certMod, keyMod time.Time
	loaded          *tls.Certificate
}

// get returns the pair, loading it again if either file changed. While a
// rotation has the files missing or half-written, the last good pair
// stays in use.
func (f *certFiles) get(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	certInfo, errCert := os.Stat(f.cert)
	keyInfo, errKey := os.Stat(f.key)
	if err := errors.Join(errCert, errKey); err != nil {
		if f.loaded != nil {
			return f.loaded, nil
		}
		return nil, fmt.Errorf("the metrics certificate and key: %w", err)
	}
	if f.loaded != nil && certInfo.ModTime().Equal(f.certMod) && keyInfo.ModTime().Equal(f.keyMod) {
		return f.loaded, nil
	}
	cert, err := tls.LoadX509KeyPair(f.cert, f.key)
	if err != nil {
		if f.loaded != nil {
			return f.loaded, nil
		}
		return nil, fmt.Errorf("the metrics certificate and key: %w", err)
	}
	f.loaded, f.certMod, f.keyMod = &cert, certInfo.ModTime(), keyInfo.ModTime()
	return f.loaded, nil
}

// delegatedAuth wraps next so that only a request whose bearer token the
// API server accepts (TokenReview) and whose user it allows to get the
// request's path (SubjectAccessReview, a non-resource URL such as
// /metrics) reaches it. Built on k8s.io/apiserver's delegating
// authenticator and authorizer, as kube-controller-manager's secure port
// and controller-runtime's metrics filter are.
func delegatedAuth(client kubernetes.Interface, next http.Handler) (http.Handler, error) {
	authn, _, err := authenticatorfactory.DelegatingAuthenticatorConfig{
		Anonymous:                &apiserver.AnonymousAuthConfig{Enabled: false},
		TokenAccessReviewClient:  client.AuthenticationV1(),
		TokenAccessReviewTimeout: reviewTimeout,
		WebhookRetryBackoff:      reviewBackoff(),
		CacheTTL:                 authnCacheTTL,
	}.New()
	if err != nil {
		return nil, fmt.Errorf("the metrics authenticator: %w", err)
	}
	authz, err := authorizerfactory.DelegatingAuthorizerConfig{
		SubjectAccessReviewClient: client.AuthorizationV1(),
		AllowCacheTTL:             authzAllowTTL,
		DenyCacheTTL:              authzDenyTTL,
		WebhookRetryBackoff:       reviewBackoff(),
	}.New()
	if err != nil {
		return nil, fmt.Errorf("the metrics authorizer: %w", err)
	}
	return withAuth(authn, authz, next), nil
}

// withAuth answers 401 to a request authn does not accept, 403 to one
// authz does not allow, and passes the others to next.
func withAuth(authn authenticator.Request, authz authorizer.Authorizer, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		logger := klog.FromContext(r.Context())
		res, ok, err := authn.AuthenticateRequest(r)
		if err != nil || !ok {
			if err != nil {
				logger.V(4).Info("Metrics request not authenticated", "err", err)
			}
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		attrs := authorizer.AttributesRecord{
			User: res.User,
			Verb: strings.ToLower(r.Method),
			Path: r.URL.Path,
		}
		decision, reason, err := authz.Authorize(r.Context(), attrs)
		if err != nil {
			logger.Error(err, "Authorizing a metrics request", "user", res.User.GetName())
			http.Error(w, "Authorization failed", http.StatusInternalServerError)
			return
		}
		if decision != authorizer.DecisionAllow {
			logger.V(4).Info("Metrics request forbidden", "user", res.User.GetName(), "reason", reason)
			http.Error(w, fmt.Sprintf("Forbidden (user=%s, verb=%s, path=%s)", res.User.GetName(), attrs.Verb, attrs.Path), http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}
