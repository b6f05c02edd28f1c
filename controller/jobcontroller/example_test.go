package jobcontroller_test

import (
	"context"
	"fmt"
	"os"
	"os/signal"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/jobsync/jobsync/controller/jobcontroller"
)

// Running the controller against the cluster of a kubeconfig until
// interrupted. Jobs created with spec.managedBy: example.com/jobsync are
// its own.
func Example() {
	cfg, err := clientcmd.BuildConfigFromFlags("", os.Getenv("KUBECONFIG"))
	if err != nil {
		fmt.Println(err)
		return
	}
	client := kubernetes.NewForConfigOrDie(cfg)
	c, err := jobcontroller.New(client, jobcontroller.Options{ControllerName: "example.com/jobsync", Workers: 5})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := c.Run(ctx); err != nil {
		fmt.Println(err)
	}
}

func ExampleTrackingFinalizerFor() {
	fmt.Println(jobcontroller.TrackingFinalizerFor("example.com/jobsync"))
	fmt.Println(jobcontroller.TrackingFinalizerFor("batch.example.org/queues/team-a"))
	// Output:
	// example.com/jobsync-tracking
	// batch.example.org/queues.team-a-tracking
}
