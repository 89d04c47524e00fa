package audit

import (
	"cmp"
	"container/list"
	"slices"
	"time"
)

// Writer is who sends requests: the authenticated user (with the user it
// impersonates), the client's user agent and the field manager it names.
type Writer struct {
	User         string `json:"writer"`
	UserAgent    string `json:"userAgent"`
	FieldManager string `json:"fieldManager,omitempty"`
}

// Key is a row of the report: a writer's requests of one verb on one
// resource (and subresource).
type Key struct {
	Writer
	Group       string `json:"group"`
	Resource    string `json:"resource"`
	Subresource string `json:"subresource"`
	Verb        string `json:"verb"`
}

// Row is what a writer spent on a resource with a verb.
type Row struct {
	Key
	// Requests answered, Conflicts among them (409).
	Requests  int `json:"requests"`
	Conflicts int `json:"conflicts"`
	// ConflictsPerMinute is Conflicts over the span of the whole log.
	ConflictsPerMinute float64 `json:"conflictsPerMinute"`
	// NoopWrites are updates and patches answered 200 whose object kept
	// its resourceVersion: they changed nothing.
	NoopWrites int `json:"noopWrites"`
	// Undecided are updates and patches answered 200 whose effect the log
	// cannot tell: no response body (a policy level below
	// RequestResponse), or no earlier resourceVersion of the object.
	Undecided int `json:"undecided"`
	// CreateConflictUpdate counts, on a create row, the creates answered
	// 409 that the same writer followed with an update or patch of the
	// same object.
	CreateConflictUpdate int `json:"createConflictUpdate"`
	// Sites are the source lines behind the row (ssagen audit --source).
	Sites []Site `json:"sites"`
}

// Cost is the requests the row spent for nothing: 409s and writes that
// changed nothing.
func (r *Row) Cost() int { return r.Conflicts + r.NoopWrites }

// Site is a finding of ssagen vet that explains a row.
type Site struct {
	Pos      string `json:"pos"`
	Category string `json:"category"`
	Message  string `json:"message"`
}

// Minute is a writer's 409s and no-op writes in one minute.
type Minute struct {
	Start      time.Time `json:"start"`
	Conflicts  int       `json:"conflicts"`
	NoopWrites int       `json:"noopWrites"`
}

// Report is the aggregate of a log.
type Report struct {
	Rows []*Row
	// Events are the completed requests read; Skipped the lines that
	// were not events.
	Events, Skipped int
	First, Last     time.Time
	// Series holds each writer's minutes with a 409 or a no-op write.
	Series map[Writer][]Minute
}

// Minutes is the span of the log, at least one.
func (r *Report) Minutes() float64 {
	return max(1, r.Last.Sub(r.First).Minutes())
}

// object names one object across verbs and subresources.
type object struct{ group, resource, namespace, name string }

// Aggregator adds events up into a report. Its zero value keeps every
// row, object and minute it sees, which is right for one log read once;
// a long-running reader (ssagen audit serve) bounds them.
type Aggregator struct {
	// Since drops the events that completed before it.
	Since time.Time
	// MaxObjects bounds the objects whose last resourceVersion (and
	// pending create) is kept; past it, the least recently written is
	// forgotten, and its next patch counts as undecided. 0: no bound.
	MaxObjects int
	// MaxRows bounds the rows; past it, a new row's requests are counted
	// in the row of Overflow with the same resource and verb. 0: no bound.
	MaxRows int
	// SeriesWindow keeps only the minutes this close to the newest event
	// in each writer's series. 0: every minute.
	SeriesWindow time.Duration

	rows   map[Key]*Row
	lastRV map[object]*objectState
	series map[Writer]map[time.Time]*Minute
	events int
	first  time.Time
	last   time.Time
	pruned time.Time
	stats  Stats

	// lru lists the objects in lastRV, least recently written first.
	lru *list.List
}

// Overflow is the writer whose rows hold the requests of writers past
// Aggregator.MaxRows.
var Overflow = Writer{User: "(rows past the limit)"}

