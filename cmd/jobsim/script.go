package main

import (
	"encoding/json"
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
	if err := checkMarkers(path, data); err != nil {
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
	at := source{file: path, line: firstContentLine(docs[0]), item: -1}
	if err := strictDecode(js, &s); err != nil {
		if entryErr := scriptEntryError(path, docs[0], js); entryErr != nil && !unknownField.MatchString(err.Error()) {
			return s, entryErr
		}
		return s, decodeError(at, docs[0], "script", err)
	}
	if err := validateScript(path, docs[0], s); err != nil {
		return s, err
	}
	return s, nil
}

// scriptEntries are a script's entries before they are decoded, so that a
// value the simulator's decoding refuses (a negative or malformed
// duration, a wrong type) is found in its entry and reported on the
// entry's line rather than the script's first.
type scriptEntries struct {
	Default    json.RawMessage   `json:"default"`
	Pods       []json.RawMessage `json:"pods"`
	JobChanges []json.RawMessage `json:"jobChanges"`
}

// scriptEntryError decodes the entries of a script one by one and returns
// the first one's error, located on the entry's line; nil when no entry
// fails alone (the caller then reports the script's own error).
func scriptEntryError(path string, doc document, js []byte) error {
	var e scriptEntries
	if json.Unmarshal(js, &e) != nil {
		return nil
	}
	if len(e.Default) > 0 {
		var b jobsynctest.Behavior
		if err := strictDecode(e.Default, &b); err != nil {
			return errorAt(source{file: path, line: keyLine(doc, "default"), item: -1}, "default: %s", cleanJSONError(err))
		}
	}
	lines := sequenceItemLines(doc, "pods", len(e.Pods))
	for i, raw := range e.Pods {
		var r jobsynctest.PodRule
		if err := strictDecode(raw, &r); err != nil {
			return errorAt(source{file: path, line: lines[i], item: -1}, "pods[%d]: %s", i, cleanJSONError(err))
		}
	}
	lines = sequenceItemLines(doc, "jobChanges", len(e.JobChanges))
	for i, raw := range e.JobChanges {
		var c jobsynctest.JobChange
		if err := strictDecode(raw, &c); err != nil {
			return errorAt(source{file: path, line: lines[i], item: -1}, "jobChanges[%d]: %s", i, cleanJSONError(err))
		}
	}
	return nil
}

// validateScript reports the first value of a decoded script that the
// simulator refuses or would never match, on the line of its entry: a pod
// rule's negative selector or restart count, a job change that is not
// exactly one change, negative or set before the Job exists.
func validateScript(path string, doc document, s scriptFile) error {
	if s.Default != nil && s.Default.Restarts < 0 {
		return errorAt(source{file: path, line: keyLine(doc, "default"), item: -1}, "default: restarts %d is negative", s.Default.Restarts)
	}
	lines := sequenceItemLines(doc, "pods", len(s.Pods))
	for i, r := range s.Pods {
		for _, sel := range []struct {
			name string
			v    *int
		}{{"pod", r.Pod}, {"index", r.Index}, {"attempt", r.Attempt}} {
			if sel.v != nil && *sel.v < 0 {
				return errorAt(source{file: path, line: lines[i], item: -1}, "pods[%d]: %s %d is negative (they count from 0), so the rule would match no pod", i, sel.name, *sel.v)
			}
		}
		if r.Behavior.Restarts < 0 {
			return errorAt(source{file: path, line: lines[i], item: -1}, "pods[%d]: restarts %d is negative", i, r.Behavior.Restarts)
		}
	}
	lines = sequenceItemLines(doc, "jobChanges", len(s.JobChanges))
	for i, c := range s.JobChanges {
		if err := c.Validate(); err != nil {
			return errorAt(source{file: path, line: lines[i], item: -1}, "jobChanges[%d]: %v", i, err)
		}
	}
	return nil
}

// keyLine is the line of key in doc, or the document's first line when
// the key is not found as a line of its own.
func keyLine(doc document, key string) int {
	if l := findKeyLine(doc, key); l > 0 {
		return l
	}
	return firstContentLine(doc)
}
