package scenarios

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/jobsync/jobsync/jobsync/jobsynctest"
)

var (
	generatedFlag = flag.Int("sidebyside.generated", 0, "run this many generated Jobs side by side (200 or more for a meaningful run)")
	seedFlag      = flag.Uint64("sidebyside.seed", 1, "seed of the generated Jobs")
	perServerFlag = flag.Int("sidebyside.perserver", 8, "generated Jobs (pairs) run at once on one API server")
	indexesFlag   = flag.String("sidebyside.indexes", "", "run only these generated Jobs (comma-separated indexes below -sidebyside.generated)")
)

// generate draws the i-th random Job of a seed: its mode (NonIndexed with
// completions, Indexed, work queue), sizes, restart policy, backoff limits
// (per Job and per index, max failed indexes), pod failure policy, success
// policy, pod replacement policy, active deadline, the behaviour of its
// pods per index and attempt (runs of 0.3-2s, exit codes, disruptions,
// restarts, slow shutdowns), and at most one user change (suspend then
// resume, parallelism, elastic scale, deletion). It gives the same
// scenario for the same seed and i.
func generate(seed uint64, i int) scenario {
	rng := newRand(seed*1_000_003 + uint64(i))
	sc := scenario{name: fmt.Sprintf("g%d-%d", seed, i), anyOutcome: true, timeout: 90 * time.Second}
	var desc []string

	mode := rng.IntN(3)
	completions := int32(1 + rng.IntN(4))
	parallelism := int32(1 + rng.IntN(3))
	onFailure := rng.IntN(7) == 0
	backoffLimit := int32(rng.IntN(4))
	var shape []func(j *batchv1.Job)
	switch mode {
	case 0:
		desc = append(desc, fmt.Sprintf("NonIndexed %d/%d", completions, parallelism))
		shape = append(shape, sizes(completions, parallelism))
	case 1:
		desc = append(desc, fmt.Sprintf("Indexed %d/%d", completions, parallelism))
		shape = append(shape, indexed, sizes(completions, parallelism))
	case 2:
		completions = 0
		desc = append(desc, fmt.Sprintf("work queue /%d", parallelism))
		shape = append(shape, sizes(-1, parallelism))
	}
	shape = append(shape, func(j *batchv1.Job) { j.Spec.BackoffLimit = ptr(backoffLimit) })
	desc = append(desc, fmt.Sprintf("backoffLimit %d", backoffLimit))
	if onFailure {
		desc = append(desc, "OnFailure")
		shape = append(shape, func(j *batchv1.Job) { j.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure })
	}
	perIndex := false
	ignores42 := false // exit code 42 is ignored: pods that fail so are replaced forever
	// disruptions are ignored: disrupted pods are replaced forever
	ignoresDisruption := false
	if mode == 1 && rng.IntN(5) < 2 {
		perIndex = true
		limit := int32(rng.IntN(3))
		desc = append(desc, fmt.Sprintf("backoffLimitPerIndex %d", limit))
		var maxFailed *int32
		if rng.IntN(2) == 0 {
			maxFailed = ptr(int32(rng.IntN(int(completions))))
			desc = append(desc, fmt.Sprintf("maxFailedIndexes %d", *maxFailed))
		}
		shape = append(shape, func(j *batchv1.Job) {
			j.Spec.BackoffLimitPerIndex, j.Spec.MaxFailedIndexes = ptr(limit), maxFailed
			j.Spec.BackoffLimit = nil // defaulted to the maximum with a per-index limit
		})
	}
	if mode == 1 && rng.IntN(10) < 3 {
		rule := batchv1.SuccessPolicyRule{}
		if rng.IntN(2) == 0 {
			rule.SucceededIndexes = ptr("0")
			desc = append(desc, "successPolicy index 0")
		} else {
			rule.SucceededCount = ptr(int32(1 + rng.IntN(int(completions))))
			desc = append(desc, fmt.Sprintf("successPolicy count %d", *rule.SucceededCount))
		}
		shape = append(shape, func(j *batchv1.Job) {
			j.Spec.SuccessPolicy = &batchv1.SuccessPolicy{Rules: []batchv1.SuccessPolicyRule{rule}}
		})
	}
	if !onFailure && rng.IntN(10) < 3 {
		var rules []batchv1.PodFailurePolicyRule
		if rng.IntN(2) == 0 {
			ignoresDisruption = true
			rules = append(rules, batchv1.PodFailurePolicyRule{Action: batchv1.PodFailurePolicyActionIgnore,
				OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue}}})
		}
		actions := []batchv1.PodFailurePolicyAction{batchv1.PodFailurePolicyActionFailJob, batchv1.PodFailurePolicyActionCount, batchv1.PodFailurePolicyActionIgnore}
		if perIndex {
			actions = append(actions, batchv1.PodFailurePolicyActionFailIndex)
		}
		action := actions[rng.IntN(len(actions))]
		rules = append(rules, batchv1.PodFailurePolicyRule{Action: action, OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{
			Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{42},
		}})
		desc = append(desc, fmt.Sprintf("podFailurePolicy %d rules (42: %s)", len(rules), action))
		ignores42 = action == batchv1.PodFailurePolicyActionIgnore
		shape = append(shape, func(j *batchv1.Job) { j.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: rules} })
	} else if rng.IntN(5) == 0 {
		desc = append(desc, "podReplacementPolicy Failed")
		shape = append(shape, func(j *batchv1.Job) { j.Spec.PodReplacementPolicy = ptr(batchv1.Failed) })
	}
	if rng.IntN(10) == 0 {
		d := int64(3 + rng.IntN(4))
		desc = append(desc, fmt.Sprintf("activeDeadlineSeconds %d", d))
		shape = append(shape, func(j *batchv1.Job) { j.Spec.ActiveDeadlineSeconds = ptr(d) })
	}
	sc.job = all(shape...)

	// Pods: a default behaviour and a few rules by index (Indexed) or pod
	// number (the others) and attempt.
	sc.script.Default = randomBehavior(rng, onFailure)
	if ignores42 && sc.script.Default.ExitCode == 42 {
		sc.script.Default.ExitCode = 0 // else no pod would ever count
	}
	if ignoresDisruption && sc.script.Default.Disruption {
		// Likewise (g1-143 ran until the 90s timeout on both sides).
		sc.script.Default.Disruption = false
	}
	keys := int(max(completions, parallelism)) + 2
	for k := range keys {
		for attempt := range 3 {
			if rng.IntN(10) >= 3 {
				continue
			}
			b := randomBehavior(rng, onFailure)
			rule := jobsynctest.PodRule{Attempt: ptr(attempt), Behavior: *b}
			if mode == 1 {
				rule.Index = ptr(k)
			} else {
				rule = jobsynctest.PodRule{Pod: ptr(k), Behavior: *b}
			}
			sc.script.Pods = append(sc.script.Pods, rule)
		}
	}

	// At most one user change.
	at := time.Duration(500+rng.IntN(2500)) * time.Millisecond
	switch rng.IntN(10) {
	case 0, 1:
		back := at + time.Duration(500+rng.IntN(1500))*time.Millisecond
		desc = append(desc, fmt.Sprintf("suspend at %v, resume at %v", at, back))
		sc.steps = []step{suspendAt(at), resumeAt(back)}
	case 2:
		if mode != 1 {
			p := int32(1 + rng.IntN(4))
			desc = append(desc, fmt.Sprintf("parallelism %d at %v", p, at))
			sc.steps = []step{parallelismAt(at, p)}
			break
		}
		// Elastic Indexed Jobs change completions and parallelism together,
		// from equal values.
		n := int32(1 + rng.IntN(5))
		sc.job = all(sc.job, sizes(completions, completions))
		desc = append(desc, fmt.Sprintf("parallelism=completions, scaled to %d at %v", n, at))
		sc.steps = []step{scaleAt(at, n)}
	case 3:
		desc = append(desc, fmt.Sprintf("deleted at %v", at))
		sc.steps = []step{deleteAt(at)}
		sc.untilGone = true
	}
	sc.description = strings.Join(desc, ", ")
	return sc
}