// Stats says what a bounded Aggregator left out.
type Stats struct {
	// ObjectsForgotten are objects dropped past MaxObjects; RowsFolded
	// the events counted in an Overflow row past MaxRows.
	ObjectsForgotten, RowsFolded int
	// Objects and Rows are the objects and rows kept now.
	Objects, Rows int
}

// Stats returns the counts of what the bounds left out, and what is kept.
func (a *Aggregator) Stats() Stats {
	s := a.stats
	s.Objects, s.Rows = len(a.lastRV), len(a.rows)
	return s
}

// objectState is what the aggregator remembers of an object: the
// resourceVersion a response last showed, and the writers whose create
// of it answered 409 and who have not yet written it since.
type objectState struct {
	key     object
	rv      string
	pending []Writer
	elem    *list.Element // in Aggregator.lru
}

// record is the part of an event the aggregator reads: what a server
// keeps in memory per event, instead of the bodies.
type record struct {
	stage, verb string
	writer      Writer
	ref         ObjectRef
	code        int
	requestRV   string // metadata.resourceVersion of the request's object
	responseRV  string // and of the response's
	at          time.Time
}

// record keeps what the aggregator reads of e; false for an event it
// does not count (a stage other than the completion, a non-resource URL).
func (e *Event) record() (record, bool) {
	if (e.Stage != "ResponseComplete" && e.Stage != "Panic") || e.ObjectRef == nil || e.ObjectRef.Resource == "" {
		return record{}, false
	}
	w := Writer{User: e.User.Username, UserAgent: e.UserAgent, FieldManager: e.fieldManager()}
	if e.ImpersonatedUser != nil {
		w.User += " as " + e.ImpersonatedUser.Username
	}
	r := record{stage: e.Stage, verb: e.Verb, writer: w, ref: *e.ObjectRef, code: e.code(), responseRV: e.ResponseObject.version(), at: e.StageTimestamp}
	if e.Verb == "update" {
		r.requestRV = e.RequestObject.version()
	}
	return r, true
}

func (a *Aggregator) row(k Key) *Row {
	if a.rows == nil {
		a.rows = map[Key]*Row{}
	}
	r, ok := a.rows[k]
	if !ok {
		if a.MaxRows > 0 && len(a.rows) >= a.MaxRows && k.Writer != Overflow {
			a.stats.RowsFolded++
			k = Key{Writer: Overflow, Group: k.Group, Resource: k.Resource, Subresource: k.Subresource, Verb: k.Verb}
			if r, ok = a.rows[k]; ok {
				return r
			}
		}
		r = &Row{Key: k}
		a.rows[k] = r
	}
	return r
}

func (a *Aggregator) minute(w Writer, t time.Time) *Minute {
	if a.series == nil {
		a.series = map[Writer]map[time.Time]*Minute{}
	}
	start := t.Truncate(time.Minute)
	if a.SeriesWindow > 0 && start.After(a.pruned) {
		a.pruned = start
		a.pruneSeries(start.Add(-a.SeriesWindow))
	}
	m := a.series[w]
	if m == nil {
		m = map[time.Time]*Minute{}
		a.series[w] = m
	}
	if m[start] == nil {
		m[start] = &Minute{Start: start}
	}
	return m[start]
}

// pruneSeries drops the minutes before cut, and the writers left with none.
func (a *Aggregator) pruneSeries(cut time.Time) {
	for w, ms := range a.series {
		for start := range ms {
			if start.Before(cut) {
				delete(ms, start)
			}
		}
		if len(ms) == 0 {
			delete(a.series, w)
		}
	}
}

// state is the remembered state of obj, created (and made the most
// recently written) when create is set; nil when it is not known.
func (a *Aggregator) state(obj object, create bool) *objectState {
	if a.lastRV == nil {
		a.lastRV = map[object]*objectState{}
		a.lru = list.New()
	}
	s := a.lastRV[obj]
	switch {
	case s != nil:
		a.lru.MoveToBack(s.elem)
	case !create:
		return nil
	default:
		if a.MaxObjects > 0 && len(a.lastRV) >= a.MaxObjects {
			a.forget(a.lru.Front().Value.(*objectState))
			a.stats.ObjectsForgotten++
		}
		s = &objectState{key: obj}
		s.elem = a.lru.PushBack(s)
		a.lastRV[obj] = s
	}
	return s
}

