package audit

import (
	"cmp"
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

// Aggregator adds events up into a report.
type Aggregator struct {
	// Since drops the events that completed before it.
	Since time.Time

	rows    map[Key]*Row
	lastRV  map[object]string
	pending map[pendingCreate]bool
	series  map[Writer]map[time.Time]*Minute
	events  int
	first   time.Time
	last    time.Time
}

type pendingCreate struct {
	Writer
	object
}

func (a *Aggregator) row(k Key) *Row {
	if a.rows == nil {
		a.rows = map[Key]*Row{}
	}
	r, ok := a.rows[k]
	if !ok {
		r = &Row{Key: k}
		a.rows[k] = r
	}
	return r
}

func (a *Aggregator) minute(w Writer, t time.Time) *Minute {
	if a.series == nil {
		a.series = map[Writer]map[time.Time]*Minute{}
	}
	m := a.series[w]
	if m == nil {
		m = map[time.Time]*Minute{}
		a.series[w] = m
	}
	start := t.Truncate(time.Minute)
	if m[start] == nil {
		m[start] = &Minute{Start: start}
	}
	return m[start]
}

// Add counts one event. Only completed requests on resources count: the
// other stages of the same request (RequestReceived, ResponseStarted)
// would count it twice, and non-resource URLs have no writer's object.
func (a *Aggregator) Add(e *Event) {
	if (e.Stage != "ResponseComplete" && e.Stage != "Panic") || e.ObjectRef == nil || e.ObjectRef.Resource == "" {
		return
	}
	if !a.Since.IsZero() && e.StageTimestamp.Before(a.Since) {
		return
	}
	if a.lastRV == nil {
		a.lastRV = map[object]string{}
		a.pending = map[pendingCreate]bool{}
	}
	a.events++
	if a.first.IsZero() || e.StageTimestamp.Before(a.first) {
		a.first = e.StageTimestamp
	}
	if e.StageTimestamp.After(a.last) {
		a.last = e.StageTimestamp
	}
	w := Writer{User: e.User.Username, UserAgent: e.UserAgent, FieldManager: e.fieldManager()}
	if e.ImpersonatedUser != nil {
		w.User += " as " + e.ImpersonatedUser.Username
	}
	ref := e.ObjectRef
	k := Key{Writer: w, Group: ref.APIGroup, Resource: ref.Resource, Subresource: ref.Subresource, Verb: e.Verb}
	r := a.row(k)
	r.Requests++
	code := e.code()
	obj := object{ref.APIGroup, ref.Resource, ref.Namespace, ref.Name}
	after := resourceVersionOf(e.ResponseObject)
	switch {
	case code == 409:
		r.Conflicts++
		a.minute(w, e.StageTimestamp).Conflicts++
		if e.Verb == "create" && ref.Subresource == "" && ref.Name != "" {
			a.pending[pendingCreate{w, obj}] = true
		}
	case code >= 200 && code < 300 && (e.Verb == "update" || e.Verb == "patch"):
		before := a.lastRV[obj]
		if e.Verb == "update" {
			// An update names the version it replaces.
			if rv := resourceVersionOf(e.RequestObject); rv != "" {
				before = rv
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
			a.minute(w, e.StageTimestamp).NoopWrites++
		}
		if ref.Subresource == "" && a.pending[pendingCreate{w, obj}] {
			delete(a.pending, pendingCreate{w, obj})
			a.row(Key{Writer: w, Group: ref.APIGroup, Resource: ref.Resource, Verb: "create"}).CreateConflictUpdate++
		}
	}
	switch {
	case e.Verb == "delete" && code >= 200 && code < 300:
		delete(a.lastRV, obj)
	case after != "" && ref.Name != "":
		a.lastRV[obj] = after
	}
}

// Report returns the rows, costliest first, and each writer's minutes.
func (a *Aggregator) Report() *Report {
	rep := &Report{Events: a.events, First: a.first, Last: a.last, Series: map[Writer][]Minute{}}
	for _, r := range a.rows {
		rep.Rows = append(rep.Rows, r)
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
