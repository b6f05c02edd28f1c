package harness

import "fmt"

// onlyCreated returns the one object of a kind a sync created (nil for
// none), or, when it created more than one, an error of the sync as text
// to append to Outcome.Error. Both releases' scheduling_*.go use it, each
// with its own API version's types.
func onlyCreated[T any](created []*T, kind string) (*T, string) {
	switch len(created) {
	case 0:
		return nil, ""
	case 1:
		return created[0], ""
	}
	return nil, fmt.Sprintf("; %d %s created", len(created), kind)
}