func (a *Aggregator) forget(s *objectState) {
	a.lru.Remove(s.elem)
	delete(a.lastRV, s.key)
}

// Add counts one event. Only completed requests on resources count: the
// other stages of the same request (RequestReceived, ResponseStarted)
// would count it twice, and non-resource URLs have no writer's object.
func (a *Aggregator) Add(e *Event) {
	if r, ok := e.record(); ok {
		a.add(&r)
	}
}

func (a *Aggregator) add(e *record) {
	if !a.Since.IsZero() && e.at.Before(a.Since) {
		return
	}
	a.events++
	if a.first.IsZero() || e.at.Before(a.first) {
		a.first = e.at
	}
	if e.at.After(a.last) {
		a.last = e.at
	}
	w, ref := e.writer, &e.ref
	r := a.row(Key{Writer: w, Group: ref.APIGroup, Resource: ref.Resource, Subresource: ref.Subresource, Verb: e.verb})
	r.Requests++
	code := e.code
	obj := object{ref.APIGroup, ref.Resource, ref.Namespace, ref.Name}
	after := e.responseRV
	switch {
	case code == 409:
		r.Conflicts++
		a.minute(w, e.at).Conflicts++
		if e.verb == "create" && ref.Subresource == "" && ref.Name != "" {
			s := a.state(obj, true)
			if !slices.Contains(s.pending, w) {
				s.pending = append(s.pending, w)
			}
		}
	case code >= 200 && code < 300 && (e.verb == "update" || e.verb == "patch"):
		s := a.state(obj, false)
		before := ""
		if s != nil {
			before = s.rv
		}
		if e.verb == "update" {
			// An update names the version it replaces.
			if e.requestRV != "" {
				before = e.requestRV
			} else if ref.ResourceVersion != "" {
				before = ref.ResourceVersion
			}
		}
		switch {
		case code == 201:
			// An apply (or an update) that created the object.
		case after == "" || before == "":
			r.Undecided++
		case after == before:
			r.NoopWrites++
			a.minute(w, e.at).NoopWrites++
		}
		if s != nil && ref.Subresource == "" {
			if i := slices.Index(s.pending, w); i >= 0 {
				s.pending = slices.Delete(s.pending, i, i+1)
				a.row(Key{Writer: w, Group: ref.APIGroup, Resource: ref.Resource, Verb: "create"}).CreateConflictUpdate++
			}
		}
	}
	switch {
	case e.verb == "delete" && code >= 200 && code < 300:
		if s := a.state(obj, false); s != nil {
			a.forget(s)
		}
	case after != "" && ref.Name != "":
		a.state(obj, true).rv = after
	}
}

// Report returns the rows, costliest first, and each writer's minutes.
func (a *Aggregator) Report() *Report {
	rep := &Report{Events: a.events, First: a.first, Last: a.last, Series: map[Writer][]Minute{}}
	for _, r := range a.rows {
		c := *r // the report's rows are its own: the aggregator goes on counting
		rep.Rows = append(rep.Rows, &c)
	}
	minutes := rep.Minutes()
	for _, r := range rep.Rows {
		r.ConflictsPerMinute = float64(r.Conflicts) / minutes
	}
	slices.SortFunc(rep.Rows, func(x, y *Row) int {
		return cmp.Or(
			cmp.Compare(y.Cost(), x.Cost()),
			cmp.Compare(y.CreateConflictUpdate, x.CreateConflictUpdate),
			cmp.Compare(y.Requests, x.Requests),
			cmp.Compare(x.User, y.User), cmp.Compare(x.UserAgent, y.UserAgent), cmp.Compare(x.FieldManager, y.FieldManager),
			cmp.Compare(x.Group, y.Group), cmp.Compare(x.Resource, y.Resource), cmp.Compare(x.Subresource, y.Subresource),
			cmp.Compare(x.Verb, y.Verb))
	})
	for w, ms := range a.series {
		var list []Minute
		for _, m := range ms {
			list = append(list, *m)
		}
		slices.SortFunc(list, func(x, y Minute) int { return x.Start.Compare(y.Start) })
		rep.Series[w] = list
	}
	return rep
}
