package soak

import (
	"fmt"
	"math/rand/v2"
)

// Kind is what one operation of the schedule does.
type Kind uint8

// The operations. Writers other than us act on one child; faults act on
// the whole system.
const (
	Intent        Kind = iota // our intent for a child changes
	Reconcile                 // the leader ensures every child
	ForeignApply              // another apply manager applies fields of its own
	ForeignUpdate             // another operator's Update (a PUT) sets its label
	KubectlApply              // a person's kubectl client-side apply sets a label
	StatusWrite               // a status writer applies a Proxy's status
	Edit                      // a person edits a field we own (an Update, like kubectl edit)
	Delete                    // a person deletes a child; with Flag, creates it again at once
	WatchCut                  // every watch breaks and the next one is answered 410: a relist
	Restart                   // the leader's process restarts: new informers, empty memory
	Handover                  // the other replica takes over (its memory as it left it)
	APIRestart                // the API server stops and starts on the same etcd
	Reset                     // the API server drops a child's managedFields (kubernetes #136919)
	StaleVersion              // a writer applies a Proxy through a CRD version, which is then removed
	FormerRelease             // former releases of our controller write with Update under former names
	Reused                    // our controller reuses an apply configuration an Apply wrote a resourceVersion into
	Fight                     // a mutating webhook rewrites a field our intent sets, then stops
	Check                     // a quiet point: reconcile until nothing moves, check
	kinds
)

var kindNames = [kinds]string{"intent", "reconcile", "foreign-apply", "foreign-update", "kubectl-apply",
	"status-write", "edit", "delete", "watch-cut", "restart", "handover", "api-restart",
	"managed-fields-reset", "stale-version", "former-release", "reused-configuration", "fight", "check"}

func (k Kind) String() string {
	if k < kinds {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// weights are per mille. The API server restart and a CRD version's
// coming and going cost seconds; the rest tens of milliseconds.
var weights = [kinds]int{
	Intent: 145, Reconcile: 175, ForeignApply: 90, ForeignUpdate: 80, KubectlApply: 50,
	StatusWrite: 70, Edit: 60, Delete: 50, WatchCut: 15, Restart: 40, Handover: 50,
	APIRestart: 10, Reset: 25, StaleVersion: 10, FormerRelease: 25, Reused: 20, Fight: 15, Check: 70,
}

// Op is one operation of the schedule. Everything it does is drawn from
// the seed when it is drawn, never from what the cluster answered, so a
// seed and a number of operations replay the same run.
type Op struct {
	N     int  // its place in the schedule, from 1
	Kind  Kind //
	Child int  // the child it acts on (writers, Intent, Delete)
	Flag  bool // Delete: a person creates it again at once
	R     uint64
}

func (o Op) String() string {
	return fmt.Sprintf("#%d %s", o.N, o.Kind)
}

// Schedule draws operations from a seed.
type Schedule struct {
	rng      *rand.Rand
	children int
	n        int
}

// NewSchedule is the schedule of seed over the given number of children.
func NewSchedule(seed uint64, children int) *Schedule {
	return &Schedule{rng: rand.New(rand.NewPCG(seed, 0x50a4)), children: children}
}

// Next draws the next operation.
func (s *Schedule) Next() Op {
	s.n++
	x := s.rng.IntN(1000)
	k := Kind(0)
	for ; k < kinds-1 && x >= weights[k]; k++ {
		x -= weights[k]
	}
	return Op{N: s.n, Kind: k, Child: s.rng.IntN(s.children), Flag: s.rng.IntN(2) == 0, R: s.rng.Uint64()}
}

// Rand is the operation's own source of the values it writes.
func (o Op) Rand() *rand.Rand { return rand.New(rand.NewPCG(o.R, uint64(o.N))) }