// randomBehavior draws how a pod behaves: it starts within half a second,
// runs 0.3-2s, and mostly succeeds; else it exits 1, 2 or 42 or is
// disrupted; under OnFailure it may restart first.
func randomBehavior(rng *rand.Rand, onFailure bool) *jobsynctest.Behavior {
	b := &jobsynctest.Behavior{
		StartDelay: time.Duration(rng.IntN(6)) * 100 * time.Millisecond,
		RunTime:    time.Duration(3+rng.IntN(18)) * 100 * time.Millisecond,
		Shutdown:   time.Duration(rng.IntN(11)) * 100 * time.Millisecond,
	}
	switch r := rng.IntN(100); {
	case r < 65:
	case r < 77:
		b.ExitCode = 1
	case r < 83:
		b.ExitCode = 2
	case r < 92:
		b.ExitCode = 42
	default:
		if !onFailure {
			b.Disruption = true
		}
	}
	if onFailure {
		b.Restarts = int32(rng.IntN(3))
		if b.ExitCode != 0 && rng.IntN(2) == 0 {
			b.ExitCode = 0 // fail by restarts only, or the pod restarts until the limit
		}
	}
	return b
}

// TestSideBySideGenerated runs -sidebyside.generated random Jobs side by
// side, -sidebyside.perserver pairs at once on each API server.
func TestSideBySideGenerated(t *testing.T) {
	n := *generatedFlag
	if n == 0 {
		t.Skip("run with -sidebyside.generated=200 (about 15 minutes on 2 cores)")
	}
	devs := loadSideBySideDeviations(t)
	var mu sync.Mutex
	var rows []sbsRow
	per := max(1, *perServerFlag)
	for first := 0; first < n; first += per {
		last := min(n, first+per)
		t.Run(fmt.Sprintf("server-%d-%d", first, last-1), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			up := startController(t, e.srv.Config, controllerSpec{kind: "upstream", qps: -1})
			ours := startController(t, e.srv.Config, controllerSpec{kind: "ours", qps: -1})
			var wg sync.WaitGroup
			for i := first; i < last; i++ {
				if !wanted(i) {
					continue
				}
				sc := generate(*seedFlag, i)
				wg.Go(func() {
					row, ok := runTwins(t, e, devs, sc, up, ours)
					if !ok {
						return
					}
					mu.Lock()
					rows = append(rows, row)
					mu.Unlock()
				})
			}
			wg.Wait()
		})
	}
	t.Cleanup(func() {
		writeSideBySideReport(t, fmt.Sprintf("generated, seed %d", *seedFlag), rows)
	})
}

