package apiservertest

import (
	"fmt"
	"os"
	"sync/atomic"
)

// T is what Start needs of the test that owns a server: *testing.T,
// *testing.B and Ginkgo's GinkgoT() all have it, as do small adapters of
// other frameworks. The server is stopped in a Cleanup callback, and a
// server that cannot start ends the test with Fatalf.
type T interface {
	Helper()
	Cleanup(func())
	Fatalf(format string, args ...any)
	Logf(format string, args ...any)
}

// fullTB gives kube-apiserver's test server, which asks for most of
// testing.TB, what it needs from a T: the methods T has are passed
// through, those of testing.TB that the value happens to have are used,
// and the rest are made from T's (a failure is fatal, a name is made up,
// a temporary directory is removed in a Cleanup callback).
type fullTB struct {
	T
	failed atomic.Bool
}

func (t *fullTB) Attr(key, value string) {
	if a, ok := t.T.(interface{ Attr(string, string) }); ok {
		a.Attr(key, value)
	}
}

func (t *fullTB) Chdir(dir string) {
	if c, ok := t.T.(interface{ Chdir(string) }); ok {
		c.Chdir(dir)
		return
	}
	t.Fatalf("apiservertest: the test server asked to change directory to %s, which %T cannot undo", dir, t.T)
}

func (t *fullTB) Error(args ...any) { t.Errorf("%s", fmt.Sprint(args...)) }

func (t *fullTB) Errorf(format string, args ...any) {
	t.failed.Store(true)
	if e, ok := t.T.(interface{ Errorf(string, ...any) }); ok {
		e.Errorf(format, args...)
		return
	}
	t.Fatalf(format, args...)
}

func (t *fullTB) Fail() {
	t.failed.Store(true)
	if f, ok := t.T.(interface{ Fail() }); ok {
		f.Fail()
		return
	}
	t.Fatalf("apiservertest: the test server failed the test")
}

func (t *fullTB) FailNow() {
	t.failed.Store(true)
	if f, ok := t.T.(interface{ FailNow() }); ok {
		f.FailNow()
		return
	}
	t.Fatalf("apiservertest: the test server failed the test")
}

func (t *fullTB) Failed() bool {
	if f, ok := t.T.(interface{ Failed() bool }); ok {
		return f.Failed()
	}
	return t.failed.Load()
}

func (t *fullTB) Fatal(args ...any) { t.Fatalf("%s", fmt.Sprint(args...)) }

func (t *fullTB) Log(args ...any) { t.Logf("%s", fmt.Sprint(args...)) }

func (t *fullTB) Name() string {
	if n, ok := t.T.(interface{ Name() string }); ok {
		return n.Name()
	}
	return "apiservertest"
}

func (t *fullTB) Setenv(key, value string) {
	if s, ok := t.T.(interface{ Setenv(string, string) }); ok {
		s.Setenv(key, value)
		return
	}
	old, had := os.LookupEnv(key)
	if err := os.Setenv(key, value); err != nil {
		t.Fatalf("apiservertest: setting %s: %v", key, err)
	}
	t.Cleanup(func() {
		if had {
			os.Setenv(key, old)
		} else {
			os.Unsetenv(key)
		}
	})
}

func (t *fullTB) Skip(args ...any) { t.Skipf("%s", fmt.Sprint(args...)) }

func (t *fullTB) Skipf(format string, args ...any) {
	if s, ok := t.T.(interface{ Skipf(string, ...any) }); ok {
		s.Skipf(format, args...)
		return
	}
	t.Fatalf("apiservertest: the test server skipped the test: "+format, args...)
}

func (t *fullTB) SkipNow() { t.Skipf("skipped") }

func (t *fullTB) Skipped() bool {
	if s, ok := t.T.(interface{ Skipped() bool }); ok {
		return s.Skipped()
	}
	return false
}

func (t *fullTB) TempDir() string {
	if d, ok := t.T.(interface{ TempDir() string }); ok {
		return d.TempDir()
	}
	dir, err := os.MkdirTemp("", "apiservertest")
	if err != nil {
		t.Fatalf("apiservertest: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}
