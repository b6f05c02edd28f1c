package jobcontroller

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
)

// gatedSink writes the event broadcaster's events on ctx: once the
// controller's context has ended (a shutdown, or the loss of the Lease),
// no event is sent any more, not even one recorded by a sync just before.
// client-go's own sink sends on a context that nothing cancels, so a
// replica that stopped leading would still be writing events for a while.
type gatedSink struct {
	ctx    context.Context
	events typedcorev1.EventInterface
}

func (s gatedSink) Create(event *corev1.Event) (*corev1.Event, error) {
	return s.events.CreateWithEventNamespaceWithContext(s.ctx, event)
}

func (s gatedSink) Update(event *corev1.Event) (*corev1.Event, error) {
	return s.events.UpdateWithEventNamespaceWithContext(s.ctx, event)
}

func (s gatedSink) Patch(event *corev1.Event, data []byte) (*corev1.Event, error) {
	return s.events.PatchWithEventNamespaceWithContext(s.ctx, event, data)
}
