// Package apirules holds the rules of the API server that the simulated
// worlds of the tests share (jobsynctest's cluster and the interaction
// files of the library's own tests): how a claim's patch changes a pod,
// what a pod's deletion stores and when the pod leaves, and which Job
// status writes the API server's validation refuses. A world
// that applies its writes through these functions agrees with the others
// on what the API server accepts and stores.
//
// The status rules restate, in this project's code, the v1.36 API server's
// validation of the writes a Job controller can get wrong; they must be
// compared with upstream's by hand when the reference release changes.
package apirules
