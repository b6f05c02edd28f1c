// Package traps pins, against a real kube-apiserver and etcd, the rules a
// hand-written executor of jobsync plans gets wrong. Each test fails when
// its rule is broken.
package traps

import (
	"testing"

	"github.com/jobsync/jobsync/controller/integration/apiservertest"
)

func TestMain(m *testing.M) { apiservertest.Main(m) }
