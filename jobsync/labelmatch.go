package jobsync

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// labelMatcher matches pod labels against the Job's selector. The usual
// selector (matchLabels only, as the API server generates it, most often
// the one controller-uid label) is matched by direct lookups, the single
// label inline; any other goes through the labels package. checkJob has
// already rejected selectors that do not parse. A nil selector matches
// nothing, as upstream's conversion makes it.
type labelMatcher struct {
	single     bool
	key, value string                  // the label, when single
	pairs      []struct{ k, v string } // matchLabels of several labels
	sel        labels.Selector         // any other selector; nil matches nothing
}

func newLabelMatcher(sel *metav1.LabelSelector) *labelMatcher {
	m := &labelMatcher{}
	if sel != nil && len(sel.MatchExpressions) == 0 && len(sel.MatchLabels) > 0 {
		for k, v := range sel.MatchLabels {
			m.key, m.value = k, v
			m.pairs = append(m.pairs, struct{ k, v string }{k, v})
		}
		m.single = len(m.pairs) == 1
		return m
	}
	if s, err := metav1.LabelSelectorAsSelector(sel); err == nil {
		m.sel = s
	}
	return m
}

func (m *labelMatcher) matches(l map[string]string) bool {
	if !m.single {
		return m.matchesSlow(l)
	}
	got, ok := l[m.key]
	return ok && got == m.value
}

func (m *labelMatcher) matchesSlow(l map[string]string) bool {
	if m.pairs != nil {
		for _, kv := range m.pairs {
			if got, ok := l[kv.k]; !ok || got != kv.v {
				return false
			}
		}
		return true
	}
	return m.sel != nil && m.sel.Matches(labels.Set(l))
}
