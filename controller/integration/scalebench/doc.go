// Package scalebench measures Job controllers on a real API server: one
// wide Job run to the end by upstream's Job controller, by jobcontroller
// holding its pods (the default) and by jobcontroller listing every pod a
// sync (Options.ScanPods), each on an API server of its own, the
// controller alone in a child process so that its CPU time and peak
// memory are its own. Both controllers' clients are configured as in
// production, as kube-controller-manager configures its own: protobuf
// (--kube-api-content-type's default, which jobsync-controller shares)
// and no compression. It reports the controller's CPU seconds, peak RSS,
// API requests by verb and the wall time, and checks that the Job ends
// with every pod counted once.
//
// Its tests hold the code: TestSmoke runs a Job of 200 pods through each
// controller on every test run; TestMeasure, behind -scalebench, runs the
// sizes asked for (controller/integration/README.md has the command).
package scalebench
