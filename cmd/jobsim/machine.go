package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"sigs.k8s.io/yaml"
)

// durationKeys are the fields of jobsim's documents that hold a
// time.Duration, which encoding/json writes in nanoseconds.
var durationKeys = map[string]bool{"requeueAfter": true}

// zeroTime is how encoding/json writes an unset time.Time.
const zeroTime = "0001-01-01T00:00:00Z"

// machineJSON encodes v for -o json and -o yaml as people and scripts read
// it: durations as Go duration strings ("9s", not 9000000000) and unset
// times left out instead of written as year 1. Keys come in sorted order.
func machineJSON(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		if strings.Contains(err.Error(), "year outside of range") {
			// A run whose clock passed the year 9999 (read times past it
			// are refused on input, and plan prints its own times).
			return nil, errors.New("-o json and -o yaml cannot write a time past the year 9999, which this output holds: use -o text, or start the clock earlier (--start)")
		}
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return nil, err
	}
	return json.MarshalIndent(humanize(tree), "", "  ")
}

// machineYAML is machineJSON in YAML.
func machineYAML(v any) ([]byte, error) {
	js, err := machineJSON(v)
	if err != nil {
		return nil, err
	}
	return yaml.JSONToYAML(js)
}

func humanize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok && s == zeroTime {
				delete(x, k)
				continue
			}
			if n, ok := e.(json.Number); ok && durationKeys[k] {
				if ns, err := n.Int64(); err == nil {
					x[k] = time.Duration(ns).String()
					continue
				}
			}
			x[k] = humanize(e)
		}
	case []any:
		for i, e := range x {
			x[i] = humanize(e)
		}
	}
	return v
}
