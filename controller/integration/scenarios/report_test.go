package scenarios

import (
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"
)

var reportFlag = flag.String("scenarios.report", "", "append a Markdown table of the runs to this file")

// writeReport appends a table of records to -scenarios.report, if set:
// scenario, controller, outcome, the controller's API calls (writes by
// verb and resource, and reads), and the time from the Job's creation to
// its end.
func writeReport(t *testing.T, title string, recs []*record) {
	if *reportFlag == "" || len(recs) == 0 {
		return
	}
	sort.Slice(recs, func(i, j int) bool {
		if recs[i].Scenario != recs[j].Scenario {
			return recs[i].Scenario < recs[j].Scenario
		}
		return recs[i].Controller < recs[j].Controller
	})
	var b strings.Builder
	fmt.Fprintf(&b, "\n%s (%s)\n\n", title, time.Now().UTC().Format("2006-01-02 15:04 MST"))
	b.WriteString("| scenario | controller | outcome | API writes | API reads | time |\n|---|---|---|---|---|---|\n")
	for _, r := range recs {
		reads, writes := 0, 0
		for k, v := range r.AllCalls {
			if strings.HasPrefix(k, "list ") || strings.HasPrefix(k, "watch ") || strings.HasPrefix(k, "get ") {
				reads += v
			}
		}
		for k, v := range r.Calls {
			if !strings.HasPrefix(k, "list ") && !strings.HasPrefix(k, "watch ") && !strings.HasPrefix(k, "get ") {
				writes += v
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %d: %s | %d | %.1fs |\n", r.Scenario, r.Controller, describe(r.Outcome),
			writes, summary(r.Calls, true), reads, r.Wall.Seconds())
	}
	appendReport(t, b.String())
}

// appendReport appends text to -scenarios.report.
func appendReport(t *testing.T, text string) {
	f, err := os.OpenFile(*reportFlag, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Errorf("report: %v", err)
		return
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Errorf("report: %v", err)
	}
}
