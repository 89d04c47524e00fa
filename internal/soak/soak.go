// Package soak is the seeded chaos soak of the ensure runtime (`make
// soak`): a random schedule, drawn from a seed, of our intent changes,
// other writers on the same objects, deletes, restarts and transport
// faults, against a real API server, with invariants checked at every
// quiet point. This package holds what needs no API server: the schedule,
// the model of server-side apply's field ownership the checks compare the
// live objects with, and the report; soak_test.go drives it on envtest.
//
// It imports nothing of the runtime under test.
package soak

import (
	"fmt"
	"time"
)

// Report is what a soak run counted.
type Report struct {
	Seed       uint64
	Operations int
	Checks     int
	Violations int
	// Requests are the writes our controller's replicas sent that reached
	// the API server; Changes the writes the model says were needed (a
	// create, a changed intent, a field of ours another writer changed, a
	// field to prune).
	Requests, Changes int
	// Doubts are applies sent that the model says changed nothing; Bound
	// is what the check allows of them: one per child for every event that
	// empties a replica's memory or hands a child to a replica with older
	// memory (a controller restart, a leader handover).
	Doubts, Bound int
	// DoubtsByCause splits the doubts by what the deciding client knew of
	// the child: "older memory" (it decided the child before, and another
	// client has since: a handover back), "empty memory" (it never
	// decided the child: a restart or a first handover), "same memory"
	// (it was the last to decide it).
	DoubtsByCause map[string]int
	// Kinds counts the operations of each kind, Time the time they took.
	Kinds [kinds]int
	Time  [kinds]time.Duration
	// Relists are the lists the informers made after a watch was cut.
	Relists int
	// WebhookCalls is how often the API server called the mutating webhook.
	WebhookCalls int
	// Goroutines and HeapMiB at the first and the last quiet point.
	GoroutinesStart, GoroutinesEnd int
	HeapMiBStart, HeapMiBEnd       float64
}

// Add sums other into r (several seeds).
func (r *Report) Add(other Report) {
	r.Operations += other.Operations
	r.Checks += other.Checks
	r.Violations += other.Violations
	r.Requests += other.Requests
	r.Changes += other.Changes
	r.Doubts += other.Doubts
	for k, v := range other.DoubtsByCause {
		if r.DoubtsByCause == nil {
			r.DoubtsByCause = map[string]int{}
		}
		r.DoubtsByCause[k] += v
	}
	r.Bound += other.Bound
	r.Relists += other.Relists
	r.WebhookCalls += other.WebhookCalls
	for k := range r.Kinds {
		r.Kinds[k] += other.Kinds[k]
		r.Time[k] += other.Time[k]
	}
}

// Summary is the last line of `make soak`.
func (r Report) Summary() string {
	return fmt.Sprintf("soak: %d operations, %d checks, %d violations, %d requests for %d changes",
		r.Operations, r.Checks, r.Violations, r.Requests, r.Changes)
}

// Details are the figures behind the summary.
func (r Report) Details() string {
	s := fmt.Sprintf("doubts %d (bound %d; %v), relists %d, webhook calls %d, goroutines %d → %d, heap %.1f → %.1f MiB; operations:",
		r.Doubts, r.Bound, r.DoubtsByCause, r.Relists, r.WebhookCalls, r.GoroutinesStart, r.GoroutinesEnd, r.HeapMiBStart, r.HeapMiBEnd)
	for k := Kind(0); k < kinds; k++ {
		s += fmt.Sprintf(" %s %d (%s)", k, r.Kinds[k], r.Time[k].Round(time.Second))
	}
	return s
}
