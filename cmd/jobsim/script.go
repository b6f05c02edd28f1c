package main

import (
	"os"

	"github.com/jobsync/jobsync/jobsync/jobsynctest"
)

// scriptFile is what --script reads: the simulator's Script (what pods do,
// by pod, index and attempt) and the changes users make to the Job on the
// way, such as resuming a suspended Job:
//
//	default: {startDelay: 2s, runTime: 10s}
//	pods:
//	- index: 2
//	  behavior: {runTime: 5s, exitCode: 1}
//	jobChanges:
//	- at: 60s
//	  suspend: false
type scriptFile struct {
	jobsynctest.Script
	JobChanges []jobsynctest.JobChange `json:"jobChanges,omitempty"`
}

// readScript reads a script strictly: a misspelt key would otherwise leave
// a pod to the random model without a word.
func readScript(path string) (scriptFile, error) {
	var s scriptFile
	data, err := os.ReadFile(path)
	if err != nil {
		return s, err
	}
	docs := splitDocuments(data)
	if len(docs) != 1 {
		return s, errorAt(source{file: path, line: docs[1].line, item: -1}, "a script is one YAML document")
	}
	js, err := yamlToJSON(path, docs[0])
	if err != nil {
		return s, err
	}
	if err := strictDecode(js, &s); err != nil {
		return s, decodeError(source{file: path, line: firstContentLine(docs[0]), item: -1}, docs[0], "script", err)
	}
	lines := sequenceItemLines(docs[0], "jobChanges", len(s.JobChanges))
	for i, c := range s.JobChanges {
		if err := c.Validate(); err != nil {
			return s, errorAt(source{file: path, line: lines[i], item: -1}, "jobChanges[%d]: %v", i, err)
		}
	}
	return s, nil
}