// wanted says whether -sidebyside.indexes selects generated Job i.
func wanted(i int) bool {
	if *indexesFlag == "" {
		return true
	}
	for _, s := range strings.Split(*indexesFlag, ",") {
		if strings.TrimSpace(s) == fmt.Sprint(i) {
			return true
		}
	}
	return false
}

// reruns is how many times a generated pair whose controllers ended apart
// runs again.
const reruns = 2

// runTwins runs sc side by side. When the two Jobs end apart, it runs the
// pair again (up to reruns times, on fresh Jobs): both controllers decide
// on what their informers show at the moment of each sync, so when a pod
// ends within moments of a deadline, of another pod's failure or of a
// user's change, either order can happen, for upstream's Jobs as for ours.
// A pair identical on a rerun shows a timing-dependent outcome, reported
// as such; a difference that shows on every run fails the test.
func runTwins(t *testing.T, e *env, devs sbsDeviations, sc scenario, up, ours *controller) (sbsRow, bool) {
	var first sbsRow
	base := sc.name
	for attempt := 0; attempt <= reruns; attempt++ {
		if attempt > 0 {
			sc.name = fmt.Sprintf("%s-r%d", base, attempt)
		}
		recs := e.runJobs(sc, up, ours)
		if recs == nil {
			return sbsRow{}, false
		}
		quiet := attempt < reruns
		row := compareRunQuiet(t, devs, sc, recs[0], recs[1], true, timeTolerance, quiet)
		row.scenario = base
		if attempt == 0 {
			first = row
		}
		if len(row.diffs) == 0 {
			if attempt > 0 {
				first.note = joinNote(first.note, fmt.Sprintf("timing-dependent: identical on rerun %d", attempt))
				first.timing = true
			}
			return first, true
		}
	}
	return first, true
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// compareRun judges a side-by-side pair: the checks every run must pass
// (a status write rejected by both is upstream's behaviour reproduced and
// only noted), then the differences not listed in DEVIATIONS.md.
func compareRun(t *testing.T, devs sbsDeviations, sc scenario, up, ours *record, calls bool, tol time.Duration) sbsRow {
	return compareRunQuiet(t, devs, sc, up, ours, calls, tol, false)
}

// compareRunQuiet is compareRun that, when quiet, only logs the
// differences (a rerun follows).
func compareRunQuiet(t *testing.T, devs sbsDeviations, sc scenario, up, ours *record, calls bool, tol time.Duration, quiet bool) sbsRow {
	row := sbsRow{scenario: sc.name, up: up, ours: ours}
	if len(up.Rejected) > 0 && len(ours.Rejected) > 0 {
		row.note = fmt.Sprintf("status writes rejected: upstream %d, ours %d", len(up.Rejected), len(ours.Rejected))
		up.Rejected, ours.Rejected = nil, nil
	}
	for _, rec := range []*record{up, ours} {
		for _, b := range judge(sc, rec) {
			t.Errorf("%s (%s): %s", rec.Job, sc.description, b)
		}
	}
	row.diffs, row.listed = devs.split(sc.name, compare(up, ours, calls, tol))
	for _, d := range row.diffs {
		if quiet {
			t.Logf("%s (%s): upstream and ours differ, running again: %s", sc.name, sc.description, d)
		} else {
			t.Errorf("%s (%s): upstream and ours differ (not in conformance/DEVIATIONS.md): %s", sc.name, sc.description, d)
		}
	}
	return row
}
